import { describe, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { connect, type Sql } from '../../src/db/connect.ts'
import { startEmbeddedDatabase } from '../../src/db/embedded.ts'
import { openDatabase, type Database } from '../../src/db/index.ts'
import { migrate, migrationsFor } from '../../src/db/migrate.ts'
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
  // PostgreSQL cuts names at 63 bytes: the label is cut first, so the random part stays.
  const name = `gws_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase().slice(0, 40)}_${crypto.randomUUID().slice(0, 8)}`
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

/**
 * A migrated in-memory embedded database (PGlite), the zero-setup default. It starts from
 * an image of a freshly migrated one (migratedImage): a new PGlite runs initdb, which
 * costs seconds of CPU in every test process. `migrate: false`: a new, empty one.
 */
export async function openEmbeddedTestDatabase(opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const embeddedFrom = opts.migrate === false ? undefined : await migratedImage()
  const db = await openDatabase({ databaseUrl: undefined, dataDir: '', dbPoolMax: 1, dbStatementTimeoutMs: 30_000 }, silentLogger, { ...opts, embeddedFrom })
  return { ...db, dispose: () => db.close() }
}

/**
 * The data folder of a new embedded database after every migration, made once per process,
 * or once per `npm test` run: scripts/test.sh names a folder the run's files share in
 * GWS_TEST_CACHE (removed with the run), where the image is kept under the hash of the
 * migrations and PGlite's package.json. openDatabase still runs the migrations on it (none is
 * pending), so a changed migration can never be served from an old image.
 */
let image: Promise<Blob> | undefined
export function migratedImage(): Promise<Blob> {
  image ??= (async () => {
    const dir = process.env.GWS_TEST_CACHE
    const pglite = readFileSync(join(dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite'))), '..', 'package.json'))
    const hash = createHash('sha256').update(pglite)
    for (const m of migrationsFor('postgres')) hash.update(m.file).update(m.checksum)
    const file = dir ? join(dir, `pglite-migrated-${hash.digest('hex').slice(0, 16)}.tar`) : null
    if (file && existsSync(file)) return new Blob([readFileSync(file)])
    const embedded = await startEmbeddedDatabase(null)
    try {
      const sql = connect({ url: embedded.url, max: 1 })
      await migrate(sql)
      await sql.end()
      const blob = await embedded.image()
      if (file) {
        // Files of one run may make it at the same time: each writes its own, then renames.
        const part = `${file}.${process.pid}`
        writeFileSync(part, new Uint8Array(await blob.arrayBuffer()))
        renameSync(part, file)
      }
      return blob
    } finally {
      await embedded.close()
    }
  })()
  return image
}

export type { Sql }
