/**
 * The embedded database's thread (embedded.ts): PGlite and its loopback socket, in a worker
 * of their own. The JavaScript heap that holds PGlite counts its WebAssembly memory, its
 * file bundle and its compiled module (several hundred MB) as its own size, and collects
 * garbage in proportion to that size: in the thread of the service or the demo, garbage
 * grew by hundreds of MB between collections while they mapped or simulated ticks. Here
 * that heap makes little garbage, and theirs is collected at its own small size.
 */
import { PGlite } from '@electric-sql/pglite'
import { serveEmbedded, type EmbeddedSocket } from './embedded-socket.ts'

export type WorkerRequest = { id: number } & (
  | { kind: 'start'; dataDir: string | null; from: Blob | null; settings: string[] }
  | { kind: 'image' }
  | { kind: 'close' }
)
export type WorkerReply = { id: number } & ({ ok: true; address?: string; image?: Blob } | { ok: false; error: string })

declare const self: Worker

let db: PGlite | null = null
let server: EmbeddedSocket | null = null

const reply = (r: WorkerReply) => self.postMessage(r)

self.onmessage = async ({ data: req }: MessageEvent<WorkerRequest>) => {
  try {
    if (req.kind === 'start') {
      db = await PGlite.create(req.dataDir ?? undefined, { postgresqlconf: req.settings, ...(req.from ? { loadDataDir: req.from } : {}) })
      server = await serveEmbedded(db)
      reply({ id: req.id, ok: true, address: server.address })
    } else if (req.kind === 'image') {
      if (!db) throw new Error('the embedded database is not started')
      reply({ id: req.id, ok: true, image: await db.dumpDataDir('none') })
    } else {
      await server?.stop()
      await db?.close()
      server = db = null
      reply({ id: req.id, ok: true })
    }
  } catch (err) {
    reply({ id: req.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) })
  }
}
