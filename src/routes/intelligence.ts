/**
 * GET /major-orders, /planets/liberation, /war/trends, /timeline: the derived war view
 * (docs/api.md "War intelligence"), computed from the stored rows at each request (their
 * figures depend on the moment asked). Service: services/intelligence.ts; the rules live
 * in SQL (storage/) and in war/liberation.ts.
 */
import { Elysia, status, t } from 'elysia'
import { dateString, timeRange } from '../http/dates.ts'
import { errorResponses } from '../http/errors.ts'
import { Paged, pageOf, paged, pagingQuery } from '../http/paging.ts'
import { badRequest, integerString, LangQuery, langOf, parseInteger, planetIndexOf, PlanetIdQuery, warIdOf, WarIdQuery } from '../http/params.ts'
import { OrderState } from '../storage/major-orders.ts'
import { Nullable, Timestamp } from '../storage/model.ts'
import { EVENT_TYPES, TimelineEvent, type EventType } from '../storage/timeline.ts'
import { WarCounters } from '../storage/war-summary.ts'
import type { RouteContext } from './context.ts'

const ORDERS = { defaultLimit: 10, maxLimit: 100 }
const TIMELINE = { defaultLimit: 100, maxLimit: 1000 }
export const LIBERATION_WINDOW_HOURS = { default: 2, min: 1, max: 24 }

const Rate = (description: string) => Nullable(t.Number(), description)

const PlanetLiberation = t.Object({
  planetIndex: t.Integer({ description: 'Planet index' }),
  planetName: t.String({ description: 'Planet name' }),
  sectorName: Nullable(t.String(), 'Sector name'),
  maxHealth: t.Integer({ description: 'Maximum health' }),
  owner: t.Integer({ description: 'Owner at the latest tick' }),
  libPct: t.Number({ description: 'Liberation % at the latest tick (enemy planet: share of health removed; players\' planet: health left)' }),
  players: t.Integer({ description: 'Players at the latest tick' }),
  ratePctPerHour: Rate('Least-squares slope of libPct over the window since the last owner change; null with too few ticks'),
  regenPctPerHour: t.Number({ description: 'Regeneration at the latest tick, in % of max health per hour' }),
  impactPctPerHour: Rate('Enemy planet: rate + regeneration, what the players did; null on a players\' planet'),
  samples: t.Integer({ description: 'Ticks the rate used' }),
  since: Nullable(Timestamp(), 'First tick the rate used'),
  outlook: t.Union([t.Literal('liberation'), t.Literal('loss'), t.Literal('stalemate'), t.Literal('unknown')], {
    description: 'liberation/loss: where the rate leads and when; stalemate: the rate cannot reach either; unknown: too few ticks',
  }),
  eta: Nullable(Timestamp(), 'When libPct reaches 100 (liberation) or 0 (loss) at the current rate'),
  etaHours: Rate('Hours from now to eta'),
  capturedAt: Nullable(Timestamp(), 'Time of the latest tick'),
  ageSeconds: Nullable(t.Integer(), 'Age of the latest tick'),
})

const Diff = t.Object({
  from: Timestamp('Time of the older tick'),
  to: Timestamp('Time of the newer tick'),
  fromValue: t.Integer(),
  toValue: t.Integer(),
  change: t.Integer({ description: 'toValue - fromValue' }),
})

const TrendWindow = t.Object({
  from: Nullable(Timestamp(), 'The war-summary tick the deltas start from: the latest at or before (latest tick - window)'),
  to: Nullable(Timestamp(), 'The latest war-summary tick'),
  deltas: t.Union([t.Partial(WarCounters), t.Null()], { description: 'Counter at `to` minus counter at `from`, for the cumulative counters; null without two ticks' }),
  divers: t.Union([Diff, t.Null()], { description: 'Change of the upstream diver count over the same window (latest row vs the latest at or before latest - window)' }),
})

const typesOf = (raw: string | undefined): EventType[] => {
  if (raw === undefined || raw === '') return [...EVENT_TYPES]
  const asked = raw.split(',')
  // Named by position: an error never echoes the input.
  const bad = asked.findIndex((x) => !(EVENT_TYPES as readonly string[]).includes(x))
  if (bad >= 0) throw badRequest(`type must be a comma-separated list of ${EVENT_TYPES.join(', ')} (item ${bad + 1} is not one)`)
  return asked as EventType[]
}

