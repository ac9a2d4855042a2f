/**
 * dispatch_texts and major_order_texts (sql/0009): the dispatch and major-order texts per
 * language, written by the full-status collector; and the SQL with which the dispatch and
 * major-order reads answer in a language. Without one they read their own columns, as
 * before.
 */
import { t } from 'elysia'
import type { Fragment, Queryable, Sql, Tx } from '../db/connect.ts'
import { numbers, rowAffectedTwice } from './model.ts'

/** One collected language (its text, null when none was stored), or every configured one, in their order. */
export type Lang = { one: string } | { all: readonly string[] }

/** A text of a row answered with `lang`: the language's text (or null), or for `lang=all` an object {language: text}. */
export const LocalizedText = (description: string) =>
  t.Union([t.String(), t.Null(), t.Record(t.String(), t.String())], {
    description: `${description}. With lang=<code>: that language's text, null when none was collected; with lang=all: {"<code>": text} for every configured language that has one, in FEED_LANGUAGES order`,
  })

/** The configured languages as a table `l(v, i)` (i = position), from one bound parameter. */
const languageTable = (sql: Queryable, languages: readonly string[]) =>
  sql`jsonb_array_elements_text(${JSON.stringify(languages)}::text::jsonb) WITH ORDINALITY AS l(v, i)`

/**
 * One text column in the chosen language, as a scalar subquery over `table` (alias `t`)
 * where `match` ties its rows to the row being read.
 */
export function localizedColumn(sql: Queryable, lang: Lang, table: string, match: Fragment, column: string): Fragment {
  const col = sql`t.${sql(column)}`
  if ('one' in lang) return sql`(SELECT ${col} FROM ${sql(table)} t WHERE ${match} AND t.lang = ${lang.one})`
  // json (not jsonb) keeps the keys in aggregation order: the configured order.
  return sql`(
    SELECT coalesce(json_object_agg(l.v, ${col} ORDER BY l.i), '{}'::json)
    FROM ${languageTable(sql, lang.all)} JOIN ${sql(table)} t ON t.lang = l.v
    WHERE ${match} AND ${col} IS NOT NULL)`
}

/** `AND EXISTS` a text of the chosen language(s) in `table` whose `column` satisfies `condition`. */
export function localizedMatch(sql: Sql, lang: Lang, table: string, match: Fragment, condition: Fragment): Fragment {
  const which = 'one' in lang ? sql`t.lang = ${lang.one}` : sql`t.lang IN (SELECT l.v FROM ${languageTable(sql, lang.all)})`
  return sql`AND EXISTS (SELECT 1 FROM ${sql(table)} t WHERE ${match} AND ${which} AND ${condition})`
}

// ------------------------------------------------------------------ writes (full-status collector)

export interface DispatchTextInput {
  dispatch_id: number
  lang: string
  message: string
}

/** Dispatch texts not stored yet (a dispatch's text is written once per language). */
export async function insertDispatchTexts(tx: Tx, at: Date, warId: number, texts: DispatchTextInput[]): Promise<number> {
  const [n] = await insertDispatchTextsOfTicks(tx, [{ at, warId, texts }])
  return n!
}

/**
 * The dispatch texts of ticks, in order, not stored yet (a text is stored at the first
 * tick that has it), in one statement. Returns the texts written per tick.
 */
export async function insertDispatchTextsOfTicks(tx: Tx, ticks: readonly { at: Date; warId: number; texts: DispatchTextInput[] }[]): Promise<number[]> {
  // Of a text listed by several ticks only the first can be written: the others are not sent.
  const seen = new Set<string>()
  const rows = ticks.flatMap((t, k) =>
    t.texts.flatMap((d) => {
      const key = `${t.warId}:${d.dispatch_id}:${d.lang}`
      return seen.has(key) ? [] : (seen.add(key), [{ k: k + 1, war_id: t.warId, ...d }])
    }),
  )
  if (!rows.length) return ticks.map(() => 0)
  const column = <K extends keyof (typeof rows)[number]>(key: K) => rows.map((r) => r[key])
  const inserted = await tx<{ warId: number; at: Date; n: number }[]>`
    WITH ins AS (
      INSERT INTO dispatch_texts (war_id, dispatch_id, lang, message, first_seen_at)
      SELECT war_id, dispatch_id, lang, message, (${ticks.map((t) => t.at.toISOString())}::timestamptz[])[k]
      FROM unnest(${column('k')}::int[], ${column('war_id')}::int[], ${column('dispatch_id')}::bigint[], ${column('lang')}::text[], ${column('message')}::text[])
        AS r(k, war_id, dispatch_id, lang, message)
      ON CONFLICT (war_id, dispatch_id, lang) DO NOTHING
      RETURNING war_id, first_seen_at)
    SELECT war_id AS "warId", first_seen_at AS at, count(*)::int AS n FROM ins GROUP BY war_id, first_seen_at`
  // A tick is known by its war and time (two alike: counted at the first).
  const out = ticks.map(() => 0)
  for (const r of inserted) out[ticks.findIndex((t) => t.warId === r.warId && t.at.getTime() === r.at.getTime())]! += r.n
  return out
}

