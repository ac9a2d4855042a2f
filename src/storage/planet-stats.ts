/**
 * planet_stats_snapshots: per-planet cumulative statistics from the community feed, a
 * row only when a planet's counters changed (written by the planet-stats collector).
 */
import type { Tx } from '../db/connect.ts'
import { counterColumns, COUNTER_COLUMNS, CUMULATIVE_KEYS, type WarCounters } from './war-summary.ts'
import { columnOf } from './model.ts'

export interface PlanetStatsInput {
  planetIndex: number
  counters: WarCounters
  playerCount: number
}

/** The snapshot of each planet nearest to `at` on one side, keyed by planet index. */
async function neighbours(tx: Tx, warId: number, at: Date, indexes: number[], side: 'before' | 'after') {
  const rows = await tx<Record<string, number>[]>`
    SELECT n.planet_index, p.*
    FROM unnest(${indexes}::int[]) AS n(planet_index)
    CROSS JOIN LATERAL (
      SELECT ${tx(COUNTER_COLUMNS)} FROM planet_stats_snapshots s
      WHERE s.war_id = ${warId} AND s.planet_index = n.planet_index
        AND ${side === 'before' ? tx`s.captured_at < ${at}` : tx`s.captured_at > ${at}`}
      ORDER BY s.captured_at ${side === 'before' ? tx`DESC` : tx`ASC`}
      LIMIT 1) AS p`
  return new Map(rows.map((r) => [r.planet_index!, r]))
}

const sameCounters = (stored: Record<string, number> | undefined, c: WarCounters) =>
  stored !== undefined && CUMULATIVE_KEYS.every((k) => stored[columnOf(k)] === c[k])

/**
 * A row for every planet whose cumulative counters differ from its snapshot just before
 * `at` (and from the one just after, when a replayed tick lands between stored ones).
 * Player count, success rate and accuracy are stored with the row but are not counters:
 * they alone never cause one.
 */
export async function insertChanged(tx: Tx, at: Date, warId: number, planets: PlanetStatsInput[]): Promise<number> {
  const indexes = planets.map((p) => p.planetIndex)
  const [before, after] = await Promise.all([neighbours(tx, warId, at, indexes, 'before'), neighbours(tx, warId, at, indexes, 'after')])
  const rows = planets
    .filter((p) => !sameCounters(before.get(p.planetIndex), p.counters) && !sameCounters(after.get(p.planetIndex), p.counters))
    .map((p) => ({ captured_at: at, war_id: warId, planet_index: p.planetIndex, ...counterColumns(p.counters), player_count: p.playerCount }))
  if (rows.length === 0) return 0
  const r = await tx`INSERT INTO planet_stats_snapshots ${tx(rows)} ON CONFLICT DO NOTHING`
  return r.count
}
