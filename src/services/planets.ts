/**
 * The planet lookup table with each planet's world (/planets): the stored rows (war-info
 * collector), their biome, hazards and regions put into words through the shipped tables
 * (lookups.ts `worldTables`), and the galactic effects active at the latest full-status tick.
 */
import { worldTables, type Described } from '../lookups.ts'
import type { Store } from '../storage/index.ts'
import type { StoredPlanetRow } from '../storage/war.ts'
import { regionKey } from '../storage/war-items.ts'
import { libPctOf } from '../war/liberation.ts'

export type Keyed = { key: string } & Described

/** A planet's world: what it is (biome, hazards) and its regions. */
export interface PlanetWorld {
  /** null when the row has no biome key. */
  biome: Keyed | null
  hazards: Keyed[]
  regions: Array<{ index: number; hash: number } & Described & RegionExtra>
}

/** What the shipped table, the war info and the latest tick add to a region (2025+; null before). */
export interface RegionExtra {
  type: string | null
  faction: string | null
  maxHealth: number | null
  regionSize: number | null
  /** The region's state at the latest tick listing regions; null when it is not in play. */
  inPlay: { owner: number; health: number; libPct: number | null; players: number; available: boolean | null } | null
}

export type PlanetEffect = { id: number } & Described

export type PlanetRow = Omit<StoredPlanetRow, 'regions'> & { world: PlanetWorld; effects: PlanetEffect[] }

/**
 * Every planet of every stored war, by war then index, each with its world and effects.
 * Effects are those of the latest full-status tick of the latest war that has one, on
 * that war's rows; the rows of other wars have none.
 */
export async function planetsWithWorld(storage: Pick<Store, 'war' | 'planetEffects' | 'warItems' | 'surfaces'>): Promise<PlanetRow[]> {
  const [rows, latest] = await Promise.all([storage.war.planets(), storage.planetEffects.latest()])
  // The regions in play and their scale, on the rows of the war the effects are of (else the latest stored war).
  const regionWar = latest.warId ?? rows.at(-1)?.warID ?? null
  const [inPlay, infos] = regionWar === null ? [[], []] : await Promise.all([storage.warItems.latest(regionWar, 'region'), storage.surfaces.regionInfos(regionWar)])
  const stateOf = new Map(inPlay.map((i) => [i.key, i.state]))
  const infoOf = new Map(infos.map((r) => [regionKey(r.planetIndex, r.regionIndex), r]))
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
      regions: regions.map((r) => {
        const { faction, type, ...words } = tables.region(r.hash)
        const key = regionKey(row.index, r.index)
        const current = row.warID === regionWar ? stateOf.get(key) : undefined
        const info = row.warID === regionWar ? infoOf.get(key) : undefined
        const maxHealth = info?.maxHealth ?? null
        return {
          index: r.index, hash: r.hash, ...words, type, faction, maxHealth, regionSize: info?.regionSize ?? null,
          inPlay: current
            ? {
                owner: current.owner as number, health: current.health as number, players: current.players as number,
                libPct: maxHealth ? libPctOf(current.owner as number, current.health as number, maxHealth) : null,
                available: typeof current.available === 'boolean' ? current.available : null,
              }
            : null,
        }
      }),
    },
    effects: row.warID === latest.warId ? (effectsOf.get(row.index) ?? []) : [],
  }))
}
