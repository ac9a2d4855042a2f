import type { Config } from '../config.ts'
import { isDatabaseUnavailable, type Sql, type Tx } from '../db/connect.ts'
import type { WriteBacklog } from './backlog.ts'
import type { CurrentWar } from './current-war.ts'
import { errorText, type Logger } from '../log.ts'
import type { Feeds } from '../upstream/feeds.ts'

export const COLLECTOR_NAMES = ['player-count', 'war-info', 'full-status', 'planet-stats'] as const
export type CollectorName = (typeof COLLECTOR_NAMES)[number]

export interface CollectorDeps {
  sql: Sql
  feeds: Feeds
  log: Logger
  config: Pick<Config, 'warId'>
  /** Set by the schedule: ticks whose write found the database down are kept and replayed. */
  backlog?: WriteBacklog
  /**
   * The upstream's current war, for callers that name a war (routes, CLI): planet-stats
   * then refuses to store community rows under any other. The schedule leaves it out:
   * it always passes the war it has just checked.
   */
  currentWar?: Pick<CurrentWar, 'verify'>
}

export interface CollectorOptions {
  warId?: number
  /** Overrides the clock (tests, backfills). */
  now?: Date
}

/**
 * What one run did. `outcome`:
 * - `written`: at least one row was written;
 * - `unchanged`: the feeds had nothing new (same tick, same counters);
 * - `locked`: another process holds this collector's lock and is running it now.
 */
export interface CollectorSummary {
  collector: CollectorName
  warId: number | null
  outcome: 'written' | 'unchanged' | 'locked'
  written: Record<string, number>
  unchanged: Record<string, number>
  durationMs: number
}

/** A collector's write phase: runs inside one transaction holding the collector's lock. */
export type WritePhase = (tx: Tx) => Promise<{ written: Record<string, number>; unchanged?: Record<string, number | undefined> }>

/**
 * Run a collector's write phase exactly once across every replica: one transaction,
 * guarded by a per-collector advisory lock taken without waiting. Feeds are fetched
 * before (no connection is held during network calls); whatever fails, the transaction
 * rolls back and nothing of the tick is left behind.
 */
export async function runWritePhase(
  deps: CollectorDeps,
  collector: CollectorName,
  warId: number | null,
  startedAt: number,
  write: WritePhase,
  capturedAt: Date = new Date(),
): Promise<CollectorSummary> {
  try {
    return await writeOnce(deps, collector, warId, startedAt, write)
  } catch (err) {
    if (deps.backlog && isDatabaseUnavailable(err)) {
      deps.backlog.add({ collector, capturedAt, write: () => writeOnce(deps, collector, warId, performance.now(), write) })
    }
    throw err
  }
}

async function writeOnce(
  deps: CollectorDeps,
  collector: CollectorName,
  warId: number | null,
  startedAt: number,
  write: WritePhase,
): Promise<CollectorSummary> {
  const result = await deps.sql.begin(async (tx) => {
    const [lock] = await tx<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext(${'collector:' + collector})) AS ok`
    if (!lock?.ok) return null
    return write(tx)
  })
  const summary: CollectorSummary = {
    collector,
    warId,
    outcome: result === null ? 'locked' : Object.values(result.written).some((n) => n > 0) ? 'written' : 'unchanged',
    written: result?.written ?? {},
    unchanged: Object.fromEntries(Object.entries(result?.unchanged ?? {}).filter((e): e is [string, number] => e[1] !== undefined)),
    durationMs: Math.round(performance.now() - startedAt),
  }
  return summary
}

/** One structured log line per run, success or failure. */
export async function logged<T extends CollectorSummary>(log: Logger, collector: CollectorName, run: () => Promise<T>): Promise<T> {
  const t0 = performance.now()
  try {
    const summary = await run()
    log.info('collector run', { ...(summary as CollectorSummary) })
    return summary
  } catch (err) {
    log.warn('collector run failed', { collector, durationMs: Math.round(performance.now() - t0), outcome: 'failed', error: errorText(err) })
    throw err
  }
}

/**
 * How collectors fetch: a tick makes its own attempt rather than inherit a failure a
 * public read met moments before (429s stay held: they mean "ask less").
 */
export const COLLECTOR_FETCH = { bypassFailureHold: true } as const

/** Rows to JSON for `jsonb_to_recordset`: one parameter however many rows. */
export const asJson = (rows: unknown[]) => JSON.stringify(rows)
