/**
 * player_count_snapshots and its rollups. Two series share the table, as rows of
 * 'Game 2' (and 'Game' for pcstore):
 *   upstream = source 'upstream' (api_total_player_count, about every 15 s, one row per
 *              upstream war-status time),
 *   pcstore  = source 'pcstore'  (pcstore/console/total counts, about every 10 min).
 */
import { t, type Static } from 'elysia'
import type { Fragment, Queryable, Sql, Tx } from '../db/connect.ts'
import { Nullable, numbers, selectRow, Timestamp } from './model.ts'
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
//
// Each rollup name is a union view whose live tail is a function over the raw rows
// (sql/0004) or a real-time continuous aggregate (Community): every mention of one that
// runs costs a query of its own on the server, so a statement below reads a level once.
// And every mention of the raw table is planned over each of its chunks that constants in
// the statement do not rule out: bounds known beforehand are given as constants.

/** The rows of one series (of the diver game), as a WHERE condition: a new fragment per call. */
type SeriesWhere = () => Fragment

/**
 * Time of the first row of the series (the start of its first 5-minute bucket when that is
 * older than every raw row), null when it has none, given `raw`, the time of its first raw
 * row (an expression).
 */
function firstRowOf(sql: Sql, where: SeriesWhere, raw: () => Fragment): Fragment {
  // The rollup is asked only for buckets older than the raw first row's (there are some
  // only after retention): ordering its whole union view by bucket would sort every bucket.
  return sql`CASE WHEN ${raw()} IS NULL THEN (SELECT min(bucket) FROM player_count_5m WHERE ${where()})
    ELSE coalesce(
      (SELECT min(bucket) FROM player_count_5m WHERE ${where()} AND bucket < time_bucket(interval '5 minutes', ${raw()})),
      ${raw()})
    END`
}

/**
 * Time of the first row of each series (firstRowOf), in one statement. Both series are
 * rows of one query, so the rollup's live tail is computed once (its function scan is
 * rewound for the second series, not run again).
 */
async function firstRowsAt(sql: Sql): Promise<[api: Date | null, pcstore: Date | null]> {
  const rows = await sql<{ source: string; at: Date | null }[]>`
    WITH r AS MATERIALIZED (
      SELECT x.source,
             (SELECT captured_at FROM player_count_snapshots WHERE game_name = ${DIVER_GAME} AND source = x.source ORDER BY captured_at LIMIT 1) AS raw
      FROM (VALUES (${DB_SOURCE.api}::text), (${DB_SOURCE.pcstore}::text)) AS x(source))
    SELECT r.source, ${firstRowOf(sql, () => sql`game_name = ${DIVER_GAME} AND source = r.source`, () => sql`r.raw`)} AS at FROM r`
  const at = (s: DiverSource) => rows.find((r) => r.source === DB_SOURCE[s])?.at ?? null
  return [at('api'), at('pcstore')]
}

/**
 * Where a series must have a row: in [from, to] (or a whole 5-minute bucket inside it), or
 * at or before `atOrBefore` (or a whole 5-minute bucket before it).
 */
export type RowProbe = { from: Date; to: Date } | { atOrBefore: Date }

/**
 * Whether the series has a row where `probe` says, as an EXISTS (the rollup is read only
 * when the raw rows have none). At or before a time: every older raw row has its 5-minute
 * bucket in the rollup, so the raw rows are asked only for the last 5 minutes.
 */
function hasRow(sql: Sql, s: DiverSource, probe: RowProbe): Fragment {
  const [raw, rollup] =
    'atOrBefore' in probe
      ? [
          sql`captured_at > ${new Date(probe.atOrBefore.getTime() - 300_000)} AND captured_at <= ${probe.atOrBefore}`,
          sql`bucket <= ${probe.atOrBefore}::timestamptz - interval '5 minutes'`,
        ]
      : [
          sql`captured_at >= ${probe.from} AND captured_at <= ${probe.to}`,
          sql`bucket >= ${probe.from} AND bucket <= ${probe.to}::timestamptz - interval '5 minutes'`,
        ]
  return sql`EXISTS (
    SELECT 1 FROM player_count_snapshots WHERE ${series(sql, s)} AND ${raw}
    UNION ALL
    SELECT 1 FROM player_count_5m WHERE ${series(sql, s)} AND ${rollup})`
}

