/**
 * GET /campaigns, /campaigns/:campaignId/history, /major-orders, /planets/liberation, /war/trends, /timeline: the derived war view
 * (docs/api.md "War intelligence"), computed from the stored rows at each request (their
 * figures depend on the moment asked). Service: services/intelligence.ts; the rules live
 * in SQL (storage/) and in war/liberation.ts.
 */
import { Elysia, status, t } from 'elysia'
import { dateString, timeRange } from '../http/dates.ts'
import { errorResponses } from '../http/errors.ts'
import { Paged, pageOf, paged, pagingQuery } from '../http/paging.ts'
import { badRequest, integerString, LangQuery, langOf, parseInteger, planetIndexOf, PlanetIdQuery, warIdOf, WarIdQuery } from '../http/params.ts'
import type { KeptValues } from '../services/divers.ts'
import { MajorOrder, majorOrders } from '../services/major-orders.ts'
import { AttackRow } from '../storage/fight.ts'
import type { Store } from '../storage/index.ts'
import { Nullable, Timestamp } from '../storage/model.ts'
import { EVENT_TYPES, TimelineEvent, type EventType } from '../storage/timeline.ts'
import { WarCounters } from '../storage/war-summary.ts'
import { ageSeconds } from '../war/data-age.ts'
import type { RouteContext } from './context.ts'

const ORDERS = { defaultLimit: 10, maxLimit: 100 }
/** A campaign's history answers its latest ticks up to this many (a week and more of 5-minute ticks). */
const CAMPAIGN_POINTS = 2016
const TIMELINE = { defaultLimit: 100, maxLimit: 1000 }
export const LIBERATION_WINDOW_HOURS = { default: 2, min: 1, max: 24 }

const Rate = (description: string) => Nullable(t.Number(), description)

const OutlookWord = t.Union([t.Literal('winning'), t.Literal('losing'), t.Literal('stalemate'), t.Literal('unknown')], {
  description:
    'The players\' side: winning (reaches 100 % before its deadline, or rising without one), losing (falling, or too slow for its deadline), stalemate (flat, no deadline), unknown (too few ticks, or the war is frozen)',
})

/** The bar's projection, shared by a campaign and a planet's liberation. */
const ProjectionFields = {
  ratePctPerHour: Rate('Least-squares slope of the bar over the window\'s ticks since the front began (capture time); null with too few ticks'),
  samples: t.Integer({ description: 'Ticks the rate used (0: the answer is the latest stored row, before the window)' }),
  since: Nullable(Timestamp(), 'First tick the rate used'),
  outlook: OutlookWord,
  eta: Nullable(Timestamp(), 'When the bar reaches 100 (rising) or 0 (falling, where 0 is the loss of a players\' planet) at the current rate; null while the war is frozen'),
  etaHours: Rate('Hours from now to eta'),
  deadline: Nullable(Timestamp(), 'A defense: when its event expires (wall clock, from the war time of the latest tick)'),
  requiredRatePctPerHour: Rate('A defense: the rate that reaches 100 % exactly at the deadline, from the latest tick'),
  marginHours: Rate('A defense with an ETA: deadline - eta in hours (negative: too slow)'),
  capturedAt: Nullable(Timestamp(), 'Time of the latest tick used'),
  ageSeconds: Nullable(t.Integer(), 'Age of that tick'),
}

const FrozenSince = Nullable(Timestamp(), "When the war's clock stopped (the status war time has not advanced since this tick, though the feed still answers): nothing is projected while it stands still; null when it runs")

const PlanetLiberation = t.Object({
  planetIndex: t.Integer({ description: 'Planet index' }),
  planetName: t.String({ description: 'Planet name' }),
  sectorName: Nullable(t.String(), 'Sector name'),
  maxHealth: t.Integer({ description: 'Maximum health' }),
  owner: Nullable(t.Integer(), 'Owner at the latest tick; null when the planet has no stored row'),
  libPct: Rate('Liberation % (enemy planet: share of health removed; players\' planet: health left; a defended planet: the share of its event\'s health taken)'),
  players: Nullable(t.Integer(), 'Players at the latest tick'),
  regenPctPerHour: Rate('Enemy planet: regeneration at the latest tick, in % of max health per hour; null on a players\' planet'),
  impactPctPerHour: Rate('Enemy planet: rate + regeneration, what the players did; null on a players\' planet'),
  eventId: Nullable(t.Integer(), 'The planet event (defense) the bar follows; null without one'),
  ...ProjectionFields,
})

