/**
 * The spool: every scheduled tick is kept here, durably, from the moment it is fetched
 * until its write commits, so that neither a database outage nor a restart loses it.
 *
 * One append-only file per collector (`<dir>/<collector>.jsonl`), one JSON record per
 * line, fsynced before `add` resolves:
 *   {"tick": {...}}     a tick (id, collector, warId, capturedAt, rows)
 *   {"done": "<id>"}    its write committed
 *   {"dropped": "<id>"} dropped for the bound (logged and counted)
 *   {"rejected": "<id>"} its write failed for good (the tick is copied to
 *                        `<collector>.rejected.jsonl` with the error: kept, not lost)
 * At start-up every file is read back (a last line cut short by a crash is ignored),
 * its pending ticks replayed in capture order; the collectors' keys make a tick that
 * had committed just before the crash write nothing the second time. A file is emptied
 * whenever its queue is, and rewritten with only the pending ticks when it grows past
 * twice the bound. A lock file keeps a second process off the same directory.
 *
 * Without a directory (tests, `SPOOL_DIR=""`) the queue lives in memory only.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { errorText, type Logger } from '../log.ts'
import { acquirePidLock } from '../pid-lock.ts'
import { COLLECTOR_NAMES, type CollectorName, type Tick } from './collector.ts'

export interface SpoolCounts {
  /** Ticks waiting to be written. */
  pending: number
  /** Ticks kept since the process started (every scheduled tick passes through the spool). */
  added: number
  written: number
  /** Dropped for the bound: lost, and logged. */
  dropped: number
  /** Failed for good and set aside in the rejected file. */
  rejected: number
}

type Entry = { tick: Tick } | { done: string } | { dropped: string } | { rejected: string }

class Queue {
  readonly ticks: Tick[] = []
  /** Records in the file. */
  lines = 0
  file: FileHandle | undefined
  /** File operations run one after the other. */
  io: Promise<void> = Promise.resolve()
  readonly counts: SpoolCounts = { pending: 0, added: 0, written: 0, dropped: 0, rejected: 0 }
}

export class SpoolLockedError extends Error {
  override readonly name = 'SpoolLockedError'
}

export class Spool {
  private readonly queues = new Map<CollectorName, Queue>(COLLECTOR_NAMES.map((n) => [n, new Queue()]))
  /** Releases the spool directory's lock (set once it is taken). */
  private unlock: () => void = () => {}

  private constructor(
    readonly dir: string | null,
    /** Ticks kept per collector; at least the newest one is always kept. */
    private readonly bound: number,
    private readonly log: Logger,
  ) {}

  /** Opens the spool in `dir` (null: memory only), taking its lock and loading what a previous process left. */
  static async open(dir: string | null, maxPerCollector: number, log: Logger): Promise<Spool> {
    const spool = new Spool(dir, Math.max(1, maxPerCollector), log)
    if (dir) await spool.load(dir)
    return spool
  }

  /** The oldest pending tick of a collector. */
  head(collector: CollectorName): Tick | undefined {
    return this.queue(collector).ticks[0]
  }

  size(collector?: CollectorName): number {
    if (collector) return this.queue(collector).ticks.length
    let n = 0
    for (const q of this.queues.values()) n += q.ticks.length
    return n
  }

  counts(): Record<CollectorName, SpoolCounts> {
    return Object.fromEntries([...this.queues].map(([name, q]) => [name, { ...q.counts, pending: q.ticks.length }])) as Record<CollectorName, SpoolCounts>
  }

  /**
   * Keep a tick (durable when this resolves). Ticks are kept in capture order; past the
   * bound the oldest is dropped, logged and counted.
   */
  async add(tick: Tick): Promise<void> {
    const q = this.queue(tick.collector)
    let i = q.ticks.length
    while (i > 0 && q.ticks[i - 1]!.capturedAt > tick.capturedAt) i--
    q.ticks.splice(i, 0, tick)
    q.counts.added++
    const entries: Entry[] = [{ tick }]
    while (q.ticks.length > this.bound) {
      const old = q.ticks.shift()!
      q.counts.dropped++
      entries.push({ dropped: old.id })
      this.log.warn('spool full: oldest tick dropped', { collector: tick.collector, capturedAt: old.capturedAt, bound: this.bound, dropped: q.counts.dropped })
    }
    await this.append(q, tick.collector, entries)
  }

  /** The tick's write committed. */
  async done(tick: Tick): Promise<void> {
    const q = this.queue(tick.collector)
    if (!this.remove(q, tick)) return
    q.counts.written++
    await this.append(q, tick.collector, [{ done: tick.id }])
  }

