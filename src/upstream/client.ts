import type { FetchLike } from './http.ts'
import { fetchJson } from './http.ts'
import type { Parser } from './parse.ts'
import {
  parseAssignments,
  parseNewsFeed,
  parseWarId,
  parseWarInfo,
  parseWarStatus,
  parseWarSummary,
  type Assignment,
  type NewsItem,
  type WarInfo,
  type WarStatus,
  type WarSummary,
} from './schemas.ts'
import { THROTTLE_CONFIG, ThrottledEndpoint, type EndpointStats, type Fetched, type GetOptions } from './throttle.ts'

/** The five cached upstream endpoints, in the order the health snapshot lists them. */
export const UPSTREAM_ENDPOINTS = ['status', 'summary', 'assignment', 'newsfeed', 'warinfo'] as const
export type UpstreamEndpoint = (typeof UPSTREAM_ENDPOINTS)[number]

export interface UpstreamClientOptions {
  /** Including the `/api` part, e.g. https://api.live.prod.thehelldiversgame.com/api */
  baseUrl: string
  timeoutMs: number
  userAgent: string
  /** Picks the language of every text; without it texts come back in a random language or not at all. */
  acceptLanguage?: string
  now?: () => number
  fetch?: FetchLike
}

export interface ThrottleSnapshot {
  config: { initialTtlS: number; backoffStepS: number; maxTtlS: number }
  endpoints: EndpointStats<UpstreamEndpoint>[]
}

export interface UpstreamClient {
  status(warId: number, opts?: GetOptions): Promise<Fetched<WarStatus>>
  warInfo(warId: number, opts?: GetOptions): Promise<Fetched<WarInfo>>
  summary(warId: number, opts?: GetOptions): Promise<Fetched<WarSummary>>
  assignments(warId: number, opts?: GetOptions): Promise<Fetched<Assignment[]>>
  newsfeed(warId: number, opts?: GetOptions): Promise<Fetched<NewsItem[]>>
  /**
   * Uncached and not in the snapshot (whose endpoint list the spec fixes). The schedule
   * asks at start-up, once a minute and before planet-stats; CurrentWar keeps it to one
   * request at a time.
   */
  currentWarId(): Promise<number>
  snapshot(): ThrottleSnapshot
}

export const DEFAULT_USER_AGENT = 'galactic-war-stats/0.1 (+https://github.com/galactic-war-stats)'

export function createUpstreamClient(opts: UpstreamClientOptions): UpstreamClient {
  const base = opts.baseUrl.replace(/\/+$/, '')
  const now = opts.now ?? Date.now
  const headers = {
    Accept: 'application/json',
    'Accept-Language': opts.acceptLanguage ?? 'en-US',
    'User-Agent': opts.userAgent,
  }
  const get = <T>(endpoint: string, path: string, parse: Parser<T>) =>
    fetchJson({ feed: 'upstream', endpoint, url: base + path, headers, timeoutMs: opts.timeoutMs, parse, fetch: opts.fetch })

  const throttled = {
    status: new ThrottledEndpoint<WarStatus, 'status'>('status', now),
    summary: new ThrottledEndpoint<WarSummary, 'summary'>('summary', now),
    assignment: new ThrottledEndpoint<Assignment[], 'assignment'>('assignment', now),
    newsfeed: new ThrottledEndpoint<NewsItem[], 'newsfeed'>('newsfeed', now),
    warinfo: new ThrottledEndpoint<WarInfo, 'warinfo'>('warinfo', now),
  }

  const cached = <T>(endpoint: ThrottledEndpoint<T, UpstreamEndpoint>, path: (warId: number) => string, parse: Parser<T>) =>
    (warId: number, opts?: GetOptions) => endpoint.get(String(warId), () => get(endpoint.name, path(warId), parse), opts)

  return {
    status: cached(throttled.status, (w) => `/WarSeason/${w}/Status`, parseWarStatus),
    warInfo: cached(throttled.warinfo, (w) => `/WarSeason/${w}/WarInfo`, parseWarInfo),
    summary: cached(throttled.summary, (w) => `/Stats/War/${w}/Summary`, parseWarSummary),
    assignments: cached(throttled.assignment, (w) => `/v2/Assignment/War/${w}`, parseAssignments),
    // Without maxEntries only ~10 items come back; without fromTimestamp the upstream
    // sometimes fails. These are the values the community API syncs with.
    newsfeed: cached(throttled.newsfeed, (w) => `/NewsFeed/${w}?maxEntries=1024&fromTimestamp=1000`, parseNewsFeed),
    currentWarId: async () => (await get('warid', '/WarSeason/current/WarID', parseWarId)).id,
    snapshot: () => ({
      config: { ...THROTTLE_CONFIG },
      endpoints: UPSTREAM_ENDPOINTS.map((name) => throttled[name].stats()),
    }),
  }
}
