/**
 * Wars and their lookups: wars, planets (per war), sectors, factions, and the current
 * per-planet state (planet_war_info). Written by the war-info collector.
 */
import { t, type Static } from 'elysia'
import type { Sql, Tx } from '../db/connect.ts'
import { Nullable, selectRow, Timestamp } from './model.ts'

export const WarRecord = t.Object(
  {
    warID: t.Integer({ description: 'War id' }),
    startDate: Nullable(Timestamp(), 'Start of the war'),
    endDate: Nullable(Timestamp(), 'Planned end of the war'),
    minimumClientVersion: Nullable(t.String(), 'Minimum game client version'),
    firstSeenAt: Timestamp('When the service first stored this war'),
    updatedAt: Timestamp('Last update of the war record'),
  },
  { description: 'War record' },
)

export const PlanetWarInfoRow = t.Object({
  indexID: t.Integer({ description: 'Planet index' }),
  warID: t.Integer({ description: 'War id' }),
  owner: t.Integer({ description: 'Owning faction id' }),
  health: t.Integer({ description: 'Current health' }),
  maxHealth: t.Integer({ description: 'Maximum health (planet lookup table)' }),
  regenPerSecond: t.Number({ description: 'Health regeneration per second' }),
  players: t.Integer({ description: 'Players on the planet' }),
  planetName: t.String({ description: 'Name (planet lookup table)' }),
  sectorName: Nullable(t.String(), 'Sector name (planet lookup table)'),
  updatedAt: Timestamp('Last refresh of this row by the war-info collector'),
})

export const WarState = t.Object(
  {
    war: WarRecord,
    planets: t.Array(PlanetWarInfoRow, { description: 'Planet war info rows, ordered by indexID' }),
    dataCapturedAt: Nullable(
      Timestamp(),
      "When the planet figures were current upstream: the newest row's refresh (updatedAt), or, when the full-status ticks stored reach its status war time (figures of a replayed or archived status), that war time on the wall clock of those ticks; null without planets",
    ),
    dataAgeSeconds: Nullable(t.Integer(), 'Seconds since dataCapturedAt when this body was made (the body is cached up to 30 s: add the Age of a cached copy)'),
  },
  { description: 'War state' },
)
export type WarState = Static<typeof WarState>

export const PlanetLookupRow = t.Object({
  warID: t.Integer({ description: 'War the row belongs to' }),
  index: t.Integer({ description: 'Planet index' }),
  name: t.String({ description: 'Planet name' }),
  sector: Nullable(t.String(), 'Sector name'),
  biome: Nullable(t.String(), 'Biome'),
  position: t.Object({ x: t.Number(), y: t.Number() }, { description: 'Galaxy map coordinates' }),
  maxHealth: t.Integer({ description: 'Maximum health' }),
  initialOwner: t.Integer({ description: 'Faction owning the planet at war start' }),
  disabled: t.Boolean({ description: 'Disabled by the upstream' }),
  waypoints: t.Array(t.Integer(), { description: 'Supply lines to other planet indexes' }),
})

/** A region of a planet as the war info lists it (its `planetRegions`): region index and settings hash. */
export interface PlanetRegionRef {
  index: number
  hash: number
}

/** A planet lookup row with the regions the war info listed for the planet (by index; [] when none). */
export type StoredPlanetRow = Static<typeof PlanetLookupRow> & { regions: PlanetRegionRef[] }

export const SectorRow = t.Object({ name: t.String({ description: 'Sector name' }), planetCount: t.Integer({ description: 'Planets in the sector' }) })
export const FactionRow = t.Object({ id: t.Integer({ description: 'Faction id (the owner values)' }), name: t.String({ description: 'Faction name' }) })

/** The war (the latest war id when `warId` is undefined) and its planets; null when no such war. */
async function warState(sql: Sql, f: { warId?: number; planetIndex?: number }): Promise<Omit<WarState, 'dataAgeSeconds'> | null> {
  const [war] = await sql<Static<typeof WarRecord>[]>`
    SELECT ${selectRow(sql, WarRecord, { warID: sql`war_id` })}
    FROM wars
    ${f.warId === undefined ? sql`` : sql`WHERE war_id = ${f.warId}`}
    ORDER BY war_id DESC
    LIMIT 1`
  if (!war) return null
  const planets = await sql<(Static<typeof PlanetWarInfoRow> & { warTime: number | null })[]>`
    SELECT ${selectRow(sql, PlanetWarInfoRow, {
      indexID: sql`i.planet_index`,
      warID: sql`i.war_id`,
      maxHealth: sql`p.max_health`,
      planetName: sql`p.name`,
      sectorName: sql`p.sector_name`,
      updatedAt: sql`i.updated_at`,
    })}, i.upstream_war_time AS "warTime"
    FROM planet_war_info i
    JOIN planets p ON p.war_id = i.war_id AND p.planet_index = i.planet_index
    WHERE i.war_id = ${war.warID}
    ${f.planetIndex === undefined ? sql`` : sql`AND i.planet_index = ${f.planetIndex}`}
    ORDER BY i.planet_index`
  const newest = planets.reduce<(typeof planets)[number] | null>((max, p) => (max === null || p.updatedAt > max.updatedAt ? p : max), null)
  const dataCapturedAt = newest && (await figuresAt(sql, war.warID, newest.updatedAt, newest.warTime))
  return { war, planets: planets.map(({ warTime: _, ...row }) => row), dataCapturedAt }
}

