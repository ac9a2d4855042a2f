/**
 * SQL of /divers/history. The two series are rows of game 'Game 2':
 *   api     = source 'upstream' (api_total_player_count, about every 15 s),
 *   pcstore = source 'pcstore'  (total_player_count, about every 10 min).
 * Points come from the player_count_* rollups (exact up to the last second on every
 * edition), re-bucketed with time_bucket; peak/low times are found by drilling down the
 * rollup levels to the raw rows, with a few small indexed queries.
 */
import type { Sql } from '../db/connect.ts'
import { PLAYER_COUNT_ROLLUPS } from '../db/rollups.ts'

export type DiverSource = 'api' | 'pcstore'

const GAME = 'Game 2'
const DB_SOURCE = { api: 'upstream', pcstore: 'pcstore' } as const

const series = (sql: Sql, s: DiverSource) => sql`game_name = ${GAME} AND source = ${DB_SOURCE[s]}`
const rawValue = (sql: Sql, s: DiverSource) => (s === 'api' ? sql`api_total_player_count` : sql`total_player_count`)

/** Time of the first row of a series, null when it has none. */
export async function firstRowAt(sql: Sql, s: DiverSource): Promise<Date | null> {
  const [row] = await sql<{ at: Date }[]>`
    SELECT captured_at AS at FROM player_count_snapshots WHERE ${series(sql, s)} ORDER BY captured_at LIMIT 1`
  return row?.at ?? null
}

/** Whether the series has a row at or before `at`. */
export async function hasRowAtOrBefore(sql: Sql, s: DiverSource, at: Date): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM player_count_snapshots WHERE ${series(sql, s)} AND captured_at <= ${at} LIMIT 1`
  return rows.length > 0
}

/** Whether the series has a row in [from, to]. */
export async function hasRowIn(sql: Sql, s: DiverSource, from: Date, to: Date): Promise<boolean> {
  const rows = await sql`
    SELECT 1 FROM player_count_snapshots WHERE ${series(sql, s)} AND captured_at >= ${from} AND captured_at <= ${to} LIMIT 1`
  return rows.length > 0
}

/** The latest raw value of a series (any time), null when it has none. */
export async function latestValue(sql: Sql, s: DiverSource): Promise<number | null> {
  const [row] = await sql<{ v: number }[]>`
    SELECT ${rawValue(sql, s)} AS v FROM player_count_snapshots WHERE ${series(sql, s)} ORDER BY captured_at DESC LIMIT 1`
  return row?.v ?? null
}

export interface BucketRow {
  t: Date
  /** round(sum / n) */
  v: number
  sum: number
  n: number
  min: number
  max: number
}

/**
 * Buckets of `widthS` seconds from rollup level `level` (whose width divides widthS), from
 * the aligned `from` up to the bucket holding `to`; only buckets with data.
 */
export function buckets(sql: Sql, s: DiverSource, level: number, widthS: number, from: Date, to: Date) {
  const rollup = PLAYER_COUNT_ROLLUPS[level]!.name
  return sql<BucketRow[]>`
    SELECT time_bucket(make_interval(secs => ${widthS}), bucket) AS t,
           round(sum(sum_v)::numeric / sum(n))::int AS v,
           sum(sum_v)::bigint AS sum, sum(n)::bigint AS n, min(min_v) AS min, max(max_v) AS max
    FROM ${sql(rollup)}
    WHERE ${series(sql, s)} AND bucket >= ${from} AND bucket <= ${to}
    GROUP BY 1
    ORDER BY 1`
}

/**
 * Time of the first raw row whose value is `value` (the window's max or min) among the
 * level-`level` rollup buckets in [from, to]: the first such bucket at that level, then
 * the first such bucket inside it at each finer level, then the first raw row inside the
 * 5-minute bucket.
 */
export async function firstTimeOf(sql: Sql, s: DiverSource, kind: 'max' | 'min', value: number, level: number, from: Date, to: Date): Promise<Date | null> {
  const col = kind === 'max' ? sql`max_v` : sql`min_v`
  let lo = from
  let hi: Date | null = null // exclusive; null = up to `to` inclusive
  for (let i = level; i >= 0; i--) {
    const r = PLAYER_COUNT_ROLLUPS[i]!
    const [row] = await sql<{ bucket: Date }[]>`
      SELECT bucket FROM ${sql(r.name)}
      WHERE ${series(sql, s)} AND bucket >= ${lo} AND ${hi ? sql`bucket < ${hi}` : sql`bucket <= ${to}`} AND ${col} = ${value}
      ORDER BY bucket LIMIT 1`
    if (!row) return null
    lo = row.bucket
    hi = new Date(lo.getTime() + r.seconds * 1000)
  }
  const [raw] = await sql<{ at: Date }[]>`
    SELECT captured_at AS at FROM player_count_snapshots
    WHERE ${series(sql, s)} AND captured_at >= ${lo} AND captured_at < ${hi!} AND ${rawValue(sql, s)} = ${value}
    ORDER BY captured_at LIMIT 1`
  return raw?.at ?? null
}
