/** full_status_ticks: one row per archived full-status tick, keyed by (war, upstream war time). */
import type { Queryable, Sql, Tx } from '../db/connect.ts'

/** When the other parts of a tick were fetched (ISO; absent on ticks spooled before they were kept). */
export interface PartsFetchedAt {
  summary?: string
  assignments?: string
  newsfeed?: string
}

/**
 * Claims a full-status tick: true when it was not stored yet. The same upstream status
 * twice (a cached or frozen status, a replica's tick, a replayed spool) claims nothing,
 * but records that its war time was seen again at `at` (how a frozen war shows).
 */
export async function claimFullStatus(tx: Tx, at: Date, warId: number, warTime: number, planets: number, parts: PartsFetchedAt = {}): Promise<boolean> {
  const [row] = await tx<{ inserted: boolean }[]>`
    INSERT INTO full_status_ticks AS f (war_id, upstream_war_time, captured_at, planets_written, summary_fetched_at, assignments_fetched_at, newsfeed_fetched_at)
    VALUES (${warId}, ${warTime}, ${at}, ${planets}, ${parts.summary ?? null}, ${parts.assignments ?? null}, ${parts.newsfeed ?? null})
    ON CONFLICT (war_id, upstream_war_time) DO UPDATE
      SET last_seen_at = greatest(f.last_seen_at, excluded.captured_at)
      WHERE excluded.captured_at > f.captured_at
    RETURNING (xmax = 0) AS inserted`
  return row?.inserted === true
}

/**
 * For each of these war times of a war that has a stored tick, the latest capture time
 * that tick stands for (its capture, or the latest that saw its war time again): a capture
 * of that war time at or before it would claim nothing and move nothing (an import skips
 * such captures without writing).
 */
export async function seenUntil(sql: Queryable, warId: number, warTimes: number[]): Promise<Map<number, Date>> {
  if (!warTimes.length) return new Map()
  const rows = await sql<{ w: number; t: Date }[]>`
    SELECT upstream_war_time AS w, greatest(captured_at, last_seen_at) AS t
    FROM full_status_ticks
    WHERE war_id = ${warId} AND upstream_war_time IN (SELECT jsonb_array_elements_text(${JSON.stringify(warTimes)}::text::jsonb)::bigint)`
  return new Map(rows.map((r) => [r.w, r.t]))
}

/** The war's clock as the stored ticks show it: its latest tick with planets, and when that tick's war time was last seen. */
export interface WarClock {
  /** Capture time of the latest tick (null: none yet). */
  at: Date | null
  /** The war time of that tick. */
  warTime: number | null
  /** The latest capture that showed the same war time again (null: never seen again). */
  lastSeenAt: Date | null
}

async function clock(sql: Sql, warId: number): Promise<WarClock> {
  const [row] = await sql<WarClock[]>`
    SELECT captured_at AS at, upstream_war_time AS "warTime", last_seen_at AS "lastSeenAt"
    FROM full_status_ticks
    WHERE war_id = ${warId} AND planets_written > 0
    ORDER BY captured_at DESC LIMIT 1`
  return row ?? { at: null, warTime: null, lastSeenAt: null }
}

/** Every war the service knows: from its war info or its full-status ticks, by id. */
async function warIds(sql: Sql): Promise<number[]> {
  const rows = await sql<{ id: number }[]>`SELECT war_id AS id FROM wars UNION SELECT DISTINCT war_id FROM full_status_ticks ORDER BY id`
  return rows.map((r) => r.id)
}

export const reads = { clock, warIds }
