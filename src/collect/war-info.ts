import type { Fetched } from '../feeds/throttle.ts'
import type { WarInfo, WarStatus } from '../feeds/upstream.ts'
import { lookups, unknownPlanetName } from '../lookups.ts'
import type { GalacticWarEffect } from '../feeds/upstream-2025.ts'
import { writeEffects, writeRegionInfos, type EffectInput, type RegionInfoInput } from '../storage/surfaces.ts'
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

const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/** The war info's regions with their scale (maxHealth, size; typed, never checked upstream: a bad value is stored as null). */
export function regionInfosOf(info: WarInfo): RegionInfoInput[] {
  const seen = new Set<string>()
  return (info.planetRegions ?? []).flatMap((r) => {
    const key = `${r.planetIndex}:${r.regionIndex}`
    if (seen.has(key)) return []
    seen.add(key)
    return [{
      planet_index: r.planetIndex, region_index: r.regionIndex, settings_hash: r.settingsHash, max_health: finite(r.maxHealth),
      region_size: Number.isInteger(r.regionSize) ? r.regionSize! : null, damage_multiplier: finite(r.damageMultiplier), flags: Number.isInteger(r.flags) ? r.flags! : null,
    }]
  })
}

/** The effect definitions as stored (each whole, as served, besides its type and values). */
export function effectsOf(list: readonly GalacticWarEffect[]): EffectInput[] {
  return list.map((e) => ({ effect_id: e.id, effect_type: e.effectType, value_types: e.valueTypes, values: e.values, definition: e }))
}

/** What the war info's tick keeps of the 2025 surfaces (absent from a tick spooled before). */
interface WarInfoSurfaces {
  regionInfos?: RegionInfoInput[]
  effects?: EffectInput[]
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
  changes: { wars: 'war', factions: 'war', sectors: 'war', planets: 'war', planetWarInfo: 'war', planetRegions: 'war', galacticWarEffects: 'war' },
  async fetch({ feeds, warId }) {
    const [info, status] = await fetchAll([feeds.upstream.warInfo(warId, COLLECTOR_FETCH), feeds.upstream.status(warId, COLLECTOR_FETCH)])
    // The effect definitions (2025+) on this cadence; a failure leaves them as stored.
    const effects: Fetched<GalacticWarEffect[]> | null = await feeds.upstream.galacticWarEffects(COLLECTOR_FETCH).catch(() => null)
    return { info, status, effects }
  },
  // An imported capture has no effects (undefined).
  map({ info, status, effects }: { info: Fetched<WarInfo>; status: Fetched<WarStatus>; effects?: Fetched<GalacticWarEffect[]> | null }, { now }): { capturedAt: Date; rows: WarInfoRows & WarInfoSurfaces } {
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
        regionInfos: regionInfosOf(info.data),
        effects: effects ? effectsOf(effects.data) : [],
      },
    }
  },
  async write(tx, at, { warId, rows }) {
    const [stored, planetRegions, galacticWarEffects] = await Promise.all([
      writeWarInfo(tx, at, warId, rows),
      // A tick spooled before these were kept has none.
      writeRegionInfos(tx, at, warId, rows.regionInfos ?? []),
      writeEffects(tx, at, rows.effects ?? []),
    ])
    const written = { ...stored, planetRegions, galacticWarEffects }
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
