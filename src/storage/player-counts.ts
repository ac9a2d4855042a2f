/**
 * player_count_snapshots and its rollups. Two series share the table, as rows of
 * 'Game 2' (and 'Game' for pcstore):
 *   upstream = source 'upstream' (api_total_player_count, about every 15 s, one row per
 *              upstream war-status time),
 *   pcstore  = source 'pcstore'  (pcstore/console/total counts, about every 10 min).
 */
import { t, type Static } from 'elysia'
import type { Queryable, Sql, Tx } from '../db/connect.ts'
import { Nullable, selectRow, Timestamp } from './model.ts'
import type { PageOf, Slice, TimeRange } from './query.ts'
import { invalidateRollups, PLAYER_COUNT_ROLLUPS } from './rollups.ts'
import { timePage } from './time-pages.ts'

export const GAME_NAMES = ['Game', 'Game 2'] as const
export type GameName = (typeof GAME_NAMES)[number]

const NullableInt = (description: string) => Nullable(t.Integer(), description)

export const PlayerCountRow = t.Object(
  {
    timestamp: Timestamp('Capture time'),
    gameName: t.Union([t.Literal('Game'), t.Literal('Game 2')], { description: 'Which game' }),
    pcstorePlayerCount: NullableInt('pcstore players (pcstore-collector rows; null on upstream rows)'),
    consolePlayerCount: NullableInt('console players (pcstore-collector rows; always 0 there)'),
    totalPlayerCount: NullableInt('pcstore + console (pcstore-collector rows)'),
    apiTotalPlayerCount: NullableInt('cross-platform total from the upstream war status (upstream-collector rows)'),
  },
  { description: 'Player-count history row: pcstore shape (about every 10 min) or upstream shape (about every 15 s)' },
)
export type PlayerCountRow = Static<typeof PlayerCountRow>

/** /historical-player-count: newest first, both row shapes; counted and located through the daily and hourly rollups. */
function history(sql: Sql, f: { range: TimeRange; gameName?: GameName }, p: Slice): Promise<PageOf<PlayerCountRow>> {
  const series = {
    table: 'player_count_snapshots',
    where: f.gameName ? sql`game_name = ${f.gameName}` : sql`true`,
    levels: [PLAYER_COUNT_ROLLUPS[2], PLAYER_COUNT_ROLLUPS[1]].map((r) => ({ view: r.name, seconds: r.seconds })),
  }
  return keptRange(sql, f.range).then((range) =>
    timePage<PlayerCountRow>(sql, series, range, p, selectRow(sql, PlayerCountRow, { timestamp: sql`captured_at` }), sql`game_name, source`))
}

/**
 * The window cut to the raw rows still kept: with RAW_RETENTION_DAYS the oldest rows are
 * gone from the table but still counted in the rollups, whose counts the pages walk. The
 * cut starts at the oldest raw row; the rollup buckets before it are not counted.
 */
async function keptRange(sql: Sql, range: TimeRange): Promise<TimeRange> {
  const [first] = await sql<{ at: Date }[]>`SELECT captured_at AS at FROM player_count_snapshots ORDER BY captured_at LIMIT 1`
  if (!first || (range.from && range.from >= first.at)) return range
  return { ...range, from: first.at }
}

// ------------------------------------------------------------------ the diver-history series

/** The two series of the diver history (both of game 'Game 2'). */
export type DiverSource = 'api' | 'pcstore'

const DIVER_GAME: GameName = 'Game 2'
const DB_SOURCE = { api: 'upstream', pcstore: 'pcstore' } as const

const series = (sql: Sql, s: DiverSource) => sql`game_name = ${DIVER_GAME} AND source = ${DB_SOURCE[s]}`
const rawValue = (sql: Sql, s: DiverSource) => (s === 'api' ? sql`api_total_player_count` : sql`total_player_count`)

// Raw rows older than RAW_RETENTION_DAYS are gone; the 5-minute rollup still has their
// buckets. The questions below ask both: without retention the rollup's answer is implied
// by the raw one (a bucket exists only where rows do), so nothing changes; with it, the
// rollup answers for the dropped past, to the precision of its 5-minute buckets.

/** Time of the first row of a series (the start of its first 5-minute bucket when that is older than every raw row), null when it has none. */
async function firstRowAt(sql: Sql, s: DiverSource): Promise<Date | null> {
  // The rollup is asked only for buckets older than the raw first row's (there are some
  // only after retention): ordering its whole union view by bucket would sort every bucket.
  const [row] = await sql<{ at: Date | null }[]>`
    WITH raw AS (SELECT captured_at AS at FROM player_count_snapshots WHERE ${series(sql, s)} ORDER BY captured_at LIMIT 1)
    SELECT CASE WHEN (SELECT at FROM raw) IS NULL
                THEN (SELECT min(bucket) FROM player_count_5m WHERE ${series(sql, s)})
                ELSE coalesce(
                  (SELECT min(bucket) FROM player_count_5m
                   WHERE ${series(sql, s)} AND bucket < time_bucket(interval '5 minutes', (SELECT at FROM raw))),
                  (SELECT at FROM raw))
           END AS at`
  return row?.at ?? null
}

/** Whether the series has a row at or before `at` (or a whole 5-minute bucket before it). */
async function hasRowAtOrBefore(sql: Sql, s: DiverSource, at: Date): Promise<boolean> {
  const rows = await sql`
    SELECT 1 FROM player_count_snapshots WHERE ${series(sql, s)} AND captured_at <= ${at}
    UNION ALL
    SELECT 1 FROM player_count_5m WHERE ${series(sql, s)} AND bucket <= ${at}::timestamptz - interval '5 minutes'
    LIMIT 1`
  return rows.length > 0
}

