/**
 * The one mechanism that keeps answers. A read route declares what its answer depends on
 * with the `keep` route option; its handler stays the plain computation of the answer.
 *
 *   .get('/war', ({ war, at }) => war.latest(at), {
 *     response: { 200: WarState, ... },
 *     keep: { datasets: ['war'], http: 'war' },
 *   })
 *
 * The first request computes the answer (the handler runs); the body is encoded through
 * the route's 200 response schema, serialised once and kept. Later requests get the kept
 * bytes while the answer still holds:
 * - for the current versions of the `datasets` it reads (storage/changes.ts: a committed
 *   write moves them), or of its own `version` (a feed answer, a client's counters);
 * - for the same request (its path and query) and `key` (a window start, say);
 * - for an answer over a window ending now (`window`), while no row can have entered or
 *   left the window since it was computed;
 * - for an HTTP-cached route (`http`), within the policy's TTL; those answers carry a
 *   strong ETag and answer a matching If-None-Match with 304.
 * Fields that change with every request (the window's end, the age of the data) are
 * declared `fresh` and filled into the kept body per request.
 *
 * Requests that miss while one computation runs wait for it instead of computing again.
 * Errors and non-200 answers are never kept.
 */
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import { Value } from '@sinclair/typebox/value'
import { Elysia, ElysiaCustomStatusResponse, type TSchema } from 'elysia'
import { SingleFlightCache } from '../cache.ts'
import type { DataVersions, Dataset } from '../storage/changes.ts'
import type { WindowEdges } from '../storage/time-pages.ts'
import { CACHE_CONTROL, securedResponse } from './security.ts'

export type { WindowEdges }

/** How a kept answer may be cached by clients and proxies, and how long it is reused here. */
export const HTTP_POLICIES = {
  /** War state: revalidated every 30 s (spec). */
  war: { header: 'public, max-age=30, s-maxage=30, stale-while-revalidate=30', ttlMs: 30_000 },
  /** Lookup tables: revalidated every 3600 s (spec). */
  lookup: { header: 'public, max-age=3600, s-maxage=3600, stale-while-revalidate=600', ttlMs: 3_600_000 },
} as const


/** The context the rule's functions see: the handler's (validated query and params, the decorated dependencies, `at`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Ctx = any

export interface KeepRule {
  /** The datasets the answer reads: it is kept for one version of them. */
  datasets?: readonly Dataset[]
  /** Or the version of what else it reads (a feed's answer, say); undefined: nothing to keep now. */
  version?: (c: Ctx) => string | number | undefined
  /** What identifies the answer besides its path and query (a window start, say). */
  key?: (c: Ctx) => string | Promise<string>
  /** Top-level fields that change per request, with how to get them (`kept`: the kept answer's value). */
  fresh?: Record<string, (c: Ctx, kept: Ctx) => unknown>
  /**
   * A window ending at the request's moment (`at`): `spanMs` long, or from a fixed start
   * (null), or undefined when this request's window does not end now (an explicit end).
   * `edges` reads the window's edge rows when the answer is computed.
   */
  window?: { spanMs: (c: Ctx) => number | null | undefined; edges: (c: Ctx) => Promise<WindowEdges> }
  /** HTTP caching (Cache-Control, ETag, 304, reuse within the TTL); default: no-store. */
  http?: keyof typeof HTTP_POLICIES
}

/** A kept answer. */
interface Entry {
  /** The body, split at its fresh fields (one part when it has none). */
  parts: string[]
  /** The fresh fields, in the order they appear in the body. */
  holes: string[]
  /** The decoded value, for the fresh fields' functions (only when there are any). */
  value: unknown
  /** The whole body as UTF-8 when it has no fresh fields (encoded once). */
  bytes: Uint8Array | null
  etag: string | null
  headers: Record<string, string>
  notModified: Record<string, string> | null
  storedAtMs: number
  /** For a window ending now: the moment it was computed, and its edge rows (ms). */
  window: { at: number; oldest: number | null; newest: number | null } | null
  /** The last rendering with fresh fields: requests of one millisecond share their values. */
  last: { values: unknown[]; body: string } | null
}

