/**
 * Caching of the cacheable read routes (`/war*` and the lookup tables).
 *
 * The response body is kept in the process, already serialised, for the route's window:
 * a repeated read within the window runs no query and no JSON.stringify. Every cacheable
 * response carries a strong ETag (a hash of the body) and answers 304 to a matching
 * If-None-Match. Errors are never cached.
 */
import { SingleFlightCache } from '../cache.ts'
import type { DataVersions, Dataset } from '../storage/changes.ts'
import { securedResponse } from './security.ts'

export interface CachePolicy {
  /** The Cache-Control header sent with the response. */
  header: string
  /** How long the serialised body is reused in the process. */
  ttlMs: number
}

export const NO_STORE = 'no-store'

export const CACHE_POLICIES = {
  /** War state: revalidated every 30 s (spec). */
  war: { header: 'public, max-age=30, s-maxage=30, stale-while-revalidate=30', ttlMs: 30_000 },
  /** Lookup tables: revalidated every 3600 s (spec). */
  lookup: { header: 'public, max-age=3600, s-maxage=3600, stale-while-revalidate=600', ttlMs: 3_600_000 },
} as const satisfies Record<string, CachePolicy>

export interface ResponseCacheOptions {
  /** Versions of the data: a body is kept for one version of the datasets it reads. */
  versions?: DataVersions
  /** Clock in epoch ms; tests move it to expire entries. */
  now?: () => number
  /** Entries kept at most (the least recently stored go first). Default 1000. */
  maxEntries?: number
}

export interface CacheStats {
  /** Answers served from a stored body (or from a load another request started). */
  hits: number
  /** Answers that ran the loader (queries + serialisation). */
  loads: number
  /** 304 answers. */
  notModified: number
}

interface Entry {
  /** UTF-8, encoded once: a string body would be encoded again for every response. */
  body: Uint8Array
  etag: string
  /** The answer's headers, 304 and 200, built once per entry. */
  notModified: Record<string, string>
  ok: Record<string, string>
}

const JSON_TYPE = 'application/json; charset=utf-8'

export class ResponseCache {
  private readonly cache: SingleFlightCache<Entry>
  readonly stats: CacheStats = { hits: 0, loads: 0, notModified: 0 }

  private readonly versions: DataVersions | undefined

  constructor(opts: ResponseCacheOptions = {}) {
    this.cache = new SingleFlightCache<Entry>(opts.maxEntries ?? 1000, opts.now ?? Date.now)
    this.versions = opts.versions
  }

  /**
   * Answer `request` from the body stored under `key`, or from `load()` (stored for the
   * policy's window, and only while the `datasets` it reads have not changed: a body is
   * never older than the last committed write). `key` must identify the answer: path
   * plus the validated parameters. A stored body answers at once, without a promise.
   */
  respond(request: Request, key: string, policy: CachePolicy, datasets: readonly Dataset[], load: () => Promise<unknown>): Response | Promise<Response> {
    const full = this.versions ? `${key}@${this.versions.stamp(datasets)}` : key
    const age = this.cache.ageMs(full)
    if (age !== undefined && age < policy.ttlMs) {
      this.stats.hits++
      return this.answer(request, this.cache.get(full)!.value)
    }
    return this.load(full, policy, load).then((entry) => this.answer(request, entry))
  }

  private answer(request: Request, entry: Entry): Response {
    if (matches(request.headers.get('if-none-match'), entry.etag)) {
      this.stats.notModified++
      return securedResponse('read', null, entry.notModified, 304)
    }
    return securedResponse('read', entry.body, entry.ok)
  }

  /** Forget every stored body. */
  clear(): void {
    this.cache.clear()
  }

  private load(key: string, policy: CachePolicy, load: () => Promise<unknown>): Promise<Entry> {
    // Concurrent misses of one key share one load.
    if (this.cache.loading(key)) this.stats.hits++
    else this.stats.loads++
    const serialised = async (): Promise<Entry> => {
      const body = new TextEncoder().encode(JSON.stringify(await load()))
      const etag = `"${new Bun.CryptoHasher('sha256').update(body).digest('base64url').slice(0, 27)}"`
      const notModified = { 'cache-control': policy.header, etag }
      return { body, etag, notModified, ok: { ...notModified, 'content-type': JSON_TYPE } }
    }
    return this.cache.load(key, serialised, (entry) => entry)
  }
}

/** If-None-Match uses the weak comparison (RFC 9110 13.1.2): `W/"x"` matches `"x"`; `*` matches anything. */
function matches(header: string | null, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t.replace(/^W\//, '') === etag
  })
}
