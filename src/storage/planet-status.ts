/** planet_status_snapshots (one row per planet per full-status tick) and its hourly rollup. */
import { t, type Static } from 'elysia'
import type { Sql, Tx } from '../db/connect.ts'
import { numbers, selectRow, Timestamp } from './model.ts'
import type { PageOf, Slice, TimeRange } from './query.ts'
import { invalidation } from './rollups.ts'
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

/**
 * A planet of a war as its history needs it: its maximum health (the planet lookup table)
 * and its first stored status tick (null: none yet); null when the planet is not known for
 * the war. One statement; the first tick is read from one end of the series' index.
 */
async function planetOf(sql: Sql, warId: number, planetIndex: number): Promise<{ maxHealth: number; since: Date | null } | null> {
  const [row] = await sql<{ maxHealth: number; since: Date | null }[]>`
    SELECT max_health AS "maxHealth",
           (SELECT captured_at FROM planet_status_snapshots
            WHERE war_id = ${warId} AND planet_index = ${planetIndex} ORDER BY captured_at ASC LIMIT 1) AS since
    FROM planets_of_war(${warId}) WHERE planet_index = ${planetIndex} AND max_health IS NOT NULL`
  return row ?? null
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
  // The planets and their ticks in one statement (one round trip), each planet's ticks as arrays.
  const rows = await sql<(Omit<PlanetWindow, 'ticks' | 'latest'> & { ts: Date[] | null; owners: number[]; healths: number[]; regens: number[]; players: number[] })[]>`
    SELECT p.planet_index AS "planetIndex", p.name AS "planetName", p.sector_name AS "sectorName", p.max_health AS "maxHealth",
           w.ts, w.owners, w.healths, w.regens, w.players
    FROM planets_of_war(${f.warId}) p
    CROSS JOIN LATERAL (
      SELECT array_agg(s.captured_at ORDER BY s.captured_at) AS ts, array_agg(s.owner ORDER BY s.captured_at) AS owners,
             array_agg(s.health ORDER BY s.captured_at) AS healths, array_agg(s.regen_per_second ORDER BY s.captured_at) AS regens,
             array_agg(s.players ORDER BY s.captured_at) AS players
      FROM planet_status_snapshots s
      WHERE s.war_id = p.war_id AND s.planet_index = p.planet_index AND s.captured_at > ${f.from} AND s.captured_at <= ${f.to}) w
    WHERE p.max_health IS NOT NULL AND ${f.planetIndexes === undefined
      ? sql`p.planet_index IN (SELECT planet_index FROM campaigns WHERE war_id = ${f.warId})`
      : sql`p.planet_index = ANY(${[...f.planetIndexes]}::int[])`}
    ORDER BY p.planet_index`
  if (!rows.length) return []
  const byPlanet = new Map<number, PlanetPoint[]>(
    rows.map((r) => [r.planetIndex, (r.ts ?? []).map((t, i) => ({ t, owner: r.owners[i]!, health: r.healths[i]!, regenPerSecond: r.regens[i]!, players: r.players[i]! }))]),
  )
  const planets = rows.map(({ planetIndex, planetName, sectorName, maxHealth }) => ({ planetIndex, planetName, sectorName, maxHealth }))
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

/** The planets of one tick. */
export interface PlanetTick {
  at: Date
  planets: PlanetStatusInput[]
}

/** The war's ticks with planet rows just before and after the ticks written (null: none). */
export interface Neighbours {
  before: Date | null
  next: Date | null
}

/**
 * Every planet's status at one tick, and its owner changes; the tick's neighbours are
 * looked up in the ticks table. (The full-status collector writes through insertTicks,
 * with the neighbours its claim found.)
 */
export async function insert(tx: Tx, at: Date, warId: number, planets: PlanetStatusInput[]): Promise<number> {
  const [before, next] = planets.length ? await Promise.all([tickBefore(tx, at, warId), tickAfter(tx, at, warId)]) : [null, null]
  const [n] = await insertTicks(tx, warId, [{ at, planets }], { before, next })
  return n!
}

/**
 * The planet rows of ticks of one war, oldest first, and their owner changes
 * (sql/0008): each planet row against the planet's row before it. Either every tick is
 * later than every stored one (`next` null: the usual case, live or an import in order),
 * or there is one tick, written late (`next`: the stored tick after it).
 * - In order: one statement inserts the rows and compares each with the planet's row
 *   before it among these ticks and the rows of the stored tick `before`
 *   (planet_owners_at, sql/0017: its plan is kept); a planet without one there (the war's
 *   first tick, a planet new to the feed) is looked up further back by a second
 *   statement, sent only then.
 * - Late: the rows, then planet_owner_changes_rebuild over [at, next], which also moves
 *   the event of each planet's next tick.
 * The hourly rollup serves the ticks' hours live until its next refresh. Returns the rows
 * written per tick.
 */
export async function insertTicks(tx: Tx, warId: number, ticks: readonly PlanetTick[], around: Neighbours): Promise<number[]> {
  if (!ticks.length) return []
  // One array per column (the server reads arrays faster than the same rows as JSON), each
  // row with the position (from 1) of its tick in the array of the ticks' times.
  const column = (value: (p: PlanetStatusInput, k: number) => number) => numbers(ticks.flatMap((t, k) => t.planets.map((p) => value(p, k + 1))))
  const from = new Date(Math.min(...ticks.map((t) => t.at.getTime())))
  const late = around.next !== null
  if (late && ticks.length > 1) throw new Error('planet status: ticks written before a stored one go one at a time')
  const owners = late
    ? tx``
    : tx`, seq AS (
        SELECT x.*, lag(x.owner) OVER (PARTITION BY x.planet_index ORDER BY x.at) AS prev
        FROM (
          SELECT planet_index, owner, at, true AS own FROM r
          UNION ALL
          SELECT planet_index, owner, ${around.before}::timestamptz, false FROM planet_owners_at(${warId}, ${around.before})
        ) x
      ), changed AS (
        INSERT INTO planet_owner_changes (captured_at, war_id, planet_index, from_owner, to_owner)
        SELECT at, ${warId}, planet_index, prev, owner FROM seq WHERE own AND prev <> owner
        ON CONFLICT DO NOTHING
      )`
  const written = tx<{ missing: { planet_index: number; owner: number; at: string }[] | null }[]>`
    WITH r AS (
      SELECT (${ticks.map((t) => t.at.toISOString())}::timestamptz[])[k] AS at, planet_index, owner, health, regen_per_second, players
      FROM unnest(${column((_, k) => k)}::int[], ${column((p) => p.planet_index)}::int[], ${column((p) => p.owner)}::smallint[],
                  ${column((p) => p.health)}::bigint[], ${column((p) => p.regen_per_second)}::float8[], ${column((p) => p.players)}::int[])
             AS r(k, planet_index, owner, health, regen_per_second, players)
    ), ins AS (
      INSERT INTO planet_status_snapshots (captured_at, war_id, planet_index, owner, health, regen_per_second, players)
      SELECT at, ${warId}, planet_index, owner, health, regen_per_second, players FROM r
    )${owners}
    SELECT
      ${late ? tx`NULL::json` : tx`(SELECT json_agg(json_build_object('planet_index', planet_index, 'owner', owner, 'at', at)) FROM seq WHERE own AND prev IS NULL)`} AS missing,
      ${invalidation(tx, 'planet_status_snapshots', from)} AS invalidated`
  // Sent behind the rows, before anything is awaited: it reads them.
  const rebuilt = late ? tx`SELECT planet_owner_changes_rebuild(${warId}, ${from}, ${around.next})` : null
  const [[result]] = await Promise.all([written, rebuilt])
  if (result?.missing?.length) {
    await tx`
      INSERT INTO planet_owner_changes (captured_at, war_id, planet_index, from_owner, to_owner)
      SELECT m.at, ${warId}, m.planet_index, b.owner, m.owner
      FROM jsonb_to_recordset(${JSON.stringify(result.missing)}::text::jsonb) AS m(planet_index integer, owner smallint, at timestamptz)
      CROSS JOIN LATERAL (
        SELECT owner FROM planet_status_snapshots
        WHERE war_id = ${warId} AND planet_index = m.planet_index AND captured_at < m.at
        ORDER BY captured_at DESC LIMIT 1) b
      WHERE b.owner <> m.owner
      ON CONFLICT DO NOTHING`
  }
  // Every row is inserted (no conflict clause: a row stored already fails the statement).
  return ticks.map((t) => t.planets.length)
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

export interface CampaignInput {
  campaign_id: number
  planet_index: number
  type: number
  count: number
}

/** The campaigns of the war at a tick, replacing those of an older tick (replaceCampaignsOfTicks). */
export async function replaceCampaigns(tx: Tx, at: Date, warId: number, campaigns: CampaignInput[]): Promise<number> {
  const [n] = await replaceCampaignsOfTicks(tx, warId, [{ at, campaigns }])
  return n!
}

/**
 * The campaigns of the war at ticks of one war, oldest first, each later than the one
 * before: as if each tick replaced those of an older tick in turn (a tick older than the
 * stored campaigns changes nothing), in one statement: the latest tick's campaigns
 * upserted (a campaign listed twice: its first), the war's others deleted. Returns the
 * campaigns each tick wrote.
 */
export async function replaceCampaignsOfTicks(tx: Tx, warId: number, ticks: readonly { at: Date; campaigns: CampaignInput[] }[]): Promise<number[]> {
  if (!ticks.length) return []
  const last = ticks[ticks.length - 1]!
  const json = JSON.stringify(last.campaigns.map((c, i) => ({ i, campaign_id: c.campaign_id, planet_index: c.planet_index, type: c.type, count: c.count })))
  const [row] = await tx<{ stored: Date | null }[]>`
    WITH r AS (
      SELECT DISTINCT ON (campaign_id) * FROM jsonb_to_recordset(${json}::text::jsonb) AS r(i integer, campaign_id bigint, planet_index integer, type integer, count integer)
      ORDER BY campaign_id, i
    ), stored AS (
      SELECT max(updated_at) AS at FROM campaigns WHERE war_id = ${warId}
    ), newer AS (
      SELECT coalesce((SELECT at FROM stored) > ${last.at}, false) AS found
    ), gone AS (
      DELETE FROM campaigns
      WHERE war_id = ${warId} AND NOT (SELECT found FROM newer) AND campaign_id NOT IN (SELECT campaign_id FROM r)
    ), up AS (
      INSERT INTO campaigns (war_id, campaign_id, planet_index, type, count, updated_at)
      SELECT ${warId}, campaign_id, planet_index, type, count, ${last.at} FROM r WHERE NOT (SELECT found FROM newer)
      ON CONFLICT (war_id, campaign_id) DO UPDATE
        SET planet_index = excluded.planet_index, type = excluded.type, count = excluded.count, updated_at = excluded.updated_at
    )
    SELECT at AS stored FROM stored`
  // A tick replaces the war's campaigns unless they are newer than it; once one has, every later one does.
  const stored = row?.stored?.getTime() ?? null
  return ticks.map(({ at, campaigns }) => (stored === null || stored <= at.getTime() ? new Set(campaigns.map((c) => c.campaign_id)).size : 0))
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { history, historyEdges, planetOf, ticks, hourly, windows, latestTickAt }
