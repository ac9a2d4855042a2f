/**
 * Live figures straight from the feeds (never stored, never cached): /player-count and
 * /war-stats.
 */
import { Elysia, t } from 'elysia'
import { NO_STORE } from '../http/cache.ts'
import { pcstoreCounts } from '../upstream/pcstore.ts'
import type { ReadContext } from './context.ts'
import { errorResponses, IsoDate } from './schemas.ts'

const Counts = (description: string) =>
  t.Object(
    {
      pcstore: t.Integer({ description: 'Players on the PC store (0 when unavailable)' }),
      console: t.Integer({ description: 'Console players: always 0, no public live source exists' }),
      total: t.Integer({ description: 'pcstore + console' }),
    },
    { description },
  )

const PlayerCount = t.Object({
  capturedAt: IsoDate('Time of capture'),
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
})

const Num = (description: string) => t.Number({ description })
const WarStats = t.Object({
  at: IsoDate('When the upstream summary was fetched'),
  stats: t.Object({
    missionsWon: Num('Missions won'),
    missionsLost: Num('Missions lost'),
    missionTime: Num('Mission time'),
    bugKills: Num('Kills of the first enemy faction'),
    automatonKills: Num('Kills of the second enemy faction'),
    illuminateKills: Num('Kills of the third enemy faction'),
    bulletsFired: Num('Bullets fired'),
    bulletsHit: Num('Bullets hit'),
    timePlayed: Num('Time played'),
    deaths: Num('Deaths'),
    revives: Num('Revives'),
    friendlies: Num('Friendly kills'),
    missionSuccessRate: Num('Mission success rate (percent)'),
    accuracy: Num('Accuracy (percent; upstream field "accurracy")'),
  }),
})

const counts = (pcstore: number) => ({ pcstore, console: 0, total: pcstore })

export const liveRoutes = (ctx: ReadContext) =>
  new Elysia({ name: 'routes/live', detail: { tags: ['live'] } })
    .onAfterHandle(({ set }) => {
      set.headers['cache-control'] = NO_STORE
    })
    .get(
      '/player-count',
      async () => {
        // Both feeds at once; a failed feed makes only its own figures unavailable.
        const [gameActive, pc] = await Promise.all([
          ctx.feeds.upstream.status(ctx.warId).then(
            ({ data }) => data.planetStatus.reduce((sum, p) => sum + p.players, 0),
            () => null,
          ),
          pcstoreCounts(ctx.feeds.pcstore),
        ])
        const game1 = counts(pc.game1 ?? 0)
        const game2 = counts(pc.game2 ?? 0)
        return {
          capturedAt: ctx.now().toISOString(),
          gameActive: gameActive ?? 0,
          game1,
          game2,
          all: counts(game1.pcstore + game2.pcstore),
          sources: {
            game1: pc.game1 === null ? ('unavailable' as const) : ('pcstore' as const),
            game2: pc.game2 === null ? ('unavailable' as const) : ('pcstore' as const),
            gameActive: gameActive === null ? ('unavailable' as const) : ('upstream' as const),
          },
        }
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
      async () => {
        // An unreachable upstream throws UpstreamUnavailableError: the error plugin answers 503.
        const { data, fetchedAt } = await ctx.feeds.upstream.summary(ctx.warId)
        const g = data.galaxy_stats
        return {
          at: fetchedAt.toISOString(),
          stats: {
            missionsWon: g.missionsWon,
            missionsLost: g.missionsLost,
            missionTime: g.missionTime,
            bugKills: g.bugKills,
            automatonKills: g.automatonKills,
            illuminateKills: g.illuminateKills,
            bulletsFired: g.bulletsFired,
            bulletsHit: g.bulletsHit,
            timePlayed: g.timePlayed,
            deaths: g.deaths,
            revives: g.revives,
            friendlies: g.friendlies,
            missionSuccessRate: g.missionSuccessRate,
            accuracy: g.accurracy,
          },
        }
      },
      {
        response: { 200: WarStats, 503: errorResponses[503] },
        detail: {
          summary: 'Live galaxy war statistics',
          description: 'Cumulative galaxy statistics from the upstream war summary of the configured war, through the throttled client (15 s cache). 503 when the upstream is unreachable.',
        },
      },
    )
