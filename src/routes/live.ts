/**
 * Live figures straight from the feeds (never stored, never cached): /player-count and
 * /war-stats.
 */
import { Elysia, t } from 'elysia'
import { pcstoreCounts } from '../feeds/pcstore.ts'
import { GALAXY_COUNTER_NAMES, GalaxyStatsSchema } from '../feeds/upstream.ts'
import { jsonNoStore, JsonTemplate } from '../http/answers.ts'
import { errorResponses } from '../http/errors.ts'
import { httpPolicy } from '../http/policy.ts'
import { Timestamp } from '../storage/model.ts'
import { COUNTER_KEYS, countersOf, WarCounters } from '../storage/war-summary.ts'
import { dataAge } from '../war/data-age.ts'
import type { ReadContext } from './context.ts'

const Counts = (description: string) =>
  t.Object(
    {
      pcstore: t.Integer({ description: 'Players on the PC store (0 when unavailable)' }),
      console: t.Integer({ description: 'Console players: always 0, no public live source exists' }),
      total: t.Integer({ description: 'pcstore + console' }),
    },
    { description },
  )

/** Additive fields (issue 14): how old the feed data behind an answer is. */
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
const modelName = Object.fromEntries(COUNTER_KEYS.map((k) => [(GALAXY_COUNTER_NAMES as Record<string, string>)[k] ?? k, k]))
const WarStats = t.Object({
  at: Timestamp('When the upstream summary was fetched'),
  ...DataAge,
  stats: t.Object(
    Object.fromEntries(
      Object.keys(GalaxyStatsSchema.properties)
        .filter((feedName) => modelName[feedName] !== undefined)
        .map((feedName) => [modelName[feedName]!, WarCounters.properties[modelName[feedName]!]]),
    ) as typeof WarCounters.properties,
  ),
})

const counts = (pcstore: number) => ({ pcstore, console: 0, total: pcstore })

export const liveRoutes = (context: ReadContext) =>
  new Elysia({ name: 'routes/live', detail: { tags: ['live'] } })
    .use(context)
    .use(httpPolicy)
    .get(
      '/player-count',
      async ({ feeds, warId, now, answers }) => {
        // Both feeds at once (each answers from its cache while fresh); a failed feed makes
        // only its own figures unavailable. The body is kept per feed answer: only the
        // capture time changes per request.
        const [status, pc] = await Promise.all([feeds.upstream.status(warId).catch(() => null), pcstoreCounts(feeds.pcstore)])
        const key = `player-count/${warId}/${status?.fetchedAt.getTime() ?? '-'}/${pc.fetchedAt.game1?.getTime() ?? '-'}/${pc.fetchedAt.game2?.getTime() ?? '-'}`
        const template = await answers.get(key, [], async () => {
          const gameActive = status ? status.data.planetStatus.reduce((sum, p) => sum + p.players, 0) : null
          const game1 = counts(pc.game1 ?? 0)
          const game2 = counts(pc.game2 ?? 0)
          return new JsonTemplate(
            {
              capturedAt: null,
              gameActive: gameActive ?? 0,
              game1,
              game2,
              all: counts(game1.pcstore + game2.pcstore),
              sources: {
                game1: pc.game1 === null ? 'unavailable' : 'pcstore',
                game2: pc.game2 === null ? 'unavailable' : 'pcstore',
                gameActive: gameActive === null ? 'unavailable' : 'upstream',
              },
              dataCapturedAt: null,
              dataAgeSeconds: null,
            },
            ['capturedAt', 'dataCapturedAt', 'dataAgeSeconds'],
          )
        })
        const times = [status?.fetchedAt, pc.fetchedAt.game1, pc.fetchedAt.game2].filter((d): d is Date => d instanceof Date)
        const oldest = times.length ? new Date(Math.min(...times.map((d) => d.getTime()))) : null
        const at = now()
        return jsonNoStore(template.render({ capturedAt: at, ...dataAge(oldest, at) }))
      },
      {
        response: { 200: PlayerCount },
        detail: {
          summary: 'Live player count',
          description: 'Live players from the upstream war status (gameActive) and the PC store (game1, game2), fetched concurrently. A failed feed gives 0 for its figures and "unavailable" in sources; never a 503.',
        },
      },
    )
    .get(
      '/war-stats',
      async ({ feeds, warId, now }) => {
        // An unreachable upstream throws FeedUnavailableError: the error plugin answers 503.
        const { data, fetchedAt } = await feeds.upstream.summary(warId)
        return { at: fetchedAt, ...dataAge(fetchedAt, now()), stats: countersOf(data.galaxy_stats, GALAXY_COUNTER_NAMES) }
      },
      {
        noStore: true,
        response: { 200: WarStats, 503: errorResponses[503] },
        detail: {
          summary: 'Live galaxy war statistics',
          description: 'Cumulative galaxy statistics from the upstream war summary of the configured war, through the throttled client (15 s cache). 503 when the upstream is unreachable.',
        },
      },
    )
