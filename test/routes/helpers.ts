/** Shared set-up of the read-route tests: a migrated database, the app, and a request helper. */
import { buildApp, type AppDeps } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import type { ResponseCache } from '../../src/http/response-cache.ts'
import { silentLogger } from '../../src/log.ts'
import { DataVersions, type Dataset } from '../../src/storage/changes.ts'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'
import { createFeeds } from '../../src/feeds/index.ts'
import { openEmbeddedTestDatabase, type TestDatabase } from '../support/db.ts'

export interface Harness {
  db: TestDatabase
  deps: AppDeps
  sim: Simulator | null
  /** Rows were written with SQL (not through a collector): answers kept for older data go. */
  changed(...datasets: Dataset[]): void
  /** GET through the app; body parsed as JSON when there is one. */
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; body: any }>
  close(): Promise<void>
}

export interface HarnessOptions {
  /** Database to use (default: a fresh embedded one). */
  db?: TestDatabase
  /** Point the feeds at the simulator: true starts one (stopped by close()), or pass a running one. Default: feeds point nowhere. */
  simulator?: boolean | Simulator
  /** Leave the database open on close() (when several harnesses share one). */
  keepDb?: boolean
  /** Clock of the read routes (default: the system clock). */
  now?: () => Date
  /** Response cache of /war* and the lookups, to observe hits and loads. */
  cache?: ResponseCache
}

export async function openHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const db = opts.db ?? (await openEmbeddedTestDatabase())
  const ownSim = opts.simulator === true
  const sim = opts.simulator === true ? startSimulator({ port: 0, seed: 3, speed: 0 }) : opts.simulator || null
  const config = { ...loadConfig({}), warId: 801 }
  const feeds = createFeeds({
    upstreamUrl: sim?.upstreamUrl ?? 'http://127.0.0.1:9/upstream/api',
    communityApiUrl: sim?.communityUrl ?? 'http://127.0.0.1:9/community',
    pcstoreApiUrl: sim?.pcstoreUrl ?? 'http://127.0.0.1:9/pcstore',
    feedTimeoutMs: 2000,
    clientName: 'test',
    clientContact: 'test@example.invalid',
    feedLanguages: config.feedLanguages,
  })
  const versions = new DataVersions()
  const deps: AppDeps = { config, db, log: silentLogger, feeds, now: opts.now, cache: opts.cache, versions }
  const app = buildApp(deps)
  return {
    db,
    deps,
    sim,
    changed: (...datasets) => (datasets.length ? versions.bump(datasets) : versions.bumpAll()),
    async get(path, headers = {}) {
      const res = await app.handle(new Request(`http://localhost${path.startsWith('/api') || path.startsWith('/openapi') ? path : `/api/v1${path}`}`, { headers }))
      const text = await res.text()
      let body: unknown = text
      try {
        body = text ? JSON.parse(text) : null
      } catch {}
      return { status: res.status, headers: res.headers, body }
    },
    async close() {
      if (ownSim) await sim?.stop()
      if (!opts.keepDb) await db.dispose()
    },
  }
}

/** Asserts the `{error}` envelope and returns the message. */
export function errorOf(res: { status: number; body: any }): string {
  if (typeof res.body?.error !== 'string' || Object.keys(res.body).length !== 1) throw new Error(`not an {error} body: ${JSON.stringify(res.body)}`)
  return res.body.error
}
