/**
 * The war counters and war_summary_snapshots (one row of cumulative galaxy counters per
 * full-status tick). `WarCounters` is the one declaration of the counters: the history
 * rows, the per-planet statistics rows and the live /war-stats answer are built from it,
 * and so are their SQL column lists. Adding a counter: the feed schema, this model, one
 * migration (docs/architecture.md, "Adding a war counter").
 */
import { t, type Static } from 'elysia'
import type { Sql, Tx } from '../db/connect.ts'
import { columnOf, insertRows, selectRow, Timestamp } from './model.ts'
import type { PageOf, Slice, TimeRange } from './query.ts'
import { invalidation } from './rollups.ts'
import { timePage, windowEdges } from './time-pages.ts'

const Counter = (description: string) => t.Number({ description })

/** Counters that only grow while a war lasts. */
const CumulativeCounters = t.Object({
  bugKills: Counter('Cumulative kills of the first enemy faction'),
  automatonKills: Counter('Cumulative kills of the second enemy faction'),
  illuminateKills: Counter('Cumulative kills of the third enemy faction'),
  deaths: Counter('Cumulative deaths'),
  missionsWon: Counter('Cumulative missions won'),
  missionsLost: Counter('Cumulative missions lost'),
  missionTime: Counter('Cumulative mission time'),
  bulletsFired: Counter('Cumulative bullets fired'),
  bulletsHit: Counter('Cumulative bullets hit'),
  timePlayed: Counter('Cumulative time played'),
  revives: Counter('Cumulative revives'),
  friendlies: Counter('Cumulative friendly kills'),
})

export const WarCounters = t.Object({
  ...CumulativeCounters.properties,
  missionSuccessRate: Counter('Mission success rate (percent)'),
  accuracy: Counter('Accuracy (percent)'),
})
export type WarCounters = Static<typeof WarCounters>
export const COUNTER_KEYS = Object.keys(WarCounters.properties) as (keyof WarCounters)[]
/** The counters' columns, in model order. */
export const COUNTER_COLUMNS = COUNTER_KEYS.map(columnOf)
/** The counters that only grow (the rates excluded): a change in one of them is news. */
export const CUMULATIVE_KEYS = Object.keys(CumulativeCounters.properties) as (keyof WarCounters)[]

/**
 * The counters of a feed object whose fields carry the model's names, except those
 * renamed in `renames` (model name → feed name, e.g. accuracy ← accurracy).
 */
export function countersOf(source: Record<string, unknown>, renames: Partial<Record<keyof WarCounters, string>> = {}): WarCounters {
  const out = {} as Record<keyof WarCounters, number>
  for (const key of COUNTER_KEYS) out[key] = source[renames[key] ?? key] as number
  return out
}

/** The counters keyed by column, for `sql(row)` inserts. */
export function counterColumns(c: WarCounters): Record<string, number> {
  const out: Record<string, number> = {}
  for (let i = 0; i < COUNTER_KEYS.length; i++) out[COUNTER_COLUMNS[i]!] = c[COUNTER_KEYS[i]!]
  return out
}

export const WarSummaryRow = t.Object(
  {
    warID: t.Integer({ description: 'War id' }),
    ...WarCounters.properties,
    timestamp: Timestamp('Capture time of the full-status tick'),
  },
  { description: 'Historical war summary row; cumulative since the war started, one per full-status tick' },
)
export type WarSummaryRow = Static<typeof WarSummaryRow>

/** The war's summary series, with its daily rollup. */
const series = (sql: Sql, warId: number) => ({ table: 'war_summary_snapshots', where: sql`war_id = ${warId}`, levels: [{ view: 'war_summary_1d', seconds: 86_400 }] })

/** /historical-war-summary: newest first; counted and located through the daily rollup. */
function history(sql: Sql, f: { warId: number; range: TimeRange }, p: Slice): Promise<PageOf<WarSummaryRow>> {
  return timePage<WarSummaryRow>(sql, series(sql, f.warId), f.range, p, selectRow(sql, WarSummaryRow, { warID: sql`war_id`, timestamp: sql`captured_at` }))
}

/** The war's oldest and newest summary rows at or after `from` (storage/time-pages.ts windowEdges). */
const historyEdges = (sql: Sql, f: { warId: number }, from: Date) => windowEdges(sql, series(sql, f.warId), from)

/** The war's latest tick at or before `at`; null when there is none. */
async function tickAtOrBefore(sql: Sql, warId: number, at: Date): Promise<WarSummaryRow | null> {
  const [row] = await sql<WarSummaryRow[]>`
    SELECT ${selectRow(sql, WarSummaryRow, { warID: sql`war_id`, timestamp: sql`captured_at` })}
    FROM war_summary_snapshots
    WHERE war_id = ${warId} AND captured_at <= ${at}
    ORDER BY captured_at DESC LIMIT 1`
  return row ?? null
}

/** The capture time of the war's first tick after `at`; null: none. */
async function firstTickAfter(sql: Sql, warId: number, at: Date): Promise<Date | null> {
  const [row] = await sql<{ t: Date }[]>`
    SELECT captured_at AS t FROM war_summary_snapshots WHERE war_id = ${warId} AND captured_at > ${at} ORDER BY captured_at LIMIT 1`
  return row?.t ?? null
}

/**
 * The war's latest tick, and the capture time of its oldest (how far back its history
 * goes); both null when it has none. One statement, each end read from the index.
 */
async function latestTick(sql: Sql, warId: number): Promise<{ latest: WarSummaryRow | null; since: Date | null }> {
  const [row] = await sql<(WarSummaryRow & { since: Date })[]>`
    SELECT ${selectRow(sql, WarSummaryRow, { warID: sql`war_id`, timestamp: sql`captured_at` })},
           (SELECT captured_at FROM war_summary_snapshots WHERE war_id = ${warId} ORDER BY captured_at ASC LIMIT 1) AS since
    FROM war_summary_snapshots
    WHERE war_id = ${warId}
    ORDER BY captured_at DESC LIMIT 1`
  if (!row) return { latest: null, since: null }
  const { since, ...latest } = row
  return { latest, since }
}

/** The galaxy counters of one full-status tick. */
export const insert = (tx: Tx, at: Date, warId: number, warTime: number, counters: WarCounters): Promise<number> => insertTicks(tx, warId, [{ at, warTime, counters }])

/** The galaxy counters of full-status ticks of one war, in one statement. Returns the rows written. */
export async function insertTicks(tx: Tx, warId: number, ticks: readonly { at: Date; warTime: number; counters: WarCounters }[]): Promise<number> {
  if (!ticks.length) return 0
  const from = new Date(Math.min(...ticks.map((t) => t.at.getTime())))
  const rows = ticks.map((t) => ({ captured_at: t.at, war_id: warId, upstream_war_time: t.warTime, ...counterColumns(t.counters) }))
  const [r] = await tx<{ n: number }[]>`
    WITH ins AS (${insertRows(tx, 'war_summary_snapshots', rows)} RETURNING 1)
    SELECT (SELECT count(*)::int FROM ins) AS n, ${invalidation(tx, 'war_summary_snapshots', from)} AS invalidated`
  return r!.n
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { history, historyEdges, tickAtOrBefore, firstTickAfter, latestTick }
