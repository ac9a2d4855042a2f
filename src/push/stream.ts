/**
 * The event stream's hub (GET /events/stream): one per process. It follows the event log
 * (storage/events.ts) from the primary: whenever this process hears of a committed write
 * (its own, or another process's through LISTEN: storage/changes.ts), it reads the events
 * after the last one it sent and fans each out, serialised once, to every client that
 * wants its type. Every process streams every event, whichever process collected it.
 *
 * A client that comes back with `Last-Event-ID` first gets what it missed from storage,
 * in order, then the live events, with no gap and no double: while it catches up the
 * broadcasts pass it by, and it only goes live once its catch-up has reached the last id
 * broadcast (checked synchronously, so nothing can slip in between).
 *
 * Memory is bounded per client: each client's stream queues at most `maxQueueBytes`; a
 * client that does not read that much is closed, and comes back with its Last-Event-ID.
 */
import type { Logger } from '../log.ts'
import type { DataVersions } from '../storage/changes.ts'
import type { LoggedEvent, PushEventType } from '../storage/events.ts'
import type { Lang } from '../storage/texts.ts'
import { TimelineEvent } from '../storage/timeline.ts'
import { Rerun } from './rerun.ts'

export interface EventReads {
  after(f: { afterId: number; upTo?: number; types?: readonly string[]; lang?: Lang; limit: number }): Promise<LoggedEvent[]>
  bounds(): Promise<{ first: number; last: number }>
}

export interface StreamLimits {
  /** Clients on this process (beyond: 503). */
  maxClients: number
  /** Clients per client address (beyond: 429). */
  maxPerAddress: number
  /** Bytes a client's stream may hold unread before it is closed. */
  maxQueueBytes: number
  heartbeatMs: number
  /** The `retry:` field: how long a browser waits before it reconnects. */
  retryMs: number
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = { maxClients: 20_000, maxPerAddress: 50, maxQueueBytes: 256 * 1024, heartbeatMs: 15_000, retryMs: 3000 }

/** The limits the configuration sets (STREAM_MAX_CLIENTS, STREAM_MAX_PER_ADDRESS). */
export const streamLimits = (c: { streamMaxClients: number; streamMaxPerAddress: number }): StreamLimits => ({
  ...DEFAULT_STREAM_LIMITS, maxClients: c.streamMaxClients, maxPerAddress: c.streamMaxPerAddress,
})

/** Catch-up and broadcast read this many events per query. */
const PAGE = 500
/** Clients served before a fan-out or a heartbeat lets other work run. */
const SLICE = 2000
/** Events kept in memory for clients that resume from among them. */
const RECENT = 2000

export interface StreamRequest {
  /** The Last-Event-ID header (or query), when the client resumes. */
  lastEventId?: number
  /** Only these types; undefined: all. */
  types?: ReadonlySet<PushEventType>
  lang?: Lang
  /** The client address: connections are counted per address. */
  address: string
}

export type Refusal = { status: 429 | 503; error: string }

interface Client {
  address: string
  types?: ReadonlySet<string>
  lang?: Lang
  langKey: string
  controller: ReadableStreamDefaultController<Uint8Array>
  /** The types as one key part ('' for all). */
  typesKey: string
  /** Catching up from storage: broadcasts pass it by. */
  catchingUp: boolean
  closed: boolean
  /** When something was last queued for it (a heartbeat goes only to clients sent nothing since the last). */
  sentAt: number
}

const encoder = new TextEncoder()

/** The order of a pushed event's fields: the timeline's, then a tick's and a player count's. */
const FIELD_ORDER = [...Object.keys(TimelineEvent.properties), 'warTime', 'planets', 'players', 'written']

/** An event as sent: `id`, then its fields in their documented order. */
export function eventBody(e: LoggedEvent): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...e.data, at: e.at.toISOString(), type: e.type }
  const out: Record<string, unknown> = { id: e.id }
  for (const k of FIELD_ORDER) if (k in fields) out[k] = fields[k]
  return out
}

/** One SSE message (the data is one line of JSON). */
export const sseFrame = (e: LoggedEvent) => `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(eventBody(e))}\n\n`

