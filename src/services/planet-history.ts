/**
 * A planet's liberation curve over the last hours: every full-status tick up to
 * HOURS.rawUpTo hours, hourly rollup buckets beyond. Route: routes/planet-history.ts;
 * SQL: storage/planet-status.ts (ticks, hourly, historyEdges) and storage/war.ts (maxHealth).
 */
import type { Store } from '../storage/index.ts'
import type { PlanetPoint } from '../storage/planet-status.ts'
import type { WindowEdges } from '../storage/time-pages.ts'
import { libPctOf } from '../war/liberation.ts'

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

export class PlanetHistoryService {
  constructor(private readonly store: Pick<Store, 'planetStatus' | 'war'>) {}

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

  /** The planet's curve as of `to`; null when the planet is not known for that war. */
  async history(q: PlanetHistoryQuery, to: Date) {
    const { warId, planetIndex, hours } = q
    const from = this.from(hours, to)
    const [maxHealth, points] = await Promise.all([
      this.store.war.planetMaxHealth(warId, planetIndex),
      this.raw(hours) ? this.store.planetStatus.ticks(warId, planetIndex, from, to) : this.store.planetStatus.hourly(warId, planetIndex, from, to),
    ])
    if (maxHealth === null) return null
    return { warId, planetIndex, maxHealth, from, to, points: points.map((p) => pointOf(p, maxHealth)) }
  }
}