/**
 * When figures fetched at `fetchedAt` from a status of war time `warTime` were current
 * upstream. A live status is current when fetched. A status no newer than the full-status
 * ticks stored (a replay, an archive) is placed by them: the latest at or before its war
 * time, plus the war seconds between (war time runs as wall time), or when that tick's war
 * time was last seen; never later than the fetch.
 */
async function figuresAt(sql: Sql, warId: number, fetchedAt: Date, warTime: number | null): Promise<Date> {
  if (warTime === null) return fetchedAt
  const [row] = await sql<{ at: Date | null }[]>`
    SELECT CASE WHEN t.upstream_war_time = ${warTime} THEN greatest(t.captured_at, t.last_seen_at)
                ELSE t.captured_at + make_interval(secs => ${warTime} - t.upstream_war_time) END AS at
    FROM (SELECT captured_at, upstream_war_time, last_seen_at FROM full_status_ticks
          WHERE war_id = ${warId} AND upstream_war_time <= ${warTime} AND planets_written > 0
          ORDER BY upstream_war_time DESC LIMIT 1) t
    WHERE EXISTS (SELECT 1 FROM full_status_ticks WHERE war_id = ${warId} AND upstream_war_time >= ${warTime} AND planets_written > 0)`
  return row?.at && row.at < fetchedAt ? row.at : fetchedAt
}

/** The planet lookup table of every stored war, by war then index, with each planet's regions. */
async function planets(sql: Sql): Promise<StoredPlanetRow[]> {
  return [...(await sql<StoredPlanetRow[]>`
    SELECT ${selectRow(sql, PlanetLookupRow, {
      warID: sql`war_id`,
      index: sql`planet_index`,
      sector: sql`sector_name`,
      position: sql`json_build_object('x', position_x, 'y', position_y)`,
    })}, regions
    FROM planets
    ORDER BY war_id, planet_index`)]
}

async function sectors(sql: Sql): Promise<Static<typeof SectorRow>[]> {
  return [...(await sql<Static<typeof SectorRow>[]>`
    SELECT ${selectRow(sql, SectorRow, { name: sql`sector_name` })} FROM sectors ORDER BY sector_name`)]
}

async function factions(sql: Sql): Promise<Static<typeof FactionRow>[]> {
  return [...(await sql<Static<typeof FactionRow>[]>`
    SELECT ${selectRow(sql, FactionRow, { id: sql`faction_id` })} FROM factions ORDER BY faction_id`)]
}

// ------------------------------------------------------------------ writes (war-info collector)

/** What one war-info tick writes; JSON all the way (it may wait in the spool). */
export interface WarInfoRows {
  war: { startDate: number; endDate: number; minimumClientVersion: string | null }
  /** Upstream war time of the status the planet states come from. */
  warTime: number
  planets: {
    planet_index: number
    name: string
    sector_name: string | null
    biome: string | null
    position_x: number
    position_y: number
    max_health: number
    initial_owner: number
    disabled: boolean
    settings_hash: number | null
    upstream_sector_id: number | null
    waypoints: number[]
    /** The war info's regions of the planet, by index (absent in ticks spooled before regions were read: none). */
    regions?: PlanetRegionRef[]
  }[]
  states: { planet_index: number; owner: number; health: number; regen_per_second: number; players: number }[]
  factions: { faction_id: number; name: string }[]
  sectors: { sector_name: string; planet_count: number }[]
}

const asJson = (rows: unknown[]) => JSON.stringify(rows)

/**
 * Upserts that touch only rows whose values changed, and never with older data than the
 * row holds (`updated_at`): a tick replayed from the spool, or written late by another
 * replica, cannot take the current state back in time.
 */