const Campaign = t.Object({
  campaignId: t.Integer({ description: 'Campaign id' }),
  planetIndex: t.Integer({ description: 'Planet index' }),
  planetName: t.String({ description: 'Planet name' }),
  sectorName: Nullable(t.String(), 'Sector name'),
  type: t.String({ description: 'liberation, defense (a planet event belongs to it), or the campaign type\'s name (recon, story; type-N when unknown)' }),
  typeId: t.Integer({ description: 'Upstream campaign type' }),
  count: t.Integer({ description: 'How many times the planet has been fought over' }),
  factionId: Nullable(t.Integer(), 'The faction fought: the event\'s race, else the campaign\'s, else the enemy owner'),
  faction: Nullable(t.String(), 'Its name'),
  owner: Nullable(t.Integer(), 'Planet owner at the latest tick'),
  players: Nullable(t.Integer(), 'Players on the planet at the latest tick'),
  eventId: Nullable(t.Integer(), 'The defense\'s planet event'),
  firstSeenAt: Timestamp('First tick that showed the campaign'),
  progressPct: Rate('Liberation %, or for a defense (maxHealth - health) / maxHealth × 100 of its event; null with no stored row'),
  ...ProjectionFields,
})

const CampaignsAnswer = t.Object({
  warID: t.Integer(),
  asOf: Timestamp('Now'),
  windowHours: t.Integer(),
  at: Nullable(Timestamp(), 'The latest full-status tick the campaigns are from; null before the first'),
  dataAgeSeconds: Nullable(t.Integer(), 'Age of that tick'),
  frozenSince: FrozenSince,
  items: t.Array(Campaign, { description: 'The campaigns of the latest tick, most players first' }),
  attacks: t.Array(AttackRow, { description: 'The attack lines of the latest tick (from a planet to the planet it attacks; lanes: how many times the feed lists the line)' }),
})

const WindowQuery = {
  window: t.Optional(integerString('window', `Hours of status ticks the rate uses, ${LIBERATION_WINDOW_HOURS.min}..${LIBERATION_WINDOW_HOURS.max}. Default ${LIBERATION_WINDOW_HOURS.default}.`, '2')),
}
const windowHoursOf = (q: { window?: string }) =>
  q.window === undefined ? LIBERATION_WINDOW_HOURS.default : parseInteger(q.window, 'window', LIBERATION_WINDOW_HOURS.min, LIBERATION_WINDOW_HOURS.max)

const UnknownWar = t.Object({ error: t.String() }, { description: 'The war asked for is not known' })

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
  coverage: t.Number({
    minimum: 0,
    maximum: 1,
    description:
      "Share of the window [latest tick - window, latest tick] that the war's stored summary ticks span, from `since` on: (latest - since) / window, at most 1, 4 decimals (1: the whole window; 0: no tick). Gaps inside are not subtracted.",
  }),
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

/** Nothing when no war is asked for or it is known (kept per version of the war's data); else the 404. */
async function knownWar(war: number | undefined, keeper: KeptValues, storage: Pick<Store, 'ticks'>) {
  if (war === undefined) return
  const known = await keeper.value('war-ids', ['war', 'planet-status'], () => storage.ticks.warIds())
  if (!known.includes(war)) return status(404, { error: `war ${war} is not known` })
}

