import { UpstreamUnavailableError } from './errors.ts'
import { fetchJson, type FetchLike } from './http.ts'
import { parseCommunityPlanets, type CommunityPlanet } from './schemas.ts'

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
  planets(): Promise<{ data: CommunityPlanet[]; fetchedAt: Date }>
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

  return {
    async planets() {
      const waitMs = blockedUntilMs - now()
      if (waitMs > 0) {
        // Calling inside the penalty window would only extend it (and risks a blacklist).
        throw new UpstreamUnavailableError({
          feed: 'community',
          endpoint: 'planets',
          reason: 'rate_limited',
          message: `rate limited, next call allowed in ${Math.ceil(waitMs / 1000)} s`,
          retryAfterS: Math.ceil(waitMs / 1000),
        })
      }
      try {
        const data = await fetchJson({
          feed: 'community',
          endpoint: 'planets',
          url: `${base}/api/v1/planets`,
          headers,
          timeoutMs: opts.timeoutMs,
          parse: parseCommunityPlanets,
          fetch: opts.fetch,
        })
        return { data, fetchedAt: new Date(now()) }
      } catch (e) {
        if (e instanceof UpstreamUnavailableError && e.reason === 'rate_limited') {
          blockedUntilMs = now() + (e.retryAfterS ?? DEFAULT_PENALTY_S) * 1000
        }
        throw e
      }
    },
  }
}