/** Whether the series has a row in [from, to] (or a whole 5-minute bucket inside it). */
async function hasRowIn(sql: Sql, s: DiverSource, from: Date, to: Date): Promise<boolean> {
  const rows = await sql`
    SELECT 1 FROM player_count_snapshots WHERE ${series(sql, s)} AND captured_at >= ${from} AND captured_at <= ${to}
    UNION ALL
    SELECT 1 FROM player_count_5m WHERE ${series(sql, s)} AND bucket >= ${from} AND bucket <= ${to}::timestamptz - interval '5 minutes'
    LIMIT 1`
  return rows.length > 0
}

/** The latest raw value of a series (any time), null when it has none. */
async function latestValue(sql: Sql, s: DiverSource): Promise<number | null> {
  const [row] = await sql<{ v: number }[]>`
    SELECT ${rawValue(sql, s)} AS v FROM player_count_snapshots WHERE ${series(sql, s)} ORDER BY captured_at DESC LIMIT 1`
  return row?.v ?? null
}

/** The series' latest row at or before `at` (of all, when `at` is null), of war `warId` when given: its time and raw value. */
async function valueAtOrBefore(sql: Sql, s: DiverSource, at: Date | null, warId?: number): Promise<{ at: Date; v: number } | null> {
  const [row] = await sql<{ at: Date; v: number }[]>`
    SELECT captured_at AS at, ${rawValue(sql, s)} AS v FROM player_count_snapshots
    WHERE ${series(sql, s)} ${at ? sql`AND captured_at <= ${at}` : sql``} ${warId === undefined ? sql`` : sql`AND war_id = ${warId}`}
    ORDER BY captured_at DESC LIMIT 1`
  return row ?? null
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
async function buckets(sql: Sql, s: DiverSource, level: number, widthS: number, from: Date, to: Date): Promise<BucketRow[]> {
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
 * 5-minute bucket (its start when its raw rows are past RAW_RETENTION_DAYS).
 */
async function firstTimeOf(sql: Sql, s: DiverSource, kind: 'max' | 'min', value: number, level: number, from: Date, to: Date): Promise<Date | null> {
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
  // Past RAW_RETENTION_DAYS only the 5-minute bucket is left: its start.
  return raw?.at ?? lo
}

// ------------------------------------------------------------------ writes

/** pcstore rows are written about every 10 minutes; the slack absorbs schedule jitter. */
export const PCSTORE_DUE_AFTER_S = 9 * 60 + 30

/** Whether a pcstore row is due at `now`: none of 'Game 2' in the last PCSTORE_DUE_AFTER_S seconds. */
async function pcstoreDue(sql: Sql, now: Date): Promise<boolean> {
  const [row] = await sql<{ due: boolean }[]>`
    SELECT NOT EXISTS (
      SELECT 1 FROM player_count_snapshots
      WHERE game_name = 'Game 2' AND source = 'pcstore'
        AND captured_at > ${now}::timestamptz - make_interval(secs => ${PCSTORE_DUE_AFTER_S})) AS due`
  return row?.due ?? true
}

/**
 * The upstream total of one tick. One row per (war, upstream war time): a frozen war, a
 * cached status, or the same tick from a replica or a replayed spool writes nothing.
 */
export async function insertUpstream(tx: Tx, at: Date, warId: number, warTime: number, total: number): Promise<number> {
  const r = await tx`
    INSERT INTO player_count_snapshots (captured_at, game_name, source, api_total_player_count, war_id, upstream_war_time)
    SELECT ${at}, 'Game 2', 'upstream', ${total}, ${warId}, ${warTime}
    WHERE NOT EXISTS (
      SELECT 1 FROM player_count_snapshots
      WHERE source = 'upstream' AND game_name = 'Game 2' AND war_id = ${warId} AND upstream_war_time = ${warTime})
    ON CONFLICT DO NOTHING`
  return r.count
}

/** Which of these war times of a war already have their upstream row (an import skips captures that would add nothing). */
export async function upstreamWarTimes(sql: Queryable, warId: number, warTimes: number[]): Promise<Set<number>> {
  if (!warTimes.length) return new Set()
  const rows = await sql<{ w: number }[]>`
    SELECT DISTINCT upstream_war_time AS w FROM player_count_snapshots
    WHERE source = 'upstream' AND game_name = 'Game 2' AND war_id = ${warId}
      AND upstream_war_time IN (SELECT jsonb_array_elements_text(${JSON.stringify(warTimes)}::text::jsonb)::bigint)`
  return new Set(rows.map((r) => r.w))
}

/** One game's pcstore count, unless that game has a pcstore row less than ~10 minutes before `at`. */
export async function insertPcstore(tx: Tx, at: Date, game: GameName, count: number): Promise<number> {
  const r = await tx`
    INSERT INTO player_count_snapshots (captured_at, game_name, source, pcstore_player_count, console_player_count, total_player_count)
    SELECT ${at}, ${game}, 'pcstore', ${count}, 0, ${count}
    WHERE NOT EXISTS (
      SELECT 1 FROM player_count_snapshots
      WHERE game_name = ${game} AND source = 'pcstore'
        AND captured_at > ${at}::timestamptz - make_interval(secs => ${PCSTORE_DUE_AFTER_S})
        AND captured_at < ${at}::timestamptz + make_interval(secs => ${PCSTORE_DUE_AFTER_S}))
    ON CONFLICT DO NOTHING`
  return r.count
}

/** Rows were written at `at`: the rollups serve buckets from there live until their next refresh. */
export const invalidate = (tx: Tx, at: Date) => invalidateRollups(tx, 'player_count_snapshots', at)

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { history, firstRowAt, hasRowAtOrBefore, hasRowIn, latestValue, valueAtOrBefore, buckets, firstTimeOf, pcstoreDue }
