/**
 * The planet lookup table with each planet's world (/planets): the stored rows (war-info
 * collector), their biome, hazards and regions put into words through the shipped tables
 * (lookups.ts `worldTables`), and the galactic effects active at the latest full-status tick.
 */
import { worldTables, type Described } from '../lookups.ts'
import type { Store } from '../storage/index.ts'
import type { StoredPlanetRow } from '../storage/war.ts'

export type Keyed = { key: string } & Described

/** A planet's world: what it is (biome, hazards) and its regions. */
export interface PlanetWorld {
  /** null when the row has no biome key. */
  biome: Keyed | null
  hazards: Keyed[]
  regions: Array<{ index: number; hash: number } & Described>
}

export type PlanetEffect = { id: number } & Described

export type PlanetRow = Omit<StoredPlanetRow, 'regions'> & { world: PlanetWorld; effects: PlanetEffect[] }

/**
 * Every planet of every stored war, by war then index, each with its world and effects.
 * Effects are those of the latest full-status tick of the latest war that has one, on
 * that war's rows; the rows of other wars have none.
 */
export async function planetsWithWorld(storage: Pick<Store, 'war' | 'planetEffects'>): Promise<PlanetRow[]> {
  const [rows, latest] = await Promise.all([storage.war.planets(), storage.planetEffects.latest()])
  const tables = worldTables()
  const effectsOf = new Map<number, PlanetEffect[]>()
  for (const e of latest.effects) {
    const list = effectsOf.get(e.planetIndex) ?? []
    list.push({ id: e.effectId, ...tables.effect(e.effectId) })
    effectsOf.set(e.planetIndex, list)
  }
  return rows.map(({ regions, ...row }) => ({
    ...row,
    world: {
      biome: row.biome === null ? null : { key: row.biome, ...tables.biome(row.biome) },
      hazards: tables.hazards(row.index).map((h) => ({ ...h })),
      regions: regions.map((r) => ({ index: r.index, hash: r.hash, ...tables.region(r.hash) })),
    },
    effects: row.warID === latest.warId ? (effectsOf.get(row.index) ?? []) : [],
  }))
}
