import { mkdirSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

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
  const db = await PGlite.create(dataDir ?? undefined)
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
    },
  }
}
