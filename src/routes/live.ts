/**
 * Live figures straight from the feeds (never stored, never cached): /player-count and
 * /war-stats.
 */
import { Elysia, t } from 'elysia'
import { pcstoreCounts, type PcstoreCounts } from '../feeds/pcstore.ts'
import type { Fetched } from '../feeds/throttle.ts'
import { GALAXY_COUNTER_NAMES, GalaxyStatsSchema, type WarStatus, type WarSummary } from '../feeds/upstream.ts'
import { jsonNoStore, jsonTime, JsonTemplate } from '../http/answers.ts'
import { errorResponses } from '../http/errors.ts'
import { Timestamp } from '../storage/model.ts'
import { COUNTER_KEYS, countersOf, WarCounters } from '../storage/war-summary.ts'
import { ageSeconds, dataAge } from '../war/data-age.ts'
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

const STATS_ORDER = Object.keys(WarStats.properties.stats.properties) as (keyof typeof WarStats.properties.stats.properties)[]

const counts = (pcstore: number) => ({ pcstore, console: 0, total: pcstore })

/**
 * The /player-count body is kept per feed answer (only the capture time and the data's
 * age change per request): the feeds' answers change every 15 s at most, so one is kept.
 */
function playerCountAnswers() {
  let kept: { times: (Date | null)[]; template: JsonTemplate<'capturedAt' | 'dataCapturedAt' | 'dataAgeSeconds'>; oldest: Date | null; oldestJson: string } | undefined
  return {
    answer(status: Fetched<WarStatus> | null, pc: PcstoreCounts, at: Date): Response {
      // The feeds' cached answers are the same objects while they last: their times say
      // whether the kept body is still theirs.
      const s = status?.fetchedAt ?? null
      const { game1, game2 } = pc.fetchedAt
      if (!kept || kept.times[0] !== s || kept.times[1] !== game1 || kept.times[2] !== game2) {
        const times = [s, game1, game2]
        kept = { times, ...playerCountBody(status, pc, times) }
      }
      const age = kept.oldest === null ? 'null' : String(ageSeconds(kept.oldest, at))
      return jsonNoStore(kept.template.renderJson({ capturedAt: jsonTime(at), dataCapturedAt: kept.oldestJson, dataAgeSeconds: age }))
    },
  }
}

function playerCountBody(status: Fetched<WarStatus> | null, pc: PcstoreCounts, times: (Date | null)[]) {
  const gameActive = status ? status.data.planetStatus.reduce((sum, p) => sum + p.players, 0) : null
  const game1 = counts(pc.game1 ?? 0)
  const game2 = counts(pc.game2 ?? 0)
  const template = new JsonTemplate(
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
  const known = times.filter((d): d is Date => d !== null)
  const oldest = known.length ? new Date(Math.min(...known.map((d) => d.getTime()))) : null
  return { template, oldest, oldestJson: JSON.stringify(oldest) }
}

/**
 * The /war-stats body is kept per summary answer (the same object while the feed's cache
 * holds it): only the data's age changes, once a second (the template keeps its last
 * rendering).
 */
function warStatsAnswers() {
  let kept: { summary: Fetched<WarSummary>; template: JsonTemplate<'dataAgeSeconds'> } | undefined
  return {
    answer(summary: Fetched<WarSummary>, at: Date): Response {
      if (kept?.summary !== summary) {
        const { data, fetchedAt } = summary
        const counters = countersOf(data.galaxy_stats, GALAXY_COUNTER_NAMES)
        // In the schema's (the feed's) order, as the schema's encoding of a value gave it.
        const stats = Object.fromEntries(STATS_ORDER.map((k) => [k, counters[k]]))
        kept = { summary, template: new JsonTemplate({ at: fetchedAt, ...dataAge(fetchedAt, at), stats }, ['dataAgeSeconds']) }
      }
      return jsonNoStore(kept.template.renderJson({ dataAgeSeconds: String(ageSeconds(summary.fetchedAt, at)) }))
    },
  }
}

export const liveRoutes = (context: ReadContext) => {
  const playerCount = playerCountAnswers()
  const warStats = warStatsAnswers()
  return new Elysia({ name: 'routes/live', detail: { tags: ['live'] } })
    .use(context)
    .get(
      '/player-count',
      async ({ feeds, warId, now }) => {
        // Both feeds at once (each answers from its cache while fresh); a failed feed makes
        // only its own figures unavailable. While both caches are fresh (all requests of
        // a 15 s window but one) the answer is built without a promise.
        const status = feeds.upstream.freshStatus(warId)
        const pc = pcstoreCounts(feeds.pcstore)
        if (status && !(pc instanceof Promise)) return playerCount.answer(status, pc, now())
        const [s, p] = await Promise.all([status ?? feeds.upstream.status(warId).catch(() => null), pc])
        return playerCount.answer(s, p, now())
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
        // While the feed's cache is fresh, without a promise. An unreachable upstream throws
        // FeedUnavailableError: the error plugin answers 503.
        const fresh = feeds.upstream.freshSummary(warId)
        return warStats.answer(fresh ?? (await feeds.upstream.summary(warId)), now())
      },
      {
        response: { 200: WarStats, 503: errorResponses[503] },
        detail: {
          summary: 'Live galaxy war statistics',
          description: 'Cumulative galaxy statistics from the upstream war summary of the configured war, through the throttled client (15 s cache). 503 when the upstream is unreachable.',
        },
      },
    )
}
