/**
 * GET /war (the latest war) and /war/:warId with its planet war info. Kept and cached by
 * clients for 30 s (spec: revalidated every 30 s). SQL: storage/war.ts.
 */
import { Elysia, status, t } from 'elysia'
import { errorResponses } from '../http/errors.ts'
import { integerString, parseWarId, planetIndexOf, PlanetIdQuery } from '../http/params.ts'
import { WarState } from '../storage/war.ts'
import { dataAge } from '../war/data-age.ts'
import type { RouteContext } from './context.ts'

const NotFound = t.Object({ error: t.String() }, { description: 'No such war' })

export const warRoutes = (context: RouteContext) =>
  new Elysia({ name: 'routes/war', detail: { tags: ['war'] } })
    .use(context)
    .get(
      '/war',
      async ({ storage, at }) => {
        const state = await storage.war.warState({})
        if (!state) throw status(404, { error: 'no war records yet' })
        return { ...state, ...dataAge(state.dataCapturedAt, at) }
      },
      {
        response: { 200: WarState, 404: NotFound, 503: errorResponses[503] },
        keep: { datasets: ['war'], http: 'war' },
        detail: {
          summary: 'Latest war and its planets',
          description: 'The war with the highest id and its planet war info. 404 "no war records yet" before the war-info collector has run. Cached 30 s; ETag / If-None-Match supported.',
        },
      },
    )
    .get(
      '/war/:warId',
      async ({ params, query, storage, at }) => {
        const state = await storage.war.warState({ warId: parseWarId(params.warId), planetIndex: planetIndexOf(query) })
        if (!state) throw status(404, { error: 'war not found' })
        return { ...state, ...dataAge(state.dataCapturedAt, at) }
      },
      {
        params: t.Object({ warId: integerString('warId', 'War id (positive integer).', '801') }),
        query: t.Object(PlanetIdQuery),
        response: { 200: WarState, ...errorResponses, 404: NotFound },
        keep: { datasets: ['war'], http: 'war' },
        detail: {
          summary: 'One war and its planets',
          description: 'Same shape as /war for the given war; planetID (alias planetId) keeps one planet. 404 when the war is unknown. Cached 30 s; ETag / If-None-Match supported.',
        },
      },
    )
