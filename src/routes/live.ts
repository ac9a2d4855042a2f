/** GET /player-count and /war-stats: live figures straight from the feeds (never stored). Service: services/live.ts. */
import { Elysia, t } from 'elysia'
import { errorResponses } from '../http/errors.ts'
import { GALAXY_STATS } from '../services/live.ts'
import { Timestamp } from '../storage/model.ts'
import { WarCounters } from '../storage/war-summary.ts'
import type { KeepContext as C, RouteContext } from './context.ts'

const Counts = (description: string) =>
  t.Object(
    {
      pcstore: t.Integer({ description: 'Players on the PC store (0 when unavailable)' }),
      console: t.Integer({ description: 'Console players: always 0, no public live source exists' }),
      total: t.Integer({ description: 'pcstore + console' }),
    },
    { description },
  )

/** Additive fields: how old the feed data behind an answer is. */
const DataAge = {
  dataCapturedAt: t.Union([Timestamp(), t.Null()], { description: 'When the oldest feed answer used was fetched from its feed; null when no feed answered' }),
  dataAgeSeconds: t.Union([t.Integer(), t.Null()], { description: 'Seconds since dataCapturedAt, at the time of this answer' }),
}

const PlayerCount = t.Object({
  capturedAt: Timestamp('Time of capture'),
  gameActive: t.Integer({ description: 'Cross-platform live players: sum of players over all planets of the upstream war status (0 when unavailable)' }),
  game1: Counts('First game'),
  game2: Counts('Second game'),
  all: Counts('Both games combined'),
  sources: t.Object(
    {
      game1: t.Union([t.Literal('pcstore'), t.Literal('unavailable')], { description: 'Where game1 came from' }),
      game2: t.Union([t.Literal('pcstore'), t.Literal('unavailable')], { description: 'Where game2 came from' }),
      gameActive: t.Union([t.Literal('upstream'), t.Literal('unavailable')], { description: 'Where gameActive came from' }),
    },
    { description: 'Source of each figure; "unavailable" means that feed failed and its figures are 0' },
  ),
  ...DataAge,
})

/** /war-stats is the upstream summary's galaxy_stats: the counters, in the feed's order. */
const WarStats = t.Object({
  at: Timestamp('When the upstream summary was fetched'),
  ...DataAge,
  stats: t.Object(Object.fromEntries(GALAXY_STATS.map((k) => [k, WarCounters.properties[k]])) as typeof WarCounters.properties),
})

type Aged = { dataCapturedAt: Date | null }

export const liveRoutes = (context: RouteContext) =>
  new Elysia({ name: 'routes/live', detail: { tags: ['live'] } })
    .use(context)
    .get('/player-count', ({ live, warId, at, request }) => live.playerCount(warId, at, request), {
      response: { 200: PlayerCount },
      // Kept per pair of feed answers; only the capture time and the data's age move per request.
      keep: {
        version: ({ live, warId, request }: C) => live.playerCountVersion(warId, request),
        fresh: { capturedAt: ({ at }: C) => at, dataAgeSeconds: ({ live, at }: C, kept: Aged) => live.ageAt(kept, at) },
      },
      detail: {
        summary: 'Live player count',
        description: 'Live players from the upstream war status (gameActive) and the PC store (game1, game2), fetched concurrently. A failed feed gives 0 for its figures and "unavailable" in sources; never a 503.',
      },
    })
    .get('/war-stats', ({ live, warId, at, request }) => live.warStats(warId, at, request), {
      response: { 200: WarStats, 503: errorResponses[503] },
      keep: { version: ({ live, warId, request }: C) => live.warStatsVersion(warId, request), fresh: { dataAgeSeconds: ({ live, at }: C, kept: Aged) => live.ageAt(kept, at) } },
      detail: {
        summary: 'Live galaxy war statistics',
        description: 'Cumulative galaxy statistics from the upstream war summary of the configured war, through the throttled client (15 s cache). 503 when the upstream is unreachable.',
      },
    })
