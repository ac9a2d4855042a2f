import { Elysia, status, t } from 'elysia'
import { isUpstreamUnavailable } from '../upstream/errors.ts'
import { collectors, COLLECTOR_NAMES, type CollectorDeps } from '../collectors/index.ts'
import { badRequest, warIdOf, WarIdQuery } from '../http/params.ts'
import { secretMatches } from '../http/secret.ts'


const Summary = t.Object({
  collector: t.String(),
  warId: t.Union([t.Integer(), t.Null()]),
  outcome: t.Union([t.Literal('written'), t.Literal('unchanged'), t.Literal('locked')]),
  written: t.Record(t.String(), t.Integer()),
  unchanged: t.Record(t.String(), t.Integer()),
  durationMs: t.Integer(),
})

const ErrorBody = t.Object({ error: t.String() })

const DESCRIPTIONS: Record<(typeof COLLECTOR_NAMES)[number], string> = {
  'player-count': 'Run the player-count collector once: the upstream cross-platform total, and pcstore counts when due.',
  'war-info': 'Run the war-info collector once: wars, planets, sectors, factions and per-planet war info.',
  'full-status': 'Run one full archival tick: planet status, war summary, major orders with progress, dispatches.',
  'planet-stats': "Run the per-planet statistics collector once: a row per planet whose counters changed.",
}

/**
 * POST /collect/<name>: run one collector now (smoke tests, backfills, external
 * schedulers). With COLLECTOR_SECRET set, the `x-collector-secret` header must match.
 */
export const collectRoutes = (deps: CollectorDeps & { collectorSecret: string | undefined }) => {
  let app = new Elysia({ name: 'routes/collect', detail: { tags: ['collectors'] } })
    // Before validation (transform), so a caller without the secret learns nothing about
    // parameters; the war id is then parsed in the handler like every route's.
    .onTransform(({ headers, set, request }) => {
      set.headers['cache-control'] = 'no-store'
      if (deps.collectorSecret !== undefined && !secretMatches(headers['x-collector-secret'], deps.collectorSecret)) {
        throw status(401, { error: 'missing or wrong x-collector-secret header' })
      }
      // The spec's collectors take no body: refuse one rather than silently ignore it.
      if (request.headers.has('transfer-encoding') || Number(request.headers.get('content-length') ?? 0) > 0) {
        throw badRequest('collector routes take no request body')
      }
    }) as unknown as Elysia
  for (const name of COLLECTOR_NAMES) {
    app = app.post(
      `/collect/${name}`,
      async ({ query }) => {
        const warId = warIdOf(query)
        try {
          return await collectors[name](deps, { warId })
        } catch (err) {
          // Every upstream URL names the war; a 404 there answers the war id the caller
          // chose: a mistake to report, not an outage to retry.
          if (warId !== undefined && isUpstreamUnavailable(err) && err.feed === 'upstream' && err.status === 404) {
            throw status(404, { error: `war ${warId}: the upstream answered 404 (${err.endpoint})` })
          }
          throw err
        }
      },
      {
        query: t.Object(WarIdQuery),
        response: { 200: Summary, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody, 503: ErrorBody },
        detail: { summary: DESCRIPTIONS[name], security: [{ collectorSecret: [] }] },
      },
    ) as unknown as Elysia
  }
  return app
}
