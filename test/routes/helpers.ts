/** Shared set-up of the read-route tests: a migrated database, the app, and a request helper. */
import { buildApp, type AppDeps } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import type { Sql } from '../../src/db/connect.ts'
import { silentLogger } from '../../src/log.ts'
import { DataVersions } from '../../src/storage/changes.ts'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'
import { createFeeds } from '../../src/feeds/index.ts'
import { openEmbeddedTestDatabase, type TestDatabase } from '../support/db.ts'

export interface Harness {
  /**
   * The database, as the test writes to it: every statement run through `db.sql` moves the
   * app's data versions when it completes, as a write committed by the collectors' runner
   * does (the harness is a writer like any other), so no answer kept for older data is served.
   */
  db: TestDatabase
  /** The app's dependencies; `deps.db.sql` is the app's own connection, whose statements the app does not hear of. */
  deps: AppDeps
  sim: Simulator | null
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
}

/** The data versions of the apps on one database: harnesses sharing a database share them. */
const versionsOf = new WeakMap<Sql, DataVersions>()
/** The database under a harness's announcing view of it. */
const RAW = Symbol('raw database')

/**
 * `sql` whose statements (plain, `unsafe` and transactions) call `written` when they
 * complete. Fragments and identifiers, never awaited on their own, call nothing.
 */
export function announcing(sql: Sql, written: () => void): Sql {
  const after = <T>(p: Promise<T>) => p.then((v) => (written(), v))
  const watched = (q: unknown) => {
    if (!(q instanceof Promise)) return q
    const then = q.then.bind(q)
    // postgres.js runs a query when it is awaited: the hook wraps that await.
    q.then = ((ok?: (v: unknown) => unknown, err?: (e: unknown) => unknown) => then((v) => (written(), ok ? ok(v) : v), err)) as typeof q.then
    return q
  }
  return new Proxy(sql, {
    apply: (target, self, args) => watched(Reflect.apply(target as never, self, args)),
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver)
      if (name === 'begin') return (...args: unknown[]) => after((value as (...a: unknown[]) => Promise<unknown>).apply(target, args))
      if (name === 'unsafe') return (...args: unknown[]) => watched((value as (...a: unknown[]) => unknown).apply(target, args))
      return value
    },
  }) as Sql
}

export async function openHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const given = opts.db as (TestDatabase & { [RAW]?: TestDatabase }) | undefined
  const db = given?.[RAW] ?? given ?? (await openEmbeddedTestDatabase())
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
  let versions = versionsOf.get(db.sql)
  if (!versions) versionsOf.set(db.sql, (versions = new DataVersions()))
  const deps: AppDeps = { config, db, log: silentLogger, feeds, now: opts.now, versions }
  const app = buildApp(deps)
  const written = versions
  return {
    db: { ...db, sql: announcing(db.sql, () => written.bumpAll()), [RAW]: db } as TestDatabase,
    deps,
    sim,
    async get(path, headers = {}) {
      const res = await app.handle(new Request(`http://localhost${/^\/(api|openapi|health\/(ready|live))\b/.test(path) ? path : `/api/v1${path}`}`, { headers }))
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
