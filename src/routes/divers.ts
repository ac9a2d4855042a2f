/** GET /divers/history: the player-count curve of the second game over a range. Service: services/divers.ts. */
import { Elysia, t } from 'elysia'
import { errorResponses } from '../http/errors.ts'
import { Timestamp } from '../storage/model.ts'
import type { DiverHistory, DiverRange } from '../services/divers.ts'
import type { KeepContext, RouteContext } from './context.ts'

const RangeSchema = (opts: { description: string; error?: string }) =>
  t.Union([t.Literal('24h'), t.Literal('7d'), t.Literal('30d'), t.Literal('90d'), t.Literal('all')], opts)

const Extreme = (description: string) =>
  t.Union([t.Object({ value: t.Integer(), at: Timestamp('Time of the first raw row with that value in the window') }), t.Null()], { description })

const DiverHistory = t.Object({
  range: RangeSchema({ description: 'The requested range' }),
  source: t.Union([t.Literal('api'), t.Literal('pcstore')], {
    description: 'api: upstream cross-platform total (15 s cadence); pcstore: PC store total (10 min cadence)',
  }),
  bucketSeconds: t.Integer({ description: 'Width of one bucket' }),
  from: Timestamp('Start of the first bucket (window start aligned with time_bucket)'),
  to: Timestamp('End of the window (now)'),
  points: t.Array(t.Object({ t: Timestamp('Bucket start'), v: t.Integer({ description: 'Average over the bucket, rounded' }) }), {
    description: 'Buckets with data, oldest first',
  }),
  stats: t.Object({
    current: t.Union([t.Integer(), t.Null()], { description: 'Latest raw value of the source (any time); null without history' }),
    peak: Extreme('Highest raw value in the window; null without data'),
    low: Extreme('Lowest raw value in the window; null without data'),
    avg: t.Union([t.Integer(), t.Null()], { description: 'Average of the raw values in the window, rounded; null without data' }),
  }),
  coverage: t.Number({
    minimum: 0,
    maximum: 1,
    description: "Share of the window [from, to] from the chosen series' first row on (1: it spans the whole window; 0: it has no rows). Gaps inside are not subtracted.",
  }),
})

const rangeOf = (query: { range?: DiverRange }): DiverRange => query.range ?? '24h'
type C = KeepContext<{ range?: DiverRange }>

export const diverRoutes = (context: RouteContext) =>
  new Elysia({ name: 'routes/divers', detail: { tags: ['live'] } })
    .use(context)
    .get('/divers/history', ({ query, divers, at }) => divers.history(rangeOf(query), at), {
      query: t.Object({
        range: t.Optional(
          RangeSchema({
            description: 'Window: 24h, 7d, 30d, 90d or all (the whole history of the chosen source). Default 24h.',
            error: 'range must be one of 24h, 7d, 30d, 90d, all',
          }),
        ),
      }),
      response: { 200: DiverHistory, ...errorResponses },
      // Kept per window (its start and width) and data version; only `to` and `coverage` move with the clock.
      keep: {
        datasets: ['player-counts'],
        key: ({ query, divers, at }: C) => divers.windowKey(rangeOf(query), at),
        fresh: { to: ({ at }: C) => at, coverage: ({ divers, at }: C, kept: DiverHistory) => divers.coverageAt(kept, at) },
      },
      detail: {
        summary: 'Player-count history of the second game',
        description:
          'range: 24h, 7d, 30d, 90d or all (default 24h). About 100-200 averaged points over the range, from the best source: for 24h and 7d the upstream series (15 s) whenever it has rows in the window, for 30d and 90d when it covers the window start; else the PC store series (10 min); for all, the series that started first. coverage says how much of the window the chosen series spans. Stats (peak, low, avg) are exact over the raw rows of the window.',
      },
    })
