/** Filters and pages of the history reads, as the storage layer takes them. */
import type { Fragment, Sql } from '../db/connect.ts'

/** A time window; a null bound is open. `toExclusive` is set when `to` is the midnight after a bare end date. */
export interface TimeRange {
  from: Date | null
  to: Date | null
  toExclusive: boolean
}

/** The rows a read takes: `limit` of them after skipping `offset` (a page is one: http/paging.ts). */
export interface Slice {
  limit: number
  offset: number
}

/** One page of rows plus the number of rows matching the filters. */
export interface PageOf<R> {
  rows: R[]
  total: number
}

/** `AND column >= from AND column <= to` (or `< to` after a bare end date). */
export function withinRange(sql: Sql, column: string, range: TimeRange): Fragment {
  const col = sql(column)
  return sql`
    ${range.from ? sql`AND ${col} >= ${range.from}` : sql``}
    ${range.to ? (range.toExclusive ? sql`AND ${col} < ${range.to}` : sql`AND ${col} <= ${range.to}`) : sql``}`
}

/** The page's rows and the total, queried together. */
export async function pageWithTotal<R>(rows: Promise<R[]>, count: Promise<{ n: number }[]>): Promise<PageOf<R>> {
  const [r, [c]] = await Promise.all([rows, count])
  return { rows: [...r], total: c?.n ?? 0 }
}
