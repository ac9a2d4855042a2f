import type { WarInfo } from '../feeds/upstream.ts'
import { lookups, unknownPlanetName } from '../lookups.ts'
import { writeWarInfo, type PlanetRegionRef, type WarInfoRows } from '../storage/war.ts'
import { COLLECTOR_FETCH, defineCollector, fetchAll } from './collector.ts'

/** The regions the war info lists for each planet (newer payloads; none in 2024's), by region index. */
export function regionsOf(info: WarInfo): Map<number, PlanetRegionRef[]> {
  const out = new Map<number, PlanetRegionRef[]>()
  for (const r of info.planetRegions ?? []) {
    const list = out.get(r.planetIndex) ?? []
    if (!list.some((known) => known.index === r.regionIndex)) list.push({ index: r.regionIndex, hash: r.settingsHash })
    out.set(r.planetIndex, list)
  }
  for (const list of out.values()) list.sort((a, b) => a.index - b.index)
  return out
}

/**
 * Wars, the planet lookup of the war (names and sectors from the lookup data, position,
 * max health, initial owner, supply lines, regions), sectors, factions, and the current per-planet
 * war info (owner, health, regen, players). Everything is an upsert that only touches rows
 * whose values changed, so a repeated run writes nothing.
 */
export const warInfo = defineCollector({
  name: 'war-info',
  summary: 'Run the war-info collector once: wars, planets, sectors, factions and per-planet war info.',
  changes: { wars: 'war', factions: 'war', sectors: 'war', planets: 'war', planetWarInfo: 'war' },
  async fetch({ feeds, warId }) {
    const [info, status] = await fetchAll([feeds.upstream.warInfo(warId, COLLECTOR_FETCH), feeds.upstream.status(warId, COLLECTOR_FETCH)])
    return { info, status }
  },
  map({ info, status }, { now }): { capturedAt: Date; rows: WarInfoRows } {
    const { planets: planetLookup, factions, sectors } = lookups()
    const regions = regionsOf(info.data)
    const planets = info.data.planetInfos.map((p) => {
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
        regions: regions.get(p.index) ?? [],
      }
    })
    const known = new Set(planets.map((p) => p.planet_index))
    return {
      capturedAt: now ?? status.fetchedAt,
      rows: {
        war: { startDate: info.data.startDate, endDate: info.data.endDate, minimumClientVersion: info.data.minimumClientVersion ?? null },
        warTime: status.data.time,
        planets,
        // Status rows of planets the war info does not list have no lookup row to hang on.
        states: status.data.planetStatus
          .filter((p) => known.has(p.index))
          .map((p) => ({ planet_index: p.index, owner: p.owner, health: p.health, regen_per_second: p.regenPerSecond, players: p.players })),
        factions: [...factions].map(([faction_id, name]) => ({ faction_id, name })),
        sectors: [...sectors].map(([sector_name, planet_count]) => ({ sector_name, planet_count })),
      },
    }
  },
  async write(tx, at, { warId, rows }) {
    const written = await writeWarInfo(tx, at, warId, rows)
    return {
      written,
      unchanged: {
        wars: 1 - written.wars,
        factions: rows.factions.length - written.factions,
        sectors: rows.sectors.length - written.sectors,
        planets: rows.planets.length - written.planets,
        planetWarInfo: rows.states.length - written.planetWarInfo,
      },
    }
  },
})
