/**
 * How much history each dataset holds: its oldest and newest capture (/health/ready). Each
 * question reads one end of an index, so it stays cheap however long the history.
 */
import { t, type Static } from 'elysia'
import type { Sql } from '../db/connect.ts'
import { Nullable, Timestamp } from './model.ts'

export const DatasetSpan = t.Object(
  { oldest: Nullable(Timestamp(), 'Oldest capture stored; null: none yet'), newest: Nullable(Timestamp(), 'Newest capture stored') },
  { description: 'The history a dataset holds' },
)
export type DatasetSpan = Static<typeof DatasetSpan>

export const DatasetSpans = t.Object(
  {
    'player-counts-upstream': DatasetSpan,
    'player-counts-pcstore': DatasetSpan,
    'full-status': DatasetSpan,
    'planet-stats': DatasetSpan,
    'major-orders': DatasetSpan,
    dispatches: DatasetSpan,
  },
  { description: 'Oldest and newest capture of each dataset (full-status: the planet status, war summary, fight and order progress ticks)' },
)
export type DatasetSpans = Static<typeof DatasetSpans>

type Row = { oldest: Date | null; newest: Date | null }

async function spans(sql: Sql): Promise<DatasetSpans> {
  const ends = (table: string, column: string, where = sql``) => sql<Row[]>`
    SELECT (SELECT ${sql(column)} FROM ${sql(table)} ${where} ORDER BY ${sql(column)} ASC LIMIT 1) AS oldest,
           (SELECT ${sql(column)} FROM ${sql(table)} ${where} ORDER BY ${sql(column)} DESC LIMIT 1) AS newest`
  const counts = (source: string) => ends('player_count_snapshots', 'captured_at', sql`WHERE source = ${source}`)
  const [upstream, pcstore, ticks, stats, orders, news] = await Promise.all([
    counts('upstream'),
    counts('pcstore'),
    ends('full_status_ticks', 'captured_at', sql`WHERE planets_written > 0`),
    ends('planet_stats_snapshots', 'captured_at'),
    sql<Row[]>`SELECT min(first_seen_at) AS oldest, max(last_seen_at) AS newest FROM major_orders`,
    ends('dispatches', 'published_at'),
  ])
  const one = (r: readonly Row[]) => ({ oldest: r[0]?.oldest ?? null, newest: r[0]?.newest ?? null })
  return {
    'player-counts-upstream': one(upstream),
    'player-counts-pcstore': one(pcstore),
    'full-status': one(ticks),
    'planet-stats': one(stats),
    'major-orders': one(orders),
    dispatches: one(news),
  }
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { spans }
