/** planet_status_snapshots (one row per planet per full-status tick) and its hourly rollup. */
import { t, type Static } from 'elysia'
import type { Sql, Tx } from '../db/connect.ts'
import { selectRow, Timestamp } from './model.ts'
import type { PageOf, Slice, TimeRange } from './query.ts'
import { invalidateRollups } from './rollups.ts'
import { timePage, windowEdges } from './time-pages.ts'

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

/** One planet's status series, with its hourly rollup. */
const series = (sql: Sql, f: { warId: number; planetIndex: number }) => ({
  table: 'planet_status_snapshots',
  where: sql`war_id = ${f.warId} AND planet_index = ${f.planetIndex}`,
  levels: [{ view: 'planet_status_1h', seconds: 3600 }],
})

/** /historical-planet-status: one planet of one war, newest first; counted and located through the hourly rollup. */
function history(sql: Sql, f: { warId: number; planetIndex: number; range: TimeRange }, p: Slice): Promise<PageOf<PlanetStatusRow>> {
  return timePage<PlanetStatusRow>(sql, series(sql, f), f.range, p, selectRow(sql, PlanetStatusRow, { warID: sql`war_id`, timestamp: sql`captured_at` }))
}

/** The planet's oldest and newest rows at or after `from` (storage/time-pages.ts windowEdges). */
const historyEdges = (sql: Sql, f: { warId: number; planetIndex: number }, from: Date) => windowEdges(sql, series(sql, f), from)

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

/** A planet of the liberation view: its lookup data, its ticks in the window (oldest first), and its latest row when none is in the window. */
export interface PlanetWindow {
  planetIndex: number
  planetName: string
  sectorName: string | null
  maxHealth: number
  ticks: PlanetPoint[]
  /** The planet's latest row at or before the window's end when the window has none (a long freeze or outage); null otherwise or without any. */
  latest: PlanetPoint | null
}

/**
 * The planets asked for (or those in the war's current campaigns), each with its ticks in
 * (from, to], and, for a planet without one there, its latest row before; a planet unknown
 * for the war is left out.
 */
async function windows(sql: Sql, f: { warId: number; planetIndexes?: readonly number[]; from: Date; to: Date }): Promise<PlanetWindow[]> {
  const planets = await sql<Omit<PlanetWindow, 'ticks' | 'latest'>[]>`
    SELECT p.planet_index AS "planetIndex", p.name AS "planetName", p.sector_name AS "sectorName", p.max_health AS "maxHealth"
    FROM planets p
    WHERE p.war_id = ${f.warId} AND ${f.planetIndexes === undefined
      ? sql`p.planet_index IN (SELECT planet_index FROM campaigns WHERE war_id = ${f.warId})`
      : sql`p.planet_index = ANY(${[...f.planetIndexes]}::int[])`}
    ORDER BY p.planet_index`
  if (!planets.length) return []
  const ticks = await sql<(PlanetPoint & { planetIndex: number })[]>`
    SELECT planet_index AS "planetIndex", captured_at AS t, owner, health, regen_per_second AS "regenPerSecond", players
    FROM planet_status_snapshots
    WHERE war_id = ${f.warId} AND planet_index IN ${sql(planets.map((p) => p.planetIndex))}
      AND captured_at > ${f.from} AND captured_at <= ${f.to}
    ORDER BY planet_index, captured_at`
  const byPlanet = new Map<number, PlanetPoint[]>(planets.map((p) => [p.planetIndex, []]))
  for (const { planetIndex, ...tick } of ticks) byPlanet.get(planetIndex)!.push(tick)
  const empty = planets.filter((p) => !byPlanet.get(p.planetIndex)!.length).map((p) => p.planetIndex)
  const latest = new Map<number, PlanetPoint>()
  if (empty.length) {
    const rows = await sql<(PlanetPoint & { planetIndex: number })[]>`
      SELECT i.planet_index AS "planetIndex", s.t, s.owner, s.health, s."regenPerSecond", s.players
      FROM unnest(${empty}::int[]) AS i(planet_index)
      CROSS JOIN LATERAL (
        SELECT captured_at AS t, owner, health, regen_per_second AS "regenPerSecond", players
        FROM planet_status_snapshots
        WHERE war_id = ${f.warId} AND planet_index = i.planet_index AND captured_at <= ${f.to}
        ORDER BY captured_at DESC LIMIT 1) s`
    for (const { planetIndex, ...row } of rows) latest.set(planetIndex, row)
  }
  return planets.map((p) => ({ ...p, ticks: byPlanet.get(p.planetIndex)!, latest: latest.get(p.planetIndex) ?? null }))
}

