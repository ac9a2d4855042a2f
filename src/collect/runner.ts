/**
 * The one runner of every collector, for the POST routes, the CLI, the schedule and the
 * tests: the war-id fallback, the current-war check, timing, the transaction under the
 * collector's advisory lock (through the database gate) that also appends the events the
 * write made true (storage/events.ts), the summary and its log line.
 */
import { randomUUID } from 'node:crypto'
import type { Config } from '../config.ts'
import { tryTransactionLock, type Sql } from '../db/connect.ts'
import type { DatabaseGate } from '../db/gate.ts'
import type { Feeds } from '../feeds/index.ts'
import type { Drift } from '../feeds/schema.ts'
import { errorText, type Logger } from '../log.ts'
import type { Metrics } from '../metrics.ts'
import { announce, type DataVersions, type Dataset } from '../storage/changes.ts'
import * as events from '../storage/events.ts'
import { refreshLateRows } from '../storage/rollups.ts'
import type { Edition } from '../db/edition.ts'
import type { Store } from '../storage/index.ts'
import { NotCurrentWarError, type CurrentWar } from '../war/current-war.ts'
import { payloadDrift, type Collector, type CollectorName, type Tick } from './collector.ts'

export interface RunnerDeps {
  /** `info.edition` decides whether late rows need a continuous-aggregate refresh (Community). */
  db: { sql: Sql; gate: DatabaseGate; info?: { edition: Edition } }
  store: Store
  feeds: Feeds
  log: Logger
  config: Pick<Config, 'warId'>
  /**
   * The upstream's current war, for callers that name a war (routes, CLI): a collector
   * whose feed has no war id then refuses any other war. The schedule passes the war it
   * has just checked instead.
   */
  currentWar?: Pick<CurrentWar, 'verify'>
  /** This process's data versions: moved right after a write commits (other processes hear of it by LISTEN). */
  versions?: DataVersions
  /** Runs by outcome, their durations and rows (/metrics). */
  metrics?: Metrics
}

export interface RunOptions {
  /** Default: WAR_ID. */
  warId?: number
  /** Overrides the clock (tests, backfills). */
  now?: Date
}

/**
 * What one write did. `outcome`:
 * - `written`: at least one row was written;
 * - `unchanged`: the feeds had nothing new (same tick, same counters);
 * - `locked`: another process holds this collector's lock and is writing now.
 */
export interface CollectorSummary {
  collector: CollectorName
  warId: number | null
  outcome: 'written' | 'unchanged' | 'locked'
  written: Record<string, number>
  unchanged: Record<string, number>
  durationMs: number
}

export interface Captured {
  tick: Tick
  drift: Record<string, Drift> | undefined
  fetchMs: number
}

/** How long a fetch's peek at the database may take before the fetch goes on without it. */
const PEEK_MS = 300

/** The raw tables behind the datasets that have rollups. */
const RAW_TABLE: Partial<Record<Dataset, 'player_count_snapshots' | 'war_summary_snapshots'>> = {
  'player-counts': 'player_count_snapshots',
  'war-summary': 'war_summary_snapshots',
}

/** The datasets a write changed: those its non-zero counts add to. */
function changedBy(c: AnyCollector, written: Record<string, number>): Dataset[] {
  return [...new Set(Object.entries(written).flatMap(([key, n]) => (n > 0 && c.changes[key] ? [c.changes[key]] : [])))]
}

// Each collector has its own payload and row types; the runner handles any of them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyCollector = Collector<any, any>

export class CollectorRunner {
  constructor(readonly deps: RunnerDeps) {}

  /**
   * Fetch and map one tick. Touches no database (beyond a peek that gives up after
   * PEEK_MS). With `checkCurrentWar`, a collector whose feed has no war id first checks
   * the upstream's current war, and refuses another.
   */
  async capture(c: AnyCollector, opts: RunOptions & { checkCurrentWar?: boolean } = {}): Promise<Captured> {
    const t0 = performance.now()
    const warId = opts.warId ?? this.deps.config.warId
    if (c.currentWarOnly && opts.checkCurrentWar && this.deps.currentWar) {
      const current = await this.deps.currentWar.verify()
      if (current !== warId) throw new NotCurrentWarError(warId, current)
    }
    const payload = await c.fetch({ feeds: this.deps.feeds, warId, now: opts.now, peek: (read) => this.peek(read), log: this.deps.log })
    const { capturedAt, rows } = c.map(payload, { warId, now: opts.now })
    return {
      tick: { id: randomUUID(), collector: c.name, warId, capturedAt: capturedAt.toISOString(), rows },
      drift: payloadDrift(payload),
      fetchMs: Math.round(performance.now() - t0),
    }
  }

