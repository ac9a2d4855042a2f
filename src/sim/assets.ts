/**
 * Real captures the simulated war starts from (assets/upstream-samples, see its README).
 * They go through the same parsers as live payloads, so a sample the parsers reject
 * fails here at start-up, not halfway through a test.
 */
import statusSample from '../../assets/upstream-samples/arrowhead/warstatus_801_2024-03-08_sector-hq.json'
import warInfoSample from '../../assets/upstream-samples/arrowhead/warinfo_801_2024-03-25_sector-hq.json'
import summarySample from '../../assets/upstream-samples/arrowhead/DERIVED_summary_801_from_community_excerpt.json'
import assignmentSample from '../../assets/upstream-samples/arrowhead/assignment_v2_801_eradicate_multi_task_mockserver.json'
import newsSample from '../../assets/upstream-samples/arrowhead/newsfeed_801_default_10_items_daveydoodles97.json'
import status2025Sample from '../../assets/upstream-samples/arrowhead/warstatus_801_2025-battle-for-super-earth_EXCERPT_mockserver.json'
import effectsSample from '../../assets/upstream-samples/arrowhead/galacticwareffects_2025_EXCERPT_mockserver.json'
import regionTable from '../../assets/upstream-samples/static/helldivers-2-json__planets_planetRegion.json'
import planetNames from '../../assets/upstream-samples/static/helldivers-2-json__planets_planets.json'
import biomes from '../../assets/upstream-samples/static/helldivers-2-json__planets_biomes.json'
import factions from '../../assets/upstream-samples/static/helldivers-2-json__factions.json'
import lookup from '../../assets/upstream-samples/static/DERIVED_planet_index_lookup.json'
import {
  parseAssignments,
  parseNewsFeed,
  parseWarInfo,
  parseWarStatus,
} from '../feeds/upstream.ts'
import { parseGalacticWarEffects } from '../feeds/upstream-2025.ts'

export const STATUS_SAMPLE = parseWarStatus(statusSample).data
export const WAR_INFO_SAMPLE = parseWarInfo(warInfoSample).data
// Only its counters seed the simulated war, read as captured: a counter the service learns
// later (and the capture predates) must not stop the simulator.
export const SUMMARY_SAMPLE = summarySample
export const ASSIGNMENT_SAMPLE = parseAssignments(assignmentSample).data
export const NEWS_SAMPLE = parseNewsFeed(newsSample).data
/** A 2025 status (regions, global events and resources); its global resource seeds the simulated one. */
export const STATUS_2025_SAMPLE = parseWarStatus(status2025Sample).data
/** Real effect definitions (2025), served beside the ones the simulator makes up for its own effects. */
export const EFFECTS_SAMPLE = parseGalacticWarEffects(effectsSample).data

/**
 * The region settings hashes the simulator names its regions with: the shipped table's
 * Super Earth cities (its other entries are Automaton factories), in the table's order.
 */
export const REGION_HASHES: readonly number[] = Object.entries(regionTable as Record<string, { region_faction?: string }>)
  .filter(([, r]) => r.region_faction === 'Super Earth')
  .map(([hash]) => Number(hash))

export interface PlanetName {
  name: string
  sector: string
  /** Localised names (15 locales), as the community API serves them under `ivl-IV`. */
  names: Record<string, string>
  biome: { name: string; description: string }
}

const biomeTable = biomes as Record<string, { name: string; description: string } | undefined>
const nameTable = planetNames as Record<string, { name: string; sector: string; biome?: string; names?: Record<string, string> } | undefined>
const lookupTable = (lookup as { planets: Record<string, { name: string; sector: string } | undefined> }).planets

const UNKNOWN_BIOME = { name: 'Unknown', description: "This planet's biome is unknown at this time." }

/** Name, sector and biome per planet index (the community API drops planets it cannot name). */
export function planetName(index: number): PlanetName | undefined {
  const base = lookupTable[String(index)]
  if (!base) return undefined
  const full = nameTable[String(index)]
  const biome = full?.biome ? biomeTable[full.biome] : undefined
  return { name: base.name, sector: base.sector, names: full?.names ?? { 'en-US': base.name }, biome: biome ?? UNKNOWN_BIOME }
}

/** Community faction names ("Automaton" singular); "" for unknown ids, as the community API does. */
export function factionName(id: number): string {
  return (factions as Record<string, string | undefined>)[String(id)] ?? ''
}
