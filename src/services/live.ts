/**
 * Live figures straight from the feeds (never stored): the player count of both games and
 * the galaxy statistics. The feeds' clients cache each answer (15 s) and hand out one
 * answer object per cached entry, so an answer's fetch times say which feed answers it
 * was built from: its version. Routes: routes/live.ts.
 */
import type { Feeds } from '../feeds/index.ts'
import { pcstoreCounts, type PcstoreCounts } from '../feeds/pcstore.ts'
import type { Fetched } from '../feeds/throttle.ts'
import { GALAXY_COUNTER_NAMES, GalaxyStatsSchema, type WarStatus, type WarSummary } from '../feeds/upstream.ts'
import { COUNTER_KEYS, countersOf, type WarCounters } from '../storage/war-summary.ts'
import { ageSeconds, dataAge } from '../war/data-age.ts'

/** The model's name of each feed counter. */
const modelName = Object.fromEntries(COUNTER_KEYS.map((k) => [(GALAXY_COUNTER_NAMES as Record<string, string>)[k] ?? k, k])) as Record<string, keyof WarCounters>
/** The galaxy statistics the feed sends, by their model names, in the feed's order. */
export const GALAXY_STATS = Object.keys(GalaxyStatsSchema.properties).filter((name) => modelName[name] !== undefined).map((name) => modelName[name]!)

const counts = (pcstore: number) => ({ pcstore, console: 0, total: pcstore })
const timeOf = (d: Date | null | undefined) => (d ? d.getTime() : '-')

/** The oldest of the fetch times (null when no feed answered). */
const oldestOf = (times: (Date | null)[]): Date | null => {
  const known = times.filter((d): d is Date => d !== null)
  return known.length ? new Date(Math.min(...known.map((d) => d.getTime()))) : null
}

/**
 * Each request reads the feeds' caches once (every read counts as a cache hit in
 * /health/throttle): the answers a request's version was read from are the ones its
 * computation uses, carried on the request itself.
 */
const READ = Symbol('live.read')
type Read = { status?: Fetched<WarStatus>; pc?: PcstoreCounts; summary?: Fetched<WarSummary> }
const readOf = (request: Request) => (request as Request & { [READ]?: Read })[READ]
const keepRead = (request: Request, read: Read) => void ((request as Request & { [READ]?: Read })[READ] = read)

export class LiveService {

  constructor(private readonly feeds: Feeds) {}

  /** The version of the player count: the fetch times of the feed answers it reads while all are fresh, else undefined. */
  playerCountVersion(warId: number, request: Request): string | undefined {
    const status = this.feeds.upstream.freshStatus(warId)
    const pc = pcstoreCounts(this.feeds.pcstore)
    if (!status || pc instanceof Promise) return undefined
    keepRead(request, { status, pc })
    // Asked on every request: the fresh answers are the same objects while they last, so
    // the text of their times is built once per set of answers.
    const { game1, game2 } = pc.fetchedAt
    const last = this.lastVersion
    if (last?.status === status.fetchedAt && last.game1 === game1 && last.game2 === game2) return last.version
    const version = `${timeOf(status.fetchedAt)}/${timeOf(game1)}/${timeOf(game2)}`
    this.lastVersion = { status: status.fetchedAt, game1, game2, version }
    return version
  }

  private lastVersion: { status: Date; game1: Date | null; game2: Date | null; version: string } | undefined

  /**
   * Both feeds at once (each answers from its cache while fresh); a failed feed makes only
   * its own figures unavailable.
   */
  async playerCount(warId: number, at: Date, request: Request) {
    const read = readOf(request)
    if (read?.status && read.pc) return playerCountOf(read.status, read.pc, at)
    const [status, pc] = await Promise.all([
      this.feeds.upstream.freshStatus(warId) ?? this.feeds.upstream.status(warId).catch(() => null),
      pcstoreCounts(this.feeds.pcstore),
    ])
    return playerCountOf(status, pc, at)
  }

  /** The version of the galaxy statistics: the fetch time of the summary while fresh. */
  warStatsVersion(warId: number, request: Request): number | undefined {
    const summary = this.feeds.upstream.freshSummary(warId)
    if (!summary) return undefined
    keepRead(request, { summary })
    return summary.fetchedAt.getTime()
  }

  /** The upstream summary's galaxy statistics. An unreachable upstream throws FeedUnavailableError (503). */
  async warStats(warId: number, at: Date, request: Request) {
    const { data, fetchedAt } = readOf(request)?.summary ?? this.feeds.upstream.freshSummary(warId) ?? (await this.feeds.upstream.summary(warId))
    const counters = countersOf(data.galaxy_stats, GALAXY_COUNTER_NAMES)
    return { at: fetchedAt, ...dataAge(fetchedAt, at), stats: Object.fromEntries(GALAXY_STATS.map((k) => [k, counters[k]])) as Pick<WarCounters, (typeof GALAXY_STATS)[number]> }
  }

  /** How old a live answer's data is at `at`. */
  ageAt(answer: { dataCapturedAt: Date | null }, at: Date): number | null {
    return answer.dataCapturedAt === null ? null : ageSeconds(answer.dataCapturedAt, at)
  }
}

function playerCountOf(status: Fetched<WarStatus> | null, pc: PcstoreCounts, at: Date) {
  const gameActive = status ? status.data.planetStatus.reduce((sum, p) => sum + p.players, 0) : null
  const game1 = counts(pc.game1 ?? 0)
  const game2 = counts(pc.game2 ?? 0)
  return {
    capturedAt: at,
    gameActive: gameActive ?? 0,
    game1,
    game2,
    all: counts(game1.pcstore + game2.pcstore),
    sources: {
      game1: pc.game1 === null ? ('unavailable' as const) : ('pcstore' as const),
      game2: pc.game2 === null ? ('unavailable' as const) : ('pcstore' as const),
      gameActive: gameActive === null ? ('unavailable' as const) : ('upstream' as const),
    },
    ...dataAge(oldestOf([status?.fetchedAt ?? null, pc.fetchedAt.game1, pc.fetchedAt.game2]), at),
  }
}