  /** The tick's write failed for a reason a retry cannot cure: set it aside (never silently lost). */
  async reject(tick: Tick, error: unknown): Promise<void> {
    const q = this.queue(tick.collector)
    if (!this.remove(q, tick)) return
    q.counts.rejected++
    this.log.error('tick rejected: its write failed for good; kept in the rejected file', {
      collector: tick.collector, capturedAt: tick.capturedAt, error: errorText(error), file: this.dir ? this.rejectedPath(tick.collector) : null,
    })
    if (this.dir) {
      const line = JSON.stringify({ tick, error: errorText(error), at: new Date().toISOString() }) + '\n'
      q.io = q.io.then(async () => {
        const f = await open(this.rejectedPath(tick.collector), 'a')
        try {
          await f.appendFile(line)
          await f.sync()
        } finally {
          await f.close()
        }
      }).catch((err) => this.log.error('spool: could not write the rejected file', { error: errorText(err) }))
    }
    await this.append(q, tick.collector, [{ rejected: tick.id }])
  }

  async close(): Promise<void> {
    for (const q of this.queues.values()) {
      await q.io
      await q.file?.close()
      q.file = undefined
    }
    this.unlock()
  }

  private queue(collector: CollectorName): Queue {
    return this.queues.get(collector)!
  }

  private remove(q: Queue, tick: Tick): boolean {
    const i = q.ticks.findIndex((t) => t.id === tick.id)
    if (i < 0) return false
    q.ticks.splice(i, 1)
    return true
  }

  private path(collector: CollectorName) {
    return join(this.dir!, `${collector}.jsonl`)
  }

  private rejectedPath(collector: CollectorName) {
    return join(this.dir!, `${collector}.rejected.jsonl`)
  }

  /** Write records after the ones before; empty or compact the file when its queue allows. */
  private append(q: Queue, collector: CollectorName, entries: Entry[]): Promise<void> {
    if (!this.dir) return Promise.resolve()
    const op = q.io.then(async () => {
      if (q.ticks.length === 0) {
        // Nothing pending: the file's history is of no use any more.
        await q.file!.truncate(0)
        await q.file!.sync()
        q.lines = 0
        return
      }
      if (q.lines + entries.length > 2 * this.bound + 16) {
        await q.file!.close()
        q.lines = this.rewrite(collector, q.ticks)
        q.file = await open(this.path(collector), 'a')
        return
      }
      await q.file!.appendFile(entries.map((e) => JSON.stringify(e) + '\n').join(''))
      await q.file!.sync()
      q.lines += entries.length
    })
    // A failed disk write is logged, not fatal: the tick stays queued in memory.
    q.io = op.catch((err) => this.log.error('spool: write failed; ticks stay in memory', { collector, error: errorText(err) }))
    return q.io
  }

  /** Replace the file with the pending ticks only (temp file, fsync, rename); returns its records. */
  private rewrite(collector: CollectorName, ticks: Tick[]): number {
    const path = this.path(collector)
    const tmp = `${path}.tmp`
    const fd = openSync(tmp, 'w')
    try {
      if (ticks.length) writeSync(fd, ticks.map((tick) => JSON.stringify({ tick }) + '\n').join(''))
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, path)
    const dirFd = openSync(this.dir!, 'r')
    try {
      fsyncSync(dirFd)
    } finally {
      closeSync(dirFd)
    }
    return ticks.length
  }

  private async load(dir: string): Promise<void> {
    mkdirSync(dir, { recursive: true })
    this.lock(dir)
    for (const [collector, q] of this.queues) {
      const path = this.path(collector)
      const pending = new Map<string, Tick>()
      if (existsSync(path)) {
        const lines = readFileSync(path, 'utf8').split('\n')
        lines.forEach((line, i) => {
          if (line.trim() === '') return
          let e: Entry
          try {
            e = JSON.parse(line) as Entry
          } catch {
            // Only the last line can be cut short (a crash mid-append): the tick it held was
            // never reported as kept.
            this.log.warn('spool: unreadable record skipped', { collector, line: i + 1, last: i >= lines.length - 2 })
            return
          }
          if ('tick' in e) pending.set(e.tick.id, e.tick)
          else pending.delete('done' in e ? e.done : 'dropped' in e ? e.dropped : e.rejected)
        })
      }
      const ticks = [...pending.values()].sort((a, b) => (a.capturedAt < b.capturedAt ? -1 : a.capturedAt > b.capturedAt ? 1 : 0))
      while (ticks.length > this.bound) {
        const old = ticks.shift()!
        q.counts.dropped++
        this.log.warn('spool full: oldest tick dropped', { collector, capturedAt: old.capturedAt, bound: this.bound })
      }
      q.ticks.push(...ticks)
      q.lines = this.rewrite(collector, ticks)
      q.file = await open(path, 'a')
      if (ticks.length) this.log.info('spool: ticks from a previous run will be written', { collector, ticks: ticks.length, oldest: ticks[0]!.capturedAt })
    }
  }

  /** One process per spool directory: a second one would interleave the files. */
  private lock(dir: string): void {
    this.unlock = acquirePidLock(
      join(dir, 'LOCK'),
      (pid) => new SpoolLockedError(`spool directory ${dir} is used by another process (pid ${pid}); give each process its own SPOOL_DIR`),
    )
  }
}