/**
 * Which series a diver history reads: `source`; or the first of `candidates` that has a row
 * where its probe says, else `otherwise` (the service's source rule, asked in the same statement).
 */
export type SeriesChoice =
  | { source: DiverSource }
  | { candidates: readonly { source: DiverSource; has: RowProbe }[]; otherwise: DiverSource }

/** A diver history's figures over a window, from one series. */
export interface DiverFigures {
  source: DiverSource
  /** Buckets of the width asked for, with data, oldest first: their start and average (rounded). */
  points: { t: Date; v: number }[]
  /**
   * The highest and lowest raw value of the window and the time of the first raw row with
   * it (the start of its 5-minute bucket when its raw rows are past RAW_RETENTION_DAYS);
   * null without data.
   */
  peak: { value: number; at: Date } | null
  low: { value: number; at: Date } | null
  /** Average of the raw values of the window, rounded; null without data. */
  avg: number | null
  /** Latest raw value of the series (any time); null without history. */
  current: number | null
  /**
   * With `seriesStart`: the series' first row (firstRowOf), or its first raw row when that
   * is at or before `from` (for the window both give the same coverage: all of it); else null.
   */
  seriesStart: Date | null
}

const DIVER_SOURCE: Record<string, DiverSource> = { [DB_SOURCE.api]: 'api', [DB_SOURCE.pcstore]: 'pcstore' }

/**
 * The diver history of one series over [from, to]: the series (`choice`), buckets of
 * `widthS` seconds from rollup level `level` (whose width divides widthS) from the aligned
 * `from` up to the bucket holding `to` (only buckets with data), the window's figures, the
 * latest value and, with `seriesStart`, the series' first row.
 *
 * One statement. The window's level-`level` buckets are read once: the points, the
 * extremes and the average come from them. The time of an extreme: its first bucket at
 * that level; inside it, its first 5-minute bucket (one read of the 5-minute level for both
 * extremes; with exact rollups the same bucket as a descent level by level); inside that,
 * its first raw row, or the bucket's start when its raw rows are gone. The latest value is
 * looked for among the rows of the last day (from `from` on when that is later). A second
 * statement follows only for the first row of a series whose raw rows start after `from`
 * and for the latest value of a series without raw rows in that last day.
 */