export interface OrderTextInput {
  order_id32: number
  lang: string
  title: string
  briefing: string
  task_description: string
}

/**
 * Major-order texts, per order and language: inserted, or replaced when they changed
 * (briefings get edited), never by a sighting older than the stored one (a replayed tick).
 */
export async function upsertOrderTexts(tx: Tx, at: Date, texts: OrderTextInput[]): Promise<number> {
  if (texts.length === 0) return 0
  const r = await tx`
    INSERT INTO major_order_texts AS m (order_id32, lang, title, briefing, task_description, seen_at)
    SELECT r.order_id32, r.lang, r.title, r.briefing, r.task_description, ${at}
    FROM jsonb_to_recordset(${JSON.stringify(texts)}::text::jsonb) AS r(
      order_id32 bigint, lang text, title text, briefing text, task_description text)
    ON CONFLICT (order_id32, lang) DO UPDATE SET
      title = excluded.title, briefing = excluded.briefing, task_description = excluded.task_description, seen_at = excluded.seen_at
    WHERE excluded.seen_at >= m.seen_at
      AND (m.title, m.briefing, m.task_description) IS DISTINCT FROM (excluded.title, excluded.briefing, excluded.task_description)`
  return r.count
}

/** An order's text in one language as stored: what a batch folds its ticks' texts into (upsertOrderTextsOfTicks). */
export interface StoredOrderText {
  title: string
  briefing: string
  task_description: string
  seen_at: Date
}

const orderTextKey = (orderId32: number, lang: string) => `${orderId32}:${lang}`

/** The stored texts of these orders in every language, by order and language (upsertOrderTextsOfTicks). */
export async function storedOrderTexts(tx: Tx, orderIds: readonly number[]): Promise<Map<string, StoredOrderText>> {
  if (!orderIds.length) return new Map()
  const rows = await tx<(StoredOrderText & { order_id32: number; lang: string })[]>`
    SELECT order_id32, lang, title, briefing, task_description, seen_at FROM major_order_texts WHERE order_id32 = ANY (${numbers(orderIds)}::bigint[])`
  return new Map(rows.map(({ order_id32, lang, ...t }) => [orderTextKey(order_id32, lang), t]))
}

/**
 * The order texts of ticks, as upsertOrderTexts one tick after the other leaves them, in
 * one statement: each text is folded here over the ticks, from `stored` (storedOrderTexts
 * of the same transaction, under the collector's lock), by upsertOrderTexts' rule (a text
 * replaced when it changed, never by an older sighting), and only the texts that moved are
 * written, as they end. A tick listing a text twice fails, as its own upsert would.
 * Returns the texts written per tick.
 */
export async function upsertOrderTextsOfTicks(tx: Tx, ticks: readonly { at: Date; texts: OrderTextInput[] }[], stored: Map<string, StoredOrderText>): Promise<number[]> {
  const written = ticks.map(() => 0)
  const now = new Map<string, StoredOrderText & { order_id32: number; lang: string }>()
  ticks.forEach(({ at, texts }, k) => {
    const keys = new Set<string>()
    for (const t of texts) {
      const key = orderTextKey(t.order_id32, t.lang)
      if (keys.has(key)) throw rowAffectedTwice()
      keys.add(key)
      const cur = now.get(key) ?? stored.get(key)
      if (cur && (at < cur.seen_at || (cur.title === t.title && cur.briefing === t.briefing && cur.task_description === t.task_description))) continue
      now.set(key, { ...t, seen_at: at })
      written[k]!++
    }
  })
  if (now.size) {
    await tx`
      INSERT INTO major_order_texts AS m (order_id32, lang, title, briefing, task_description, seen_at)
      SELECT r.order_id32, r.lang, r.title, r.briefing, r.task_description, r.seen_at
      FROM jsonb_to_recordset(${JSON.stringify([...now.values()])}::text::jsonb) AS r(
        order_id32 bigint, lang text, title text, briefing text, task_description text, seen_at timestamptz)
      ON CONFLICT (order_id32, lang) DO UPDATE SET
        title = excluded.title, briefing = excluded.briefing, task_description = excluded.task_description, seen_at = excluded.seen_at`
  }
  return written
}

// ------------------------------------------------------------------ reads

/**
 * Which of these dispatches of a war have a stored text, per language: the collector
 * carries only the missing texts in its tick (a dispatch stays in the newsfeed long
 * after its texts are stored).
 */
async function storedDispatchTexts(sql: Sql, f: { warId: number; ids: number[] }): Promise<Map<string, Set<number>>> {
  const rows = await sql<{ lang: string; ids: number[] }[]>`
    SELECT lang, json_agg(dispatch_id) AS ids
    FROM dispatch_texts
    WHERE war_id = ${f.warId} AND dispatch_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(f.ids)}::text::jsonb)::bigint)
    GROUP BY lang`
  return new Map(rows.map((r) => [r.lang, new Set(r.ids)]))
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { storedDispatchTexts }
