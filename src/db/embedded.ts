import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { acquirePidLock, pidLockHolder } from '../pid-lock.ts'
import { readTemplate, unpackTemplate } from './embedded-template.ts'
import type { WorkerReply, WorkerRequest } from './embedded-worker.ts'

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
 * PostgreSQL's memory settings inside PGlite. Its shared memory lives in the process's own
 * WebAssembly memory, is touched whole at start and never shrinks: the stock 128 MB of
 * buffers (and 64 MB for maintenance) made most of an idle service's footprint. A
 * single-session database reads its hot pages from the OS cache anyway (reads and imports
 * ran as fast with half these buffers), and its shared memory is sized for
 * `max_connections` sessions, of which PGlite has one.
 */
const EMBEDDED_SETTINGS = ['shared_buffers = 8MB', 'wal_buffers = 1MB', 'maintenance_work_mem = 16MB', 'work_mem = 4MB', 'max_connections = 4']

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
 * loopback socket so every query still goes through postgres.js like in production. PGlite
 * and its socket run in a worker thread (embedded-worker.ts says why). PGlite is one
 * session: a connection holds it until it is idle again (embedded-socket.ts), so
 * transactions never interleave, but settings and prepared statements are shared: callers
 * use a single connection.
 */
export async function startEmbeddedDatabase(dataDir: string | null, opts: { from?: Blob } = {}): Promise<EmbeddedDatabase> {
  if (dataDir) mkdirSync(dataDir, { recursive: true })
  // One process per data folder: a lock left by a killed one is taken over.
  const unlock = dataDir ? acquirePidLock(join(dataDir, EMBEDDED_LOCK_FILE), (pid) => new EmbeddedDatabaseInUseError(dataDir, pid)) : () => {}
  let thread: DatabaseThread | null = null
  try {
    // A new database starts from the image given (`from`), else from the template, else initdb.
    let from = opts.from ?? null
    let origin: EmbeddedOrigin
    if (from) origin = 'image'
    else if (dataDir) origin = existsSync(join(dataDir, 'PG_VERSION')) ? 'existing' : (await unpackTemplate(dataDir)) ? 'template' : 'initdb'
    else {
      const tar = readTemplate()
      if (tar) from = new Blob([tar])
      origin = tar ? 'template' : 'initdb'
    }
    thread = new DatabaseThread()
    const { address } = await thread.ask({ kind: 'start', dataDir, from, settings: EMBEDDED_SETTINGS })
    let closed = false
    const db = thread
    return {
      url: `postgres://postgres@${address}/postgres`,
      origin,
      image: async () => (await db.ask({ kind: 'image' })).image!,
      async close() {
        if (closed) return
        closed = true
        try {
          await db.ask({ kind: 'close' })
        } finally {
          db.end()
          unlock()
        }
      },
    }
  } catch (err) {
    thread?.end()
    unlock()
    throw err
  }
}

type Request = DistributiveOmit<WorkerRequest, 'id'>
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

/** The worker that runs PGlite, asked one question at a time in order. */
class DatabaseThread {
  private readonly worker = new Worker(new URL('./embedded-worker.ts', import.meta.url).href)
  private readonly waiting = new Map<number, { resolve: (r: WorkerReply & { ok: true }) => void; reject: (e: Error) => void }>()
  private next = 1

  constructor() {
    this.worker.onmessage = ({ data }: MessageEvent<WorkerReply>) => {
      const w = this.waiting.get(data.id)
      this.waiting.delete(data.id)
      if (data.ok) w?.resolve(data)
      else w?.reject(new Error(data.error))
    }
    this.worker.onerror = (e) => this.fail(new Error(`embedded database thread: ${e.message}`))
  }

  ask(req: Request): Promise<WorkerReply & { ok: true }> {
    const id = this.next++
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject })
      this.worker.postMessage({ ...req, id })
    })
  }

  end(): void {
    this.worker.terminate()
    this.fail(new Error('embedded database thread ended'))
  }

  private fail(err: Error): void {
    for (const w of this.waiting.values()) w.reject(err)
    this.waiting.clear()
  }
}

/** The process that holds the embedded database in `dataDir`, if one is running (pid), else null. */
export const embeddedDatabaseHolder = (dataDir: string): number | null => pidLockHolder(join(dataDir, EMBEDDED_LOCK_FILE))