/**
 * Set on a request's context when it was answered from a kept answer (or a computation
 * another request ran): the request did not run the handler. The budgets (rate-limit.ts)
 * charge such a request the base cost only.
 */
export const KEPT = Symbol('kept')

const JSON_TYPE = 'application/json; charset=utf-8'
const NO_STORE_HEADERS = { 'content-type': JSON_TYPE, 'cache-control': CACHE_CONTROL.noStore }
const HOLE = (i: number) => `\u0001hole${i}\u0001`

/** What the kept answers hold at most: entries, and what they weigh together (weightOf). */
const LIMITS = { entries: 2048, bytes: 32 * 1024 * 1024 }

/** The computation a request runs for a kept answer, by request (abandoned when the request fails). */
const pendingOf = new WeakMap<Request, Pending>()
interface Pending {
  atMs: number
  /** The window's edge rows, read before the handler runs (windows ending now only). */
  edges: WindowEdges | null
  settle: (entry: Entry | null) => void
}

export interface KeepStats {
  /** Answers from a kept body (or from a computation another request started). */
  hits: number
  /** Answers that ran the handler. */
  computed: number
  /** 304 answers. */
  notModified: number
}

/**
 * The kept answers of one app, and the `keep` macro that declares them. `now` is the
 * routes' clock: each request's moment (`at`) is read from it once, and the handler and
 * the rule see the same one.
 */
export class Keeper {
  private readonly entries = new SingleFlightCache<Entry>(LIMITS.entries, Date.now, { max: LIMITS.bytes, weigh: weightOf })
  private readonly computing = new Map<string, Promise<Entry | null>>()
  readonly stats: KeepStats = { hits: 0, computed: 0, notModified: 0 }

  constructor(
    private readonly versions: DataVersions,
    private readonly now: () => Date,
  ) {}

  /**
   * A value kept for the current versions of `datasets` (a service's intermediate result,
   * such as the first row of a series): at once when kept, else computed once however many
   * ask.
   */
  value<T>(key: string, datasets: readonly Dataset[], compute: () => Promise<T>): T | Promise<T> {
    const full = `value:${key}@${this.versions.stamp(datasets)}`
    const kept = this.values.get(full)
    if (kept !== undefined) return kept.value as T
    return this.values.load(full, compute, (v) => v)
  }

  private readonly values = new SingleFlightCache<unknown>(256)

  /** The plugin: `at` on every route's context, and the `keep` route option. */
  plugin() {
    const keeper = this
    return new Elysia({ name: 'http/keep' })
      .resolve({ as: 'global' }, () => ({ at: keeper.now() }))
      .macro({
        keep(rule: KeepRule) {
          let route: RouteKeep | undefined
          const hooks: Record<string, unknown> = {
            introspect(hook: { response?: unknown }) {
              route = new RouteKeep(keeper, rule, okSchemaOf(hook.response))
            },
            // Elysia reads a hook's text: it awaits one that shows `async` or returns a call,
            // and prepares everything (cookies, headers...) for every request of a route whose
            // hooks hand the context itself to a function. So the context goes to the rule
            // under another name, and the after-handle hook, which never waits, returns no
            // call (Bun's transpiler turns `const a = f(); return a` into `return f()`), so
            // that it runs in line on every answer, kept ones included.
            beforeHandle: async (context: Ctx) => {
              const ctx = context
              return route!.before(ctx)
            },
            afterHandle(context: Ctx) {
              const ctx = context
              const answer = route!.after(ctx)
              if (answer) return answer
            },
          }
          // Hooks on the route's own context: they add nothing to its type.
          return hooks as {}
        },
      })
  }

  private readonly stamps = new WeakMap<readonly Dataset[], { generation: number; stamp: string }>()

