/**
 * GET /events/stream: the war's events as Server-Sent Events, as their writes commit
 * (push/stream.ts). Resumable with Last-Event-ID; `types` and `lang` as the timeline's.
 */
import { Elysia, status, t } from 'elysia'
import { ErrorBody } from '../http/errors.ts'
import { badRequest, LangQuery, langOf, parseInteger } from '../http/params.ts'
import { CACHE_CONTROL, securedResponse } from '../http/security.ts'
import { PUSH_EVENT_TYPES, type PushEventType } from '../storage/events.ts'
import type { RouteContext } from './context.ts'

const STREAM_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': CACHE_CONTROL.noStore, 'x-accel-buffering': 'no' }

/** A comma-separated list of pushed event types; undefined (all) when absent. 400 names the bad item by position. */
export function pushTypesOf(raw: string | undefined, field = 'types'): Set<PushEventType> | undefined {
  if (raw === undefined || raw === '') return undefined
  const asked = raw.split(',')
  const bad = asked.findIndex((x) => !(PUSH_EVENT_TYPES as readonly string[]).includes(x))
  if (bad >= 0) throw badRequest(`${field} must be a comma-separated list of ${PUSH_EVENT_TYPES.join(', ')} (item ${bad + 1} is not one)`)
  return new Set(asked as PushEventType[])
}

export const eventRoutes = (context: RouteContext) =>
  new Elysia({ name: 'routes/events', detail: { tags: ['events'] } })
    .use(context)
    .get(
      '/events/stream',
      async ({ query, request, server, events, languages, clientAddress }) => {
        const types = pushTypesOf(query.types)
        const lang = langOf(query, languages)
        const header = request.headers.get('last-event-id') ?? query.lastEventId
        const lastEventId = header === undefined || header === '' ? undefined : parseInteger(header, 'Last-Event-ID', 0, Number.MAX_SAFE_INTEGER)
        const address = clientAddress(request, server)
        const refused = events.refusal(address)
        if (refused) {
          events.counts.refused++
          throw refused.status === 429 ? status(429, { error: refused.error }) : status(503, { error: refused.error })
        }
        // The stream stays open: the server's idle timeout would close it between heartbeats.
        server?.timeout(request, 0)
        return securedResponse('read', await events.open({ lastEventId, types, lang, address }), STREAM_HEADERS)
      },
      {
        query: t.Object({
          types: t.Optional(t.String({ maxLength: 600, description: `Comma-separated event types: ${PUSH_EVENT_TYPES.join(', ')}. Default all.` })),
          ...LangQuery,
          lastEventId: t.Optional(t.String({ maxLength: 20, description: 'Resume after this event id (as the Last-Event-ID header, for clients that cannot send it).' })),
        }),
        response: {
          200: t.String({ description: 'text/event-stream: `retry:`, then one message per event (`id:` the event id, `event:` its type, `data:` the event as JSON); a `: heartbeat` comment every 15 s; `event: reset` when Last-Event-ID cannot be resumed from' }),
          400: ErrorBody,
          429: ErrorBody,
          503: ErrorBody,
        },
        detail: {
          summary: 'Live event stream (Server-Sent Events)',
          description:
            'Every timeline event as the write that makes it true commits, plus `tick` (a full-status tick stored: its time, war, war time, planets and row counts) and `player-count` (a new upstream diver count). ' +
            'Each event has a stable id; reconnect with Last-Event-ID (or lastEventId=) to get every event missed, in order, then the live ones. An id the log no longer holds gets `event: reset` first. ' +
            '429 beyond the streams allowed per client address, 503 when the process holds as many streams as it may. See docs/api.md "Push".',
        },
      },
    )
