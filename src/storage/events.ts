/**
 * event_log (sql/0015): the events the service pushes, in commit order. Every collector
 * write appends, as the last statement of its transaction, the events it made true:
 * - timeline events (storage/timeline.ts) of the tick's war that happened in the day
 *   before the tick and are not in the log yet, oldest first;
 * - `tick`: a full-status tick that stored planets (its time, war, war time, counts);
 * - `player-count`: a new upstream player count.
 * and, in the same statement chain, one webhook delivery per matching subscription
 * (the outbox, storage/webhooks.ts). Appends take one transaction lock, so ids are handed out
 * in commit order and a reader that saw id N has seen every id below N.
 * Imports (src/import) do not append: imported history is history, not news.
 */
import type { Fragment, Queryable, Sql, Tx } from '../db/connect.ts'
import { localizedColumn, type Lang } from './texts.ts'
import { EVENT_TYPES, RECENT_UNTIL, unloggedEvents } from './timeline.ts'

/** Every type the stream and the webhooks carry. */
export const PUSH_EVENT_TYPES = [...EVENT_TYPES, 'tick', 'player-count'] as const
export type PushEventType = (typeof PUSH_EVENT_TYPES)[number]

/** How far back a write looks for timeline events not logged yet (older news is not pushed). */
const LOOKBACK_MS = 24 * 3600_000

/** One logged event: its id (the SSE id, increasing in commit order), type, time and body. */
export interface LoggedEvent {
  id: number
  type: PushEventType
  at: Date
  data: Record<string, unknown>
}

/** What the runner tells about a committed-to-be write. */
export interface WriteFacts {
  collector: string
  warId: number
  at: Date
  written: Record<string, number>
}

/** The datasets whose writes can make timeline events true. */
const TIMELINE_COUNTS = ['planetStatus', 'campaigns', 'planetEvents', 'defenseOutcomes', 'majorOrders', 'majorOrderProgress', 'dispatches', 'wars']

/**
 * Inside a write transaction, last: append the events this write made true and queue
 * their webhook deliveries. Returns how many events were appended.
 */
export async function record(tx: Tx, w: WriteFacts): Promise<number> {
  const timeline = TIMELINE_COUNTS.some((k) => (w.written[k] ?? 0) > 0)
  const tick = w.collector === 'full-status' && (w.written.planetStatus ?? 0) > 0
  const players = w.collector === 'player-count' && (w.written.upstreamRows ?? 0) > 0
  if (!timeline && !tick && !players) return 0
  const since = new Date(w.at.getTime() - LOOKBACK_MS)
  const appends = [
    // Most of the day's events are logged already: they are left out before anything is joined to them.
    timeline && tx`
      SELECT e.type, e."warID", e.key, e.at, to_jsonb(e) - 'at' - 'key'
      FROM (${unloggedEvents(tx, w.warId, w.at, { from: since, fromExclusive: true, to: RECENT_UNTIL, toExclusive: true })}) e
      ORDER BY e.at, e.type, coalesce(e."planetIndex", e."orderId32", e."dispatchId"), e."eventId", e."campaignId", (e.correction->>'seq')::int`,
    tick && tx`
      SELECT 'tick', f.war_id, f.upstream_war_time::text, f.captured_at,
             jsonb_build_object('warID', f.war_id, 'warTime', f.upstream_war_time, 'planets', f.planets_written,
                                'written', ${JSON.stringify(Object.fromEntries(Object.entries(w.written).filter(([, n]) => n > 0)))}::text::jsonb)
      FROM full_status_ticks f WHERE f.war_id = ${w.warId} AND f.captured_at = ${w.at}`,
    players && tx`
      SELECT 'player-count', p.war_id, p.upstream_war_time::text, p.captured_at,
             jsonb_build_object('warID', p.war_id, 'warTime', p.upstream_war_time, 'players', p.api_total_player_count)
      FROM player_count_snapshots p
      WHERE p.source = 'upstream' AND p.game_name = 'Game 2' AND p.war_id = ${w.warId} AND p.captured_at = ${w.at}`,
  ].filter((a) => a !== false)
  // Sent together (one round trip), run in this order. The lock, held to the commit,
  // serialises appends, so ids are handed out in commit order. The timeline's append is
  // planned once per connection and its plan kept (for the rest of the transaction, which
  // the appends end): left to choose, the server plans it anew at every write, and
  // planning it costs more than running it.
  const [, ...appended] = await Promise.all([
    tx`SELECT pg_advisory_xact_lock(hashtext('gws:event_log'))${timeline ? tx`, set_config('plan_cache_mode', 'force_generic_plan', true)` : tx``}`,
    ...appends.map((rows) => appendAndQueue(tx, rows)),
  ])
  return appended.reduce((n, a) => n + a.length, 0)
}

/**
 * Append `rows` (type, war, key, time, body) to the log, and queue in the same statement
 * a delivery (the outbox) for every subscription that wants one of the events appended.
 */
const appendAndQueue = (tx: Tx, rows: Fragment) => tx<{ id: number }[]>`
  WITH appended AS (
    INSERT INTO event_log (type, war_id, key, at, data) ${rows}
    ON CONFLICT (type, war_id, key) DO NOTHING RETURNING id, type),
  queued AS (
    INSERT INTO webhook_deliveries (webhook_id, event_id)
    SELECT w.id, a.id FROM appended a JOIN webhooks w ON a.type = ANY (w.types)
    ON CONFLICT DO NOTHING)
  SELECT id FROM appended`

/** Events after `afterId` (and up to `upTo`), oldest first, of `types` when given; texts in `lang` when given. */
async function after(sql: Sql, f: { afterId: number; upTo?: number; types?: readonly string[]; lang?: Lang; limit: number }): Promise<LoggedEvent[]> {
  const types = f.types ? sql`AND e.type IN ${sql(f.types as string[])}` : sql``
  const upTo = f.upTo !== undefined ? sql`AND e.id <= ${f.upTo}` : sql``
  const lang = f.lang
  const data = !lang
    ? sql`e.data`
    : sql`e.data || jsonb_strip_nulls(jsonb_build_object(
        'title', CASE WHEN e.data ? 'orderId32' AND e.data->'orderId32' <> 'null' THEN to_jsonb(${localizedColumn(sql, lang, 'major_order_texts', sql`t.order_id32 = (e.data->>'orderId32')::bigint`, 'title')}) END,
        'message', CASE WHEN e.data ? 'dispatchId' AND e.data->'dispatchId' <> 'null' THEN to_jsonb(${localizedColumn(sql, lang, 'dispatch_texts', sql`t.war_id = e.war_id AND t.dispatch_id = (e.data->>'dispatchId')::bigint`, 'message')}) END))`
  return sql<LoggedEvent[]>`
    SELECT e.id, e.type, e.at, ${data} AS data
    FROM event_log e WHERE e.id > ${f.afterId} ${upTo} ${types}
    ORDER BY e.id LIMIT ${f.limit}`
}

/** The ids of the committed events the log holds: the first kept and the last (0 when empty). */
async function bounds(sql: Sql): Promise<{ first: number; last: number }> {
  const [r] = await sql<{ first: number | null; last: number | null }[]>`SELECT min(id) AS first, max(id) AS last FROM event_log`
  return { first: r?.first ?? 0, last: r?.last ?? 0 }
}

/** Events recorded before `before` go (their deliveries with them). */
export async function prune(sql: Queryable, before: Date): Promise<number> {
  const r = await sql`DELETE FROM event_log WHERE recorded_at < ${before}`
  return r.count
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { after, bounds }
