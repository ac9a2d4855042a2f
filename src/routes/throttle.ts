import { Elysia, t } from 'elysia'
import type { ThrottleSnapshot } from '../feeds/upstream.ts'
import { httpPolicy } from '../http/policy.ts'

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

/** Diagnostic view of the upstream client's cache and backoff (spec "Health snapshot"). */
export function throttleRoutes(client: { snapshot(): ThrottleSnapshot }) {
  return new Elysia({ name: 'routes/throttle' })
    .use(httpPolicy)
    .get('/health/throttle', () => client.snapshot(), {
      noStore: true,
      response: ThrottleSnapshotSchema,
      detail: {
        summary: 'Upstream client cache TTLs, backoff and hit counters per endpoint',
        description:
          'The spec\'s five entries (status, summary, assignment, newsfeed, warinfo; primary language) first, then one assignment and one newsfeed entry per other collected language (FEED_LANGUAGES), each naming its `language`.',
        tags: ['health'],
      },
    })
}
