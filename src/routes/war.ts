/**
 * /war (the latest war) and /war/:warId with its planet war info. Cached in the process
 * and by clients for 30 s (spec: revalidated every 30 s).
 */
import { Elysia, status, t } from 'elysia'
import { errorResponses } from '../http/errors.ts'
import { integerString, parseWarId, planetIndexOf, PlanetIdQuery } from '../http/params.ts'
import { CACHE_POLICIES } from '../http/response-cache.ts'
import { WarState } from '../storage/war.ts'
import { dataAge } from '../war/data-age.ts'
import type { ReadContext } from './context.ts'

/** The war state with the age of its data at `now`. */
const aged = (state: Omit<WarState, 'dataAgeSeconds'>, now: Date): WarState => ({ ...state, ...dataAge(state.dataCapturedAt, now) })

const NotFound = t.Object({ error: t.String() }, { description: 'No such war' })

export const warRoutes = (context: ReadContext) =>
  new Elysia({ name: 'routes/war', detail: { tags: ['war'] } })
    .use(context)
    .get(
      '/war',
      async ({ request, cache, storage, now }) =>
        cache.respond(request, 'war', CACHE_POLICIES.war, ['war'], async () => {
          const state = await storage.war.warState({})
          if (!state) throw status(404, { error: 'no war records yet' })
          return aged(state, now())
        }),
      {
        response: { 200: WarState, 404: NotFound, 503: errorResponses[503] },
        detail: {
          summary: 'Latest war and its planets',
          description: 'The war with the highest id and its planet war info. 404 "no war records yet" before the war-info collector has run. Cached 30 s; ETag / If-None-Match supported.',
        },
      },
    )
    .get(
      '/war/:warId',
      async ({ request, params, query, cache, storage, now }) => {
        const warId = parseWarId(params.warId)
        const planetIndex = planetIndexOf(query)
        return cache.respond(request, `war/${warId}/${planetIndex ?? '*'}`, CACHE_POLICIES.war, ['war'], async () => {
          const state = await storage.war.warState({ warId, planetIndex })
          if (!state) throw status(404, { error: 'war not found' })
          return aged(state, now())
        })
      },
      {
        params: t.Object({ warId: integerString('warId', 'War id (positive integer).', '801') }),
        query: t.Object(PlanetIdQuery),
        response: { 200: WarState, ...errorResponses, 404: NotFound },
        detail: {
          summary: 'One war and its planets',
          description: 'Same shape as /war for the given war; planetID (alias planetId) keeps one planet. 404 when the war is unknown. Cached 30 s; ETag / If-None-Match supported.',
        },
      },
    )
