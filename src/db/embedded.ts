import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

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

export interface EmbeddedDatabase {
  /** postgres:// URL of the loopback socket; give it to postgres.js with a pool of 1. */
  url: string
  close(): Promise<void>
}

/**
 * The zero-setup default: PostgreSQL in-process (PGlite), data in `dataDir`, served on a
 * loopback socket so every query still goes through postgres.js like in production.
 * PGlite is one session: the socket server multiplexes clients onto it, so callers must
 * use a single connection or their transactions would interleave.
 */
export async function startEmbeddedDatabase(dataDir: string | null): Promise<EmbeddedDatabase> {
  if (dataDir) mkdirSync(dataDir, { recursive: true })
  const unlock = dataDir ? lockDataDir(dataDir) : () => {}
  let db: PGlite
  try {
    db = await PGlite.create(dataDir ?? undefined, { postgresqlconf: EMBEDDED_SETTINGS })
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
    async close() {
      if (closed) return
      closed = true
      await server.stop()
      await db.close()
      unlock()
    },
  }
}

/**
 * One process per data folder: the lock file holds the pid of the process that has it
 * open; a lock left by a process that is gone (killed) is taken over. Returns the release.
 */
function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, EMBEDDED_LOCK_FILE)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx')
      writeSync(fd, String(process.pid))
      closeSync(fd)
      return () => {
        try {
          if (readFileSync(file, 'utf8').trim() === String(process.pid)) unlinkSync(file)
        } catch {
          // already gone
        }
      }
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw err
      const pid = Number(readFileSync(file, 'utf8').trim())
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) throw new EmbeddedDatabaseInUseError(dataDir, pid)
      unlinkSync(file) // left by a process that is gone
    }
  }
  throw new Error(`could not lock the embedded database folder ${dataDir}`)
}

/** The process that holds the embedded database in `dataDir`, if one is running (pid), else null. */
export function embeddedDatabaseHolder(dataDir: string): number | null {
  let pid: number
  try {
    pid = Number(readFileSync(join(dataDir, EMBEDDED_LOCK_FILE), 'utf8').trim())
  } catch {
    return null
  }
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : null
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM'
  }
}
