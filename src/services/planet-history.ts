/**
 * A planet's liberation curve over the last hours: every full-status tick up to
 * HOURS.rawUpTo hours, hourly rollup buckets beyond, and how much of the window its stored
 * history spans. Route: routes/planet-history.ts; SQL: storage/planet-status.ts (planetOf,
 * ticks, hourly, historyEdges).
 */
import type { Store } from '../storage/index.ts'
import type { PlanetPoint } from '../storage/planet-status.ts'
import type { WindowEdges } from '../storage/time-pages.ts'
import { libPctOf } from '../war/liberation.ts'
import { coverageOf } from '../war/data-age.ts'

export const HOURS = { default: 24, max: 720, rawUpTo: 48 } as const
const HOUR_MS = 3_600_000

/** Liberation percentage (src/war/liberation.ts), rounded to 4 decimals. */
export const libPct = (owner: number, health: number, maxHealth: number) => Math.round(libPctOf(owner, health, maxHealth) * 10_000) / 10_000

const hourFloor = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS
const pointOf = (p: PlanetPoint, maxHealth: number) =>
  ({ t: p.t, libPct: libPct(p.owner, p.health, maxHealth), players: p.players, owner: p.owner, health: p.health, regenPerSecond: p.regenPerSecond })

export interface PlanetHistoryQuery {
  warId: number
  planetIndex: number
  hours: number
}

/** A planet's history as computed (the route's 200 answer). */
export type PlanetHistory = NonNullable<Awaited<ReturnType<PlanetHistoryService['history']>>>

export class PlanetHistoryService {
  constructor(private readonly store: Pick<Store, 'planetStatus'>) {}

  /** Whether the points are raw ticks (else hourly buckets). */
  private raw = (hours: number) => hours <= HOURS.rawUpTo

  /**
   * Where the window of `hours` before `to` starts. Hourly buckets start on the hour
   * (time_bucket's origin, 2000-01-03 00:00 UTC, is hour-aligned, so flooring to the hour
   * matches the rollup).
   */
  from(hours: number, to: Date): Date {
    const start = to.getTime() - hours * HOUR_MS
    return new Date(this.raw(hours) ? start : hourFloor(start))
  }

  /** What identifies an answer besides its query for one data version: the hour an hourly window starts at. */
  windowKey(hours: number, to: Date): string {
    return this.raw(hours) ? '' : String(this.from(hours, to).getTime())
  }

  /** The window's length when it moves with the clock (raw ticks), null when it starts on a fixed hour. */
  spanMs(hours: number): number | null {
    return this.raw(hours) ? hours * HOUR_MS : null
  }

  /** The planet's oldest and newest ticks from the window's start: how long an answer holds. */
  edges(q: PlanetHistoryQuery, to: Date): Promise<WindowEdges> {
    return this.store.planetStatus.historyEdges({ warId: q.warId, planetIndex: q.planetIndex }, this.from(q.hours, to))
  }

  /**
   * The answer's coverage at `to`: the share of its window then from the planet's first
   * tick on. It changes with every request while the history is younger than the window.
   */
  coverageAt(answer: { since: Date | null }, hours: number, to: Date): number {
    return coverageOf(answer.since, this.from(hours, to), to)
  }

  /**
   * The planet's curve as of `to`, with its first stored tick in the war (`since`) and the
   * share of the window from that tick on (`coverage`); null when the planet is not known
   * for that war.
   */
  async history(q: PlanetHistoryQuery, to: Date) {
    const { warId, planetIndex, hours } = q
    const from = this.from(hours, to)
    const [planet, points] = await Promise.all([
      this.store.planetStatus.planetOf(warId, planetIndex),
      this.raw(hours) ? this.store.planetStatus.ticks(warId, planetIndex, from, to) : this.store.planetStatus.hourly(warId, planetIndex, from, to),
    ])
    if (planet === null) return null
    const { maxHealth, since } = planet
    return { warId, planetIndex, maxHealth, from, to, since, coverage: coverageOf(since, from, to), points: points.map((p) => pointOf(p, maxHealth)) }
  }
}
