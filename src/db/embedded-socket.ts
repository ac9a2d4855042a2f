import { createServer, type Server, type Socket } from 'node:net'
import type { PGlite } from '@electric-sql/pglite'

/**
 * The embedded database's loopback socket: PostgreSQL's wire protocol from postgres.js
 * clients to the one PGlite session. Written for two reasons @electric-sql/pglite-socket did
 * not meet:
 * - Memory: it appended each received chunk to the bytes before it with a copy of the
 *   whole (a write batch's statement of many megabytes arrives in thousands of chunks: a
 *   copy per chunk of everything received so far), and its peak was the import's. Here a
 *   buffer grows by doubling and each message is copied out once.
 * - Round trips into PGlite: every message went in on its own call (Parse, Bind, Describe,
 *   Execute, Sync: five per statement); here all the complete messages received go in
 *   one call, which PostgreSQL's loop reads one after the other.
 *
 * PGlite is one session: a connection keeps it from its first message until it is idle
 * again (its last message a Sync or a simple Query, no transaction open), so another
 * connection's statements never land inside its transaction. A connection that closes
 * while it holds the session has its transaction rolled back.
 */
export interface EmbeddedSocket {
  /** "127.0.0.1:PORT" */
  address: string
  stop(): Promise<void>
}

const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104
const CANCEL_REQUEST = 80877102
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4])
/** A simple Query message: ROLLBACK. */
const ROLLBACK = (() => {
  const text = new TextEncoder().encode('ROLLBACK\0')
  const m = new Uint8Array(5 + text.byteLength)
  m[0] = 0x51
  new DataView(m.buffer).setInt32(1, 4 + text.byteLength)
  m.set(text, 5)
  return m
})()
const TYPE = { sync: 0x53, query: 0x51, terminate: 0x58 } as const

export async function serveEmbedded(db: PGlite, host = '127.0.0.1'): Promise<EmbeddedSocket> {
  const session = new Session(db)
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    const conn = new Connection(socket, session)
    socket.on('data', (chunk: Buffer) => conn.received(chunk))
    socket.on('error', () => socket.destroy())
    socket.on('close', () => {
      sockets.delete(socket)
      void conn.closed()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, host, () => resolve())
  })
  const { port } = server.address() as { port: number }
  return {
    address: `${host}:${port}`,
    async stop() {
      const done = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const s of sockets) s.destroy()
      await done
      await session.settled()
    },
  }
}

/** Who holds the PGlite session, and who waits for it. */
class Session {
  private owner: Connection | null = null
  private readonly waiting: { conn: Connection; take: (ok: boolean) => void }[] = []
  private running: Promise<unknown> = Promise.resolve()

  constructor(private readonly db: PGlite) {}

  /** Resolves true once `conn` holds the session; false when it went away while waiting. */
  acquire(conn: Connection): Promise<boolean> {
    if (this.owner === null || this.owner === conn) {
      this.owner = conn
      return Promise.resolve(true)
    }
    return new Promise((take) => this.waiting.push({ conn, take }))
  }

  /** Hands the session on when `conn` is idle: its last message a Sync or a simple Query, no transaction open. */
  release(conn: Connection, idle: boolean): void {
    if (this.owner !== conn || !idle || this.db.isInTransaction()) return
    const next = this.waiting.shift()
    this.owner = next?.conn ?? null
    next?.take(true)
  }

  forget(conn: Connection): void {
    const i = this.waiting.findIndex((w) => w.conn === conn)
    if (i !== -1) this.waiting.splice(i, 1)[0]!.take(false)
  }

  isOwner(conn: Connection): boolean {
    return this.owner === conn
  }

  inTransaction(): boolean {
    return this.db.isInTransaction()
  }

  run(messages: Uint8Array, onData: (bytes: Uint8Array) => void): Promise<void> {
    const r = this.db.runExclusive(() => this.db.execProtocolRawStream(messages, { onRawData: onData }))
    this.running = r.catch(() => {})
    return r
  }

