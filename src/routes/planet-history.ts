/** GET /planet/:planetId/history: the liberation curve of one planet over the last hours. Service: services/planet-history.ts. */
import { Elysia, status, t } from 'elysia'
import { errorResponses } from '../http/errors.ts'
import { integerString, parseInteger, parsePlanetIndex, warIdOf, WarIdQuery } from '../http/params.ts'
import { HOURS, type PlanetHistory, type PlanetHistoryQuery } from '../services/planet-history.ts'
import { Nullable, Timestamp } from '../storage/model.ts'
import type { KeepContext, RouteContext } from './context.ts'

const PlanetHistory = t.Object({
  warId: t.Integer({ description: 'War id' }),
  planetIndex: t.Integer({ description: 'Planet index' }),
  maxHealth: t.Integer({ description: 'Maximum health (planet lookup table)' }),
  from: Timestamp('Start of the window (hour-aligned when points are hourly)'),
  to: Timestamp('End of the window (now)'),
  since: Nullable(Timestamp(), "Capture time of the planet's first stored status tick in the war: how far back its history goes; null: none yet"),
  coverage: t.Number({
    minimum: 0,
    maximum: 1,
    description: 'Share of the window [from, to] from `since` on, 4 decimals (1: the stored history spans the whole window; 0: the planet has no tick). Gaps inside are not subtracted.',
  }),
  points: t.Array(
    t.Object({
      t: Timestamp('Tick time (raw) or bucket start (hourly)'),
      libPct: t.Number({ description: 'Liberation percentage, 4 decimals' }),
      players: t.Integer({ description: 'Players (hourly: average over the hour, rounded)' }),
      owner: t.Integer({ description: 'Owning faction id (hourly: at the end of the hour)' }),
      health: t.Integer({ description: 'Health (hourly: at the end of the hour)' }),
      regenPerSecond: t.Number({ description: 'Regeneration per second (hourly: at the end of the hour)' }),
    }),
    { description: `Oldest first: every tick up to ${HOURS.rawUpTo} hours, hourly buckets beyond` },
  ),
})

/** The planet, war and hours a request asks for. Above the maximum, hours are clamped, as `limit` is on the paged routes. */
type C = KeepContext<{ hours?: string; warId?: string; warID?: string }, { planetId: string }>

const hoursOf = (query: C['query']) =>
  query.hours === undefined ? HOURS.default : Math.min(parseInteger(query.hours, 'hours', 1, Number.MAX_SAFE_INTEGER), HOURS.max)

function queryOf(c: Pick<C, 'params' | 'query' | 'warId'>): PlanetHistoryQuery {
  return { planetIndex: parsePlanetIndex(c.params.planetId), warId: warIdOf(c.query) ?? c.warId, hours: hoursOf(c.query) }
}

export const planetHistoryRoutes = (context: RouteContext) =>
  new Elysia({ name: 'routes/planet-history', detail: { tags: ['history'] } })
    .use(context)
    .get(
      '/planet/:planetId/history',
      async ({ params, query, warId, planetHistory, at }) => {
        const q = queryOf({ params, query, warId })
        const answer = await planetHistory.history(q, at)
        if (answer === null) throw status(404, { error: `planet ${q.planetIndex} not found in war ${q.warId}` })
        return answer
      },
      {
        params: t.Object({ planetId: integerString('planetId', 'Planet index (integer ≥ 0).', '0') }),
        query: t.Object({
          ...WarIdQuery,
          hours: t.Optional(
            integerString('hours', `Window in hours, 1..${HOURS.max}; default ${HOURS.default}; larger values are clamped to ${HOURS.max}.`, '24'),
          ),
        }),
        response: { 200: PlanetHistory, ...errorResponses, 404: t.Object({ error: t.String() }, { description: 'Planet not known for that war' }) },
        // Raw ticks: a window ending now, kept while no tick entered or left it. Hourly: kept per starting hour.
        // The window's bounds and the share of it the history spans move with the clock.
        keep: {
          datasets: ['planet-status', 'war'],
          key: (c: C) => c.planetHistory.windowKey(hoursOf(c.query), c.at),
          window: { spanMs: (c: C) => c.planetHistory.spanMs(hoursOf(c.query)), edges: (c: C) => c.planetHistory.edges(queryOf(c), c.at) },
          fresh: {
            from: (c: C) => c.planetHistory.from(hoursOf(c.query), c.at),
            to: ({ at }: C) => at,
            coverage: (c: C, kept: PlanetHistory) => c.planetHistory.coverageAt(kept, hoursOf(c.query), c.at),
          },
        },
        detail: {
          summary: 'Planet liberation history',
          description: `Liberation curve of one planet. Up to ${HOURS.rawUpTo} hours: every full-status tick; longer: hourly buckets (state at the end of the hour, players averaged). libPct: human-owned planets health/maxHealth*100, others (maxHealth-health)/maxHealth*100. since is the planet's first stored tick in the war, coverage the share of the window from it on.`,
        },
      },
    )