  /**
   * Write one tick exactly once across every replica: one transaction, under the
   * collector's advisory lock taken without waiting, through the gate. Whatever fails,
   * the transaction rolls back and nothing of the tick is left behind.
   */
  async write(c: AnyCollector, tick: Tick): Promise<CollectorSummary> {
    const t0 = performance.now()
    const { sql, gate } = this.deps.db
    const result = await gate.run(() =>
      sql.begin(async (tx) => {
        if (!(await tryTransactionLock(tx, `collector:${c.name}`))) return null
        const at = new Date(tick.capturedAt)
        const written = await c.write(tx, at, tick)
        // Sent together (one round trip): the notification, like the appended events, goes out at the commit.
        await Promise.all([
          events.record(tx, { collector: c.name, warId: tick.warId, at, written: written.written }),
          announce(tx, changedBy(c, written.written)),
        ])
        return written
      }),
    )
    if (result) {
      const changed = changedBy(c, result.written)
      await this.refreshLate(changed, new Date(tick.capturedAt))
      this.deps.versions?.bump(changed)
    }
    return {
      collector: c.name,
      warId: tick.warId,
      outcome: result === null ? 'locked' : Object.values(result.written).some((n) => n > 0) ? 'written' : 'unchanged',
      written: result?.written ?? {},
      unchanged: result?.unchanged ?? {},
      durationMs: Math.round(performance.now() - t0),
    }
  }

  /**
   * Community: make rows of a late tick visible in the continuous aggregates
   * (storage/rollups.ts). Never fails the write. The commit's notification went out before
   * the refresh, so another process may have computed (and kept) an answer from the
   * aggregates without the late rows meanwhile: the refreshed datasets are announced again.
   */
  private async refreshLate(changed: Dataset[], at: Date): Promise<void> {
    const edition = this.deps.db.info?.edition
    if (!edition) return
    const refreshed: Dataset[] = []
    for (const d of changed) {
      const table = RAW_TABLE[d]
      if (!table) continue
      try {
        if (await refreshLateRows(this.deps.db.sql, edition, table, at, new Date())) refreshed.push(d)
      } catch (err) {
        this.deps.log.warn('rollup refresh for a late tick failed: the next policy run covers it', { table, capturedAt: at.toISOString(), error: errorText(err) })
      }
    }
    await announce(this.deps.db.sql, refreshed).catch((err) =>
      this.deps.log.warn('announcing a late-tick refresh failed: other processes see it at the next write', { error: errorText(err) }),
    )
  }

  /** Fetch and write one tick now (POST routes, CLI, tests); nothing is kept when it fails. One log line. */
  async runOnce(c: AnyCollector, opts: RunOptions = {}): Promise<CollectorSummary> {
    const t0 = performance.now()
    try {
      const { tick, drift } = await this.capture(c, { ...opts, checkCurrentWar: true })
      const summary = { ...(await this.write(c, tick)), durationMs: Math.round(performance.now() - t0) }
      this.logRun(summary, tick, drift)
      return summary
    } catch (err) {
      this.logFailure(c.name, t0, err)
      throw err
    }
  }

  /** The line of a tick written, with its capture time and feed drift; the run is counted. */
  logRun(summary: CollectorSummary, tick: Tick, drift: Record<string, Drift> | undefined, extra: Record<string, unknown> = {}): void {
    this.deps.metrics?.collectorRun(summary.collector, summary.outcome, summary.durationMs / 1000, summary.written)
    this.deps.log.info('collector run', { ...summary, capturedAt: tick.capturedAt, ...extra, ...(drift ? { drift } : {}) })
  }

  /** Count a failed run (started at `t0`) without logging it; returns its duration. The schedule logs by outage (outages.ts). */
  countFailure(collector: CollectorName, t0: number): number {
    const durationMs = Math.round(performance.now() - t0)
    this.deps.metrics?.collectorRun(collector, 'failed', durationMs / 1000)
    return durationMs
  }

  /** Count a failed run and log its line (runs someone asked for: POST routes, CLI). */
  logFailure(collector: CollectorName, t0: number, err: unknown, extra: Record<string, unknown> = {}): void {
    const durationMs = this.countFailure(collector, t0)
    this.deps.log.warn('collector run failed', { collector, durationMs, outcome: 'failed', error: errorText(err), ...extra })
  }

  private async peek<T>(read: (store: Store) => Promise<T>): Promise<T | undefined> {
    if (!this.deps.db.gate.available) return undefined
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), PEEK_MS)
    })
    try {
      return await Promise.race([read(this.deps.store).catch(() => undefined), late])
    } finally {
      clearTimeout(timer)
    }
  }
}
