import { describe, test } from 'bun:test'
import { connect, type Sql } from '../../src/db/connect.ts'
import { openDatabase, type Database } from '../../src/db/index.ts'
import { silentLogger } from '../../src/log.ts'

/** The real TimescaleDB that `npm test` provisions (scripts/testdb.sh), if any. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined


/** describe() for tests that need the real TimescaleDB; says why when it is skipped. */
export function describeTimescale(name: string, fn: () => void) {
  if (TEST_DATABASE_URL) describe(name, fn)
  else test.skip(`${name}: skipped because TEST_DATABASE_URL is unset (npm test provisions TimescaleDB)`, () => {})
}

function withDatabaseName(url: string, name: string) {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

/**
 * A brand-new, empty database on the test server, so each test file starts from nothing
 * and files can run in any order. Dropped by `drop()`.
 */
export async function createScratchDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set')
  const name = `gws_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${crypto.randomUUID().slice(0, 8)}`
  const admin = connect({ url: TEST_DATABASE_URL, max: 1 })
  await admin`CREATE DATABASE ${admin(name)}`
  await admin.end()
  return {
    url: withDatabaseName(TEST_DATABASE_URL, name),
    async drop() {
      const a = connect({ url: TEST_DATABASE_URL!, max: 1 })
      await a`DROP DATABASE IF EXISTS ${a(name)} WITH (FORCE)`
      await a.end()
    },
  }
}

export interface TestDatabase extends Database {
  /** URL of the scratch database (TimescaleDB only: the embedded one is a single session). */
  url?: string
  /** Drops the scratch database too, when there is one. */
  dispose(): Promise<void>
}

/** A migrated scratch database on the test TimescaleDB. */
export async function openTimescaleTestDatabase(label: string, opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const scratch = await createScratchDatabase(label)
  const db = await openDatabase({ databaseUrl: scratch.url, dataDir: '', dbPoolMax: 10, dbStatementTimeoutMs: 30_000 }, silentLogger, opts)
  return { ...db, url: scratch.url, async dispose() { await db.close(); await scratch.drop() } }
}

/** A migrated in-memory embedded database (PGlite), the zero-setup default. */
export async function openEmbeddedTestDatabase(opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const db = await openDatabase({ databaseUrl: undefined, dataDir: '', dbPoolMax: 1, dbStatementTimeoutMs: 30_000 }, silentLogger, opts)
  return { ...db, dispose: () => db.close() }
}

export type { Sql }
