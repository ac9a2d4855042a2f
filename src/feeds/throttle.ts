import { SingleFlightCache, type Stored } from '../cache.ts'
import { FeedUnavailableError } from './errors.ts'
import { NO_DRIFT, type Drift, type Parsed } from './schema.ts'

/** Cache/backoff rule of the spec (section "Limits"): 15 s, +15 s per 429, cap 300 s, never lower. */
export const THROTTLE_CONFIG = { initialTtlS: 15, backoffStepS: 15, maxTtlS: 300 } as const

/** A payload plus when it was fetched from the feed (not when it was served). */
export interface Fetched<T> {
  data: T
  fetchedAt: Date
  /** True when answered from the cache; false for the answer of a request this call made or joined. */
  fromCache: boolean
  /** True when a cached value older than the TTL was served because the feed answered 429. */
  stale: boolean
  /** How the payload differed from its documented shape (feeds/schema.ts). */
  drift: Drift
}

export interface EndpointStats<N extends string = string> {
  endpoint: N
  ttlS: number
  /** ISO time of the last 429 that applied the backoff rule (also once the cap is reached), null before any. */
  lastBumpAt: string | null
  /**
   * Epoch ms of the last successful fetch. The spec types it as an integer; we answer null
   * before the first success, because 0 would read as "succeeded in 1970".
   */
  lastSuccessAt: number | null
  /**
   * Calls answered without starting an upstream request: fresh cache, a request in flight
   * joined, or a stale value during a held 429. (A held failure is none of these.)
   */
  hits: number
  /** Calls that started an upstream request; always ok + rateLimited + errors once settled. */
  misses: number
  ok: number
  rateLimited: number
  errors: number
  /** hits / (hits + misses), 0 before any call. */
  hitRate: number
}

/**
 * A caller polling at the TTL's own cadence (the 15 s player-count schedule) finds an entry
 * a few milliseconds short of the TTL: without this allowance every other tick would be a
 * cache hit and the 15 s series would come out at 30 s. Upstream still sees at most one
 * request per TTL, to within this second.
 */
export const SCHEDULE_JITTER_MS = 1000

/**
 * A failed fetch is answered from memory for this long (longer when a 429 names a
 * Retry-After, up to the TTL cap): public reads during a feed outage must not become one
 * upstream request each, and a burst of reads during a 429 must not push the TTL to its
 * cap in one go.
 */
export const FAILURE_HOLD_MS = 5000

/** Held failures kept at most; past it the expired ones are swept (keys are caller-chosen war ids). */
const MAX_HELD_FAILURES = 64

export interface EndpointPolicy {
  /**
   * The spec's 429 rule: raise the TTL and serve a stale value meanwhile. Off for the PC
   * store, whose counts are stamped as current by the collector and are not in the snapshot.
   */
  backoff: boolean
}

export interface GetOptions {
  /**
   * Ask the feed even when a failure other than a 429 is held: a scheduled tick makes its
   * own attempt instead of inheriting the failure a public read met moments before.
   */
  bypassFailureHold?: boolean
}

/** What a feed client tells about one endpoint (for /metrics): cache TTL if cached, calls by outcome. */
export interface RequestStats {
  endpoint: string
  /** Current TTL; absent for an endpoint without a cache. */
  ttlS?: number
  /** Calls answered without a request (always 0 without a cache). */
  hits: number
  ok: number
  rateLimited: number
  errors: number
}

/** Requests of an endpoint that has no cache, by outcome. */
export class RequestCounts {
  private readonly counts = { ok: 0, rateLimited: 0, errors: 0 }

  constructor(readonly endpoint: string) {}

  track<T>(request: Promise<T>): Promise<T> {
    return request.then(
      (value) => {
        this.counts.ok++
        return value
      },
      (err: unknown) => {
        if (isRateLimited(err)) this.counts.rateLimited++
        else this.counts.errors++
        throw err
      },
    )
  }

  stats(): RequestStats {
    return { endpoint: this.endpoint, hits: 0, ...this.counts }
  }
}

const isRateLimited = (e: unknown) => e instanceof FeedUnavailableError && e.reason === 'rate_limited'

/**
 * One feed endpoint under the spec's rule: its responses cached by key (e.g. war id) with
 * a TTL that 429s raise, failures held briefly, counters for the health snapshot.
 * Concurrent callers of one key share a single request in flight.
 */
export class ThrottledEndpoint<T, N extends string = string> {
  private ttlS: number = THROTTLE_CONFIG.initialTtlS
  private lastBumpAtMs: number | null = null
  private lastSuccessAtMs: number | null = null
  private readonly counts = { hits: 0, misses: 0, ok: 0, rateLimited: 0, errors: 0 }
  private readonly cache: SingleFlightCache<Parsed<T>>
  private readonly failures = new Map<string, { error: unknown; untilMs: number }>()
  private readonly hits = new WeakMap<Stored<Parsed<T>>, Fetched<T>>()

