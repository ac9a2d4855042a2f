/**
 * Progress, rate, ETA and outlook of a front from its stored ticks (docs/api.md "War
 * intelligence"). Pure: services read the ticks, this decides.
 *
 * - A front's bar (progressPct, 0..100, the players' side):
 *   - an enemy planet: (maxHealth - health) / maxHealth × 100 (100 = liberated);
 *   - a players' planet: health / maxHealth × 100 (0 = lost);
 *   - a defense (a planet event): the share of the event's health taken,
 *     (maxHealth - health) / maxHealth × 100 (100 = the attack is beaten).
 * - rate: the least-squares slope of the bar against capture time (%/hour) over the
 *   window's ticks since the front began (a planet's last owner change, a campaign's or an
 *   event's first tick); at least two ticks at least MIN_SPAN apart, else unknown. Capture
 *   time, not war time: the war clock can stop (a frozen war) while players watch the bar.
 * - outlook, the players' side:
 *   - without a deadline: rising faster than STALEMATE_RATE → winning (ETA when the bar
 *     reaches 100); falling faster → losing (ETA when it reaches 0, where 0 means a
 *     loss: a players' planet); else stalemate;
 *   - with a deadline (a defense): winning when the ETA to 100 is at or before the
 *     deadline, else losing (falling, flat, or too slow); marginHours = deadline - ETA;
 *     requiredRatePctPerHour: what reaches 100 exactly at the deadline;
 *   - unknown: too few ticks, or the war is frozen (nothing is projected while its clock
 *     stands still).
 * - regen (a planet without an event): the latest tick's regeneration,
 *   regenPerSecond × 3600 / maxHealth × 100, working against the players on an enemy
 *   planet; impact = rate + regen there (what the players did before the enemy
 *   regenerated). On a players' planet it means nothing: null.
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

/** A tick of a front's bar. */
export interface ProgressPoint {
  t: Date
  pct: number
}

export type Outlook = 'winning' | 'losing' | 'stalemate' | 'unknown'

export interface Projection {
  progressPct: number
  ratePctPerHour: number | null
  samples: number
  since: Date
  outlook: Outlook
  /** When the bar reaches 100 (rising) or 0 (falling, where 0 is a loss) at the current rate. */
  eta: Date | null
  etaHours: number | null
  deadline: Date | null
  requiredRatePctPerHour: number | null
  marginHours: number | null
  capturedAt: Date
  ageSeconds: number
}

export interface ProjectOptions {
  asOf: Date
  /** The moment the front is decided by (a defense's expiry); null: none. */
  deadline: Date | null
  /** Whether a bar at 0 is a loss (a players' planet), so a falling bar has an ETA. */
  zeroIsLoss: boolean
  /** The war's clock stands still: nothing is projected. */
  frozen: boolean
}

const HOUR_MS = 3_600_000
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits
const hoursBetween = (from: Date, to: Date) => (to.getTime() - from.getTime()) / HOUR_MS

export function libPctOf(owner: number, health: number, maxHealth: number): number {
  if (maxHealth <= 0) return 0
  return ((owner === HUMANS ? health : maxHealth - health) / maxHealth) * 100
}

/** A defense's bar: the share of the event's health taken. */
export const eventPctOf = (health: number, maxHealth: number) => (maxHealth > 0 ? ((maxHealth - health) / maxHealth) * 100 : 0)

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

/** The bar's rate in %/hour (unrounded): null with too few ticks, or ticks spanning less than MIN_SPAN. */
export function rateOf(points: readonly ProgressPoint[]): number | null {
  if (points.length < 2) return null
  const t0 = points[0]!.t.getTime()
  if (points.at(-1)!.t.getTime() - t0 < MIN_SPAN_MS) return null
  return slope(points.map((p) => (p.t.getTime() - t0) / HOUR_MS), points.map((p) => p.pct))
}

/** The rate, ETA and outlook of a front from its bar's ticks (oldest first, the front's own ticks only); null without ticks. */
export function project(points: readonly ProgressPoint[], o: ProjectOptions): Projection | null {
  const last = points.at(-1)
  if (!last) return null
  const first = points[0]!
  const pct = last.pct
  const rate = rateOf(points)
  const hoursLeft = o.deadline ? hoursBetween(last.t, o.deadline) : null

  let outlook: Outlook = 'unknown'
  let etaHours: number | null = null
  if (rate !== null && !o.frozen) {
    if (rate > STALEMATE_RATE) etaHours = (100 - pct) / rate
    else if (rate < -STALEMATE_RATE && o.zeroIsLoss && hoursLeft === null) etaHours = pct / -rate
    if (hoursLeft !== null) outlook = rate > STALEMATE_RATE && etaHours! <= hoursLeft ? 'winning' : 'losing'
    else outlook = rate > STALEMATE_RATE ? 'winning' : rate < -STALEMATE_RATE ? 'losing' : 'stalemate'
  }
  // The ETA counts from the last tick, not from the request.
  const eta = etaHours === null ? null : new Date(last.t.getTime() + etaHours * HOUR_MS)
  const projecting = o.deadline !== null && !o.frozen && hoursLeft! > 0
  return {
    progressPct: round(pct, 4),
    ratePctPerHour: rate === null ? null : round(rate, 4),
    samples: points.length,
    since: first.t,
    outlook,
    eta,
    etaHours: eta === null ? null : round(hoursBetween(o.asOf, eta), 2),
    deadline: o.deadline,
    requiredRatePctPerHour: projecting ? round(Math.max(0, 100 - pct) / hoursLeft!, 4) : null,
    marginHours: eta !== null && o.deadline !== null && rate! > 0 ? round(hoursBetween(eta, o.deadline), 2) : null,
    capturedAt: last.t,
    ageSeconds: ageSeconds(last.t, o.asOf),
  }
}

export interface Liberation extends Omit<Projection, 'progressPct'> {
  owner: number
  libPct: number
  players: number
  regenPctPerHour: number | null
  impactPctPerHour: number | null
}

/**
 * A planet's liberation from its status ticks in the window (oldest first; the last one is
 * its current state), over the ticks since its last owner change. Null without ticks.
 */
export function liberation(ticks: readonly StatusTick[], maxHealth: number, o: { asOf: Date; frozen: boolean }): Liberation | null {
  const last = ticks.at(-1)
  if (!last) return null
  let first = ticks.length - 1
  while (first > 0 && ticks[first - 1]!.owner === last.owner) first--
  const enemyHeld = last.owner !== HUMANS
  const points = ticks.slice(first).map((p) => ({ t: p.t, pct: libPctOf(p.owner, p.health, maxHealth) }))
  const { progressPct, ...p } = project(points, { asOf: o.asOf, deadline: null, zeroIsLoss: !enemyHeld, frozen: o.frozen })!
  const regen = enemyHeld ? (maxHealth > 0 ? (last.regenPerSecond * 3600 * 100) / maxHealth : 0) : null
  const rate = rateOf(points)
  return {
    owner: last.owner,
    libPct: progressPct,
    players: last.players,
    ...p,
    regenPctPerHour: regen === null ? null : round(regen, 4),
    impactPctPerHour: rate === null || regen === null ? null : round(rate + regen, 4),
  }
}