  /** @internal The versions of `datasets` as one key part, built once per generation of the versions. */
  stampOf(datasets: readonly Dataset[]): string {
    const generation = this.versions.generation
    const known = this.stamps.get(datasets)
    if (known?.generation === generation) return known.stamp
    const stamp = this.versions.stamp(datasets)
    this.stamps.set(datasets, { generation, stamp })
    return stamp
  }

  /** @internal */ lookup(full: string): Entry | undefined {
    return this.entries.get(full)?.value
  }

  /** @internal */ joinable(full: string): Promise<Entry | null> | undefined {
    return this.computing.get(full)
  }

  /** @internal */ begin(full: string): (entry: Entry | null) => void {
    let settle!: (entry: Entry | null) => void
    const p = new Promise<Entry | null>((resolve) => (settle = resolve))
    this.computing.set(full, p)
    return (entry) => {
      if (this.computing.get(full) === p) this.computing.delete(full)
      if (entry) this.entries.set(full, entry)
      settle(entry)
    }
  }

  /** @internal */ drop(full: string): void {
    this.entries.delete(full)
  }
}

/** What an entry weighs: its body (bytes, or characters of its parts), twice when its decoded value is kept beside it. */
const weightOf = (e: Entry) => e.bytes?.byteLength ?? e.parts.reduce((n, p) => n + p.length, 0) * (e.value === undefined ? 1 : 2)

/**
 * A request failed while it computed a kept answer: whoever waits for that computation
 * joins another or computes on its own. Called by the one error plugin (http/errors.ts)
 * first, before any hook can answer the error.
 */
export function abandonComputation(request: Request): void {
  const pending = pendingOf.get(request)
  if (!pending) return
  pendingOf.delete(request)
  pending.settle(null)
}

/** The schema of a route's 200 answer, from its `response` option. */
function okSchemaOf(response: unknown): TSchema {
  const r = response as Record<string, TSchema> | TSchema | undefined
  const schema = r && (typeof (r as Record<symbol, unknown>)[Symbol.for('TypeBox.Kind')] === 'string' ? (r as TSchema) : (r as Record<string, TSchema>)[200])
  if (!schema) throw new Error('a kept route needs a response schema for 200')
  return schema
}

/** The `keep` rule of one route, with its compiled response schema. */
class RouteKeep {
  private readonly check: TypeCheck<TSchema>
  /** Each fresh field's schema, compiled. */
  private readonly holeCheck: Record<string, TypeCheck<TSchema>>
  private readonly policy: (typeof HTTP_POLICIES)[keyof typeof HTTP_POLICIES] | null

  constructor(
    private readonly keeper: Keeper,
    private readonly rule: KeepRule,
    private readonly schema: TSchema,
  ) {
    this.check = TypeCompiler.Compile(schema)
    const properties = (schema as { properties?: Record<string, TSchema> }).properties ?? {}
    this.holeCheck = Object.fromEntries(
      Object.keys(rule.fresh ?? {}).map((name) => {
        if (!properties[name]) throw new Error(`fresh field "${name}" is not in the response schema`)
        return [name, TypeCompiler.Compile(properties[name]!)]
      }),
    )
    this.policy = rule.http ? HTTP_POLICIES[rule.http] : null
  }

  /**
   * The key last built, by its parts: requests for one answer in a row reuse its text (a
   * key joined anew is flattened and hashed again by every lookup).
   */
  private lastKey = { path: '', extra: '', stamp: '', own: '' as string | number, full: '' }

  /** The key of this request's answer: its path and query, `key` and versions; undefined when nothing can be kept now. */
  private keyOf(c: Ctx, path: string, extra: string): string | undefined {
    const stamp = this.rule.datasets ? this.keeper.stampOf(this.rule.datasets) : ''
    const own = this.rule.version ? this.rule.version(c) : ''
    if (own === undefined) return undefined
    const last = this.lastKey
    if (path === last.path && extra === last.extra && stamp === last.stamp && own === last.own) return last.full
    this.lastKey = { path, extra, stamp, own, full: `${path}#${extra}@${stamp}/${own}` }
    return this.lastKey.full
  }

