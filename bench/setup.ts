/**
 * What a bench run stands on: a fresh database (its own TimescaleDB instance, an in-memory
 * PGlite, or a scratch database on a given server), the feed simulator, feed clients with
 * a controllable cache clock, and the app's dependencies built like test/support does.
 */
import { simulatedFeeds } from '../test/support/sim.ts'
import { resolve } from 'node:path'
import type { AppDeps } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { connect } from '../src/db/connect.ts'
import { startEmbeddedDatabase } from '../src/db/embedded.ts'
import { openDatabase, type Database } from '../src/db/index.ts'
import { createLogger, silentLogger } from '../src/log.ts'
import type { Feeds } from '../src/feeds/index.ts'
import { startSimulator, type Simulator } from '../src/sim/server.ts'

export const ROOT = resolve(import.meta.dir, '..')
export const WAR_ID = 801

export type DbKind = 'timescaledb' | 'embedded' | 'url'

export interface BenchDatabase {
  kind: DbKind
  db: Database
  /** postgres:// URL of the bench database, for the service process. */
  url: string
  /** Pool size the service process should use (1 on the single-session embedded database). */
  servicePoolMax: number
  /** The server the database is on, for scratch databases of its own (null: the embedded PGlite). */
  serverUrl: string | null
  /** Stops/drops everything this module started or created. */
  close(): Promise<void>
}

const log = (line: string) => process.stderr.write(`bench: ${line}\n`)

async function run(cmd: string[], env: Record<string, string>): Promise<string> {
  const proc = Bun.spawn(cmd, { cwd: ROOT, env: { ...process.env, ...env }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  for (const l of err.split('\n').filter(Boolean)) log(l)
  if (code !== 0) throw new Error(`${cmd.join(' ')} exited with ${code}`)
  return out.trim()
}

function withDatabaseName(url: string, name: string) {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

/** A new database on the server of `serverUrl`; returns its URL and a drop function. */
export async function scratchDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `gws_bench_${crypto.randomUUID().slice(0, 8)}`
  const admin = connect({ url: serverUrl, max: 1 })
  try {
    await admin`CREATE DATABASE ${admin(name)}`
  } finally {
    await admin.end()
  }
  return {
    url: withDatabaseName(serverUrl, name),
    async drop() {
      const a = connect({ url: serverUrl, max: 1 })
      try {
        await a`DROP DATABASE IF EXISTS ${a(name)} WITH (FORCE)`
      } finally {
        await a.end()
      }
    },
  }
}

const dbConfig = (url: string | undefined, pool: number) => ({ databaseUrl: url, dataDir: '', dbPoolMax: pool, dbStatementTimeoutMs: 600_000 })

/** `keep`: with a given server, the scratch database is left there (its URL logged) for work on the generated history. */
export async function openBenchDatabase(kind: DbKind, givenUrl?: string, keep = false): Promise<BenchDatabase> {
  if (kind === 'embedded') {
    const embedded = await startEmbeddedDatabase(null) // in memory
    try {
      const db = await openDatabase(dbConfig(embedded.url, 1), silentLogger)
      const info = { ...db.info, embedded: true }
      return {
        kind,
        db: { ...db, info },
        url: embedded.url,
        servicePoolMax: 1,
        serverUrl: null,
        async close() {
          await db.close()
          await embedded.close()
        },
      }
    } catch (err) {
      await embedded.close()
      throw err
    }
  }
  const server = await startBenchServer(kind === 'timescaledb' ? undefined : givenUrl)
  const serverUrl = server.url
  const stopServer = () => server.stop()
  let scratch: Awaited<ReturnType<typeof scratchDatabase>> | undefined
  try {
    scratch = await scratchDatabase(serverUrl)
    const db = await openDatabase(dbConfig(scratch.url, 10), silentLogger)
    return {
      kind,
      db,
      url: scratch.url,
      servicePoolMax: 10,
      serverUrl,
      async close() {
        await db.close().catch((e) => log(`close failed: ${e}`))
        if (keep && givenUrl) log(`database kept: ${scratch!.url}`)
        else await scratch!.drop().catch((e) => log(`drop failed: ${e}`))
        await stopServer()
      },
    }
  } catch (err) {
    await scratch?.drop().catch(() => {})
    await stopServer()
    throw err
  }
}

/**
 * The database server of a run: `givenUrl`, or else an own TimescaleDB instance
 * (scripts/testdb.sh). An instance of this run's own: two runs at once (two checkouts)
 * must not share one, since the first to finish stops it. A run killed hard leaves an
 * orphan that the next start of any instance stops (its owner pid is gone).
 */
export async function startBenchServer(givenUrl?: string): Promise<{ url: string; stop(): Promise<void> }> {
  if (givenUrl) return { url: givenUrl, stop: async () => {} }
  const name = `bench-${process.pid}`
  const testdbEnv = { TESTDB_NAME: name, TESTDB_OWNER_PID: String(process.pid) }
  log(`starting a TimescaleDB instance: TESTDB_NAME=${name} scripts/testdb.sh start`)
  const url = await run(['bash', 'scripts/testdb.sh', 'start'], testdbEnv)
  if (!url) throw new Error('no database URL')
  return { url, stop: () => run(['bash', 'scripts/testdb.sh', 'stop'], testdbEnv).then(() => {}, (e) => void log(`testdb stop failed: ${e}`)) }
}

/** The in-process app's dependencies; its log writes errors only, to stderr. */
export function appDeps(bench: BenchDatabase, feeds: Feeds): AppDeps {
  const config = { ...loadConfig({}), warId: WAR_ID }
  // Errors only, to stderr: a request the bench sees fail (500) says why.
  return { config, db: bench.db, log: createLogger('error', (line) => process.stderr.write(`app: ${line}\n`)), feeds }
}

export { simulatedFeeds }

/**
 * What a bench that starts service processes runs them on: a scratch TimescaleDB (its
 * edition reported through `progress`), the feed simulator, and the environment of such a
 * process (no schedule: the bench drives the collectors with `secret`).
 */
export async function serviceBench(progress: (line: string) => void, secret: string): Promise<{ bench: BenchDatabase; sim: Simulator; env: Record<string, string> }> {
  const bench = await openBenchDatabase('timescaledb')
  const { info } = bench.db
  progress(`database: ${info.edition}, TimescaleDB ${info.timescaledbVersion ?? '–'}, PostgreSQL ${info.serverVersion}`)
  const sim = startSimulator({ port: 0, hostname: '127.0.0.1', seed: 5, speed: 1 })
  const env = {
    DATABASE_URL: bench.url,
    DB_POOL_MAX: '5',
    SCHEDULE_ENABLED: 'false',
    WAR_ID: String(WAR_ID),
    COLLECTOR_SECRET: secret,
    UPSTREAM_URL: sim.upstreamUrl,
    COMMUNITY_API_URL: sim.communityUrl,
    PCSTORE_API_URL: sim.pcstoreUrl,
  }
  return { bench, sim, env }
}