  constructor(
    readonly name: N,
    private readonly now: () => number = Date.now,
    private readonly policy: EndpointPolicy = { backoff: true },
  ) {
    this.cache = new SingleFlightCache<Parsed<T>>(64, now)
  }

  /**
   * The answer under `key` when the cache holds a fresh one (a hit), at once; undefined
   * otherwise, and then only `get` can answer. Lets a hot route answer without a promise.
   */
  fresh(key: string): Fetched<T> | undefined {
    const entry = this.cache.get(key)
    if (!entry || this.now() - entry.storedAtMs >= this.ttlS * 1000 - SCHEDULE_JITTER_MS) return undefined
    this.counts.hits++
    // One answer object per cached entry, shared by every hit (callers only read it).
    let hit = this.hits.get(entry)
    if (!hit) this.hits.set(entry, (hit = fetched(entry.value, entry.storedAtMs, true, false)))
    return hit
  }

  get(key: string, load: () => Promise<Parsed<T>>, opts: GetOptions = {}): Promise<Fetched<T>> {
    const hit = this.fresh(key)
    if (hit) return Promise.resolve(hit)
    if (this.cache.loading(key)) {
      this.counts.hits++
      return this.load(key, load)
    }
    const held = this.heldFailure(key)
    if (held && !(opts.bypassFailureHold && !isRateLimited(held))) {
      // Not a hit: nothing was answered from the cache (unless a stale value is).
      const stale = isRateLimited(held) ? this.stale(key) : undefined
      if (stale) this.counts.hits++
      return stale ? Promise.resolve(stale) : Promise.reject(held)
    }
    this.counts.misses++
    return this.load(key, load)
  }

  /** One request for `key` (callers meanwhile join it); a fresh answer is cached, a stale one is not. */
  private load(key: string, load: () => Promise<Parsed<T>>): Promise<Fetched<T>> {
    return this.cache.load(key, () => this.request(key, load), (f) => (f.stale ? undefined : { data: f.data, drift: f.drift }))
  }

  private async request(key: string, load: () => Promise<Parsed<T>>): Promise<Fetched<T>> {
    try {
      const value = await load()
      const at = this.now()
      this.counts.ok++
      this.lastSuccessAtMs = at
      this.failures.delete(key)
      return fetched(value, at, false, false)
    } catch (e) {
      this.hold(key, e)
      if (!isRateLimited(e)) {
        this.counts.errors++
        throw e
      }
      this.counts.rateLimited++
      if (!this.policy.backoff) throw e
      this.bump()
      const stale = this.stale(key)
      if (stale) return stale
      throw e
    }
  }

  /**
   * A 429 says "ask less often", not "the data is wrong": keep serving what we have, as a
   * longer TTL would have, but never anything older than the TTL cap.
   */
  private stale(key: string): Fetched<T> | undefined {
    const previous = this.cache.get(key)
    if (!this.policy.backoff || !previous || this.now() - previous.storedAtMs > THROTTLE_CONFIG.maxTtlS * 1000) return undefined
    return fetched(previous.value, previous.storedAtMs, true, true)
  }

  private heldFailure(key: string): unknown {
    const held = this.failures.get(key)
    if (!held) return undefined
    if (this.now() < held.untilMs) return held.error
    this.failures.delete(key)
    return undefined
  }

  private hold(key: string, error: unknown): void {
    const askedS = error instanceof FeedUnavailableError ? (error.retryAfterS ?? 0) : 0
    const holdMs = Math.min(THROTTLE_CONFIG.maxTtlS * 1000, Math.max(FAILURE_HOLD_MS, askedS * 1000))
    if (this.failures.size >= MAX_HELD_FAILURES) {
      const now = this.now()
      for (const [k, f] of this.failures) if (f.untilMs <= now) this.failures.delete(k)
    }
    this.failures.set(key, { error, untilMs: this.now() + holdMs })
  }

  private bump(): void {
    this.ttlS = Math.min(THROTTLE_CONFIG.maxTtlS, this.ttlS + THROTTLE_CONFIG.backoffStepS)
    this.lastBumpAtMs = this.now()
  }

  /**
   * A number that moves whenever `stats()` would change: counters only grow, and every
   * other change (a TTL bump, a success's time) comes with a counter's step in the same
   * turn. Lets the health snapshot be kept until something happened.
   */
  get changes(): number {
    const c = this.counts
    return c.hits + c.misses + c.ok + c.rateLimited + c.errors
  }

  stats(): EndpointStats<N> {
    const { hits, misses } = this.counts
    return {
      endpoint: this.name,
      ttlS: this.ttlS,
      lastBumpAt: this.lastBumpAtMs === null ? null : new Date(this.lastBumpAtMs).toISOString(),
      lastSuccessAt: this.lastSuccessAtMs,
      ...this.counts,
      hitRate: hits + misses === 0 ? 0 : hits / (hits + misses),
    }
  }
}

function fetched<T>(p: Parsed<T>, atMs: number, fromCache: boolean, stale: boolean): Fetched<T> {
  return { data: p.data, fetchedAt: new Date(atMs), fromCache, stale, drift: p.drift ?? NO_DRIFT }
}