/** The war's latest status tick time; null before the first. */
async function latestTickAt(sql: Sql, warId: number): Promise<Date | null> {
  const [row] = await sql<{ t: Date | null }[]>`SELECT max(captured_at) AS t FROM full_status_ticks WHERE war_id = ${warId}`
  return row?.t ?? null
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
  const json = JSON.stringify(planets)
  // Sent together (pipelined, run in this order): none needs another's answer here.
  const [r, , next, before] = await Promise.all([
    tx`
      INSERT INTO planet_status_snapshots (captured_at, war_id, planet_index, owner, health, regen_per_second, players)
      SELECT ${at}, ${warId}, r.planet_index, r.owner, r.health, r.regen_per_second, r.players
      FROM jsonb_to_recordset(${json}::text::jsonb) AS r(
        planet_index integer, owner smallint, health bigint, regen_per_second double precision, players integer)`,
    invalidateRollups(tx, 'planet_status_snapshots', at),
    planets.length ? tickAfter(tx, at, warId) : null,
    planets.length ? tickBefore(tx, at, warId) : null,
  ])
  if (planets.length) await recordOwnerChanges(tx, at, warId, json, next, before)
  return r.count
}

/*
 * The tick's neighbours come from the small ticks table, as values: a statement that
 * finds them in the planet rows (a subquery, an open time range) makes the planner plan
 * every chunk of the hypertable, on every tick, at a cost that grows with the history.
 * Ticks without planet rows are skipped.
 */
async function tickBefore(tx: Tx, at: Date, warId: number): Promise<Date | null> {
  const [row] = await tx<{ t: Date | null }[]>`
    SELECT max(captured_at) AS t FROM full_status_ticks WHERE war_id = ${warId} AND captured_at < ${at} AND planets_written > 0`
  return row?.t ?? null
}

async function tickAfter(tx: Tx, at: Date, warId: number): Promise<Date | null> {
  const [row] = await tx<{ t: Date | null }[]>`
    SELECT min(captured_at) AS t FROM full_status_ticks WHERE war_id = ${warId} AND captured_at > ${at} AND planets_written > 0`
  return row?.t ?? null
}

/**
 * The owner changes of the tick at `at` (its planets as `json`) against each planet's row
 * before it (sql/0008):
 * - the newest tick (the usual case) compares with the rows of the war's previous tick
 *   (`before`) in one join: nothing lies between them, and both times are values, so
 *   only their chunks are planned;
 * - a planet without a row there (the war's first tick, a planet new to the feed) is
 *   looked up further back, by a second statement sent only then;
 * - a tick written late also moves the event of each planet's next tick, through
 *   planet_owner_changes_rebuild.
 */
async function recordOwnerChanges(tx: Tx, at: Date, warId: number, json: string, next: Date | null, before: Date | null): Promise<void> {
  if (next) {
    await tx`SELECT planet_owner_changes_rebuild(${warId}, ${at}, ${next})`
    return
  }
  const missing = await tx<{ planet_index: number; owner: number }[]>`
    WITH tick AS (
      SELECT r.planet_index, r.owner, p.owner AS prev
      FROM jsonb_to_recordset(${json}::text::jsonb) AS r(planet_index integer, owner smallint)
      LEFT JOIN planet_status_snapshots p ON p.war_id = ${warId} AND p.planet_index = r.planet_index AND p.captured_at = ${before}
    ), changed AS (
      INSERT INTO planet_owner_changes (captured_at, war_id, planet_index, from_owner, to_owner)
      SELECT ${at}, ${warId}, planet_index, prev, owner FROM tick WHERE prev <> owner
      ON CONFLICT DO NOTHING
    )
    SELECT planet_index, owner FROM tick WHERE prev IS NULL`
  if (!missing.length) return
  await tx`
    INSERT INTO planet_owner_changes (captured_at, war_id, planet_index, from_owner, to_owner)
    SELECT ${at}, ${warId}, m.planet_index, b.owner, m.owner
    FROM jsonb_to_recordset(${JSON.stringify(missing)}::text::jsonb) AS m(planet_index integer, owner smallint)
    CROSS JOIN LATERAL (
      SELECT owner FROM planet_status_snapshots
      WHERE war_id = ${warId} AND planet_index = m.planet_index AND captured_at < ${at}
      ORDER BY captured_at DESC LIMIT 1) b
    WHERE b.owner <> m.owner
    ON CONFLICT DO NOTHING`
}

export interface CampaignInput {
  campaign_id: number
  planet_index: number
  type: number
  count: number
}

/** The campaigns of the war at a tick, replacing those of an older tick (a replayed older tick changes nothing). */
export async function replaceCampaigns(tx: Tx, at: Date, warId: number, campaigns: CampaignInput[]): Promise<number> {
  const [newer] = await tx`SELECT 1 FROM campaigns WHERE war_id = ${warId} AND updated_at > ${at} LIMIT 1`
  if (newer) return 0
  await tx`DELETE FROM campaigns WHERE war_id = ${warId}`
  const r = await tx`
    INSERT INTO campaigns (war_id, campaign_id, planet_index, type, count, updated_at)
    SELECT ${warId}, r.campaign_id, r.planet_index, r.type, r.count, ${at}
    FROM jsonb_to_recordset(${JSON.stringify(campaigns)}::text::jsonb) AS r(campaign_id bigint, planet_index integer, type integer, count integer)
    ON CONFLICT DO NOTHING`
  return r.count
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { history, historyEdges, ticks, hourly, windows, latestTickAt }
