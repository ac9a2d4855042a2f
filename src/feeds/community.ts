/**
 * The community API (`{community_api_url}/api/v1/planets`): per-planet cumulative
 * statistics, read by the planet-stats collector. It describes the upstream's current war
 * only, and has no war id of its own.
 */
import { Type, type Static } from '@sinclair/typebox'
import { FeedUnavailableError } from './errors.ts'
import { fetchJson, type FetchLike } from './http.ts'
import { compileParser, Unread, type Drift } from './schema.ts'
import { RequestCounts, type RequestStats } from './throttle.ts'
import { STAT_COUNTERS } from './upstream.ts'

const Int = Type.Integer()

// The upstream's statistics counters, two of them renamed, plus the planet's player count.
const { bugKills: _bugKills, accurracy: _accurracy, ...sharedCounters } = STAT_COUNTERS
export const CommunityStatisticsSchema = Type.Object({
  ...sharedCounters,
  terminidKills: Int,
  accuracy: Int,
  playerCount: Int,
})

export const CommunityPlanetSchema = Type.Object({
  index: Int,
  /** A string, or an object of locales when fetched with `Accept-Language: ivl-IV`. */
  name: Unread(Type.Union([Type.String(), Type.Record(Type.String(), Type.String())])),
  sector: Unread(Type.String()),
  biome: Unread(Type.Unknown()),
  hazards: Unread(Type.Array(Type.Unknown())),
  hash: Unread(Int),
  position: Unread(Type.Object({ x: Type.Number(), y: Type.Number() })),
  waypoints: Unread(Type.Array(Int)),
  maxHealth: Unread(Int),
  health: Unread(Int),
  disabled: Unread(Type.Boolean()),
  /** "Humans" | "Terminids" | "Automaton" (singular) | "Illuminate" | "". */
  initialOwner: Unread(Type.String()),
  currentOwner: Unread(Type.String()),
  regenPerSecond: Unread(Type.Number()),
  event: Unread(Type.Unknown()),
  attacking: Unread(Type.Array(Int)),
  statistics: CommunityStatisticsSchema,
})
export const CommunityPlanetListSchema = Type.Array(CommunityPlanetSchema)
export type CommunityPlanet = Static<typeof CommunityPlanetSchema>

/** The model's name of each war counter the community feed spells otherwise. */
export const COMMUNITY_COUNTER_NAMES = { bugKills: 'terminidKills' } as const

export const parseCommunityPlanets = compileParser(CommunityPlanetListSchema, 'community planets')

export interface CommunityClientOptions {
  /** Without the /api part, e.g. https://api.helldivers2.dev */
  baseUrl: string
  timeoutMs: number
  /** X-Super-Client: the API rejects requests without it (400). */
  superClient: string
  /** X-Super-Contact: same. */
  superContact: string
  now?: () => number
  fetch?: FetchLike
}

export interface CommunityClient {
  planets(): Promise<{ data: CommunityPlanet[]; fetchedAt: Date; drift: Drift }>
  /** Requests by outcome (/metrics); no cache. */
  requestStats(): RequestStats[]
}

/** The community API's bucket refills 5 requests per 10 s; wait that long when a 429 names no time. */
const DEFAULT_PENALTY_S = 10

export function createCommunityClient(opts: CommunityClientOptions): CommunityClient {
  const base = opts.baseUrl.replace(/\/+$/, '')
  const now = opts.now ?? Date.now
  const headers = {
    Accept: 'application/json',
    'Accept-Language': 'en-US',
    'X-Super-Client': opts.superClient,
    'X-Super-Contact': opts.superContact,
  }
  let blockedUntilMs = 0
  // Calls refused inside a penalty window make no request and are not counted.
  const requests = new RequestCounts('planets')

  return {
    async planets() {
      const waitMs = blockedUntilMs - now()
      if (waitMs > 0) {
        // Calling inside the penalty window would only extend it (and risks a blacklist).
        throw new FeedUnavailableError({
          feed: 'community',
          endpoint: 'planets',
          reason: 'rate_limited',
          message: `rate limited, next call allowed in ${Math.ceil(waitMs / 1000)} s`,
          retryAfterS: Math.ceil(waitMs / 1000),
        })
      }
      try {
        const { data, drift } = await requests.track(fetchJson({
          feed: 'community',
          endpoint: 'planets',
          url: `${base}/api/v1/planets`,
          headers,
          timeoutMs: opts.timeoutMs,
          parse: parseCommunityPlanets,
          fetch: opts.fetch,
        }))
        return { data, fetchedAt: new Date(now()), drift }
      } catch (e) {
        if (e instanceof FeedUnavailableError && e.reason === 'rate_limited') {
          blockedUntilMs = now() + (e.retryAfterS ?? DEFAULT_PENALTY_S) * 1000
        }
        throw e
      }
    },
    requestStats: () => [requests.stats()],
  }
}
