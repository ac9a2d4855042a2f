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

/**
 * The major orders' code tables (helldivers-2/json `assignments/`): task type → name
 * ("Eradicate"), task value type → name ("goal", "location_index"), reward type → name
 * ("Medals"). Read by services/major-orders.ts to put tasks and rewards into words.
 */
export interface AssignmentTables {
  taskTypes: Map<number, string>
  valueTypes: Map<number, string>
  rewardTypes: Map<number, string>
}

/** A `{"<id>": "<name>"}` table file as a map. */
const idTable = (file: string) => new Map(Object.entries(readJson<Record<string, string>>(file)).map(([id, name]) => [Number(id), name]))

let cache: {
  planets: Map<number, PlanetLookup>
  factions: Map<number, string>
  sectors: Map<string, number>
  assignments: AssignmentTables
  campaignTypes: Map<number, string>
} | null = null

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
  const assignments: AssignmentTables = {
    taskTypes: idTable('helldivers-2-json__assignments_tasks_task_type.json'),
    valueTypes: idTable('helldivers-2-json__assignments_tasks_task_valueTypes.json'),
    rewardTypes: idTable('helldivers-2-json__assignments_reward_type.json'),
  }
  cache = { planets, factions, sectors, assignments, campaignTypes: idTable('helldivers-2-json__campaign_types.json') }
  return cache
}

/** Name for a planet index the lookup data does not know (new planets appear upstream first). */
export const unknownPlanetName = (index: number) => `Planet ${index}`

/**
 * A campaign's type in words: type 0 is a liberation, or a defense when a planet event
 * belongs to the campaign; the others by the campaign type table ("Recon" → "recon");
 * an unknown type "type-N".
 */
export function campaignTypeName(type: number, defended: boolean): string {
  if (type === 0) return defended ? 'defense' : 'liberation'
  return lookups().campaignTypes.get(type)?.toLowerCase() ?? `type-${type}`
}

/** A name and description from a shipped table; both null for a key the table does not know. */
export interface Described {
  name: string | null
  description: string | null
}

/**
 * The planets' world from the shipped tables (helldivers-2/json `planets/` and `effects/`):
 * biome key → name and description (biomes.json), each planet's hazards (its
 * `environmentals` in planets.json through environmentals.json, `none` dropped), region
 * settings hash → name and description (planetRegion.json), galactic effect id → name and
 * description (planetEffects.json). Read by services/planets.ts for /planets.
 */
export interface WorldTables {
  biome(key: string): Described
  /** The hazards of a planet index, in the table's order; [] for a planet it does not know. */
  hazards(index: number): Array<{ key: string } & Described>
  /** With the table's faction and type (Metropolis, ...). */
  region(hash: number): Described & { faction: string | null; type: string | null }
  effect(id: number): Described
}

let world: WorldTables | null = null

export function worldTables(): WorldTables {
  if (world) return world
  type Text = { name?: string; description?: string; region_faction?: string; region_type?: string }
  const table = (file: string) => new Map(Object.entries(readJson<Record<string, Text>>(file)))
  const biomes = table('helldivers-2-json__planets_biomes.json')
  const environmentals = table('helldivers-2-json__planets_environmentals.json')
  const regions = table('helldivers-2-json__planets_planetRegion.json')
  const effects = table('helldivers-2-json__effects_planetEffects.json')
  const described = (t: Text | undefined): Described => ({ name: t?.name ?? null, description: t?.description ?? null })
  const hazardsOf = new Map<number, Array<{ key: string } & Described>>()
  for (const [index, p] of Object.entries(readJson<Record<string, { environmentals?: string[] }>>('helldivers-2-json__planets_planets.json'))) {
    hazardsOf.set(Number(index), (p.environmentals ?? []).filter((key) => key !== 'none').map((key) => ({ key, ...described(environmentals.get(key)) })))
  }
  world = {
    biome: (key) => described(biomes.get(key)),
    hazards: (index) => hazardsOf.get(index) ?? [],
    region: (hash) => {
      const r = regions.get(String(hash))
      return { ...described(r), faction: r?.region_faction ?? null, type: r?.region_type ?? null }
    },
    effect: (id) => described(effects.get(String(id))),
  }
  return world
}
