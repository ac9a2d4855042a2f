/** SQL of /planet/:planetId/history: raw ticks for short windows, the hourly rollup for long ones. */
import type { Sql } from '../db/connect.ts'

export interface PlanetPointRaw {
  t: Date
  owner: number
  health: number
  regen_per_second: number
  players: number
}

export async function planetMaxHealth(sql: Sql, warId: number, planetIndex: number): Promise<number | null> {
  const [row] = await sql<{ max_health: number }[]>`
    SELECT max_health FROM planets WHERE war_id = ${warId} AND planet_index = ${planetIndex}`
  return row?.max_health ?? null
}

/** Every full-status tick of the planet in [from, to], oldest first. */
export function rawTicks(sql: Sql, warId: number, planetIndex: number, from: Date, to: Date) {
  return sql<PlanetPointRaw[]>`
    SELECT captured_at AS t, owner, health, regen_per_second, players
    FROM planet_status_snapshots
    WHERE war_id = ${warId} AND planet_index = ${planetIndex} AND captured_at >= ${from} AND captured_at <= ${to}
    ORDER BY captured_at`
}

/**
 * Hourly buckets from the planet_status_1h rollup, oldest first: the state at the end of
 * each hour and the players averaged over it. `from` must be hour-aligned.
 */
export function hourlyBuckets(sql: Sql, warId: number, planetIndex: number, from: Date, to: Date) {
  return sql<PlanetPointRaw[]>`
    SELECT bucket AS t, owner, health, regen_per_second, round(players_sum::numeric / n)::int AS players
    FROM planet_status_1h
    WHERE war_id = ${warId} AND planet_index = ${planetIndex} AND bucket >= ${from} AND bucket <= ${to}
    ORDER BY bucket`
}

const HOUR_MS = 3_600_000

/**
 * The planet's maxHealth and its points over the `hours` before `now`: raw ticks up to
 * `rawUpToHours`, hourly rollup buckets beyond (then `from` is hour-aligned). Null when
 * the planet is not known for that war.
 */
export async function planetHistory(sql: Sql, f: { warId: number; planetIndex: number; hours: number; rawUpToHours: number; now: Date }) {
  const maxHealth = await planetMaxHealth(sql, f.warId, f.planetIndex)
  if (maxHealth === null) return null
  const to = f.now
  let from = new Date(to.getTime() - f.hours * HOUR_MS)
  let rows: PlanetPointRaw[]
  if (f.hours <= f.rawUpToHours) rows = await rawTicks(sql, f.warId, f.planetIndex, from, to)
  else {
    // time_bucket's origin (2000-01-03 00:00 UTC) is hour-aligned: flooring to the hour matches the rollup.
    from = new Date(Math.floor(from.getTime() / HOUR_MS) * HOUR_MS)
    rows = await hourlyBuckets(sql, f.warId, f.planetIndex, from, to)
  }
  return { maxHealth, from, to, rows }
}
