/**
 * Fair use per client: a token bucket per client address (an IPv6 address's /64), or per
 * API key for requests that carry a live one (X-API-Key, http/api-keys.ts), each refilling
 * continuously: `quota` units per `window` seconds, a full bucket holding `quota`.
 *
 * Cost model: every request costs 1 unit when it arrives; a request under /api/v1 whose
 * answer was not a kept one (http/keep.ts: the handler ran, so it reached the database or
 * a feed) costs `computeCost - 1` more once answered, the bucket going below zero if need
 * be. A request is refused (429 `{error}` with Retry-After) while its bucket holds less
 * than 1 unit: a client that spent on computed answers waits for its debt to refill.
 * An X-API-Key that matches no live key is 401 `{error}`, whatever the budget.
 *
 * Not metered: /health/live, /health/ready (the proxy's health checks must never be
 * refused: a 429 there would take the process out of rotation) and /metrics (scraped from
 * inside; deny it at the proxy). Everything else is, the pages and the collector POSTs
 * included (those cost a computation when they run).
 *
 * Every metered answer carries the IETF httpapi draft's headers: `RateLimit-Policy:
 * "default";q=600;w=60` (or `"key";…` with a key) and `RateLimit: "default";r=42;t=12` (r:
 * units left; t: seconds until the bucket is full again).
 *
 * Several processes behind a proxy (RATE_LIMIT_PROCESSES = N): each process holds 1/N of
 * every bucket, so a client whose requests the proxy spreads over the N processes gets the
 * whole quota in total; the headers speak of the whole (r is this process's share times N).
 * Nothing is shared between processes: the hot path never waits for anything.
 *
 * Buckets live in memory, at most MAX_BUCKETS: past it, the full ones go (they hold
 * nothing a new bucket would not), then the least recently used.
 */
import { Elysia, status, type ElysiaCustomStatusResponse } from 'elysia'
import type { Config } from '../config.ts'
import { ApiKeyTable } from './api-keys.ts'
import { ClientAddresses, clientKeyOf } from './client-address.ts'
import { KEPT } from './keep.ts'

export type BudgetSettings = Pick<
  Config,
  'rateLimitQuota' | 'rateLimitWindowSeconds' | 'rateLimitComputeCost' | 'rateLimitKeyQuota' | 'rateLimitProcesses' | 'trustedProxies' | 'trustedProxyHeader'
>

/** Buckets kept at most. */
export const MAX_BUCKETS = 100_000
/** Paths no budget applies to (exact paths; a query string does not change them). */
const EXEMPT = new Set(['/health/live', '/health/ready', '/metrics'])
const API_PREFIX = '/api/v1/'
/** A bucket's place among the recently used is refreshed at most this often (a Map re-insert per request would cost every request). */
const TOUCH_MS = 1000

/** A quota policy, as this process applies it and as the headers state it. */
interface Policy {
  name: 'default' | 'key'
  /** The RateLimit-Policy value, built once. */
  header: string
  /** This process's share: units held at most, and units refilled per millisecond. */
  capacity: number
  perMs: number
  /** This process's units to the whole service's (RATE_LIMIT_PROCESSES). */
  scale: number
}

/** A client's bucket: whom the budget of a request is taken from. */
export interface Client {
  readonly id: string
}

interface Bucket extends Client {
  policy: Policy
  tokens: number
  atMs: number
  touchedAtMs: number
}

/** What the plugin knows of a metered request, kept on the request between its hooks. */
interface Meter {
  bucket: Bucket
  /** Under /api/v1: an answer computed there costs the compute cost. */
  api: boolean
  /** Charged once: an error after the answer (a later hook's) is not charged again. */
  settled: boolean
  /** Refused for want of units: the answer carries Retry-After. */
  refused: boolean
}

type Refusal = ElysiaCustomStatusResponse<429, { error: string }> | ElysiaCustomStatusResponse<401, { error: string }>

const METER = Symbol('meter')
type Metered = { [METER]?: Meter }
type Kept = { [KEPT]?: true }

export class ClientBudgets {
  /** The live API keys (main.ts keeps them current: storage/api-keys.ts `watchKeys`). */
  readonly keys = new ApiKeyTable()
  private readonly addresses: ClientAddresses
  private readonly buckets = new Map<string, Bucket>()
  private readonly anonymous: Policy
  private readonly keyPolicies = new Map<string, Policy>()

  constructor(
    private readonly settings: BudgetSettings,
    /** Milliseconds of a monotonic clock; tests move it. */
    private readonly now: () => number = () => performance.now(),
    private readonly maxBuckets = MAX_BUCKETS,
  ) {
    this.addresses = new ClientAddresses(settings.trustedProxies, settings.trustedProxyHeader)
    this.anonymous = this.policy('default', settings.rateLimitQuota, settings.rateLimitWindowSeconds)
  }