async function diverHistory(
  sql: Sql,
  choice: SeriesChoice,
  level: number,
  widthS: number,
  from: Date,
  to: Date,
  o: { seriesStart?: boolean } = {},
): Promise<DiverFigures> {
  const chosen = 'source' in choice ? choice.source : null
  const where: SeriesWhere = () => (chosen ? series(sql, chosen) : sql`game_name = ${DIVER_GAME} AND source = (SELECT s FROM src)`)
  const value = () =>
    chosen ? rawValue(sql, chosen) : sql`CASE (SELECT s FROM src) WHEN ${DB_SOURCE.api} THEN api_total_player_count ELSE total_player_count END`
  const src =
    'candidates' in choice
      ? sql`src AS MATERIALIZED (
          SELECT CASE ${choice.candidates.reduce((a, c) => sql`${a} WHEN ${hasRow(sql, c.source, c.has)} THEN ${DB_SOURCE[c.source]}::text`, sql``)}
                 ELSE ${DB_SOURCE[choice.otherwise]}::text END AS s),`
      : sql``
  const span = sql`make_interval(secs => ${PLAYER_COUNT_ROLLUPS[level]!.seconds})`
  // ext5m: the first 5-minute bucket holding each extreme (ext itself at the 5-minute level).
  const five =
    level === 0
      ? sql`ext5m AS (SELECT hi, lo FROM ext)`
      : sql`fine5m AS MATERIALIZED (
          SELECT bucket, min_v, max_v FROM player_count_5m
          WHERE ${where()}
            AND (bucket >= (SELECT hi FROM ext) AND bucket < (SELECT hi FROM ext) + ${span}
              OR bucket >= (SELECT lo FROM ext) AND bucket < (SELECT lo FROM ext) + ${span})),
        ext5m AS MATERIALIZED (
          SELECT (SELECT min(bucket) FROM fine5m WHERE bucket >= e.hi AND bucket < e.hi + ${span} AND max_v = agg.mx) AS hi,
                 (SELECT min(bucket) FROM fine5m WHERE bucket >= e.lo AND bucket < e.lo + ${span} AND min_v = agg.mn) AS lo
          FROM ext e, agg)`
  // Every raw row of those buckets lies in [from, to + the level's width).
  const rawEnd = new Date(to.getTime() + PLAYER_COUNT_ROLLUPS[level]!.seconds * 1000)
  const recent = new Date(Math.max(from.getTime(), to.getTime() - 86_400_000))
  /** The first raw row with the extreme in its 5-minute bucket, else the bucket's start. */
  const at = (side: 'hi' | 'lo', extreme: 'mx' | 'mn') => sql`coalesce((
    SELECT min(captured_at) FROM player_count_snapshots
    WHERE ${where()} AND captured_at >= ${from} AND captured_at < ${rawEnd}
      AND captured_at >= x.${sql(side)} AND captured_at < x.${sql(side)} + interval '5 minutes' AND ${value()} = agg.${sql(extreme)}), x.${sql(side)})`
  const [row] = await sql<
    { source: string; ts: Date[]; vs: number[]; mx: number | null; mn: number | null; avg: number | null; hi_at: Date | null; lo_at: Date | null; current: number | null; raw0: Date | null }[]
  >`
    WITH ${src}
    lvl AS MATERIALIZED (
      SELECT bucket, n, sum_v, min_v, max_v FROM ${sql(PLAYER_COUNT_ROLLUPS[level]!.name)}
      WHERE ${where()} AND bucket >= ${from} AND bucket <= ${to}),
    pts AS MATERIALIZED (
      SELECT time_bucket(make_interval(secs => ${widthS}), bucket) AS t, round(sum(sum_v)::numeric / sum(n))::int AS v FROM lvl GROUP BY 1),
    agg AS MATERIALIZED (
      SELECT max(max_v) AS mx, min(min_v) AS mn, round(sum(sum_v)::numeric / sum(n))::int AS avg FROM lvl),
    ext AS MATERIALIZED (
      SELECT (SELECT min(bucket) FROM lvl WHERE max_v = agg.mx) AS hi, (SELECT min(bucket) FROM lvl WHERE min_v = agg.mn) AS lo FROM agg),
    ${five}
    SELECT ${chosen ? sql`${DB_SOURCE[chosen]}::text` : sql`(SELECT s FROM src)`} AS source,
           (SELECT coalesce(array_agg(t ORDER BY t), '{}') FROM pts) AS ts,
           (SELECT coalesce(array_agg(v ORDER BY t), '{}') FROM pts) AS vs,
           agg.mx, agg.mn, agg.avg,
           ${at('hi', 'mx')} AS hi_at,
           ${at('lo', 'mn')} AS lo_at,
           (SELECT ${value()} FROM player_count_snapshots WHERE ${where()} AND captured_at >= ${recent} ORDER BY captured_at DESC LIMIT 1) AS current,
           ${o.seriesStart ? sql`(SELECT captured_at FROM player_count_snapshots WHERE ${where()} ORDER BY captured_at LIMIT 1)` : sql`NULL::timestamptz`} AS raw0
    FROM agg, ext5m x`
  const r = row!
  const source = DIVER_SOURCE[r.source]!
  let { current } = r
  let seriesStart = o.seriesStart && r.raw0 !== null && r.raw0 <= from ? r.raw0 : null
  const startLeft = o.seriesStart === true && seriesStart === null
  if (startLeft || current === null) {
    const [rest] = await sql<{ first: Date | null; current: number | null }[]>`
      SELECT ${startLeft ? firstRowOf(sql, () => series(sql, source), () => sql`${r.raw0}::timestamptz`) : sql`NULL::timestamptz`} AS first,
             ${current === null ? sql`(SELECT ${rawValue(sql, source)} FROM player_count_snapshots WHERE ${series(sql, source)} ORDER BY captured_at DESC LIMIT 1)` : sql`NULL::int`} AS current`
    seriesStart ??= rest!.first
    current ??= rest!.current
  }
  const extreme = (v: number | null, at: Date | null) => (v === null || at === null ? null : { value: v, at })
  return {
    source,
    points: r.ts.map((t, i) => ({ t, v: r.vs[i]! })),
    peak: extreme(r.mx, r.hi_at),
    low: extreme(r.mn, r.lo_at),
    avg: r.avg,
    current,
    seriesStart,
  }
}

