/** GET /health/throttle: the upstream client's cache TTLs, backoff and counters (spec "Health snapshot"). */
import { Elysia, t } from 'elysia'
import type { KeepContext as C, RouteContext } from './context.ts'

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

export const throttleRoutes = (context: RouteContext) =>
  new Elysia({ name: 'routes/throttle', detail: { tags: ['health'] } })
    .use(context)
    .get('/health/throttle', ({ feeds }) => feeds.upstream.snapshot(), {
      response: { 200: ThrottleSnapshotSchema },
      // Every change of the snapshot moves one of the client's counters: kept until their sum moves.
      keep: { version: ({ feeds }: C) => feeds.upstream.snapshotVersion() },
      detail: {
        summary: 'Upstream client cache TTLs, backoff and hit counters per endpoint',
        description:
          'The spec\'s five entries (status, summary, assignment, newsfeed, warinfo; primary language) first, then one assignment and one newsfeed entry per other collected language (FEED_LANGUAGES), each naming its `language`.',
      },
    })
