/**
 * GET /regions, /space-stations, /global-resources, /global-resources/:id32/history,
 * /global-events: the game's 2025 surfaces (issue 38), beside the spec's routes. Computed
 * at each request (ETAs depend on the moment asked). Service: services/surfaces.ts.
 */
import { Elysia, status, t } from 'elysia'
import { errorResponses } from '../http/errors.ts'
import { integerString, LangQuery, langOf, parseInteger, planetIndexOf, PlanetIdQuery, warIdOf, WarIdQuery } from '../http/params.ts'
import * as surfaces from '../services/surfaces.ts'
import { Nullable, Timestamp } from '../storage/model.ts'
import type { RouteContext } from './context.ts'

const Num = (description: string) => Nullable(t.Number(), description)
const Int = (description: string) => t.Integer({ description })
const HoursQuery = {
  hours: t.Optional(integerString('hours', `Hours of ticks the rates use, ${surfaces.RATE_WINDOW_HOURS.min}..${surfaces.RATE_WINDOW_HOURS.max}. Default ${surfaces.RATE_WINDOW_HOURS.default}.`, '6')),
}
const hoursOf = (q: { hours?: string }) =>
  q.hours === undefined ? surfaces.RATE_WINDOW_HOURS.default : parseInteger(q.hours, 'hours', surfaces.RATE_WINDOW_HOURS.min, surfaces.RATE_WINDOW_HOURS.max)

const Region = t.Object({
  planetIndex: Int('Planet index'),
  planetName: t.String({ description: 'Planet name' }),
  regionIndex: Int('Region index on the planet'),
  name: Nullable(t.String(), 'Region name (shipped region table, by the war info\'s settings hash); null when unknown'),
  type: Nullable(t.String(), 'Region type in the table (e.g. Metropolis)'),
  faction: Nullable(t.String(), 'Region faction in the table'),
  size: Nullable(t.String(), 'settlement, town, city or megacity (war info regionSize)'),
  sizeId: Nullable(t.Integer(), 'War info regionSize'),
  owner: Int('Owning faction id at the latest tick'),
  health: Int('Health at the latest tick, on the region\'s own scale'),
  maxHealth: Nullable(t.Integer(), 'The region\'s max health (war info); null before the war info lists it'),
  libPct: Num('Liberation % on the region\'s scale: enemy (maxHealth − health) / maxHealth × 100, players\' health / maxHealth × 100'),
  regenPerSecond: Num('regerPerSecond as served'),
  ratePctPerHour: Num('Least-squares slope of libPct over the window\'s ticks since the region\'s last owner change'),
  outlook: t.Union([t.Literal('winning'), t.Literal('losing'), t.Literal('stalemate'), t.Literal('unknown')], { description: 'As for planets (war/liberation.ts)' }),
  eta: Nullable(Timestamp(), 'When libPct reaches 100 (rising) or 0 (falling, a players\' region) at the rate'),
  etaHours: Num('Hours from now to eta'),
  players: Int('Players in the region'),
  available: Nullable(t.Boolean(), 'isAvailable: the region can be fought in'),
  availabilityFactor: Num('availabilityFactor as served'),
})

const Effect = t.Object({
  id: Int('Galactic effect id'),
  name: Nullable(t.String(), 'Name in the shipped effects table'),
  effectType: Nullable(t.Integer(), 'Definition (GET /WarSeason/GalacticWarEffects): effect type'),
  valueTypes: t.Array(t.Integer()),
  values: t.Array(t.Number()),
})

const Station = t.Object({
  id32: Int('Station id'),
  planetIndex: Int('Planet it orbits'),
  planetName: t.String(),
  nextMoveAt: Nullable(Timestamp(), 'When its election ends and it moves: capturedAt + (currentElectionEndWarTime − Status.time) of the latest tick'),
  flags: Nullable(t.Integer(), 'flags as served'),
  effects: t.Array(Effect, { description: 'Its active effects with their definitions' }),
  tacticalActions: t.Array(t.Object({
    id32: Int('Action id'),
    name: t.String(),
    status: t.Union([t.Literal('preparing'), t.Literal('active'), t.Literal('cooldown'), t.Literal('unknown')]),
    statusId: Int('status as served: 1 preparing, 2 active, 3 cooldown'),
    statusExpiresAt: Nullable(Timestamp(), 'When the current status ends (statusExpireAtWarTimeSeconds by the tick\'s clock)'),
    effects: t.Array(Effect),
    activeEffectIds: t.Array(t.Integer()),
    costs: t.Array(t.Object({
      current: t.Number(), target: t.Number(),
      pct: Num('current / target × 100'),
      deltaPerSecond: Num('deltaPerSecond as served'),
      ratePerHour: Num('Least-squares slope of current per hour over the window\'s ticks since it last fell'),
      etaFull: Nullable(Timestamp(), 'While preparing: now + (target − current) / ratePerHour'),
      etaHours: Num('Hours to full'),
    })),
  })),
})

const Resource = t.Object({
  id32: Int('Resource id'),
  current: t.Number(), max: t.Number(),
  pct: Num('current / max × 100'),
  flags: Nullable(t.Integer(), 'flags as served'),
  ratePerHour: Num('Least-squares slope of current per hour over the window\'s ticks'),
  samples: Int('Ticks the rate used'),
})

