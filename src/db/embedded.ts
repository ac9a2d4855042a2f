import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'
import { acquirePidLock, pidLockHolder } from '../pid-lock.ts'
import { readTemplate, unpackTemplate } from './embedded-template.ts'

/**
 * The file in the data folder that says which process has the embedded database open
 * (its pid). PGlite's own postmaster.pid names no real process, so it cannot tell a
 * running service from one that was killed.
 */
export const EMBEDDED_LOCK_FILE = 'gws-embedded.lock'

/** Another live process (the service, an import) has the embedded database in this folder open. */
export class EmbeddedDatabaseInUseError extends Error {
  override readonly name = 'EmbeddedDatabaseInUseError'
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`the embedded database in ${dataDir} is in use by process ${pid} (a running service or import): stop it first; two processes must never open it at once`)
  }
}

/**
 * PostgreSQL's memory settings inside PGlite. Its shared buffers live in the process's own
 * WebAssembly memory, which never shrinks: the stock 128 MB (and 64 MB for maintenance)
 * make most of an idle service's footprint. A single-session database for a small
 * deployment or the demo reads its hot pages from the OS cache anyway.
 */
const EMBEDDED_SETTINGS = ['shared_buffers = 16MB', 'wal_buffers = 1MB', 'maintenance_work_mem = 16MB', 'work_mem = 4MB']

/** How the database's data folder came to be: opened as it was, or new from the template, an image, or PGlite's initdb. */
export type EmbeddedOrigin = 'existing' | 'template' | 'image' | 'initdb'

export interface EmbeddedDatabase {
  /** postgres:// URL of the loopback socket; give it to postgres.js with a pool of 1. */
  url: string
  origin: EmbeddedOrigin
  /** A copy of the whole data folder as it is now, to start another database from (`from`). */
  image(): Promise<Blob>
  close(): Promise<void>
}

/**
 * The zero-setup default: PostgreSQL in-process (PGlite), data in `dataDir`, served on a
 * loopback socket so every query still goes through postgres.js like in production.
 * PGlite is one session: the socket server multiplexes clients onto it, so callers must
 * use a single connection or their transactions would interleave.
 */
export async function startEmbeddedDatabase(dataDir: string | null, opts: { from?: Blob } = {}): Promise<EmbeddedDatabase> {
  if (dataDir) mkdirSync(dataDir, { recursive: true })
  // One process per data folder: a lock left by a killed one is taken over.
  const unlock = dataDir ? acquirePidLock(join(dataDir, EMBEDDED_LOCK_FILE), (pid) => new EmbeddedDatabaseInUseError(dataDir, pid)) : () => {}
  let db: PGlite
  let origin: EmbeddedOrigin
  try {
    // A new database starts from the image given (`from`), else from the template, else initdb.
    let from = opts.from
    if (from) origin = 'image'
    else if (dataDir) origin = existsSync(join(dataDir, 'PG_VERSION')) ? 'existing' : unpackTemplate(dataDir) ? 'template' : 'initdb'
    else {
      const tar = readTemplate()
      if (tar) from = new Blob([tar])
      origin = tar ? 'template' : 'initdb'
    }
    db = await PGlite.create(dataDir ?? undefined, { postgresqlconf: EMBEDDED_SETTINGS, ...(from ? { loadDataDir: from } : {}) })
  } catch (err) {
    unlock()
    throw err
  }
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 4 })
  await server.start()
  const conn = server.getServerConn() // "127.0.0.1:PORT"
  let closed = false
  return {
    url: `postgres://postgres@${conn}/postgres`,
    origin,
    image: () => db.dumpDataDir('none'),
    async close() {
      if (closed) return
      closed = true
      await server.stop()
      await db.close()
      unlock()
    },
  }
}

/** The process that holds the embedded database in `dataDir`, if one is running (pid), else null. */
export const embeddedDatabaseHolder = (dataDir: string): number | null => pidLockHolder(join(dataDir, EMBEDDED_LOCK_FILE))
