/**
 * /war (the latest war) and /war/:warId with its planet war info. Cached in the process
 * and by clients for 30 s (spec: revalidated every 30 s).
 */
import { Elysia, status, t } from 'elysia'
import { CACHE_POLICIES } from '../http/cache.ts'
import { integerString, parseWarId, planetIndexOf, PlanetIdQuery } from '../http/params.ts'
import type { ReadContext } from './context.ts'
import { errorResponses, IsoDate } from './schemas.ts'
import { warState } from './war.sql.ts'

const NullableIso = (description: string) => t.Union([t.String({ format: 'date-time' }), t.Null()], { description })

export const WarState = t.Object(
  {
    war: t.Object(
      {
        warID: t.Integer({ description: 'War id' }),
        startDate: NullableIso('Start of the war'),
        endDate: NullableIso('Planned end of the war'),
        minimumClientVersion: t.Union([t.String(), t.Null()], { description: 'Minimum game client version' }),
        firstSeenAt: IsoDate('When the service first stored this war'),
        updatedAt: IsoDate('Last update of the war record'),
      },
      { description: 'War record' },
    ),
    planets: t.Array(
      t.Object({
        indexID: t.Integer({ description: 'Planet index' }),
        warID: t.Integer({ description: 'War id' }),
        owner: t.Integer({ description: 'Owning faction id' }),
        health: t.Integer({ description: 'Current health' }),
        maxHealth: t.Integer({ description: 'Maximum health (planet lookup table)' }),
        regenPerSecond: t.Number({ description: 'Health regeneration per second' }),
        players: t.Integer({ description: 'Players on the planet' }),
        planetName: t.String({ description: 'Name (planet lookup table)' }),
        sectorName: t.Union([t.String(), t.Null()], { description: 'Sector name (planet lookup table)' }),
        updatedAt: IsoDate('Last refresh of this row by the war-info collector'),
      }),
      { description: 'Planet war info rows, ordered by indexID' },
    ),
  },
  { description: 'War state' },
)

const NotFound = t.Object({ error: t.String() }, { description: 'No such war' })

export const warRoutes = (ctx: ReadContext) =>
  new Elysia({ name: 'routes/war', detail: { tags: ['war'] } })
    .get(
      '/war',
      ({ request }) =>
        ctx.cache.respond(request, 'war', CACHE_POLICIES.war, async () => {
          const state = await warState(ctx.sql, {})
          if (!state) throw status(404, { error: 'no war records yet' })
          return state
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
      ({ request, params, query }) => {
        const warId = parseWarId(params.warId)
        const planetIndex = planetIndexOf(query)
        return ctx.cache.respond(request, `war/${warId}/${planetIndex ?? '*'}`, CACHE_POLICIES.war, async () => {
          const state = await warState(ctx.sql, { warId, planetIndex })
          if (!state) throw status(404, { error: 'war not found' })
          return state
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