/** The series' latest row at or before `at` (of all, when `at` is null), of war `warId` when given: its time and raw value. */
async function valueAtOrBefore(sql: Sql, s: DiverSource, at: Date | null, warId?: number): Promise<{ at: Date; v: number } | null> {
  const [row] = await sql<{ at: Date; v: number }[]>`
    SELECT captured_at AS at, ${rawValue(sql, s)} AS v FROM player_count_snapshots
    WHERE ${series(sql, s)} ${at ? sql`AND captured_at <= ${at}` : sql``} ${warId === undefined ? sql`` : sql`AND war_id = ${warId}`}
    ORDER BY captured_at DESC LIMIT 1`
  return row ?? null
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

/** The upstream total of one tick (insertUpstreamOfTicks). */
export async function insertUpstream(tx: Tx, at: Date, warId: number, warTime: number, total: number): Promise<number> {
  const [n] = await insertUpstreamOfTicks(tx, [{ at, warId, warTime, total }])
  return n!
}

/**
 * The upstream totals of ticks, in order. One row per (war, upstream war time): a frozen
 * war, a cached status, or the same tick from a replica or a replayed spool writes
 * nothing. In one statement when no two of the ticks share a war time (a statement does
 * not see its own rows when it checks for one); else one statement per tick, in order.
 * Returns the rows written per tick.
 */
export async function insertUpstreamOfTicks(tx: Tx, ticks: readonly { at: Date; warId: number; warTime: number; total: number }[]): Promise<number[]> {
  if (new Set(ticks.map((t) => `${t.warId}:${t.warTime}`)).size < ticks.length) {
    return Promise.all(ticks.map((t) => insertUpstreamOfTicks(tx, [t]).then(([n]) => n!)))
  }
  const inserted = await tx<{ warId: number; at: Date }[]>`
    INSERT INTO player_count_snapshots (captured_at, game_name, source, api_total_player_count, war_id, upstream_war_time)
    SELECT r.at, 'Game 2', 'upstream', r.total, r.war_id, r.war_time
    FROM unnest(${ticks.map((t) => t.at.toISOString())}::timestamptz[], ${ticks.map((t) => t.total)}::int[], ${ticks.map((t) => t.warId)}::int[],
                ${ticks.map((t) => t.warTime)}::bigint[]) WITH ORDINALITY AS r(at, total, war_id, war_time, k)
    -- A lookup by key per tick, whatever the statistics: a plan is kept per connection (an
    -- import's transaction forces generic plans, keepPlans), and one made while the table was
    -- new to the planner compared each tick with every stored row.
    LEFT JOIN LATERAL (
      SELECT true AS found FROM player_count_snapshots s
      WHERE s.source = 'upstream' AND s.game_name = 'Game 2' AND s.war_id = r.war_id AND s.upstream_war_time = r.war_time LIMIT 1) x ON true
    WHERE x.found IS NULL
    ORDER BY r.k
    ON CONFLICT DO NOTHING
    RETURNING war_id AS "warId", captured_at AS at`
  // A row is the first tick's of its war and time (another at that time conflicts and adds nothing).
  const out = ticks.map(() => 0)
  for (const r of inserted) out[ticks.findIndex((t) => t.warId === r.warId && t.at.getTime() === r.at.getTime())]! += 1
  return out
}

/**
 * Which of these war times of a war already have their upstream row (an import skips
 * captures that would add nothing). `= ANY (array)`: an index lookup per war time, where
 * `IN (a set from JSON)` was planned as a loop over the set per stored row (the table
 * grows during an import faster than its statistics).
 */
export async function upstreamWarTimes(sql: Queryable, warId: number, warTimes: number[]): Promise<Set<number>> {
  if (!warTimes.length) return new Set()
  const rows = await sql<{ w: number }[]>`
    SELECT DISTINCT upstream_war_time AS w FROM player_count_snapshots
    WHERE source = 'upstream' AND game_name = 'Game 2' AND war_id = ${warId}
      AND upstream_war_time = ANY (${numbers(warTimes)}::bigint[])`
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
export const reads = { history, firstRowsAt, diverHistory, valueAtOrBefore, pcstoreDue }
