/** The PC store's player-count API (GetNumberOfCurrentPlayers), per app id. */
import { Type } from '@sinclair/typebox'
import { FeedUnavailableError } from './errors.ts'
import { fetchJson, type FetchLike } from './http.ts'
import { compileParser, NO_DRIFT, type Drift } from './schema.ts'
import { ThrottledEndpoint, type Fetched, type GetOptions, type RequestStats } from './throttle.ts'

/** PC storefront app ids: game1 is the first game (2015), game2 the second. */
export const PCSTORE_APP_IDS = { game1: 394510, game2: 553850 } as const

export const PcstorePlayersSchema = Type.Object({
  response: Type.Object({
    /** 1 = ok; 42 = no such app (with HTTP 404). */
    result: Type.Integer(),
    player_count: Type.Optional(Type.Integer()),
  }),
})

export const parsePcstorePlayers = compileParser(PcstorePlayersSchema, 'pcstore players')

export interface PcstoreClientOptions {
  /** e.g. https://api.steampowered.com */
  baseUrl: string
  timeoutMs: number
  userAgent?: string
  now?: () => number
  fetch?: FetchLike
}

export interface PcstoreClient {
  /**
   * Current players of one app; throws FeedUnavailableError when the store has no
   * figure. Cached per app for 15 s, one request in flight per app, failures held 5 s:
   * the public /player-count route must not turn its own traffic into traffic on the
   * store. No 429 backoff and no stale values: a count is stored as current.
   */
  currentPlayers(appId: number, opts?: GetOptions): Promise<Fetched<number>>
  /** One app's players when the cache holds a fresh figure, without a request; else undefined. */
  freshPlayers(appId: number): Fetched<number> | undefined
  /** Calls by outcome and the cache TTL (/metrics). */
  requestStats(): RequestStats[]
}

export function createPcstoreClient(opts: PcstoreClientOptions): PcstoreClient {
  const base = opts.baseUrl.replace(/\/+$/, '')
  const headers: Record<string, string> = { Accept: 'application/json' }
  if (opts.userAgent) headers['User-Agent'] = opts.userAgent

  const cache = new ThrottledEndpoint<number, 'players'>('players', opts.now, { backoff: false })

  const fetchPlayers = async (appId: number) => {
    const { data, drift } = await fetchJson({
      feed: 'pcstore',
      endpoint: 'players',
      url: `${base}/ISteamUserStats/GetNumberOfCurrentPlayers/v1/?appid=${encodeURIComponent(appId)}`,
      headers,
      timeoutMs: opts.timeoutMs,
      parse: parsePcstorePlayers,
      fetch: opts.fetch,
    })
    const { result, player_count } = data.response
    // result 42 ("no such app") normally comes with a 404, but one source saw it with 200.
    if (result !== 1 || player_count === undefined) {
      throw new FeedUnavailableError({
        feed: 'pcstore',
        endpoint: 'players',
        reason: 'invalid_payload',
        message: `/response: result ${result}${player_count === undefined ? ', no player_count' : ''} for app ${appId}`,
      })
    }
    return { data: player_count, drift }
  }

  return {
    currentPlayers: (appId, o) => cache.get(String(appId), () => fetchPlayers(appId), o),
    freshPlayers: (appId) => cache.fresh(String(appId)),
    requestStats: () => {
      const { endpoint, ttlS, hits, ok, rateLimited, errors } = cache.stats()
      return [{ endpoint, ttlS, hits, ok, rateLimited, errors }]
    },
  }
}

export interface PcstoreCounts {
  /** null where the store gave no figure. */
  game1: number | null
  game2: number | null
  /** When each figure was fetched from the store; null where it gave none. */
  fetchedAt: { game1: Date | null; game2: Date | null }
  drift: Drift
}

/**
 * Both games' counts: at once when the cache holds fresh figures of both (the live route
 * then answers without a promise), else once the others are fetched, concurrently.
 */
export function pcstoreCounts(client: PcstoreClient, opts?: GetOptions): PcstoreCounts | Promise<PcstoreCounts> {
  const game1 = client.freshPlayers(PCSTORE_APP_IDS.game1)
  const game2 = client.freshPlayers(PCSTORE_APP_IDS.game2)
  if (game1 && game2) return countsOf(game1, game2)
  return Promise.allSettled([game1 ?? client.currentPlayers(PCSTORE_APP_IDS.game1, opts), game2 ?? client.currentPlayers(PCSTORE_APP_IDS.game2, opts)]).then(
    ([r1, r2]) => countsOf(r1.status === 'fulfilled' ? r1.value : null, r2.status === 'fulfilled' ? r2.value : null),
  )
}

const countsOf = (game1: Fetched<number> | null, game2: Fetched<number> | null): PcstoreCounts => ({
  game1: game1?.data ?? null,
  game2: game2?.data ?? null,
  fetchedAt: { game1: game1?.fetchedAt ?? null, game2: game2?.fetchedAt ?? null },
  drift: [game1?.drift, game2?.drift].find((d) => d !== undefined && d !== NO_DRIFT) ?? NO_DRIFT,
})
