/**
 * Storage over the years: compression of old raw chunks and retention of the raw 15-second
 * player counts, with the rollups kept (so long ranges still answer from them).
 *
 * - TimescaleDB Community: its own jobs. Compression (settings in sql/0010, segmented by
 *   each series' key) of chunks older than COMPRESS_AFTER_DAYS on every raw hypertable,
 *   and, with RAW_RETENTION_DAYS, a retention policy on player_count_snapshots. The
 *   continuous aggregates keep the buckets of dropped chunks: the only one reading that
 *   table directly (player_count_5m) refreshes the last 6 hours, far inside the retention.
 * - Apache (drop_chunks, no policies, no compression) and plain PostgreSQL (neither): the
 *   service's own retention job (`dropOldRawPlayerCounts`, on the schedule) drops whole
 *   chunks (Apache) or deletes rows in batches (PostgreSQL), never past the rollups'
 *   watermarks, so every dropped row is already materialized in the rollup tables.
 */
import type { Sql } from '../db/connect.ts'
import type { Edition } from '../db/edition.ts'

/** The raw hypertables (sql/0003) and the key each is compressed by (sql/0010). */
export const HYPERTABLES = [
  'player_count_snapshots', 'war_summary_snapshots', 'major_order_progress', 'planet_stats_snapshots',
] as const

/** The raw table a retention applies to: the 15-second series (~90 % of the rows). */
export const RETAINED_TABLE = 'player_count_snapshots'

export interface PolicySettings {
  /** Compress chunks older than this (Community); 0 = no compression policy. */
  compressAfterDays: number
  /** Drop raw player counts older than this; undefined = keep them all. */
  rawRetentionDays?: number
}

export interface PolicyState {
  compression: Record<string, string | null>
  retention: string | null
}

/**
 * Community: make TimescaleDB's compression and retention jobs match the settings
 * (idempotent; a policy already as configured is left alone). Processes starting together
 * take turns (advisory lock).
 */
export async function applyTimescalePolicies(sql: Sql, s: PolicySettings): Promise<PolicyState> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext('gws:storage-policies'))`
    const state: PolicyState = { compression: {}, retention: null }
    for (const table of HYPERTABLES) {
      const days = s.compressAfterDays
      const [job] = await tx<{ same: boolean }[]>`
        SELECT (config->>'compress_after')::interval = make_interval(days => ${days}) AS same
        FROM timescaledb_information.jobs
        WHERE proc_name = 'policy_compression' AND hypertable_schema = current_schema() AND hypertable_name = ${table}`
      if (!job?.same) {
        await tx`SELECT remove_compression_policy(${table}::regclass, if_exists => true)`
        if (days > 0) await tx`SELECT add_compression_policy(${table}::regclass, compress_after => make_interval(days => ${days}))`
      }
      state.compression[table] = days > 0 ? `${days} days` : null
    }
    const days = s.rawRetentionDays ?? 0
    const [job] = await tx<{ same: boolean }[]>`
      SELECT (config->>'drop_after')::interval = make_interval(days => ${days}) AS same
      FROM timescaledb_information.jobs
      WHERE proc_name = 'policy_retention' AND hypertable_schema = current_schema() AND hypertable_name = ${RETAINED_TABLE}`
    if (!job?.same) {
      await tx`SELECT remove_retention_policy(${RETAINED_TABLE}::regclass, if_exists => true)`
      if (days > 0) await tx`SELECT add_retention_policy(${RETAINED_TABLE}::regclass, drop_after => make_interval(days => ${days}))`
    }
    state.retention = days > 0 ? `${days} days` : null
    return state
  })
}

/** Rows per DELETE on plain PostgreSQL: short transactions, nothing locked for long. */
const DELETE_BATCH = 20_000

/**
 * Apache and plain PostgreSQL: drop raw player counts older than `days` before `now`, but
 * never at or past the watermark of a player-count rollup (rows there are not materialized
 * yet). Apache drops whole chunks (drop_chunks: only chunks entirely older than the
 * horizon); PostgreSQL deletes rows in batches. Returns the horizon and what went.
 */
export async function dropOldRawPlayerCounts(sql: Sql, edition: Exclude<Edition, 'timescale'>, days: number, now = new Date()): Promise<{ horizon: Date; chunks: number; rows: number }> {
  const [h] = await sql<{ horizon: Date }[]>`
    SELECT least(${now}::timestamptz - make_interval(days => ${days}),
                 (SELECT min(watermark) FROM rollup_watermarks WHERE source_table = ${RETAINED_TABLE})) AS horizon`
  const horizon = h!.horizon
  if (edition === 'apache') {
    const dropped = await sql`SELECT drop_chunks(${RETAINED_TABLE}::regclass, older_than => ${horizon}::timestamptz)`
    return { horizon, chunks: dropped.length, rows: 0 }
  }
  let rows = 0
  for (;;) {
    const r = await sql`
      DELETE FROM player_count_snapshots
      WHERE ctid = ANY (ARRAY(SELECT ctid FROM player_count_snapshots WHERE captured_at < ${horizon} LIMIT ${DELETE_BATCH}))`
    rows += r.count
    if (r.count < DELETE_BATCH) return { horizon, chunks: 0, rows }
  }
}

/** Storage per table (bytes, hypertables counted with their chunks) and rows: for the docs' measured run and the bench. */
export async function storageFigures(sql: Sql, edition: Edition): Promise<Array<{ table: string; rows: number; bytes: number }>> {
  const out: Array<{ table: string; rows: number; bytes: number }> = []
  for (const table of HYPERTABLES) {
    const [r] = await sql<{ rows: number; bytes: number }[]>`
      SELECT (SELECT count(*) FROM ${sql(table)})::bigint AS rows,
             ${edition === 'postgres' ? sql`pg_total_relation_size(${table}::regclass)` : sql`hypertable_size(${table}::regclass)`}::bigint AS bytes`
    out.push({ table, rows: r!.rows, bytes: r!.bytes })
  }
  return out
}
