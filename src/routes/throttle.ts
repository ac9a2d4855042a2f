import { TypeCompiler } from '@sinclair/typebox/compiler'
import { Elysia, t } from 'elysia'
import type { UpstreamClient } from '../feeds/upstream.ts'
import { jsonNoStore } from '../http/answers.ts'

const EndpointStatsSchema = t.Object({
  endpoint: t.Union([
    t.Literal('status'),
    t.Literal('summary'),
    t.Literal('assignment'),
    t.Literal('newsfeed'),
    t.Literal('warinfo'),
  ]),
  // Absent on the spec's five entries (the primary language); present on the entries added
  // per other language (assignment and newsfeed only).
  language: t.Optional(t.String({ description: 'Accept-Language of this cache entry; absent on the primary language entries' })),
  ttlS: t.Integer({ minimum: 0 }),
  lastBumpAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  // null until the first success (the spec says integer; 0 would read as a 1970 success).
  lastSuccessAt: t.Union([t.Integer(), t.Null()]),
  hits: t.Integer({ minimum: 0 }),
  misses: t.Integer({ minimum: 0 }),
  ok: t.Integer({ minimum: 0 }),
  rateLimited: t.Integer({ minimum: 0 }),
  errors: t.Integer({ minimum: 0 }),
  hitRate: t.Number({ minimum: 0, maximum: 1 }),
})

export const ThrottleSnapshotSchema = t.Object({
  config: t.Object({
    initialTtlS: t.Integer(),
    backoffStepS: t.Integer(),
    maxTtlS: t.Integer(),
  }),
  endpoints: t.Array(EndpointStatsSchema),
})

const snapshotCheck = TypeCompiler.Compile(ThrottleSnapshotSchema)

/**
 * Diagnostic view of the upstream client's cache and backoff (spec "Health snapshot").
 * Never HTTP-cached. The body is kept until the client's counters move (its snapshot
 * version): the same bytes a fresh snapshot gives, without building and serialising one
 * per request. A snapshot that breaks its schema is a 500, as Elysia's own response check
 * made it.
 */
export function throttleRoutes(client: Pick<UpstreamClient, 'snapshot' | 'snapshotVersion'>) {
  let kept: { version: number; body: string } | undefined
  return new Elysia({ name: 'routes/throttle' })
    .get('/health/throttle', () => {
      const version = client.snapshotVersion()
      if (kept?.version !== version) {
        const snapshot = client.snapshot()
        if (!snapshotCheck.Check(snapshot)) throw new Error('the throttle snapshot does not match its schema')
        kept = { version, body: JSON.stringify(snapshot) }
      }
      return jsonNoStore(kept.body)
    }, {
      response: ThrottleSnapshotSchema,
      detail: {
        summary: 'Upstream client cache TTLs, backoff and hit counters per endpoint',
        description:
          'The spec\'s five entries (status, summary, assignment, newsfeed, warinfo; primary language) first, then one assignment and one newsfeed entry per other collected language (FEED_LANGUAGES), each naming its `language`.',
        tags: ['health'],
      },
    })
}
