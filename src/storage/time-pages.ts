/**
 * Pages of a time series, newest first, over any window, in a few small queries: the
 * rollups hold the exact number of rows of every bucket, so the total is a sum of bucket
 * counts (plus the rows of the partial buckets at the window's edges), and the row at a
 * page's offset is found by walking those counts from the newest bucket down, then
 * descending into the finer level inside the bucket that holds it. Only the rows inside
 * one finest bucket are ever skipped with OFFSET; no statement counts or skips every row
 * of the window (a whole-history page of the 15-second player counts took a count(*) over
 * 4.4 M rows and an OFFSET of up to as many).
 */
import type { Fragment, Sql } from '../db/connect.ts'
import { withinRange, type Slice, type PageOf, type TimeRange } from './query.ts'
import { timeBucket } from './rollups.ts'

export interface TimeSeries {
  /** The raw table, ordered by `captured_at`. */
  table: string
  /** Selects the series in the raw table and in every level's view (same column names). */
  where: Fragment
  /** Rollup views with `bucket` and an exact count `n`, coarsest first; each width divides the previous. */
  levels: readonly { view: string; seconds: number }[]
}

/** A bucket (at a level) or a partial bucket at a window edge (raw), with its row count. */
interface Span {
  start: Date
  /** Exclusive end; null for the newest edge, which ends where the window does. */
  end: Date | null
  /** Index in `levels`, or -1 for raw rows. */
  level: number
  n: number
}

/** Whole buckets of level `i` inside [lo, hi), and the parts left for finer levels. */
function decompose(lo: number | null, hi: number | null, widths: readonly number[], i = 0): { level: number; lo: number | null; hi: number | null }[] {
  if (i === widths.length) return [{ level: -1, lo, hi }]
  const w = widths[i]! * 1000
  const a = lo === null ? null : timeBucket(w / 1000, new Date(lo + w - 1)).getTime()
  const b = hi === null ? null : timeBucket(w / 1000, new Date(hi)).getTime()
  if (a !== null && b !== null && a >= b) return decompose(lo, hi, widths, i + 1)
  return [
    ...(lo !== null && a! > lo ? decompose(lo, a, widths, i + 1) : []),
    { level: i, lo: a, hi: b },
    ...(hi !== null && b! < hi ? decompose(b, hi, widths, i + 1) : []),
  ]
}

/**
 * The window as whole buckets and raw edges. An exclusive end: whole buckets up to it, and
 * the raw part of the bucket it falls in. An inclusive end counts the rows at that very
 * instant, also when it falls on a bucket boundary: whole buckets stop at the finest bucket
 * holding it, and that bucket's part up to the end is always a raw edge (hi null).
 */
function spansOf(range: TimeRange, widths: readonly number[]): { level: number; lo: number | null; hi: number | null }[] {
  const lo = range.from?.getTime() ?? null
  const finest = widths.at(-1)
  if (range.to === null || range.toExclusive) return decompose(lo, range.to?.getTime() ?? null, widths)
  if (finest === undefined) return [{ level: -1, lo, hi: null }]
  const top = Math.max(timeBucket(finest, range.to).getTime(), lo ?? -Infinity)
  return [...(lo !== null && top <= lo ? [] : decompose(lo, top, widths)), { level: -1, lo: top, hi: null }]
}

/**
 * One page of `series` in `range`, newest first, with the total. `select` gives the row
 * list (FROM the table), `ties` what orders rows of one instant (after `captured_at DESC`).
 */