  /** Before the handler: the kept answer when one holds, else the handler runs (or a running computation is joined). */
  before(c: Ctx): Response | Promise<Response | undefined> | undefined {
    const extra = this.rule.key?.(c) ?? ''
    if (typeof extra !== 'string') return extra.then((x) => this.beforeWith(c, x))
    return this.beforeWith(c, extra)
  }

  private beforeWith(c: Ctx, extra: string): Response | Promise<Response | undefined> | undefined {
    // Elysia's context holds the URL it read for routing; the request would build it again.
    const full = this.keyOf(c, pathAndQuery(c.url ?? c.request.url), extra)
    if (full === undefined) return undefined
    const atMs = (c.at as Date).getTime()
    const entry = this.keeper.lookup(full)
    if (entry) {
      if (this.holds(entry, c, atMs)) {
        this.keeper.stats.hits++
        c[KEPT] = true
        return this.respond(entry, c)
      }
      this.keeper.drop(full)
    }
    return this.joinOrStart(c, full, atMs)
  }

  /**
   * Wait for the computation of this answer that runs, if any, else start one. A
   * computation that failed, or that does not hold at this request's moment (one of an
   * earlier moment), is not used: the request joins the next one another request started
   * meanwhile, or starts its own.
   */
  private joinOrStart(c: Ctx, full: string, atMs: number): Promise<Response | undefined> | undefined {
    const running = this.keeper.joinable(full)
    if (!running) return this.start(c, full, atMs)
    return running.then((e) => {
      if (!e || !this.holds(e, c, atMs)) return this.joinOrStart(c, full, atMs)
      this.keeper.stats.hits++
      c[KEPT] = true
      return this.respond(e, c)
    })
  }

  private start(c: Ctx, full: string, atMs: number): Promise<undefined> | undefined {
    this.keeper.stats.computed++
    const pending: Pending = { atMs, edges: null, settle: this.keeper.begin(full) }
    pendingOf.set(c.request, pending)
    if (!this.rule.window || this.rule.window.spanMs(c) === undefined) return undefined
    // The edges first: then the handler's value is answered as soon as it is there.
    return this.rule.window.edges(c).then(
      (edges) => {
        pending.edges = edges
        return undefined
      },
      (err) => {
        pendingOf.delete(c.request)
        pending.settle(null)
        throw err
      },
    )
  }

  /**
   * After the handler: its value encoded by the schema and answered, and kept when this
   * request started a computation (not when nothing could be kept: no version) and it holds.
   */
  after(c: Ctx): Response | undefined {
    const pending = pendingOf.get(c.request)
    if (pending) pendingOf.delete(c.request)
    const value = c.responseValue
    if (value instanceof Response || value instanceof ElysiaCustomStatusResponse) {
      pending?.settle(null)
      return undefined
    }
    try {
      return this.finish(c, pending, value, pending?.edges ?? null)
    } catch (err) {
      pending?.settle(null)
      throw err
    }
  }

  private finish(c: Ctx, pending: Pending | undefined, value: unknown, edges: WindowEdges | null): Response {
    const atMs = pending?.atMs ?? (c.at as Date).getTime()
    const entry = this.build(value, atMs, edges)
    // An answer that does not hold even at its own moment (a row newer than it) is not kept.
    pending?.settle(!entry.window || this.holds(entry, c, atMs) ? entry : null)
    return this.respond(entry, c)
  }

