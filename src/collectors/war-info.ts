import { lookups, unknownPlanetName } from '../lookups.ts'
import { asJson, COLLECTOR_FETCH, logged, runWritePhase, type CollectorDeps, type CollectorOptions, type CollectorSummary } from './run.ts'

/**
 * Wars, the planet lookup of the war (names and sectors from the lookup data, position,
 * max health, initial owner, supply lines), sectors, factions, and the current per-planet
 * war info (owner, health, regen, players). Everything is an upsert that only touches rows
 * whose values changed, so a repeated run writes nothing.
 */
export function collectWarInfo(deps: CollectorDeps, opts: CollectorOptions = {}): Promise<CollectorSummary> {
  return logged(deps.log, 'war-info', async () => {
    const t0 = performance.now()
    const warId = opts.warId ?? deps.config.warId
    const [info, status] = await Promise.all([
      deps.feeds.upstream.warInfo(warId, COLLECTOR_FETCH),
      deps.feeds.upstream.status(warId, COLLECTOR_FETCH),
    ])
    const at = opts.now ?? status.fetchedAt
    const { planets: planetLookup, factions, sectors } = lookups()

    const planetRows = info.data.planetInfos.map((p) => {
      const known = planetLookup.get(p.index)
      return {
        planet_index: p.index,
        name: known?.name ?? unknownPlanetName(p.index),
        sector_name: known?.sector ?? null,
        biome: known?.biome ?? null,
        position_x: p.position.x,
        position_y: p.position.y,
        max_health: p.maxHealth,
        initial_owner: p.initialOwner,
        disabled: p.disabled,
        settings_hash: p.settingsHash,
        upstream_sector_id: p.sector,
        waypoints: p.waypoints,
      }
    })
    const known = new Set(planetRows.map((p) => p.planet_index))
    // Status rows of planets the war info does not list have no lookup row to hang on.
    const stateRows = status.data.planetStatus
      .filter((p) => known.has(p.index))
      .map((p) => ({ planet_index: p.index, owner: p.owner, health: p.health, regen_per_second: p.regenPerSecond, players: p.players }))

    return runWritePhase(deps, 'war-info', warId, t0, async (tx) => {
      const wars = await tx`
        INSERT INTO wars (war_id, start_date, end_date, minimum_client_version, first_seen_at, updated_at)
        VALUES (${warId}, to_timestamp(${info.data.startDate}), to_timestamp(${info.data.endDate}),
                ${info.data.minimumClientVersion ?? null}, ${at}, ${at})
        ON CONFLICT (war_id) DO UPDATE SET
          start_date = excluded.start_date, end_date = excluded.end_date,
          minimum_client_version = excluded.minimum_client_version, updated_at = excluded.updated_at
        WHERE (wars.start_date, wars.end_date, wars.minimum_client_version)
          IS DISTINCT FROM (excluded.start_date, excluded.end_date, excluded.minimum_client_version)`

      const factionRows = [...factions].map(([faction_id, name]) => ({ faction_id, name }))
      const factionsWritten = await tx`
        INSERT INTO factions (faction_id, name)
        SELECT faction_id, name FROM jsonb_to_recordset(${asJson(factionRows)}::text::jsonb) AS r(faction_id smallint, name text)
        ON CONFLICT (faction_id) DO UPDATE SET name = excluded.name WHERE factions.name IS DISTINCT FROM excluded.name`

      const sectorRows = [...sectors].map(([sector_name, planet_count]) => ({ sector_name, planet_count }))
      const sectorsWritten = await tx`
        INSERT INTO sectors (sector_name, planet_count)
        SELECT sector_name, planet_count FROM jsonb_to_recordset(${asJson(sectorRows)}::text::jsonb) AS r(sector_name text, planet_count integer)
        ON CONFLICT (sector_name) DO UPDATE SET planet_count = excluded.planet_count
        WHERE sectors.planet_count IS DISTINCT FROM excluded.planet_count`

      const planetsWritten = await tx`
        INSERT INTO planets (war_id, planet_index, name, sector_name, biome, position_x, position_y, max_health,
                             initial_owner, disabled, settings_hash, upstream_sector_id, waypoints, updated_at)
        SELECT ${warId}, r.planet_index, r.name, r.sector_name, r.biome, r.position_x, r.position_y, r.max_health,
               r.initial_owner, r.disabled, r.settings_hash, r.upstream_sector_id,
               ARRAY(SELECT jsonb_array_elements_text(r.waypoints)::integer), ${at}
        FROM jsonb_to_recordset(${asJson(planetRows)}::text::jsonb) AS r(
          planet_index integer, name text, sector_name text, biome text, position_x double precision,
          position_y double precision, max_health bigint, initial_owner smallint, disabled boolean,
          settings_hash bigint, upstream_sector_id integer, waypoints jsonb)
        ON CONFLICT (war_id, planet_index) DO UPDATE SET
          name = excluded.name, sector_name = excluded.sector_name, biome = excluded.biome,
          position_x = excluded.position_x, position_y = excluded.position_y, max_health = excluded.max_health,
          initial_owner = excluded.initial_owner, disabled = excluded.disabled, settings_hash = excluded.settings_hash,
          upstream_sector_id = excluded.upstream_sector_id, waypoints = excluded.waypoints, updated_at = excluded.updated_at
        WHERE (planets.name, planets.sector_name, planets.biome, planets.position_x, planets.position_y, planets.max_health,
               planets.initial_owner, planets.disabled, planets.settings_hash, planets.upstream_sector_id, planets.waypoints)
          IS DISTINCT FROM
              (excluded.name, excluded.sector_name, excluded.biome, excluded.position_x, excluded.position_y, excluded.max_health,
               excluded.initial_owner, excluded.disabled, excluded.settings_hash, excluded.upstream_sector_id, excluded.waypoints)`

      const stateWritten = await tx`
        INSERT INTO planet_war_info (war_id, planet_index, owner, health, regen_per_second, players, upstream_war_time, updated_at)
        SELECT ${warId}, r.planet_index, r.owner, r.health, r.regen_per_second, r.players, ${status.data.time}, ${at}
        FROM jsonb_to_recordset(${asJson(stateRows)}::text::jsonb) AS r(
          planet_index integer, owner smallint, health bigint, regen_per_second double precision, players integer)
        ON CONFLICT (war_id, planet_index) DO UPDATE SET
          owner = excluded.owner, health = excluded.health, regen_per_second = excluded.regen_per_second,
          players = excluded.players, upstream_war_time = excluded.upstream_war_time, updated_at = excluded.updated_at
        WHERE (planet_war_info.owner, planet_war_info.health, planet_war_info.regen_per_second, planet_war_info.players)
          IS DISTINCT FROM (excluded.owner, excluded.health, excluded.regen_per_second, excluded.players)`

      return {
        written: {
          wars: wars.count,
          factions: factionsWritten.count,
          sectors: sectorsWritten.count,
          planets: planetsWritten.count,
          planetWarInfo: stateWritten.count,
        },
        unchanged: {
          wars: 1 - wars.count,
          factions: factionRows.length - factionsWritten.count,
          sectors: sectorRows.length - sectorsWritten.count,
          planets: planetRows.length - planetsWritten.count,
          planetWarInfo: stateRows.length - stateWritten.count,
        },
      }
    }, at)
  })
}
