import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Static lookup data shipped with the project (assets/upstream-samples/static, copied
 * from the community's public JSON repository; origins in that folder's README). The
 * upstream feed only has planet indexes and numeric sector ids that do not map onto
 * names, so names and sector names come from here.
 */
const STATIC_DIR = join(import.meta.dir, '..', 'assets', 'upstream-samples', 'static')

export interface PlanetLookup {
  name: string
  sector: string | null
  biome: string | null
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(join(STATIC_DIR, file), 'utf8')) as T
}

let cache: { planets: Map<number, PlanetLookup>; factions: Map<number, string>; sectors: Map<string, number> } | null = null

export function lookups() {
  if (cache) return cache
  const rawPlanets = readJson<Record<string, { name: string; sector?: string; biome?: string }>>('helldivers-2-json__planets_planets.json')
  const planets = new Map<number, PlanetLookup>()
  const sectors = new Map<string, number>()
  for (const [index, p] of Object.entries(rawPlanets)) {
    const sector = p.sector ?? null
    planets.set(Number(index), { name: p.name, sector, biome: p.biome ?? null })
    if (sector) sectors.set(sector, (sectors.get(sector) ?? 0) + 1)
  }
  const factions = new Map(Object.entries(readJson<Record<string, string>>('helldivers-2-json__factions.json')).map(([id, name]) => [Number(id), name]))
  cache = { planets, factions, sectors }
  return cache
}

/** Name for a planet index the lookup data does not know (new planets appear upstream first). */
export const unknownPlanetName = (index: number) => `Planet ${index}`
