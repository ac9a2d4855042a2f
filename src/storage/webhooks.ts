/**
 * webhooks and webhook_deliveries (sql/0015): subscriptions, and the outbox of their
 * deliveries (queued by storage/events.ts in the transaction that appends each event).
 * A process delivers a subscription's events while it holds its lease (`leased_until`):
 * one process per subscription, each subscription's deliveries oldest first.
 * Every time is the deliverer's clock, passed in (tests move it).
 */
import { t, type Static } from 'elysia'
import type { Queryable, Sql } from '../db/connect.ts'
import type { LoggedEvent } from './events.ts'
import { Nullable, Timestamp } from './model.ts'

export const WEBHOOK_FORMATS = ['json', 'discord'] as const
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number]

export const WebhookHealth = t.Object({
  lastStatus: Nullable(t.Integer(), 'HTTP status of the last attempt (null: none yet, or no answer)'),
  lastError: Nullable(t.String(), 'Why the last attempt failed (null: it did not)'),
  lastAttemptAt: Nullable(Timestamp(), 'When the last attempt was made'),
  lastSuccessAt: Nullable(Timestamp(), 'When a delivery last succeeded'),
  failingSince: Nullable(Timestamp(), 'Since when every attempt has failed (null: the last one succeeded)'),
  backlog: t.Integer({ description: 'Deliveries waiting (the oldest is being retried while failing)' }),
  abandoned: t.Integer({ description: 'Deliveries given up after 24 hours of failures' }),
})

export const Webhook = t.Object({
  id: t.Integer({ description: 'The subscription id' }),
  url: t.String({ description: 'Where the events are POSTed' }),
  types: t.Array(t.String(), { description: 'The event types it gets' }),
  format: t.UnionEnum(WEBHOOK_FORMATS, { description: 'json: the event as the stream sends it; discord: a Discord webhook body, an embed per event' }),
  lang: Nullable(t.String(), 'Language of the texts (null: the primary language)'),
  createdAt: Timestamp('When it was created'),
  health: WebhookHealth,
})
export type Webhook = Static<typeof Webhook>

export interface NewWebhook {
  url: string
  types: string[]
  format: WebhookFormat
  lang: string | null
  secret: string
}

const selectWebhook = (sql: Queryable) => sql`
  w.id, w.url, w.types, w.format, w.lang, w.created_at AS "createdAt",
  json_build_object(
    'lastStatus', w.last_status, 'lastError', w.last_error, 'lastAttemptAt', w.last_attempt_at, 'lastSuccessAt', w.last_success_at,
    'failingSince', w.failing_since,
    'backlog', (SELECT count(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.state = 'pending'),
    'abandoned', (SELECT count(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.state = 'abandoned')) AS health`

/** JSON health times come back as strings: made Dates, as the model encodes them. */
function revive(row: Webhook): Webhook {
  const h = row.health as unknown as Record<string, unknown>
  for (const k of ['lastAttemptAt', 'lastSuccessAt', 'failingSince']) if (typeof h[k] === 'string') h[k] = new Date(h[k] as string)
  return row
}

export async function create(sql: Queryable, w: NewWebhook): Promise<Webhook> {
  const [row] = await sql<Webhook[]>`
    WITH w AS (
      INSERT INTO webhooks (url, types, format, lang, secret) VALUES (${w.url}, ${w.types}, ${w.format}, ${w.lang}, ${w.secret}) RETURNING *)
    SELECT ${selectWebhook(sql)} FROM w`
  return revive(row!)
}

async function list(sql: Sql): Promise<Webhook[]> {
  return (await sql<Webhook[]>`SELECT ${selectWebhook(sql)} FROM webhooks w ORDER BY w.id`).map(revive)
}

async function one(sql: Sql, id: number): Promise<Webhook | null> {
  const [row] = await sql<Webhook[]>`SELECT ${selectWebhook(sql)} FROM webhooks w WHERE w.id = ${id}`
  return row ? revive(row) : null
}

/** Gone with its deliveries; false when there was none. */
export async function remove(sql: Queryable, id: number): Promise<boolean> {
  return (await sql`DELETE FROM webhooks WHERE id = ${id}`).count > 0
}

/** When a pending delivery `d` is due: at once before its first attempt, else at its retry time (in the deliverer's clock). */
const dueAt = (sql: Queryable) => sql`CASE WHEN d.attempts = 0 THEN '-infinity'::timestamptz ELSE d.next_attempt_at END`

/** A subscription leased to deliver, with its secret. */
export interface Leased {
  id: number
  url: string
  format: WebhookFormat
  lang: string | null
  secret: string
}

/**
 * Lease one subscription whose oldest pending delivery is due and that no process holds
 * (or whose holder's lease ran out: a process killed mid-delivery), until `until`.
 */