export async function writeWarInfo(tx: Tx, at: Date, warId: number, r: WarInfoRows) {
  const wars = await tx`
    INSERT INTO wars (war_id, start_date, end_date, minimum_client_version, first_seen_at, updated_at)
    VALUES (${warId}, to_timestamp(${r.war.startDate}), to_timestamp(${r.war.endDate}),
            ${r.war.minimumClientVersion}, ${at}, ${at})
    ON CONFLICT (war_id) DO UPDATE SET
      start_date = excluded.start_date, end_date = excluded.end_date,
      minimum_client_version = excluded.minimum_client_version, updated_at = excluded.updated_at
    WHERE (wars.start_date, wars.end_date, wars.minimum_client_version)
      IS DISTINCT FROM (excluded.start_date, excluded.end_date, excluded.minimum_client_version)
      AND wars.updated_at <= excluded.updated_at`

  const factions = await tx`
    INSERT INTO factions (faction_id, name)
    SELECT faction_id, name FROM jsonb_to_recordset(${asJson(r.factions)}::text::jsonb) AS r(faction_id smallint, name text)
    ON CONFLICT (faction_id) DO UPDATE SET name = excluded.name WHERE factions.name IS DISTINCT FROM excluded.name`

  const sectors = await tx`
    INSERT INTO sectors (sector_name, planet_count)
    SELECT sector_name, planet_count FROM jsonb_to_recordset(${asJson(r.sectors)}::text::jsonb) AS r(sector_name text, planet_count integer)
    ON CONFLICT (sector_name) DO UPDATE SET planet_count = excluded.planet_count
    WHERE sectors.planet_count IS DISTINCT FROM excluded.planet_count`

  const planets = await tx`
    INSERT INTO planets (war_id, planet_index, name, sector_name, biome, position_x, position_y, max_health,
                         initial_owner, disabled, settings_hash, upstream_sector_id, waypoints, regions, updated_at)
    SELECT ${warId}, r.planet_index, r.name, r.sector_name, r.biome, r.position_x, r.position_y, r.max_health,
           r.initial_owner, r.disabled, r.settings_hash, r.upstream_sector_id,
           ARRAY(SELECT jsonb_array_elements_text(r.waypoints)::integer), coalesce(r.regions, '[]'::jsonb), ${at}
    FROM jsonb_to_recordset(${asJson(r.planets)}::text::jsonb) AS r(
      planet_index integer, name text, sector_name text, biome text, position_x double precision,
      position_y double precision, max_health bigint, initial_owner smallint, disabled boolean,
      settings_hash bigint, upstream_sector_id integer, waypoints jsonb, regions jsonb)
    ON CONFLICT (war_id, planet_index) DO UPDATE SET
      name = excluded.name, sector_name = excluded.sector_name, biome = excluded.biome,
      position_x = excluded.position_x, position_y = excluded.position_y, max_health = excluded.max_health,
      initial_owner = excluded.initial_owner, disabled = excluded.disabled, settings_hash = excluded.settings_hash,
      upstream_sector_id = excluded.upstream_sector_id, waypoints = excluded.waypoints, regions = excluded.regions,
      updated_at = excluded.updated_at
    WHERE (planets.name, planets.sector_name, planets.biome, planets.position_x, planets.position_y, planets.max_health,
           planets.initial_owner, planets.disabled, planets.settings_hash, planets.upstream_sector_id, planets.waypoints, planets.regions)
      IS DISTINCT FROM
          (excluded.name, excluded.sector_name, excluded.biome, excluded.position_x, excluded.position_y, excluded.max_health,
           excluded.initial_owner, excluded.disabled, excluded.settings_hash, excluded.upstream_sector_id, excluded.waypoints, excluded.regions)
      AND planets.updated_at <= excluded.updated_at`

  const states = await tx`
    INSERT INTO planet_war_info (war_id, planet_index, owner, health, regen_per_second, players, upstream_war_time, updated_at)
    SELECT ${warId}, r.planet_index, r.owner, r.health, r.regen_per_second, r.players, ${r.warTime}, ${at}
    FROM jsonb_to_recordset(${asJson(r.states)}::text::jsonb) AS r(
      planet_index integer, owner smallint, health bigint, regen_per_second double precision, players integer)
    ON CONFLICT (war_id, planet_index) DO UPDATE SET
      owner = excluded.owner, health = excluded.health, regen_per_second = excluded.regen_per_second,
      players = excluded.players, upstream_war_time = excluded.upstream_war_time, updated_at = excluded.updated_at
    WHERE (planet_war_info.owner, planet_war_info.health, planet_war_info.regen_per_second, planet_war_info.players)
      IS DISTINCT FROM (excluded.owner, excluded.health, excluded.regen_per_second, excluded.players)
      AND planet_war_info.updated_at <= excluded.updated_at`

  return { wars: wars.count, factions: factions.count, sectors: sectors.count, planets: planets.count, planetWarInfo: states.count }
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { warState, planets, sectors, factions }
