/**
 * Liberation rate and ETA of a planet from its stored status ticks (docs/api.md "War
 * intelligence"). Pure: the route reads the ticks, this decides.
 *
 * - libPct: (maxHealth - health) / maxHealth × 100 on a planet an enemy holds (100 = liberated),
 *   health / maxHealth × 100 on a planet the players hold (0 = lost).
 * - rate: the least-squares slope of libPct against time (%/hour) over the ticks of the
 *   window since the planet's last owner change (a change resets the scale); at least two
 *   ticks at least MIN_SPAN apart, else unknown. Gaps do not matter: each tick counts at its time.
 * - regen: the latest tick's regeneration, regenPerSecond × 3600 / maxHealth × 100, working
 *   against the players on an enemy planet; impact = rate + regen there (what the players
 *   did before the enemy regenerated). On a planet the players hold it is not split (null).
 * - outlook: enemy planet: rising faster than STALEMATE_RATE → liberation, ETA when libPct
 *   reaches 100; else stalemate (the rate cannot reach it). Player planet: falling faster
 *   than STALEMATE_RATE → loss, ETA when libPct reaches 0; else stalemate.
 */

import { ageSeconds } from './data-age.ts'

export const HUMANS = 1
/** Below this (in %/hour, either way) the front does not move: 10,000 hours for the whole bar. */
export const STALEMATE_RATE = 0.01
/** A rate needs ticks spanning at least this long. */
export const MIN_SPAN_MS = 5 * 60_000

export interface StatusTick {
  t: Date
  owner: number
  health: number
  regenPerSecond: number
  players: number
}

export type Outlook = 'liberation' | 'loss' | 'stalemate' | 'unknown'

export interface Liberation {
  owner: number
  libPct: number
  players: number
  ratePctPerHour: number | null
  regenPctPerHour: number
  impactPctPerHour: number | null
  samples: number
  since: Date | null
  outlook: Outlook
  eta: Date | null
  etaHours: number | null
  capturedAt: Date
  ageSeconds: number
}

const HOUR_MS = 3_600_000
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits

export function libPctOf(owner: number, health: number, maxHealth: number): number {
  if (maxHealth <= 0) return 0
  return ((owner === HUMANS ? health : maxHealth - health) / maxHealth) * 100
}

/** Least-squares slope of y against x; null for fewer than two distinct x. */
export function slope(xs: number[], ys: number[]): number | null {
  const n = xs.length
  if (n < 2) return null
  const mx = xs.reduce((a, b) => a + b, 0) / n
  const my = ys.reduce((a, b) => a + b, 0) / n
  let sxy = 0
  let sxx = 0
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my)
    sxx += (xs[i]! - mx) ** 2
  }
  return sxx === 0 ? null : sxy / sxx
}

/**
 * The outlook of a planet from its ticks in the window (oldest first; the last one is its
 * current state). Null without ticks.
 */
export function liberation(ticks: readonly StatusTick[], maxHealth: number, asOf: Date): Liberation | null {
  const last = ticks.at(-1)
  if (!last) return null
  // Only the ticks since the last owner change.
  let first = ticks.length - 1
  while (first > 0 && ticks[first - 1]!.owner === last.owner) first--
  const used = ticks.slice(first)
  const t0 = used[0]!.t.getTime()
  const libPct = libPctOf(last.owner, last.health, maxHealth)
  const regen = maxHealth > 0 ? (last.regenPerSecond * 3600 * 100) / maxHealth : 0
  const enough = last.t.getTime() - t0 >= MIN_SPAN_MS
  const rate = enough ? slope(used.map((p) => (p.t.getTime() - t0) / HOUR_MS), used.map((p) => libPctOf(p.owner, p.health, maxHealth))) : null
  const enemyHeld = last.owner !== HUMANS

  let outlook: Outlook = 'unknown'
  let etaHours: number | null = null
  if (rate !== null) {
    if (enemyHeld && rate > STALEMATE_RATE) {
      outlook = 'liberation'
      etaHours = (100 - libPct) / rate
    } else if (!enemyHeld && rate < -STALEMATE_RATE) {
      outlook = 'loss'
      etaHours = libPct / -rate
    } else outlook = 'stalemate'
  }
  // The ETA counts from the last tick, not from the request.
  const eta = etaHours === null ? null : new Date(last.t.getTime() + etaHours * HOUR_MS)
  return {
    owner: last.owner,
    libPct: round(libPct, 4),
    players: last.players,
    ratePctPerHour: rate === null ? null : round(rate, 4),
    regenPctPerHour: round(regen, 4),
    impactPctPerHour: rate === null || !enemyHeld ? null : round(rate + regen, 4),
    samples: used.length,
    since: used[0]!.t,
    outlook,
    eta,
    etaHours: etaHours === null ? null : round((eta!.getTime() - asOf.getTime()) / HOUR_MS, 2),
    capturedAt: last.t,
    ageSeconds: ageSeconds(last.t, asOf),
  }
}