  /**
   * The client a request's budget is taken from: its live API key, else its address
   * (`peer`: the socket's; `unknown` without one); undefined for an X-API-Key that no live
   * key matches. Until the keys are first read, a key counts as its address.
   */
  clientOf(request: Request, peer: string | null): Client | undefined {
    const headers = request.headers
    const presented = headers.get('x-api-key')
    if (presented !== null && this.keys.loaded) {
      const key = this.keys.find(presented)
      if (key === undefined) return undefined
      return this.bucket(`key:${key.id}`, this.keyPolicy(key.quota, key.windowSeconds))
    }
    return this.addressClient(headers, peer)
  }

  private addressClient(headers: Headers, peer: string | null): Bucket {
    return this.bucket(clientKeyOf(this.addresses.of(peer, headers) ?? 'unknown'), this.anonymous)
  }

  /**
   * Take `cost` units of a client's budget if it holds them (a stream's connection, say);
   * nothing is taken when it does not. `remaining` and `retryAfterSeconds` as the headers
   * state them.
   */
  take(client: Client, cost: number): { ok: boolean; remaining: number; retryAfterSeconds: number } {
    const b = client as Bucket
    const ok = this.spend(b, cost)
    return { ok, remaining: remainingOf(b), retryAfterSeconds: ok ? 0 : this.retryAfter(b, cost) }
  }

  /** The headers of a client's budget now: RateLimit-Policy and RateLimit. */
  headersOf(client: Client): { 'ratelimit-policy': string; ratelimit: string } {
    const b = client as Bucket
    this.refill(b)
    return { 'ratelimit-policy': b.policy.header, ratelimit: rateLimitOf(b) }
  }

  /** @internal The plugin's request hook: the refusal of a request, if any (it is metered from here on). */
  admit(request: Request, peer: string | null): Refusal | undefined {
    const path = pathOf(request.url)
    if (EXEMPT.has(path)) return undefined
    const client = this.clientOf(request, peer) as Bucket | undefined
    if (client === undefined) {
      // Refused whatever the budget, so that its holder learns the key is dead instead of
      // retrying later; as cheap as a 429 (before routing), so charged nothing. The
      // answer shows the address's budget.
      ;(request as Metered)[METER] = { bucket: this.addressClient(request.headers, peer), api: false, settled: true, refused: false }
      return status(401, { error: 'unknown or revoked API key (X-API-Key)' as string })
    }
    const meter: Meter = { bucket: client, api: path.startsWith(API_PREFIX), settled: false, refused: false }
    ;(request as Metered)[METER] = meter
    if (!this.spend(client, 1)) {
      meter.refused = true
      return status(429, { error: `too many requests: this client's budget (${client.policy.header}) is spent; retry after ${this.retryAfter(client, 1)} s` as string })
    }
    return undefined
  }

  /**
   * @internal The plugin's answer hooks: a computed answer's extra cost, once, and the
   * headers of the request's budget (with Retry-After when it was refused); undefined for
   * a request not metered.
   */
  settle(request: Request, computed: boolean): Record<string, string> | undefined {
    const meter = (request as Metered)[METER]
    if (meter === undefined) return undefined
    const b = meter.bucket
    this.refill(b)
    if (!meter.settled) {
      meter.settled = true
      if (computed && meter.api) b.tokens -= this.settings.rateLimitComputeCost - 1
    }
    // A refusal says r=0 though the bucket may have refilled a unit since the request came.
    const headers: Record<string, string> = { 'ratelimit-policy': b.policy.header, ratelimit: rateLimitOf(b, meter.refused) }
    if (meter.refused) headers['retry-after'] = String(this.retryAfter(b, 1))
    return headers
  }

  /** Buckets held now. */
  get size(): number {
    return this.buckets.size
  }

  private spend(b: Bucket, cost: number): boolean {
    this.refill(b)
    // A bucket smaller than one request's cost (a small quota shared by many processes) still admits when full.
    if (b.tokens < Math.min(cost, b.policy.capacity)) return false
    b.tokens -= cost
    return true
  }

  private refill(b: Bucket): void {
    const now = this.now()
    const elapsed = now - b.atMs
    if (elapsed <= 0) return
    b.tokens = Math.min(b.policy.capacity, b.tokens + elapsed * b.policy.perMs)
    b.atMs = now
  }

  private retryAfter(b: Bucket, cost: number): number {
    return Math.max(1, Math.ceil((Math.min(cost, b.policy.capacity) - b.tokens) / b.policy.perMs / 1000))
  }

