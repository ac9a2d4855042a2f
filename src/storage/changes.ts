/**
 * What changed, and when: every answer the service keeps ready (routes/answers) is kept
 * for one version of the datasets it reads, and a version moves the moment a write that
 * touched the dataset commits.
 * - The process that writes moves its versions right after the commit (collect/runner).
 * - Every process hears of every write through PostgreSQL: the write transaction sends
 *   `pg_notify` (delivered when, and only if, it commits), and each process LISTENs on
 *   the primary. A process whose listening connection was lost moves every version when
 *   it is back, since it may have missed a notification.
 * Writes made outside the service (a manual SQL backfill) must send the notification too:
 * `SELECT pg_notify('gws_data_changed', 'player-counts')` (docs/operations.md).
 */
import type { Queryable, Sql } from '../db/connect.ts'

export const DATASETS = ['player-counts', 'planet-status', 'war-summary', 'major-orders', 'dispatches', 'war', 'planet-stats'] as const
export type Dataset = (typeof DATASETS)[number]

export const CHANGES_CHANNEL = 'gws_data_changed'

/** The version of each dataset in this process: a counter that only moves forward. */
export class DataVersions {
  private readonly counters = new Map<Dataset, number>(DATASETS.map((d) => [d, 0]))
  private readonly listeners: Array<() => void> = []
  /** Moves with every bump: a stamp read at one generation holds until the next. */
  generation = 0

  get(dataset: Dataset): number {
    return this.counters.get(dataset)!
  }

  /** The versions of several datasets as one key part, e.g. `3.0`. */
  stamp(datasets: readonly Dataset[]): string {
    return datasets.map((d) => this.counters.get(d)!).join('.')
  }

  bump(datasets: Iterable<Dataset>): void {
    let moved = false
    for (const d of datasets) {
      this.counters.set(d, this.counters.get(d)! + 1)
      moved = true
    }
    if (moved) this.generation++
    if (moved) for (const fn of this.listeners) fn()
  }

  /** `fn` runs synchronously on every move, before any read for the new versions can start (the replicas' fence). */
  onBump(fn: () => void): void {
    this.listeners.push(fn)
  }

  bumpAll(): void {
    this.bump(DATASETS)
  }
}

/** Inside a write transaction: tell every process which datasets it changed (delivered at commit). */
export async function announce(tx: Queryable, datasets: readonly Dataset[]): Promise<void> {
  if (datasets.length) await tx`SELECT pg_notify(${CHANGES_CHANNEL}, ${datasets.join(',')})`
}

/**
 * Hear every write to the database: `onChange` gets the datasets a committed write
 * changed, and `'all'` whenever listening (re)starts (what happened meanwhile is unknown).
 */
export async function listenForChanges(sql: Sql, onChange: (datasets: Dataset[] | 'all') => void): Promise<{ unlisten(): Promise<void> }> {
  const known = new Set<string>(DATASETS)
  return sql.listen(
    CHANGES_CHANNEL,
    (payload) => {
      const datasets = payload.split(',').filter((d): d is Dataset => known.has(d))
      // An unknown name (a newer replica, a typo in a manual notification): play safe.
      onChange(datasets.length === payload.split(',').length ? datasets : 'all')
    },
    () => onChange('all'),
  )
}
