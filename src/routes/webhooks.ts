/**
 * POST/GET/DELETE /webhooks: subscribe a URL to event types (push/webhooks.ts delivers
 * them), see each subscription's health, unsubscribe. Gated like the collectors by
 * COLLECTOR_SECRET; no CORS.
 */
import { Elysia, status, t } from 'elysia'
import { ErrorBody } from '../http/errors.ts'
import { badRequest, langOf, parseInteger } from '../http/params.ts'
import { httpPolicy } from '../http/policy.ts'
import { newSecret } from '../push/webhook-bodies.ts'
import { targetRefusal } from '../push/webhooks.ts'
import { PUSH_EVENT_TYPES } from '../storage/events.ts'
import { Webhook, WEBHOOK_FORMATS } from '../storage/webhooks.ts'
import type { RouteContext } from './context.ts'
import { pushTypesOf } from './events.ts'

const Created = t.Object({ ...Webhook.properties, secret: t.String({ description: 'The signing secret (whsec_…): shown once, here' }) })
const IdParams = t.Object({ id: t.String({ maxLength: 20, description: 'The subscription id' }) })
const idOf = (params: { id: string }) => parseInteger(params.id, 'id', 1, Number.MAX_SAFE_INTEGER)
const notFound = (id: number) => status(404, { error: `no webhook ${id}` })
const gated = { 401: ErrorBody, 503: ErrorBody }

export const webhookRoutes = (context: RouteContext) =>
  new Elysia({ name: 'routes/webhooks', detail: { tags: ['webhooks'] } })
    .use(context)
    .use(httpPolicy)
    // Browsers never send the secret-bearing requests: their preflight is refused.
    .options('/webhooks*', () => status(403, { error: 'webhook routes are not available cross-origin' }), { policy: 'collector', detail: { hide: true } })
    .guard({ policy: 'collector', adminSecret: true, detail: { security: [{ collectorSecret: [] }] } }, (app) =>
      app
        .post(
          '/webhooks',
          async ({ body, languages, webhooks }) => {
            const types = pushTypesOf(body.types.join(','), 'types')
            if (!types) throw badRequest(`types must list at least one of ${PUSH_EVENT_TYPES.join(', ')}`)
            const lang = body.lang === undefined ? undefined : langOf({ lang: body.lang }, languages)
            if (lang && !('one' in lang)) throw badRequest('lang must be one language (not all) for a webhook')
            const refusal = await targetRefusal(body.url, webhooks.allowPrivate)
            if (refusal) throw badRequest(refusal)
            const secret = newSecret()
            const created = await webhooks.create({ url: body.url, types: [...types], format: body.format ?? 'json', lang: lang?.one ?? null, secret })
            return status(201, { ...created, secret })
          },
          {
            body: t.Object({
              url: t.String({ maxLength: 2048, description: 'http(s) URL the events are POSTed to (loopback and private addresses refused unless WEBHOOK_ALLOW_PRIVATE=true)' }),
              types: t.Array(t.String({ maxLength: 40 }), { minItems: 1, maxItems: PUSH_EVENT_TYPES.length, description: `Event types: ${PUSH_EVENT_TYPES.join(', ')}` }),
              format: t.Optional(t.UnionEnum(WEBHOOK_FORMATS, { description: 'json (default): the event as the stream sends it; discord: a Discord webhook body' })),
              lang: t.Optional(t.String({ maxLength: 20, description: 'Language of order titles and dispatch messages (one of FEED_LANGUAGES)' })),
            }),
            response: { 201: Created, 400: ErrorBody, ...gated },
            detail: {
              summary: 'Subscribe a URL to events',
              description: 'Deliveries are signed (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature headers; HMAC-SHA256 with the secret returned here, once), at least once, in order, retried with exponential backoff for 24 hours. See docs/api.md "Webhooks".',
            },
          },
        )
        .get('/webhooks', async ({ webhooks }) => ({ items: await webhooks.list() }), {
          response: { 200: t.Object({ items: t.Array(Webhook) }), ...gated },
          detail: { summary: 'Webhook subscriptions and their health' },
        })
        .get(
          '/webhooks/:id',
          async ({ params, webhooks }) => {
            const id = idOf(params)
            return (await webhooks.one(id)) ?? notFound(id)
          },
          { params: IdParams, response: { 200: Webhook, 400: ErrorBody, 404: ErrorBody, ...gated }, detail: { summary: 'One webhook subscription and its health' } },
        )
        .delete(
          '/webhooks/:id',
          async ({ params, webhooks }) => {
            const id = idOf(params)
            return (await webhooks.remove(id)) ? status(204, undefined) : notFound(id)
          },
          { params: IdParams, response: { 204: t.Undefined(), 400: ErrorBody, 404: ErrorBody, ...gated }, detail: { summary: 'Unsubscribe (pending deliveries are dropped)' } },
        ),
    )