export const intelligenceRoutes = (context: RouteContext) =>
  new Elysia({ name: 'routes/intelligence', detail: { tags: ['war intelligence'] } })
    .use(context)
    // An unknown war is a 404, as for /war/:warId, not an empty answer about it.
    .guard({ beforeHandle: ({ query, keeper, storage }) => knownWar(warIdOf(query as { warId?: string }), keeper, storage) }, (app) =>
      app
        .get(
          '/campaigns',
          async ({ query, intelligence, warId, at }) => {
            const war = warIdOf(query) ?? warId
            const hours = windowHoursOf(query)
            const answer = await intelligence.campaigns({ warId: war, hours, asOf: at })
            return { warID: war, asOf: at, windowHours: hours, at: answer.at, dataAgeSeconds: answer.at ? ageSeconds(answer.at, at) : null, frozenSince: answer.frozenSince, items: answer.items, attacks: answer.attacks }
          },
          {
            query: t.Object({ ...WarIdQuery, ...WindowQuery }),
            response: {
              200: CampaignsAnswer,
              404: UnknownWar,
              ...errorResponses,
            },
            detail: {
              summary: 'Active campaigns and defenses',
              description:
                'The campaigns of the latest full-status tick, most players first: each with its progress (a defense: its event\'s health taken), its rate over its own ticks in the window, ETA, and for a defense its deadline, the rate it needs and the margin. Formulas: docs/api.md "War intelligence". 404 for an unknown warId.',
            },
          },
        )
        .get(
          '/campaigns/:campaignId/history',
          async ({ params, query, intelligence, warId }) => {
            const war = warIdOf(query) ?? warId
            const campaignId = parseInteger(params.campaignId, 'campaignId', 0, Number.MAX_SAFE_INTEGER)
            const found = await intelligence.campaignHistory({ warId: war, campaignId, limit: CAMPAIGN_POINTS })
            if (!found) return status(404, { error: `campaign ${campaignId} is not known for war ${war}` })
            return { warID: war, campaignId, ...found }
          },
          {
            params: t.Object({ campaignId: integerString('campaignId', 'Campaign id (as in /campaigns).', '50017') }),
            query: t.Object(WarIdQuery),
            response: {
              200: t.Object({
                warID: t.Integer(),
                campaignId: t.Integer(),
                planetIndex: t.Integer({ description: 'Planet index' }),
                type: t.String({ description: 'As in /campaigns: liberation, defense, or the campaign type\'s name' }),
                eventId: Nullable(t.Integer(), 'The defense\'s planet event, whose health the bar follows'),
                firstSeenAt: Timestamp('First tick that listed the campaign'),
                lastSeenAt: Timestamp('Last tick that listed it'),
                points: t.Array(
                  t.Object({
                    t: Timestamp('Tick time'),
                    progressPct: t.Number({ description: 'The bar at that tick: a defense\'s event health taken, else the planet\'s liberation %' }),
                    players: Nullable(t.Integer(), 'Players on the planet at that tick'),
                  }),
                  { description: `The campaign's ticks, oldest first (its latest ${CAMPAIGN_POINTS} at most)` },
                ),
              }),
              404: t.Object({ error: t.String() }, { description: 'Campaign or war not known' }),
              ...errorResponses,
            },
            detail: {
              summary: 'A campaign\'s progress over its life',
              description: 'Every stored tick of a campaign (current or ended), its bar at each: for a defense its event\'s health taken, else its planet\'s liberation %. 404 for an unknown campaign or war.',
            },
          },
        )
        .get(
          '/major-orders',
          async ({ query, storage, warId, at, languages }) => {
            const limit = pageOf({ limit: query.limit }, ORDERS).limit
            const war = warIdOf(query) ?? warId
            const asOf = at
            const orders = await majorOrders(storage, { warId: war, asOf, limit, lang: langOf(query, languages) })
            return { warID: war, asOf, frozenSince: orders.frozenSince, items: orders.items }
          },
          {
            query: t.Object({ ...WarIdQuery, ...LangQuery, limit: pagingQuery(ORDERS).limit }),
            response: {
              200: t.Object({ warID: t.Integer(), asOf: Timestamp('The time the states were decided at'), frozenSince: FrozenSince, items: t.Array(MajorOrder) }),
              404: UnknownWar,
              ...errorResponses,
            },
            detail: {
              summary: 'Major orders with their derived state, their tasks in words and their projection',
              description:
                'The war\'s orders, last seen first, with status, tasksDone, expiresAt, completedAt and per-task progress; each task with its kind, a description in words, its target planets, progressPct, its rate over the last 6 hours, projectedAtExpiry and onTrack; the rewards with their kind; whether the order is on track. Rules: docs/api.md "War intelligence". With lang, title, briefing and description are the texts of that language (null when none was collected), or with lang=all objects {"<code>": text}; the task descriptions are in English.',
            },
          },
        )
        .get(
          '/planets/liberation',
          async ({ query, intelligence, warId, at }) => {
            const war = warIdOf(query) ?? warId
            const planetIndex = planetIndexOf(query)
            const hours = windowHoursOf(query)
            const answer = await intelligence.liberation({ warId: war, planetIndex, hours, asOf: at })
            if (answer === null) return status(404, { error: `planet ${planetIndex} is not known for war ${war}` })
            return { warID: war, asOf: at, windowHours: hours, frozenSince: answer.frozenSince, items: answer.items }
          },
          {
            query: t.Object({ ...WarIdQuery, ...PlanetIdQuery, ...WindowQuery }),
            response: {
              200: t.Object({ warID: t.Integer(), asOf: Timestamp('Now'), windowHours: t.Integer(), frozenSince: FrozenSince, items: t.Array(PlanetLiberation) }),
              404: t.Object({ error: t.String() }, { description: 'Planet or war not known' }),
              ...errorResponses,
            },
            detail: {
              summary: 'Liberation rate and ETA per planet',
              description:
                'Every planet in a current campaign (or the planet asked for): liberation % (a defended planet: its event\'s bar), its rate over the window, regeneration, player impact, an ETA and the outlook. Formula: docs/api.md "War intelligence". A planet without ticks in the window is answered from its latest stored row (samples 0, outlook unknown). 404 for an unknown warId.',
            },
          },
        )
        .get(
          '/war/trends',
          async ({ query, intelligence, warId, at }) => {
            const war = warIdOf(query) ?? warId
            const { since, windows } = await intelligence.trends(war)
            return { warID: war, asOf: at, since, windows }
          },
          {
            query: t.Object(WarIdQuery),
            response: {
              200: t.Object({
                warID: t.Integer(),
                asOf: Timestamp('Now'),
                since: Nullable(Timestamp(), "Capture time of the war's oldest stored war-summary tick: how far back the trends can reach; null before the first"),
                windows: t.Object({ '1h': TrendWindow, '24h': TrendWindow, '7d': TrendWindow }),
              }),
              404: UnknownWar,
              ...errorResponses,
            },
            detail: {
              summary: 'Trend deltas of the war summary and the diver count',
              description: 'Per cumulative counter, the change between the latest full-status tick and the latest tick at or before 1 h, 24 h and 7 d earlier, with both tick times; the upstream diver count likewise. since is the war\'s oldest stored summary tick, and each window\'s coverage the share of it the stored history spans (below 1: the history is shorter than the window, and its deltas are null).',
            },
          },
        )
        .get(
          '/timeline',
          async ({ query, storage, warId, at, languages }) => {
            const page = pageOf(query, TIMELINE)
            const asOf = at
            const range = timeRange(query, { now: asOf }, { start: 'from', end: 'to' })
            const f = { warId: warIdOf(query) ?? warId, types: typesOf(query.type), range, asOf, planetIndex: planetIndexOf(query), lang: langOf(query, languages) }
            return paged(await storage.timeline.events(f, page), page)
          },
          {
            query: t.Object({
              ...WarIdQuery,
              from: t.Optional(dateString('from', 'Start of the window (inclusive).', '2026-01-01')),
              to: t.Optional(dateString('to', 'End of the window (inclusive; a bare date means the whole day).', '2026-01-02')),
              type: t.Optional(t.String({ maxLength: 400, description: `Comma-separated event types: ${EVENT_TYPES.join(', ')}. Default all.` })),
              ...PlanetIdQuery,
              ...LangQuery,
              ...pagingQuery(TIMELINE),
            }),
            response: { 200: Paged(TimelineEvent, 'A page of events, newest first'), 404: UnknownWar, ...errorResponses },
            detail: {
              summary: 'Event timeline',
              description:
                'Owner changes, defenses started/won/lost (and their corrections), campaigns started/ended, major orders issued/completed/failed/withdrawn, dispatches and the start of the war, newest first; with planetId, the events of that planet only. 404 for an unknown warId. For chart markers. With lang, order titles and dispatch messages are the texts of that language (null when none was collected), or with lang=all objects {"<code>": text}.',
            },
          },
        ),
    )
