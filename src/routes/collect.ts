/**
 * POST /collect/<name>: run one collector now (smoke tests, backfills, external
 * schedulers), through the same runner as the schedule. With COLLECTOR_SECRET set, the
 * `x-collector-secret` header must match. A run that fails is not kept: the caller gets
 * the error and decides.
 */
import { Elysia, status, t } from 'elysia'
import { COLLECTORS, COLLECTOR_NAMES } from '../collect/index.ts'
import { isFeedUnavailable } from '../feeds/errors.ts'
import { ErrorBody } from '../http/errors.ts'
import { warIdOf, WarIdQuery } from '../http/params.ts'
import { httpPolicy } from '../http/policy.ts'
import type { RouteContext } from './context.ts'

const Summary = t.Object({
  collector: t.String(),
  warId: t.Union([t.Integer(), t.Null()]),
  outcome: t.Union([t.Literal('written'), t.Literal('unchanged'), t.Literal('locked')]),
  written: t.Record(t.String(), t.Integer()),
  unchanged: t.Record(t.String(), t.Integer()),
  durationMs: t.Integer(),
})

/** The collectors' paths (under /api/v1): what no route answers there is still the collectors' (security.ts `unrouted`). */
export const COLLECT_PATH = '/collect/*'

export const collectRoutes = (context: RouteContext) =>
  new Elysia({ name: 'routes/collect', detail: { tags: ['collectors'] } })
    .use(context)
    .use(httpPolicy)
    // Browsers never send the secret-bearing POST: its preflight is refused.
    .options('/collect/*', () => status(403, { error: 'collector routes are not available cross-origin' }), { policy: 'collector', detail: { hide: true } })
    .guard({ policy: 'collector', collectorSecret: true }, (app) => {
      for (const name of COLLECTOR_NAMES) {
        app.post(
          `/collect/${name}`,
          async ({ query, runner }) => {
            const warId = warIdOf(query)
            try {
              return await runner.runOnce(COLLECTORS[name], { warId })
            } catch (err) {
              // Every upstream URL names the war; a 404 there answers the war id the caller
              // chose: a mistake to report, not an outage to retry.
              if (warId !== undefined && isFeedUnavailable(err) && err.feed === 'upstream' && err.status === 404) {
                throw status(404, { error: `war ${warId}: the upstream answered 404 (${err.endpoint})` })
              }
              throw err
            }
          },
          {
            query: t.Object(WarIdQuery),
            response: { 200: Summary, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody, 503: ErrorBody },
            detail: { summary: COLLECTORS[name].summary, security: [{ collectorSecret: [] }] },
          },
        )
      }
      return app
    })
