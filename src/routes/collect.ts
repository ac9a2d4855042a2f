import { Elysia, t } from 'elysia'
import { collectors, COLLECTOR_NAMES, type CollectorDeps } from '../collectors/index.ts'
import { secretMatches } from '../http/secret.ts'

const WarIdParam = t.Optional(
  t.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'War id (default: WAR_ID, else 801)', error: 'must be a positive integer war id' }),
)

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
    .onBeforeHandle(({ headers, set, status }) => {
      set.headers['cache-control'] = 'no-store'
      if (deps.collectorSecret !== undefined && !secretMatches(headers['x-collector-secret'], deps.collectorSecret)) {
        return status(401, { error: 'missing or wrong x-collector-secret header' })
      }
    }) as unknown as Elysia
  for (const name of COLLECTOR_NAMES) {
    app = app.post(
      `/collect/${name}`,
      ({ query }) => collectors[name](deps, { warId: query.warId ?? query.warID }),
      {
        query: t.Object({ warId: WarIdParam, warID: WarIdParam }),
        response: { 200: Summary, 400: ErrorBody, 401: ErrorBody, 503: ErrorBody },
        detail: { summary: DESCRIPTIONS[name], security: [{ collectorSecret: [] }] },
      },
    ) as unknown as Elysia
  }
  return app
}
