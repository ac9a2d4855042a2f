import { UpstreamUnavailableError } from './errors.ts'
import { fetchJson, type FetchLike } from './http.ts'
import { parsePcstorePlayers } from './schemas.ts'
import { ThrottledEndpoint, type GetOptions } from './throttle.ts'

/** PC storefront app ids: game1 is the first game (2015), game2 the second. */
export const PCSTORE_APP_IDS = { game1: 394510, game2: 553850 } as const
export const GAME1_APP_ID = PCSTORE_APP_IDS.game1
export const GAME2_APP_ID = PCSTORE_APP_IDS.game2

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
   * Current players of one app; throws UpstreamUnavailableError when the store has no
   * figure. Cached per app for 15 s, one request in flight per app, failures held 5 s:
   * the public /player-count route must not turn its own traffic into traffic on the
   * store. No 429 backoff and no stale values: a count is stored as current.
   */
  currentPlayers(appId: number, opts?: GetOptions): Promise<number>
}

export function createPcstoreClient(opts: PcstoreClientOptions): PcstoreClient {
  const base = opts.baseUrl.replace(/\/+$/, '')
  const headers: Record<string, string> = { Accept: 'application/json' }
  if (opts.userAgent) headers['User-Agent'] = opts.userAgent

  const cache = new ThrottledEndpoint<number, 'players'>('players', opts.now, { backoff: false })

  const fetchPlayers = async (appId: number) => {
    const body = await fetchJson({
      feed: 'pcstore',
      endpoint: 'players',
      url: `${base}/ISteamUserStats/GetNumberOfCurrentPlayers/v1/?appid=${encodeURIComponent(appId)}`,
      headers,
      timeoutMs: opts.timeoutMs,
      parse: parsePcstorePlayers,
      fetch: opts.fetch,
    })
    const { result, player_count } = body.response
    // result 42 ("no such app") normally comes with a 404, but one source saw it with 200.
    if (result !== 1 || player_count === undefined) {
      throw new UpstreamUnavailableError({
        feed: 'pcstore',
        endpoint: 'players',
        reason: 'invalid_payload',
        message: `/response: result ${result}${player_count === undefined ? ', no player_count' : ''} for app ${appId}`,
      })
    }
    return player_count
  }

  return {
    currentPlayers: async (appId, o) => (await cache.get(String(appId), () => fetchPlayers(appId), o)).data,
  }
}

/** Both games' counts, fetched concurrently; null where the store gave no figure. */
export async function pcstoreCounts(client: PcstoreClient, opts?: GetOptions): Promise<{ game1: number | null; game2: number | null }> {
  const [game1, game2] = await Promise.allSettled([
    client.currentPlayers(PCSTORE_APP_IDS.game1, opts),
    client.currentPlayers(PCSTORE_APP_IDS.game2, opts),
  ])
  return {
    game1: game1.status === 'fulfilled' ? game1.value : null,
    game2: game2.status === 'fulfilled' ? game2.value : null,
  }
}