  /** A client's bucket, made full when it has none; its place among the recently used refreshed now and then. */
  private bucket(id: string, policy: Policy): Bucket {
    const now = this.now()
    const known = this.buckets.get(id)
    if (known !== undefined) {
      // A key's limits may have changed since (npm run keys): the bucket follows them.
      if (known.policy !== policy) this.repolicy(known, policy)
      if (now - known.touchedAtMs >= TOUCH_MS) {
        known.touchedAtMs = now
        this.buckets.delete(id)
        this.buckets.set(id, known)
      }
      return known
    }
    if (this.buckets.size >= this.maxBuckets) this.evict(now)
    const made: Bucket = { id, policy, tokens: policy.capacity, atMs: now, touchedAtMs: now }
    this.buckets.set(id, made)
    return made
  }

  private repolicy(b: Bucket, policy: Policy): void {
    this.refill(b)
    b.policy = policy
    b.tokens = Math.min(b.tokens, policy.capacity)
  }

  /** Room for new buckets: the full ones go, then the least recently used down to 90% of the bound. */
  private evict(now: number): void {
    for (const [id, b] of this.buckets) if (b.tokens + (now - b.atMs) * b.policy.perMs >= b.policy.capacity) this.buckets.delete(id)
    const keep = Math.floor(this.maxBuckets * 0.9)
    for (const id of this.buckets.keys()) {
      if (this.buckets.size <= keep) break
      this.buckets.delete(id)
    }
  }

  private keyPolicy(quota: number | null, windowSeconds: number | null): Policy {
    const q = quota ?? this.settings.rateLimitKeyQuota
    const w = windowSeconds ?? this.settings.rateLimitWindowSeconds
    const id = `${q}/${w}`
    let p = this.keyPolicies.get(id)
    if (p === undefined) this.keyPolicies.set(id, (p = this.policy('key', q, w)))
    return p
  }

  private policy(name: Policy['name'], quota: number, windowSeconds: number): Policy {
    const scale = this.settings.rateLimitProcesses
    const capacity = quota / scale
    return { name, header: `"${name}";q=${quota};w=${windowSeconds}`, capacity, perMs: capacity / (windowSeconds * 1000), scale }
  }
}

/** Units left, as the whole service's. */
const remainingOf = (b: Bucket) => Math.floor(Math.max(0, b.tokens) * b.policy.scale)

/** The RateLimit value: units left (none on a refusal), and seconds until the bucket is full again. */
const rateLimitOf = (b: Bucket, refused = false) =>
  `"${b.policy.name}";r=${refused ? 0 : remainingOf(b)};t=${Math.ceil(Math.max(0, b.policy.capacity - b.tokens) / b.policy.perMs / 1000)}`

/** Whether an error answer was computed: the handler (or what it called) failed, not the request's shape. */
const computedError = (code: unknown) => (typeof code === 'number' ? code >= 500 : code !== 'VALIDATION' && code !== 'PARSE' && code !== 'NOT_FOUND')

/** The client the plugin metered a request under (undefined: limits off, or a path without a budget): what a stream's route charges more. */
export const meteredClient = (request: Request): Client | undefined => (request as Metered)[METER]?.bucket

/** The path of an absolute request URL, without building a URL object. */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0) return '/'
  const q = url.indexOf('?', start)
  return q < 0 ? url.slice(start) : url.slice(start, q)
}

/**
 * The budgets as one plugin, used once at the root (app.ts); null: nothing is metered
 * (RATE_LIMIT=off, and the app of most tests). The request hook refuses before routing;
 * the answer hooks charge a computed answer and add the headers: on the headers of a
 * ready Response (kept answers: no copy of it), else in `set`.
 */
export const rateLimit = (budgets: ClientBudgets | null) =>
  new Elysia({ name: 'http/rate-limit' })
    // A refusal is thrown, not returned: Elysia awaits a request hook that returns a call.
    .onRequest(({ request, server }) => {
      if (budgets === null) return
      const refusal = budgets.admit(request, server?.requestIP(request)?.address ?? null)
      if (refusal !== undefined) throw refusal
    })
    .onAfterHandle({ as: 'global' }, (c) => {
      if (budgets === null) return
      const responseValue = c.responseValue
      const headers = budgets.settle(c.request, (c as Kept)[KEPT] !== true)
      if (headers === undefined) return
      if (responseValue instanceof Response) {
        const own = responseValue.headers
        for (const name in headers) own.set(name, headers[name]!)
      } else Object.assign(c.set.headers, headers)
    })
    .onError({ as: 'global' }, (c) => {
      if (budgets === null) return
      const headers = budgets.settle(c.request, computedError(c.code))
      if (headers !== undefined) Object.assign(c.set.headers, headers)
    })
