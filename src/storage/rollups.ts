/**
 * The long-range rollups (sql/0004, sql/0005): one name per rollup on every edition,
 * exact up to the last second. Refreshed by the service on Apache and plain PostgreSQL,
 * by TimescaleDB's own policies on Community.
 */
import type { Fragment, Sql, Tx } from '../db/connect.ts'
import { refreshesOwnRollups, type Edition } from '../db/edition.ts'

/**
 * Rollups of the player counts, finest first. Every name is a continuous aggregate
 * (Community) or a live view over a rollup table (other editions); both have the same
 * columns and are exact up to the last second.
 */
export const PLAYER_COUNT_ROLLUPS = [
  { name: 'player_count_5m', seconds: 300 },
  { name: 'player_count_1h', seconds: 3600 },
  { name: 'player_count_1d', seconds: 86_400 },
] as const

/** TimescaleDB's default time_bucket origin (a Monday), also used by the shim of sql/0001. */
const BUCKET_ORIGIN_MS = Date.UTC(2000, 0, 3)

/**
 * time_bucket(width, at) computed here, for fixed widths: the start of the bucket holding
 * `at`, aligned exactly as the database aligns rollup buckets (no round trip needed).
 */
export function timeBucket(widthS: number, at: Date): Date {
  const w = widthS * 1000
  return new Date(BUCKET_ORIGIN_MS + Math.floor((at.getTime() - BUCKET_ORIGIN_MS) / w) * w)
}

/**
 * Materialize complete buckets of every service-refreshed rollup, coarse levels after
 * the levels they read. A no-op on Community, where refresh policies do this.
 * Returns rows written per rollup.
 */
export async function refreshRollups(sql: Sql, edition: Edition, now?: Date): Promise<Record<string, number>> {
  if (!refreshesOwnRollups(edition)) return {}
  const written: Record<string, number> = {}
  const names = await sql<{ rollup_name: string }[]>`SELECT rollup_name FROM rollup_watermarks ORDER BY refresh_order, rollup_name`
  for (const { rollup_name } of names) {
    const [row] = await sql<{ n: number }[]>`
      SELECT rollup_refresh(${rollup_name}, coalesce(${now ?? null}::timestamptz, now())) AS n`
    written[rollup_name] = row?.n ?? 0
  }
  return written
}

export type SourceTable = 'player_count_snapshots' | 'war_summary_snapshots'

/** Rows at or after `from` were written to `table`: buckets from there on are served live until the next refresh. */
export async function invalidateRollups(sql: Sql | Tx, table: SourceTable, from: Date): Promise<void> {
  await sql`SELECT ${invalidation(sql, table, from)}`
}

/** invalidateRollups as an expression, for the statement that writes the rows (a void value). */
export const invalidation = (sql: Sql | Tx, table: SourceTable, from: Date): Fragment => sql`rollup_invalidate(${table}, ${from})`

/** The continuous aggregates (Community) over each raw table, finest first (each coarser one reads the one before). */
const CAGGS: Record<SourceTable, readonly { name: string; seconds: number }[]> = {
  player_count_snapshots: PLAYER_COUNT_ROLLUPS,
  war_summary_snapshots: [{ name: 'war_summary_1d', seconds: 86_400 }],
}

/**
 * The refreshes that make rows written at `at` visible in the continuous aggregates: one
 * CALL per level for the bucket holding `at`, finest first. A continuous aggregate serves
 * its materialized buckets as they were until a refresh covers them, so a row written
 * below its watermark (a late tick, a spool replayed after an outage) would otherwise
 * wait for the next policy run. As statements with parameters: the test runs them on the
 * PGlite TimescaleDB build, the service through postgres.js.
 */
export function lateRowRefreshes(table: SourceTable, at: Date, to: Date = at): { text: string; params: [string, string, string] }[] {
  return CAGGS[table].map(({ name, seconds }) => {
    const lo = timeBucket(seconds, at)
    const hi = new Date(timeBucket(seconds, to).getTime() + seconds * 1000)
    return { text: 'CALL refresh_continuous_aggregate($1::regclass, $2::timestamptz, $3::timestamptz)', params: [name, lo.toISOString(), hi.toISOString()] }
  })
}

/** Rows older than this may lie below a continuous aggregate's watermark (its smallest end_offset, sql/0004). */
export const LATE_AFTER_MS = 5 * 60_000

/**
 * On Community: after a commit that wrote rows into `table` at `at` more than LATE_AFTER_MS
 * ago, refresh the buckets holding them (outside the write's transaction: a refresh
 * cannot run inside one). Other editions keep exact through rollup_invalidate.
 */
export async function refreshLateRows(sql: Sql, edition: Edition, table: SourceTable, at: Date, now: Date): Promise<boolean> {
  if (refreshesOwnRollups(edition) || now.getTime() - at.getTime() < LATE_AFTER_MS) return false
  for (const r of lateRowRefreshes(table, at)) await sql.unsafe(r.text, r.params)
  return true
}

/**
 * On Community, once after rows were written into `table` from `from` to `to` (an import,
 * src/import/): refresh every continuous aggregate over the buckets holding them, finest
 * first, outside any transaction, as refreshLateRows does for one late tick. Rows of the
 * last LATE_AFTER_MS are left to the refresh policies, like a live tick's. The other
 * editions keep exact through rollup_invalidate; refreshRollups materializes them.
 * True when something was refreshed.
 */
export async function refreshWrittenRange(sql: Sql, edition: Edition, table: SourceTable, from: Date, to: Date, now: Date = new Date()): Promise<boolean> {
  const until = new Date(Math.min(to.getTime(), now.getTime() - LATE_AFTER_MS))
  if (refreshesOwnRollups(edition) || until < from) return false
  for (const r of lateRowRefreshes(table, from, until)) await sql.unsafe(r.text, r.params)
  return true
}

/**
 * Each service-refreshed rollup's watermark: buckets before it are materialized, newer
 * rows are aggregated live. None on Community (its continuous aggregates have their own).
 */
export async function rollupWatermarks(sql: Sql, edition: Edition): Promise<Record<string, Date>> {
  if (!refreshesOwnRollups(edition)) return {}
  const rows = await sql<{ rollup_name: string; watermark: Date }[]>`SELECT rollup_name, watermark FROM rollup_watermarks ORDER BY rollup_name`
  return Object.fromEntries(rows.map((r) => [r.rollup_name, r.watermark]))
}
