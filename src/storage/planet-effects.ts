/**
 * The galactic effects active on each planet at each full-status tick, as history
 * (sql/0012_planet_effects.sql): the status feed's `planetActiveEffects`, one row per planet
 * and effect. Written in the full-status tick's transaction (collect/full-status.ts); /planets
 * reads the latest tick's (services/planets.ts).
 */
import type { Sql, Tx } from '../db/connect.ts'
import { insertRows } from './model.ts'

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

/** The effects of ticks of one war, oldest first, in one statement; a tick already stored, or an effect listed twice, adds nothing. Returns the rows per tick. */
export async function insertTicks(tx: Tx, warId: number, ticks: readonly { at: Date; effects: PlanetEffectInput[] }[]): Promise<number[]> {
  const rows = ticks.flatMap((t) => t.effects.map(({ planet_index, effect_id }) => ({ captured_at: t.at, war_id: warId, planet_index, effect_id })))
  if (!rows.length) return ticks.map(() => 0)
  const counts = await tx<{ at: Date; n: number }[]>`
    WITH ins AS (${insertRows(tx, 'planet_effect_snapshots', rows)} ON CONFLICT DO NOTHING RETURNING captured_at)
    SELECT captured_at AS at, count(*)::int AS n FROM ins GROUP BY captured_at`
  const byAt = new Map(counts.map((c) => [c.at.getTime(), c.n]))
  return ticks.map((t) => byAt.get(t.at.getTime()) ?? 0)
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
  const effects = await sql<PlanetEffectRow[]>`
    SELECT planet_index AS "planetIndex", effect_id AS "effectId" FROM planet_effect_snapshots
    WHERE war_id = ${tick.warId} AND captured_at = ${tick.at}
    ORDER BY planet_index, effect_id`
  return { warId: tick.warId, at: tick.at, effects: [...effects] }
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { latest }