export async function lease(sql: Queryable, now: Date, until: Date): Promise<Leased | null> {
  const [row] = await sql<Leased[]>`
    UPDATE webhooks w SET leased_until = ${until}
    WHERE w.id = (
      SELECT x.id FROM webhooks x
      WHERE (x.leased_until IS NULL OR x.leased_until <= ${now})
        AND (SELECT ${dueAt(sql)} FROM webhook_deliveries d
             WHERE d.webhook_id = x.id AND d.state = 'pending' ORDER BY d.event_id LIMIT 1) <= ${now}
      ORDER BY x.id LIMIT 1
      FOR UPDATE SKIP LOCKED)
    RETURNING w.id, w.url, w.format, w.lang, w.secret`
  return row ?? null
}

/** Keep the lease while delivering; false when it was lost (deleted, or taken after it ran out). */
export async function renew(sql: Queryable, id: number, held: Date, until: Date): Promise<boolean> {
  return (await sql`UPDATE webhooks SET leased_until = ${until} WHERE id = ${id} AND leased_until = ${held}`).count > 0
}

export async function release(sql: Queryable, id: number, held: Date): Promise<void> {
  await sql`UPDATE webhooks SET leased_until = NULL WHERE id = ${id} AND leased_until = ${held}`
}

/** The oldest pending delivery of a subscription, with its event. */
export interface PendingDelivery {
  eventId: number
  createdAt: Date
  attempts: number
  nextAttemptAt: Date
  event: LoggedEvent
}

export async function head(sql: Queryable, webhookId: number): Promise<PendingDelivery | null> {
  const [row] = await sql<(Omit<PendingDelivery, 'event'> & Omit<LoggedEvent, 'id'>)[]>`
    SELECT d.event_id AS "eventId", d.created_at AS "createdAt", d.attempts, d.next_attempt_at AS "nextAttemptAt", e.type, e.at, e.data
    FROM webhook_deliveries d JOIN event_log e ON e.id = d.event_id
    WHERE d.webhook_id = ${webhookId} AND d.state = 'pending'
    ORDER BY d.event_id LIMIT 1`
  if (!row) return null
  const { eventId, createdAt, attempts, nextAttemptAt, type, at, data } = row
  return { eventId, createdAt, attempts, nextAttemptAt, event: { id: eventId, type, at, data } }
}

/** An attempt's outcome: delivered, retried at `retryAt`, or abandoned (given up). */
export type Outcome = { state: 'delivered' } | { state: 'pending'; retryAt: Date } | { state: 'abandoned' }

export async function attempted(sql: Queryable, webhookId: number, eventId: number, at: Date, status: number | null, error: string | null, outcome: Outcome): Promise<void> {
  const ok = outcome.state === 'delivered'
  await sql`
    UPDATE webhook_deliveries SET
      attempts = attempts + 1, state = ${outcome.state}, last_status = ${status}, last_error = ${error},
      delivered_at = ${ok ? at : null}, next_attempt_at = ${outcome.state === 'pending' ? outcome.retryAt : at}
    WHERE webhook_id = ${webhookId} AND event_id = ${eventId}`
  await sql`
    UPDATE webhooks SET last_status = ${status}, last_error = ${error}, last_attempt_at = ${at},
      last_success_at = CASE WHEN ${ok} THEN ${at}::timestamptz ELSE last_success_at END,
      failing_since = CASE WHEN ${ok} THEN NULL ELSE coalesce(failing_since, ${at}::timestamptz) END
    WHERE id = ${webhookId}`
}

/** When the next pending delivery of any subscription is due, or its holder's lease runs out if later (null: none). */
export async function nextDue(sql: Queryable): Promise<Date | null> {
  const [r] = await sql<{ t: Date | null }[]>`
    SELECT min(greatest(h.t, coalesce(w.leased_until, '-infinity'::timestamptz))) AS t FROM webhooks w
    CROSS JOIN LATERAL (SELECT ${dueAt(sql)} AS t FROM webhook_deliveries d
                        WHERE d.webhook_id = w.id AND d.state = 'pending' ORDER BY d.event_id LIMIT 1) h`
  return r?.t ?? null
}

/** Per subscription: waiting and abandoned deliveries and whether it is failing (/metrics). */
export async function backlog(sql: Queryable): Promise<{ id: number; pending: number; abandoned: number; failing: boolean }[]> {
  return sql<{ id: number; pending: number; abandoned: number; failing: boolean }[]>`
    SELECT w.id,
           count(*) FILTER (WHERE d.state = 'pending')::int AS pending,
           count(*) FILTER (WHERE d.state = 'abandoned')::int AS abandoned,
           (w.failing_since IS NOT NULL) AS failing
    FROM webhooks w LEFT JOIN webhook_deliveries d ON d.webhook_id = w.id
    GROUP BY w.id ORDER BY w.id`
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { list, one, backlog }
