/** dispatches: the newsfeed of each war, one row per dispatch id. */
import { t, type Static } from 'elysia'
import type { Fragment, Sql, Tx } from '../db/connect.ts'
import { Nullable, selectRow, Timestamp } from './model.ts'
import { pageWithTotal, type Slice, type PageOf } from './query.ts'
import { localizedColumn, localizedMatch, LocalizedText, type Lang } from './texts.ts'

const Int = (description: string) => t.Integer({ description })

export const DispatchRow = t.Object(
  {
    id: Int('Dispatch id'),
    warID: Int('War id'),
    publishedAt: Timestamp('Publication time (wall-clock estimate of the war time)'),
    publishedWarTime: Int('Publication war time (seconds since the war started)'),
    type: Int('Upstream dispatch type'),
    message: Nullable(t.String(), 'Message text'),
  },
  { description: 'Dispatch row' },
)
export type DispatchRow = Static<typeof DispatchRow>

/** The row answered with `lang`: the message in that language, or every language's. */
export const LocalizedDispatchRow = t.Object({ ...DispatchRow.properties, message: LocalizedText('Message text') }, { description: 'Dispatch row' })
export type LocalizedDispatchRow = Static<typeof LocalizedDispatchRow>

/** `q` as a literal ILIKE pattern: `\`, `%` and `_` in the text match themselves. */
export const likeLiteral = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/**
 * /historical-dispatches: newest first (publication time, then id). With `lang` the
 * message (and what `q` searches) is the text of that language, or of every language.
 */
function page(sql: Sql, f: { warId: number; since?: number; q?: string; lang?: Lang }, p: Slice): Promise<PageOf<LocalizedDispatchRow>> {
  const texts = sql`t.war_id = dispatches.war_id AND t.dispatch_id = dispatches.dispatch_id`
  const like = (column: Fragment) => sql`${column} ILIKE ${likeLiteral(f.q ?? '')} ESCAPE '\\'`
  const where = sql`
    WHERE war_id = ${f.warId}
    ${f.since === undefined ? sql`` : sql`AND published_war_time > ${f.since}`}
    ${!f.q ? sql`` : f.lang ? localizedMatch(sql, f.lang, 'dispatch_texts', texts, like(sql`t.message`)) : sql`AND ${like(sql`message`)}`}`
  const message = f.lang ? { message: localizedColumn(sql, f.lang, 'dispatch_texts', texts, 'message') } : {}
  return pageWithTotal(
    sql<LocalizedDispatchRow[]>`
      SELECT ${selectRow(sql, DispatchRow, { id: sql`dispatch_id`, warID: sql`war_id`, ...message })}
      FROM dispatches ${where}
      ORDER BY published_at DESC, dispatch_id DESC
      LIMIT ${p.limit} OFFSET ${p.offset}`,
    sql<{ n: number }[]>`SELECT count(*) AS n FROM dispatches ${where}`,
  )
}

export interface DispatchInput {
  dispatch_id: number
  published_war_time: number
  /** ISO time; never later than the tick's capture time. */
  published_at: string
  type: number
  message: string | null
}

/** The dispatches of one tick not stored yet. */
export async function insertNew(tx: Tx, at: Date, warId: number, dispatches: DispatchInput[]): Promise<number> {
  const [n] = await insertNewOfTicks(tx, warId, [{ at, dispatches }])
  return n!
}

/**
 * The dispatches of ticks of one war, in order, not stored yet (a dispatch is stored at
 * the first tick that lists it), in one statement. Returns the dispatches written per tick.
 */
export async function insertNewOfTicks(tx: Tx, warId: number, ticks: readonly { at: Date; dispatches: DispatchInput[] }[]): Promise<number[]> {
  // Of a dispatch listed by several ticks only the first can be written: the others are
  // not sent (a newsfeed lists the same dispatches tick after tick).
  const seen = new Set<number>()
  const rows = ticks.flatMap((t, k) => t.dispatches.flatMap((d) => (seen.has(d.dispatch_id) ? [] : (seen.add(d.dispatch_id), [{ k: k + 1, ...d }]))))
  if (!rows.length) return ticks.map(() => 0)
  const column = <K extends keyof (typeof rows)[number]>(key: K) => rows.map((r) => r[key])
  const inserted = await tx<{ at: Date; n: number }[]>`
    WITH ins AS (
      INSERT INTO dispatches (war_id, dispatch_id, published_war_time, published_at, type, message, first_seen_at)
      SELECT ${warId}, dispatch_id, published_war_time, published_at, type, message, (${ticks.map((t) => t.at.toISOString())}::timestamptz[])[k]
      FROM unnest(${column('k')}::int[], ${column('dispatch_id')}::bigint[], ${column('published_war_time')}::bigint[],
                  ${column('published_at')}::timestamptz[], ${column('type')}::int[], ${column('message')}::text[])
        AS r(k, dispatch_id, published_war_time, published_at, type, message)
      ON CONFLICT (war_id, dispatch_id) DO NOTHING
      RETURNING first_seen_at)
    SELECT first_seen_at AS at, count(*)::int AS n FROM ins GROUP BY first_seen_at`
  const byAt = new Map(inserted.map((r) => [r.at.getTime(), r.n]))
  return ticks.map((t) => byAt.get(t.at.getTime()) ?? 0)
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { page }