export class EventHub {
  private readonly clients = new Set<Client>()
  private readonly perAddress = new Map<string, number>()
  /** The last id broadcast (every id up to it has been sent to every live client that wants it). */
  private last = 0
  private started: Promise<void> | null = null
  private readonly puller = new Rerun(() => this.pullOnce())
  private heartbeat: ReturnType<typeof setInterval> | null = null
  private lastBeat = 0
  /** The last RECENT events broadcast, oldest first. */
  private readonly recent: LoggedEvent[] = []
  /** Events broadcast and clients closed for not reading (/metrics). */
  readonly counts = { sent: 0, slowClosed: 0, refused: 0 }

  constructor(
    private readonly reads: EventReads,
    private readonly versions: DataVersions,
    private readonly log: Logger,
    readonly limits: StreamLimits = DEFAULT_STREAM_LIMITS,
  ) {}

  get size(): number {
    return this.clients.size
  }

  /** Start following the log (at its current end); idempotent, retried on the next client if it failed. */
  start(): Promise<void> {
    this.started ??= (async () => {
      this.last = (await this.reads.bounds()).last
      this.versions.onBump(() => void this.puller.request())
      this.heartbeat = setInterval(() => void this.beat(), this.limits.heartbeatMs)
      this.heartbeat.unref?.()
    })().catch((err) => {
      this.started = null
      throw err
    })
    return this.started
  }

  stop(): void {
    if (this.heartbeat) clearInterval(this.heartbeat)
    for (const c of this.clients) this.close(c)
  }

  /** The caps, checked before anything is read. */
  refusal(address: string): Refusal | null {
    if (this.clients.size >= this.limits.maxClients) return { status: 503, error: `the event stream is full on this process (${this.limits.maxClients} clients): retry later` }
    if ((this.perAddress.get(address) ?? 0) >= this.limits.maxPerAddress) return { status: 429, error: `too many event streams from this address (at most ${this.limits.maxPerAddress})` }
    return null
  }