const GlobalEvent = t.Object({
  eventId: Int('Event id'),
  id32: Int('id32 as served'),
  lang: Nullable(t.String(), 'Language of title and message'),
  title: Nullable(t.String(), 'Title in lang'),
  message: Nullable(t.String(), 'Message in lang'),
  texts: t.Array(t.Object({ lang: t.String(), title: Nullable(t.String(), 'Title'), message: Nullable(t.String(), 'Message') }), { description: 'Every collected language' }),
  race: Int('Faction id'),
  raceName: Nullable(t.String(), 'Faction name'),
  flag: Int('flag as served'),
  orderId32: Nullable(t.Integer(), 'The major order it announces or closes'),
  planets: t.Array(t.Object({ index: t.Integer(), name: t.String() })),
  effectIds: t.Array(t.Integer()),
  expiresAt: Nullable(Timestamp(), 'expireTime by the latest tick\'s clock'),
})

const Range = t.Union([t.Literal('24h'), t.Literal('7d'), t.Literal('30d'), t.Literal('90d'), t.Literal('all')], { description: 'Window. Default 24h.', error: 'range must be one of 24h, 7d, 30d, 90d, all' })

export const surfaceRoutes = (context: RouteContext) =>
  new Elysia({ name: 'routes/surfaces', detail: { tags: ['war intelligence'] } })
    .use(context)
    .get(
      '/regions',
      async ({ query, storage, warId, at }) => {
        const war = warIdOf(query) ?? warId
        const hours = hoursOf(query)
        return { warID: war, asOf: at, windowHours: hours, items: await surfaces.regions(storage, { warId: war, planetIndex: planetIndexOf(query), asOf: at, hours }) }
      },
      {
        query: t.Object({ ...WarIdQuery, ...PlanetIdQuery, ...HoursQuery }),
        response: { 200: t.Object({ warID: t.Integer(), asOf: Timestamp('Now'), windowHours: t.Integer(), items: t.Array(Region, { description: 'Regions in play at the latest tick, by planet and region' }) }), ...errorResponses },
        detail: { summary: 'Regions in play', description: 'A planet\'s regions (planetId) or every planet\'s in play, with liberation on the region\'s own scale, rate, outlook and ETA as for planets. docs/api.md "Regions".' },
      },
    )
    .get(
      '/space-stations',
      async ({ query, storage, warId, at }) => {
        const war = warIdOf(query) ?? warId
        const hours = hoursOf(query)
        return { warID: war, asOf: at, windowHours: hours, items: await surfaces.spaceStations(storage, { warId: war, asOf: at, hours }) }
      },
      {
        query: t.Object({ ...WarIdQuery, ...HoursQuery }),
        response: { 200: t.Object({ warID: t.Integer(), asOf: Timestamp('Now'), windowHours: t.Integer(), items: t.Array(Station) }), ...errorResponses },
        detail: { summary: 'Space stations', description: 'Where each station orbits, when it moves next, its tactical actions with donations, rate and ETA. docs/api.md "Space stations".' },
      },
    )
    .get(
      '/global-resources',
      async ({ query, storage, warId, at }) => {
        const war = warIdOf(query) ?? warId
        const hours = hoursOf(query)
        return { warID: war, asOf: at, windowHours: hours, items: await surfaces.globalResources(storage, { warId: war, asOf: at, hours }) }
      },
      {
        query: t.Object({ ...WarIdQuery, ...HoursQuery }),
        response: { 200: t.Object({ warID: t.Integer(), asOf: Timestamp('Now'), windowHours: t.Integer(), items: t.Array(Resource) }), ...errorResponses },
        detail: { summary: 'Global resources', description: 'War-wide meters at the latest tick with their rate per hour. docs/api.md "Global resources".' },
      },
    )
    .get(
      '/global-resources/:id32/history',
      async ({ params, query, storage, warId, at }) => {
        const war = warIdOf(query) ?? warId
        const id32 = parseInteger(params.id32, 'id32', 0, 2 ** 32 - 1)
        const found = await surfaces.resourceHistory(storage, { warId: war, id32, range: query.range ?? '24h', asOf: at })
        if (!found) return status(404, { error: `global resource ${id32} is not known for war ${war}` })
        return { warID: war, ...found }
      },
      {
        params: t.Object({ id32: integerString('id32', 'Resource id32 (as in /global-resources).', '175685818') }),
        query: t.Object({ ...WarIdQuery, range: t.Optional(Range) }),
        response: {
          200: t.Object({
            warID: t.Integer(), id32: t.Integer(), range: Range, bucketSeconds: Int('Width of a bucket'),
            from: Timestamp('Window start'), to: Timestamp('Now'),
            points: t.Array(t.Object({ t: Timestamp('The bucket\'s last tick'), current: t.Number(), max: t.Number() }), { description: 'Oldest first' }),
          }),
          404: t.Object({ error: t.String() }, { description: 'Resource not known' }),
          ...errorResponses,
        },
        detail: { summary: 'A global resource\'s history', description: 'Its value over 24h, 7d, 30d, 90d or all, about 200 points (the last tick of each bucket). docs/api.md "Global resources".' },
      },
    )
    .get(
      '/global-events',
      async ({ query, storage, warId, languages }) => {
        const war = warIdOf(query) ?? warId
        const lang = langOf(query, languages)
        const one = lang && 'one' in lang ? lang.one : undefined
        return { warID: war, items: await surfaces.globalEvents(storage, { warId: war, lang: one, primary: languages[0]! }) }
      },
      {
        query: t.Object({ ...WarIdQuery, ...LangQuery }),
        response: { 200: t.Object({ warID: t.Integer(), items: t.Array(GlobalEvent, { description: 'The events of the latest tick' }) }), ...errorResponses },
        detail: { summary: 'Global events', description: 'War-wide briefings and results: title and message in `lang` (every collected language in texts), race, linked order and planets, expiry. docs/api.md "Global events".' },
      },
    )
