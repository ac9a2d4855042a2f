/** planet_status_snapshots (one row per planet per full-status tick) and its hourly rollup. */
import { t, type Static } from 'elysia'
import type { Sql, Tx } from '../db/connect.ts'
import { selectRow, Timestamp } from './model.ts'
import type { Page, PageOf, TimeRange } from './query.ts'
import { invalidateRollups } from './rollups.ts'
import { timePage } from './time-pages.ts'

const Int = (description: string) => t.Integer({ description })

export const PlanetStatusRow = t.Object(
  {
    warID: Int('War id'),
    planetIndex: Int('Planet index'),
    owner: Int('Owning faction id'),
    health: Int('Planet health'),
    regenPerSecond: t.Number({ description: 'Health regeneration per second' }),
    players: Int('Players on the planet'),
    timestamp: Timestamp('Capture time of the full-status tick'),
  },
  { description: 'Historical planet status row' },
)
export type PlanetStatusRow = Static<typeof PlanetStatusRow>

/** /historical-planet-status: one planet of one war, newest first; counted and located through the hourly rollup. */
function history(sql: Sql, f: { warId: number; planetIndex: number; range: TimeRange }, p: Page): Promise<PageOf<PlanetStatusRow>> {
  const series = {
    table: 'planet_status_snapshots',
    where: sql`war_id = ${f.warId} AND planet_index = ${f.planetIndex}`,
    levels: [{ view: 'planet_status_1h', seconds: 3600 }],
  }
  return timePage<PlanetStatusRow>(sql, series, f.range, p, selectRow(sql, PlanetStatusRow, { warID: sql`war_id`, timestamp: sql`captured_at` }))
}

/** A point of a planet's curve: a tick, or an hourly bucket (state at the end of the hour, players averaged). */
export interface PlanetPoint {
  t: Date
  owner: number
  health: number
  regenPerSecond: number
  players: number
}

/** Every full-status tick of the planet in [from, to], oldest first. */
async function ticks(sql: Sql, warId: number, planetIndex: number, from: Date, to: Date): Promise<PlanetPoint[]> {
  return [...(await sql<PlanetPoint[]>`
    SELECT captured_at AS t, owner, health, regen_per_second AS "regenPerSecond", players
    FROM planet_status_snapshots
    WHERE war_id = ${warId} AND planet_index = ${planetIndex} AND captured_at >= ${from} AND captured_at <= ${to}
    ORDER BY captured_at`)]
}

/**
 * Hourly buckets from the planet_status_1h rollup, oldest first: the state at the end of
 * each hour and the players averaged over it. `from` must be hour-aligned.
 */
async function hourly(sql: Sql, warId: number, planetIndex: number, from: Date, to: Date): Promise<PlanetPoint[]> {
  return [...(await sql<PlanetPoint[]>`
    SELECT bucket AS t, owner, health, regen_per_second AS "regenPerSecond", round(players_sum::numeric / n)::int AS players
    FROM planet_status_1h
    WHERE war_id = ${warId} AND planet_index = ${planetIndex} AND bucket >= ${from} AND bucket <= ${to}
    ORDER BY bucket`)]
}

// ------------------------------------------------------------------ writes (full-status collector)

export interface PlanetStatusInput {
  planet_index: number
  owner: number
  health: number
  regen_per_second: number
  players: number
}

/** Every planet's status at one tick; the hourly rollup serves the tick's hour live until its next refresh. */
export async function insert(tx: Tx, at: Date, warId: number, planets: PlanetStatusInput[]): Promise<number> {
  const r = await tx`
    INSERT INTO planet_status_snapshots (captured_at, war_id, planet_index, owner, health, regen_per_second, players)
    SELECT ${at}, ${warId}, r.planet_index, r.owner, r.health, r.regen_per_second, r.players
    FROM jsonb_to_recordset(${JSON.stringify(planets)}::text::jsonb) AS r(
      planet_index integer, owner smallint, health bigint, regen_per_second double precision, players integer)`
  await invalidateRollups(tx, 'planet_status_snapshots', at)
  return r.count
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { history, ticks, hourly }
