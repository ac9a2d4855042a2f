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
  if (!dispatches.length) return 0
  const r = await tx`
    INSERT INTO dispatches (war_id, dispatch_id, published_war_time, published_at, type, message, first_seen_at)
    SELECT ${warId}, r.dispatch_id, r.published_war_time, r.published_at, r.type, r.message, ${at}
    FROM jsonb_to_recordset(${JSON.stringify(dispatches)}::text::jsonb) AS r(
      dispatch_id bigint, published_war_time bigint, published_at timestamptz, type integer, message text)
    ON CONFLICT (war_id, dispatch_id) DO NOTHING`
  return r.count
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { page }