  private build(value: unknown, atMs: number, edges: WindowEdges | null): Entry {
    // Unknown fields go first, as Elysia drops them (it also marks the schema's objects closed
    // once it has compiled them, so a check after that would refuse them).
    const encoded = this.encode(this.check, Value.Clean(this.schema, value)) as Record<string, unknown>
    const holes = Object.keys(this.holeCheck)
    let parts: string[]
    let order: string[] = []
    if (holes.length === 0) parts = [JSON.stringify(encoded)]
    else {
      const marked = { ...encoded }
      holes.forEach((h, i) => (marked[h] = HOLE(i)))
      const text = JSON.stringify(marked)
      const found = holes.map((h, i) => ({ h, at: text.indexOf(JSON.stringify(HOLE(i))), len: JSON.stringify(HOLE(i)).length })).sort((a, b) => a.at - b.at)
      parts = []
      let from = 0
      for (const f of found) {
        parts.push(text.slice(from, f.at))
        order.push(f.h)
        from = f.at + f.len
      }
      parts.push(text.slice(from))
    }
    const bytes = holes.length === 0 ? new TextEncoder().encode(parts[0]) : null
    let etag: string | null = null
    let headers: Record<string, string> = NO_STORE_HEADERS
    let notModified: Record<string, string> | null = null
    if (this.policy) {
      etag = `"${new Bun.CryptoHasher('sha256').update(bytes ?? parts.join('')).digest('base64url').slice(0, 27)}"`
      notModified = { 'cache-control': this.policy.header, etag }
      headers = { ...notModified, 'content-type': JSON_TYPE }
    }
    return {
      parts,
      holes: order,
      value: holes.length ? value : undefined,
      bytes,
      etag,
      headers,
      notModified,
      storedAtMs: atMs,
      window: edges ? { at: atMs, oldest: edges.oldest?.getTime() ?? null, newest: edges.newest?.getTime() ?? null } : null,
      last: null,
    }
  }

  /** The value as the schema encodes it, checked against it: a mismatch is the service's bug (a 500, logged), never kept. */
  private encode(check: TypeCheck<TSchema>, value: unknown): unknown {
    try {
      return check.Encode(value)
    } catch (err) {
      throw new Error(`an answer does not match its response schema: ${err instanceof Error ? err.message : String(err)}`)
    }
  }

  /**
   * Whether a kept answer is still the answer at `atMs`. Within one data version a window
   * ending now holds the same rows as long as no row was as new as the moment it was
   * computed (none can enter; rows carry microseconds, times here milliseconds, hence "as
   * new") and its start has not passed its oldest row (none has left).
   */
  private holds(e: Entry, c: Ctx, atMs: number): boolean {
    if (this.policy && atMs - e.storedAtMs >= this.policy.ttlMs) return false
    const w = e.window
    if (!w) return true
    if (atMs < w.at || (w.newest !== null && w.newest >= w.at)) return false
    const span = this.rule.window!.spanMs(c)
    return span == null || w.oldest === null || atMs - span <= w.oldest
  }

  private respond(e: Entry, c: Ctx): Response {
    if (e.etag) {
      const inm = c.request.headers.get('if-none-match')
      if (inm && matches(inm, e.etag)) {
        this.keeper.stats.notModified++
        return securedResponse('read', null, e.notModified!, 304)
      }
    }
    if (e.bytes) return securedResponse('read', e.bytes, e.headers)
    const values = e.holes.map((name) => this.rule.fresh![name]!(c, e.value))
    const last = e.last
    if (last && values.every((v, i) => same(v, last.values[i]))) return securedResponse('read', last.body, e.headers)
    let body = e.parts[0]!
    for (let i = 0; i < e.holes.length; i++) body += JSON.stringify(this.encode(this.holeCheck[e.holes[i]!]!, values[i])) + e.parts[i + 1]!
    e.last = { values, body }
    return securedResponse('read', body, e.headers)
  }
}

/** Whether two fresh values render the same (times by their instant). */
const same = (a: unknown, b: unknown) => a === b || (a instanceof Date && b instanceof Date && a.getTime() === b.getTime())

/** The path and query of an absolute request URL, without building a URL object. */
function pathAndQuery(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  return start < 0 ? '/' : url.slice(start)
}

/** If-None-Match uses the weak comparison (RFC 9110 13.1.2): `W/"x"` matches `"x"`; `*` matches anything. */
function matches(header: string, etag: string): boolean {
  return header.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t.replace(/^W\//, '') === etag
  })
}