export async function timePage<R extends object>(sql: Sql, series: TimeSeries, range: TimeRange, page: Slice, select: Fragment[], ties?: Fragment): Promise<PageOf<R>> {
  const { table, where, levels } = series
  const inRange = withinRange(sql, 'captured_at', range)
  const parts = spansOf(range, levels.map((l) => l.seconds))
  const at = (ms: number | null) => (ms === null ? null : new Date(ms))

  const queries = parts.map((p) => {
    const lo = at(p.lo)
    const hi = at(p.hi)
    if (p.level < 0) {
      // Partial edges: count the raw rows (at most one finest bucket's worth). The newest
      // edge (hi null) ends where the window does, by the range's own condition.
      return sql`
        SELECT ${lo ?? new Date(0)}::timestamptz AS start, ${hi}::timestamptz AS "end", -1 AS level, count(*)::bigint AS n
        FROM ${sql(table)} WHERE ${where} ${inRange}
          ${lo ? sql`AND captured_at >= ${lo}` : sql``} ${hi ? sql`AND captured_at < ${hi}` : sql``}`
    }
    const l = levels[p.level]!
    return sql`
      SELECT bucket AS start, bucket + make_interval(secs => ${l.seconds}) AS "end", ${p.level}::int AS level, sum(n)::bigint AS n
      FROM ${sql(l.view)} WHERE ${where} ${lo ? sql`AND bucket >= ${lo}` : sql``} ${hi ? sql`AND bucket < ${hi}` : sql``}
      GROUP BY bucket`
  })
  const union = queries.flatMap((q, i) => (i ? [sql`UNION ALL`, q] : [q]))
  const spans = [...(await sql<Span[]>`SELECT * FROM (${union}) s WHERE n > 0 ORDER BY start DESC, level DESC`)]
  const total = spans.reduce((sum, s) => sum + s.n, 0)
  if (page.offset >= total) return { rows: [], total }

  // Walk the counts down to the span that holds the page's first row, then into its finer levels.
  let skip = page.offset
  let span = walk(spans, (s) => s.n, skip)
  skip -= span.before
  let current = span.item
  while (current.level >= 0 && current.level + 1 < levels.length) {
    const finer = levels[current.level + 1]!
    const inner = [...(await sql<Span[]>`
      SELECT bucket AS start, ${current.level + 1}::int AS level, sum(n)::bigint AS n
      FROM ${sql(finer.view)} WHERE ${where} AND bucket >= ${current.start} AND bucket < ${current.end}
      GROUP BY bucket HAVING sum(n) > 0 ORDER BY bucket DESC`)].map((s) => ({ ...s, end: new Date(s.start.getTime() + finer.seconds * 1000) }))
    span = walk(inner, (s) => s.n, skip)
    skip -= span.before
    current = span.item
  }
  const rows = await sql<R[]>`
    SELECT ${select} FROM ${sql(table)} WHERE ${where} ${inRange} ${current.end ? sql`AND captured_at < ${current.end}` : sql``}
    ORDER BY captured_at DESC ${ties ? sql`, ${ties}` : sql``}
    LIMIT ${page.limit} OFFSET ${skip}`
  return { rows: [...rows], total }
}

/**
 * The oldest and the newest row of `series` at or after `from` (null when none): what a
 * page of a window ending "now" needs to know how long it stays the same
 * (http/keep.ts; a row newer than the window's end is after its start too). Two
 * index probes, both bounded by `from` so that only the chunks from there are planned.
 */
/** The oldest row in a window, and the newest row from the window's start on (any time). */
export interface WindowEdges {
  oldest: Date | null
  newest: Date | null
}

export async function windowEdges(sql: Sql, series: TimeSeries, from: Date): Promise<WindowEdges> {
  const { table, where } = series
  const [row] = await sql<{ oldest: Date | null; newest: Date | null }[]>`
    SELECT (SELECT min(captured_at) FROM ${sql(table)} WHERE ${where} AND captured_at >= ${from}) AS oldest,
           (SELECT max(captured_at) FROM ${sql(table)} WHERE ${where} AND captured_at >= ${from}) AS newest`
  return { oldest: row?.oldest ?? null, newest: row?.newest ?? null }
}

/** The item holding position `k` (0-based) in a list of counts, and how many came before it. */
function walk<T>(items: T[], count: (t: T) => number, k: number): { item: T; before: number } {
  let before = 0
  for (const item of items) {
    if (k < before + count(item)) return { item, before }
    before += count(item)
  }
  throw new Error('position past the end of the counted rows')
}