  /** The last call into PGlite, settled. */
  settled(): Promise<unknown> {
    return this.running
  }
}

const INITIAL_BUFFER = 64 * 1024

class Connection {
  private buf = new Uint8Array(INITIAL_BUFFER)
  private start = 0
  private end = 0
  private started = false
  private busy = false
  private gone = false

  constructor(
    private readonly socket: Socket,
    private readonly session: Session,
  ) {}

  received(chunk: Uint8Array): void {
    this.append(chunk)
    if (!this.busy) void this.drain()
  }

  async closed(): Promise<void> {
    this.gone = true
    this.session.forget(this)
    if (!this.busy && this.session.isOwner(this)) await this.abandon()
  }

  private append(chunk: Uint8Array): void {
    const live = this.end - this.start
    if (this.end + chunk.byteLength > this.buf.byteLength) {
      if (live + chunk.byteLength <= this.buf.byteLength) this.buf.copyWithin(0, this.start, this.end)
      else {
        const next = new Uint8Array(Math.max(this.buf.byteLength * 2, live + chunk.byteLength))
        next.set(this.buf.subarray(this.start, this.end))
        this.buf = next
      }
      this.start = 0
      this.end = live
    }
    this.buf.set(chunk, this.end)
    this.end += chunk.byteLength
  }

  private int32(at: number): number {
    const b = this.buf
    return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0
  }

  /** Runs what has arrived, in order: the startup packet alone, then every complete message received at once. */
  private async drain(): Promise<void> {
    this.busy = true
    try {
      while (!this.gone) {
        if (!this.started) {
          if (this.end - this.start < 8 || this.end - this.start < this.int32(this.start)) break
          const length = this.int32(this.start)
          const code = this.int32(this.start + 4)
          const packet = this.buf.slice(this.start, this.start + length)
          this.start += length
          if (code === SSL_REQUEST || code === GSSENC_REQUEST) this.socket.write('N')
          else if (code === CANCEL_REQUEST) {
            // PGlite runs one statement at a time, synchronously: nothing to cancel.
            this.socket.end()
            this.gone = true
          } else {
            this.started = true
            await this.run(packet, true)
          }
          continue
        }
        let at = this.start
        let last = 0
        let terminate = false
        while (this.end - at >= 5) {
          if (this.buf[at] === TYPE.terminate) {
            terminate = true
            break
          }
          const length = 1 + this.int32(at + 1)
          if (this.end - at < length) break
          last = this.buf[at]!
          at += length
        }
        if (at > this.start) {
          const messages = this.buf.slice(this.start, at)
          this.start = at
          await this.run(messages, last === TYPE.sync || last === TYPE.query)
        } else if (terminate) {
          this.socket.end()
          this.gone = true
        } else break
      }
      if (this.start === this.end) {
        this.start = this.end = 0
        // A large statement's buffer is not kept for the life of the connection.
        if (this.buf.byteLength > INITIAL_BUFFER) this.buf = new Uint8Array(INITIAL_BUFFER)
      }
    } catch {
      this.socket.destroy()
      this.gone = true
    } finally {
      this.busy = false
    }
    if (this.gone && this.session.isOwner(this)) await this.abandon()
  }

  private async run(messages: Uint8Array, idle: boolean): Promise<void> {
    if (!(await this.session.acquire(this))) throw new Error('connection closed while waiting')
    await this.session.run(messages, (bytes) => {
      // A view into PGlite's memory: copied before the next call reuses it.
      if (!this.socket.destroyed) this.socket.write(Buffer.from(bytes))
    })
    this.session.release(this, idle)
  }

  /** Gone while holding the session: what it left open is ended, then the session moves on. */
  private async abandon(): Promise<void> {
    try {
      await this.session.run(SYNC, () => {})
      if (this.session.inTransaction()) await this.session.run(ROLLBACK, () => {})
    } catch {
      // The session goes on to the next connection whatever this one left.
    }
    this.session.release(this, true)
  }
}
