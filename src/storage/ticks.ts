/** full_status_ticks: one row per archived full-status tick, keyed by (war, upstream war time). */
import type { Queryable, Sql, Tx } from '../db/connect.ts'
import { numbers } from './model.ts'

/** When the other parts of a tick were fetched (ISO; absent on ticks spooled before they were kept). */
export interface PartsFetchedAt {
  summary?: string
  assignments?: string
  newsfeed?: string
}

/** A full-status tick to claim: its war and war time, capture time, planet rows and parts' fetch times. */
export interface TickToClaim {
  warId: number
  warTime: number
  at: Date
  planets: number
  parts?: PartsFetchedAt
}

/**
 * What a claim found for one tick. `before` and `next`: for a claimed tick, the war's
 * ticks with planet rows just before and just after it among those stored before this
 * claim (null: none).
 */
export interface Claim {
  claimed: boolean
  before: Date | null
  next: Date | null
  /** Claimed, and its war time later than every stored tick's (as stored before this write). */
  rising: boolean
}

/**
 * Claims full-status ticks, in order: each is claimed when its war time was not stored
 * yet (by an earlier tick here or before). The same upstream status again (a cached or
 * frozen status, a replica's tick, a replayed spool) claims nothing, but records that its
 * war time was seen again at its capture time when that is later (how a frozen war
 * shows). One statement: a war time's first tick here is its candidate, and the latest
 * capture of the others is when it was seen again.
 */
export async function claimTicks(tx: Tx, ticks: readonly TickToClaim[]): Promise<Claim[]> {
  const json = JSON.stringify(ticks.map((t, k) => ({
    k, war_id: t.warId, war_time: t.warTime, captured_at: t.at, planets: t.planets,
    summary_fetched_at: t.parts?.summary ?? null, assignments_fetched_at: t.parts?.assignments ?? null, newsfeed_fetched_at: t.parts?.newsfeed ?? null,
  })))
  const rows = await tx<{ k: number; claimed: boolean; before: Date | null; next: Date | null; rising: boolean }[]>`
    WITH t AS (
      SELECT * FROM jsonb_to_recordset(${json}::text::jsonb) AS t(
        k integer, war_id integer, war_time bigint, captured_at timestamptz, planets integer,
        summary_fetched_at timestamptz, assignments_fetched_at timestamptz, newsfeed_fetched_at timestamptz)
    ), firsts AS (
      SELECT DISTINCT ON (war_id, war_time) t.*,
        (SELECT max(o.captured_at) FROM t o WHERE o.war_id = t.war_id AND o.war_time = t.war_time AND o.k > t.k) AS again_at
      FROM t ORDER BY war_id, war_time, k
    ), claimed AS (
      INSERT INTO full_status_ticks AS f (war_id, upstream_war_time, captured_at, planets_written, last_seen_at, summary_fetched_at, assignments_fetched_at, newsfeed_fetched_at)
      SELECT war_id, war_time, captured_at, planets, CASE WHEN again_at > captured_at THEN again_at END,
             summary_fetched_at, assignments_fetched_at, newsfeed_fetched_at
      FROM firsts ORDER BY k
      ON CONFLICT (war_id, upstream_war_time) DO UPDATE
        SET last_seen_at = greatest(f.last_seen_at, excluded.captured_at, excluded.last_seen_at)
        WHERE greatest(excluded.captured_at, excluded.last_seen_at) > f.captured_at
      RETURNING war_id, upstream_war_time, (xmax = 0) AS inserted
    )
    -- The neighbours are read as stored before this statement (its own rows are not seen).
    SELECT x.k, x.claimed,
      CASE WHEN x.claimed THEN (SELECT max(captured_at) FROM full_status_ticks
        WHERE war_id = x.war_id AND captured_at < x.captured_at AND planets_written > 0) END AS before,
      CASE WHEN x.claimed THEN (SELECT min(captured_at) FROM full_status_ticks
        WHERE war_id = x.war_id AND captured_at > x.captured_at AND planets_written > 0) END AS next,
      -- The greatest stored war time through the key's end (a range of it, planned for any value, read the whole table).
      x.claimed AND coalesce((SELECT max(upstream_war_time) FROM full_status_ticks WHERE war_id = x.war_id) < x.war_time, true) AS rising
    FROM (
      SELECT firsts.*, coalesce(c.inserted, false) AS claimed
      FROM firsts LEFT JOIN claimed c ON c.war_id = firsts.war_id AND c.upstream_war_time = firsts.war_time
    ) x`
  const out: Claim[] = ticks.map(() => ({ claimed: false, before: null, next: null, rising: false }))
  for (const r of rows) out[r.k] = { claimed: r.claimed, before: r.before, next: r.next, rising: r.rising }
  return out
}

/** Claims one full-status tick (claimTicks): true when it was not stored yet. */
export async function claimFullStatus(tx: Tx, at: Date, warId: number, warTime: number, planets: number, parts: PartsFetchedAt = {}): Promise<boolean> {
  const [claim] = await claimTicks(tx, [{ warId, warTime, at, planets, parts }])
  return claim!.claimed
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
    WHERE war_id = ${warId} AND upstream_war_time = ANY (${numbers(warTimes)}::bigint[])`
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
