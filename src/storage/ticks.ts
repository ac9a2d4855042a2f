/** full_status_ticks: one row per archived full-status tick, keyed by (war, upstream war time). */
import type { Tx } from '../db/connect.ts'

/**
 * Claims a full-status tick: true when it was not stored yet. The same upstream status
 * twice (a cached or frozen status, a replica's tick, a replayed spool) claims nothing.
 */
export async function claimFullStatus(tx: Tx, at: Date, warId: number, warTime: number, planets: number): Promise<boolean> {
  const r = await tx`
    INSERT INTO full_status_ticks (war_id, upstream_war_time, captured_at, planets_written)
    VALUES (${warId}, ${warTime}, ${at}, ${planets})
    ON CONFLICT DO NOTHING`
  return r.count === 1
}
