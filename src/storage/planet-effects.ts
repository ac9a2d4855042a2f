/**
 * The galactic effects active on each planet at each full-status tick, as history: the
 * status feed's `planetActiveEffects`, a set of (planet, effect) kept where it changes
 * (sql/0022, storage/tick-sets.ts). Written in the full-status tick's transaction
 * (collect/full-status.ts); /planets reads the latest tick's (services/planets.ts).
 */
import type { Sql, Tx } from '../db/connect.ts'
import * as tickSets from './tick-sets.ts'

/** One effect on one planet at a tick, as the collector maps it. */
export interface PlanetEffectInput {
  planet_index: number
  effect_id: number
}

/** A planet's effect at a tick. */
export interface PlanetEffectRow {
  planetIndex: number
  effectId: number
}

/** The effects at one tick: its war and time (null: no tick stored yet). */
export interface EffectsAtTick {
  warId: number | null
  at: Date | null
  effects: PlanetEffectRow[]
}

/**
 * The effects of ticks of one war, oldest first (`next`: the stored tick after a tick
 * written late), as a set kept where it changes (storage/tick-sets.ts); an effect listed
 * twice counts once. Returns the effects per tick.
 */
export async function insertTicks(tx: Tx, warId: number, ticks: readonly { at: Date; effects: PlanetEffectInput[] }[], next: Date | null = null): Promise<number[]> {
  const sets = ticks.map((t) => ({ at: t.at, items: [...new Map(t.effects.map((e) => [`${e.planet_index}:${e.effect_id}`, [e.planet_index, e.effect_id] as const])).values()] }))
  await tickSets.writeTicks(tx, warId, sets.map(({ at, items }) => ({ at, sets: { effects: items } })), next)
  return sets.map((s) => s.items.length)
}

/**
 * The effects at the latest full-status tick of the latest war that has one (the war being
 * collected): by planet, then effect id. A tick whose payload listed none has none.
 */
async function latest(sql: Sql): Promise<EffectsAtTick> {
  const [tick] = await sql<{ warId: number; at: Date }[]>`
    SELECT war_id AS "warId", captured_at AS at FROM full_status_ticks
    WHERE planets_written > 0
    ORDER BY war_id DESC, captured_at DESC
    LIMIT 1`
  if (!tick) return { warId: null, at: null, effects: [] }
  const items = (await tickSets.setAt(sql, tick.warId, 'effects', tick.at)) as [number, number][]
  return { warId: tick.warId, at: tick.at, effects: items.map(([planetIndex, effectId]) => ({ planetIndex, effectId })) }
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { latest }