export const intelligenceRoutes = (context: RouteContext) =>
  new Elysia({ name: 'routes/intelligence', detail: { tags: ['war intelligence'] } })
    .use(context)
    .guard({}, (app) =>
      app
        .get(
          '/major-orders',
          async ({ query, storage, warId, at, languages }) => {
            const limit = pageOf({ limit: query.limit }, ORDERS).limit
            const war = warIdOf(query) ?? warId
            const asOf = at
            return { warID: war, asOf, items: await storage.majorOrders.states({ warId: war, asOf, limit, lang: langOf(query, languages) }) }
          },
          {
            query: t.Object({ ...WarIdQuery, ...LangQuery, limit: pagingQuery(ORDERS).limit }),
            response: {
              200: t.Object({ warID: t.Integer(), asOf: Timestamp('The time the states were decided at'), items: t.Array(OrderState) }),
              ...errorResponses,
            },
            detail: {
              summary: 'Major orders with their derived state',
              description:
                'The war\'s orders, last seen first, with status, tasksDone, expiresAt, completedAt and per-task progress. Rules: docs/api.md "War intelligence". With lang, title, briefing and description are the texts of that language (null when none was collected), or with lang=all objects {"<code>": text}.',
            },
          },
        )
        .get(
          '/planets/liberation',
          async ({ query, intelligence, warId, at }) => {
            const war = warIdOf(query) ?? warId
            const planetIndex = planetIndexOf(query)
            const hours = query.window === undefined ? LIBERATION_WINDOW_HOURS.default : parseInteger(query.window, 'window', LIBERATION_WINDOW_HOURS.min, LIBERATION_WINDOW_HOURS.max)
            const items = await intelligence.liberation({ warId: war, planetIndex, hours, asOf: at })
            if (items === null) return status(404, { error: `planet ${planetIndex} is not known for war ${war}` })
            return { warID: war, asOf: at, windowHours: hours, items }
          },
          {
            query: t.Object({
              ...WarIdQuery,
              ...PlanetIdQuery,
              window: t.Optional(integerString('window', `Hours of status ticks the rate uses, ${LIBERATION_WINDOW_HOURS.min}..${LIBERATION_WINDOW_HOURS.max}. Default ${LIBERATION_WINDOW_HOURS.default}.`, '2')),
            }),
            response: {
              200: t.Object({ warID: t.Integer(), asOf: Timestamp('Now'), windowHours: t.Integer(), items: t.Array(PlanetLiberation) }),
              404: t.Object({ error: t.String() }, { description: 'Planet not known for the war' }),
              ...errorResponses,
            },
            detail: {
              summary: 'Liberation rate and ETA per planet',
              description:
                'Every planet in a current campaign (or the planet asked for): liberation %, its rate over the window, regeneration, player impact, and an ETA to liberation or loss, or stalemate. Formula: docs/api.md "War intelligence". A planet without ticks in the window is listed with outlook unknown.',
            },
          },
        )
        .get(
          '/war/trends',
          async ({ query, intelligence, warId, at }) => {
            const war = warIdOf(query) ?? warId
            return { warID: war, asOf: at, windows: await intelligence.trends(war) }
          },
          {
            query: t.Object(WarIdQuery),
            response: {
              200: t.Object({
                warID: t.Integer(),
                asOf: Timestamp('Now'),
                windows: t.Object({ '1h': TrendWindow, '24h': TrendWindow, '7d': TrendWindow }),
              }),
              ...errorResponses,
            },
            detail: {
              summary: 'Trend deltas of the war summary and the diver count',
              description: 'Per cumulative counter, the change between the latest full-status tick and the latest tick at or before 1 h, 24 h and 7 d earlier, with both tick times; the upstream diver count likewise.',
            },
          },
        )
        .get(
          '/timeline',
          async ({ query, storage, warId, at, languages }) => {
            const page = pageOf(query, TIMELINE)
            const asOf = at
            const range = timeRange(query, { now: asOf }, { start: 'from', end: 'to' })
            const f = { warId: warIdOf(query) ?? warId, types: typesOf(query.type), range, asOf, lang: langOf(query, languages) }
            return paged(await storage.timeline.events(f, page), page)
          },
          {
            query: t.Object({
              ...WarIdQuery,
              from: t.Optional(dateString('from', 'Start of the window (inclusive).', '2026-01-01')),
              to: t.Optional(dateString('to', 'End of the window (inclusive; a bare date means the whole day).', '2026-01-02')),
              type: t.Optional(t.String({ maxLength: 400, description: `Comma-separated event types: ${EVENT_TYPES.join(', ')}. Default all.` })),
              ...LangQuery,
              ...pagingQuery(TIMELINE),
            }),
            response: { 200: Paged(TimelineEvent, 'A page of events, newest first'), ...errorResponses },
            detail: {
              summary: 'Event timeline',
              description:
                'Owner changes, major orders issued/completed/failed/withdrawn, dispatches and the start of the war, newest first. For chart markers. With lang, order titles and dispatch messages are the texts of that language (null when none was collected), or with lang=all objects {"<code>": text}.',
            },
          },
        ),
    )