  /**
   * A client's stream: `retry:`, then (with a Last-Event-ID) what it missed, then live
   * events. A Last-Event-ID the log cannot resume from (pruned, or from another
   * database) gets a `reset` event first, and the stream goes on from now.
   */
  async open(req: StreamRequest): Promise<ReadableStream<Uint8Array>> {
    await this.start()
    let client!: Client
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          client = {
            address: req.address, types: req.types, lang: req.lang, langKey: langKey(req.lang), controller,
            typesKey: req.types ? [...req.types].sort().join(',') : '', catchingUp: req.lastEventId !== undefined, closed: false, sentAt: 0,
          }
        },
        cancel: () => this.drop(client),
      },
      { highWaterMark: this.limits.maxQueueBytes, size: (chunk) => chunk?.byteLength ?? 0 },
    )
    this.clients.add(client)
    this.perAddress.set(req.address, (this.perAddress.get(req.address) ?? 0) + 1)
    this.send(client, encoder.encode(`retry: ${this.limits.retryMs}\n: connected\n\n`))
    if (req.lastEventId !== undefined) void this.catchUp(client, req.lastEventId)
    return stream
  }

  private async catchUp(c: Client, from: number): Promise<void> {
    try {
      const { first, last } = await this.reads.bounds()
      // Ids never taken, or events pruned since: the client cannot know what it missed.
      if (from > last || (first > 0 && from < first - 1)) {
        this.send(c, encoder.encode(`event: reset\ndata: ${JSON.stringify({ lastEventId: this.last, reason: from > last ? 'unknown id' : 'older than the stored events' })}\n\n`))
        c.catchingUp = false
        return
      }
      let cursor = from
      for (;;) {
        const target = this.last
        // From memory when it holds everything after the cursor (and no language's texts are asked).
        const first = this.recent[0]
        if (!c.lang && first && first.id <= cursor + 1 && cursor < target) {
          const text = this.recent.filter((e) => e.id > cursor && e.id <= target && (!c.types || c.types.has(e.type))).map(sseFrame).join('')
          if (text) this.send(c, encoder.encode(text))
          cursor = target
        }
        while (cursor < target && !c.closed) {
          const rows = await this.reads.after({ afterId: cursor, upTo: target, types: c.types ? [...c.types] : undefined, lang: c.lang, limit: PAGE })
          if (rows.length) this.send(c, encoder.encode(rows.map(sseFrame).join('')))
          cursor = rows.length < PAGE ? target : rows[rows.length - 1]!.id
        }
        if (c.closed) return
        // Synchronously with the check: no broadcast can come in between.
        if (this.last === target) {
          c.catchingUp = false
          return
        }
      }
    } catch (err) {
      this.log.warn('event stream catch-up failed: the client is closed and will resume', { error: String(err) })
      this.close(c)
    }
  }

  /** Read and broadcast what was appended (one pull at a time: `puller`). */
  private async pullOnce(): Promise<void> {
    try {
      for (;;) {
        const rows = await this.reads.after({ afterId: this.last, limit: PAGE })
        if (rows.length === 0) break
        await this.broadcast(rows)
        if (rows.length < PAGE) break
      }
    } catch (err) {
      // The next write's notification (or the next client) pulls again.
      this.log.warn('event stream read failed: retried at the next write', { error: String(err) })
    }
  }

  /**
   * Fan a batch out: each client gets the batch's messages of its types and language as one
   * chunk, built once per kind of client. The batch's end is recorded before the fan-out
   * starts, and the fan-out yields to other work every SLICE clients: a client that goes
   * live meanwhile has read this batch from storage, and one that was live gets it here.
   */
  private async broadcast(rows: LoggedEvent[]): Promise<void> {
    const lastId = rows[rows.length - 1]!.id
    // The texts of each language live clients asked for, read once per batch.
    const byLang = new Map<string, LoggedEvent[]>([['', rows]])
    if (rows.some((e) => e.data.orderId32 != null || e.data.dispatchId != null)) {
      const langs = new Map<string, Lang>()
      for (const c of this.clients) if (c.lang && !langs.has(c.langKey)) langs.set(c.langKey, c.lang)
      for (const [key, lang] of langs) byLang.set(key, await this.reads.after({ afterId: this.last, upTo: lastId, lang, limit: rows.length }))
    }
    const frames = new Map<string, string[]>()
    for (const [key, events] of byLang) frames.set(key, events.map(sseFrame))
    this.remember(rows)
    this.last = lastId
    this.counts.sent += rows.length
    const live = [...this.clients].filter((c) => !c.catchingUp)
    const chunks = new Map<string, Uint8Array | null>()
    for (let i = 0; i < live.length; i++) {
      if (i > 0 && i % SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve))
      const c = live[i]!
      const key = `${c.langKey}|${c.typesKey}`
      let chunk = chunks.get(key)
      if (chunk === undefined) {
        const own = frames.get(c.langKey) ?? frames.get('')!
        const text = rows.flatMap((e, j) => (c.types && !c.types.has(e.type) ? [] : [own[j]!])).join('')
        chunks.set(key, (chunk = text ? encoder.encode(text) : null))
      }
      if (chunk) this.send(c, chunk)
    }
  }

  /** The last events broadcast, for clients that resume from not long ago (no read needed). */
  private remember(rows: LoggedEvent[]): void {
    this.recent.push(...rows)
    if (this.recent.length > RECENT) this.recent.splice(0, this.recent.length - RECENT)
  }

  /** A heartbeat to each client sent nothing since the last one, in slices like a broadcast. */
  private async beat(): Promise<void> {
    const ping = encoder.encode(': heartbeat\n\n')
    const since = this.lastBeat
    this.lastBeat = performance.now()
    const all = [...this.clients]
    for (let i = 0; i < all.length; i++) {
      if (i > 0 && i % SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve))
      if (all[i]!.sentAt < since) this.send(all[i]!, ping)
    }
  }

  /** Queue a chunk; a client that has not read its queue is closed (it resumes with its Last-Event-ID). */
  private send(c: Client, chunk: Uint8Array): void {
    if (c.closed) return
    if ((c.controller.desiredSize ?? 0) <= 0) {
      this.counts.slowClosed++
      this.close(c)
      return
    }
    try {
      c.controller.enqueue(chunk)
      c.sentAt = performance.now()
    } catch {
      this.drop(c)
    }
  }

  private close(c: Client): void {
    if (!c.closed) {
      try {
        c.controller.close()
      } catch {
        // Already closed by the client.
      }
    }
    this.drop(c)
  }

  private drop(c: Client): void {
    if (c.closed) return
    c.closed = true
    this.clients.delete(c)
    const n = (this.perAddress.get(c.address) ?? 1) - 1
    if (n > 0) this.perAddress.set(c.address, n)
    else this.perAddress.delete(c.address)
  }
}

const langKey = (lang?: Lang) => (!lang ? '' : 'one' in lang ? lang.one : `all:${lang.all.join(',')}`)
