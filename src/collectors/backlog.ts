import type { Logger } from '../log.ts'
import type { CollectorDeps, CollectorName, CollectorOptions, CollectorSummary } from './run.ts'

/** A tick whose feeds were fetched but whose write failed because the database was down. */
export interface PendingWrite {
  collector: CollectorName
  capturedAt: Date
  write: () => Promise<CollectorSummary>
}

/**
 * Ticks the schedule fetched while the database was unreachable, written when it is back
 * (oldest first, with their original capture times; the collectors' keys make a replay
 * that already landed write nothing). Bounded per collector: when full, the oldest tick
 * is dropped and counted, so an outage costs memory only up to the bound.
 */
export class WriteBacklog {
  private readonly pending = new Map<CollectorName, PendingWrite[]>()
  dropped = 0

  constructor(
    readonly maxPerCollector: number,
    private readonly log: Logger,
  ) {}

  add(p: PendingWrite) {
    const list = this.pending.get(p.collector) ?? []
    list.push(p)
    if (list.length > this.maxPerCollector) {
      list.shift()
      this.dropped++
      this.log.warn('backlog full: oldest tick dropped', { collector: p.collector, bound: this.maxPerCollector, dropped: this.dropped })
    }
    this.pending.set(p.collector, list)
  }

  size(collector?: CollectorName): number {
    if (collector) return this.pending.get(collector)?.length ?? 0
    let n = 0
    for (const l of this.pending.values()) n += l.length
    return n
  }

  /**
   * Write the collector's pending ticks in order; stop at the first failure (the database
   * is still down: keep the rest). Returns how many were written.
   */
  async drain(collector: CollectorName): Promise<number> {
    const list = this.pending.get(collector)
    let written = 0
    while (list && list.length > 0) {
      await list[0]!.write()
      list.shift()
      written++
    }
    if (written > 0) this.log.info('backlog written', { collector, ticks: written })
    return written
  }
}

/**
 * How the schedule runs a collector: first the ticks kept from a database outage, then
 * the current one (which joins the backlog if the database is still down).
 */
export async function scheduledRun(
  collect: (deps: CollectorDeps, opts?: CollectorOptions) => Promise<CollectorSummary>,
  name: CollectorName,
  deps: CollectorDeps & { backlog: WriteBacklog },
  opts?: CollectorOptions,
): Promise<CollectorSummary> {
  await deps.backlog.drain(name).catch(() => {})
  return collect(deps, opts)
}
