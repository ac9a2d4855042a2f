/**
 * The importer: archived captures written through the collectors' own `map`
 * and `write` (collect/full-status.ts, player-count.ts, war-info.ts), so an imported
 * capture leaves the rows a live collection at its time would have left.
 *
 * - Batches: up to `batchSize` captures per transaction, written in source order: each
 *   collector writes the batch's ticks together (a few statements for the whole batch,
 *   `writeBatch`, leaving what writing them one after the other would), the collectors'
 *   writes pipelined on the transaction's connection. A batch commits or not; a kill loses
 *   at most the batch in flight.
 * - Idempotent and resumable: every row is keyed as the live ticks are (full-status by war
 *   and war time, the upstream player count likewise, the rest by tick time). Before a batch
 *   is written, the captures it would add nothing with (their tick and player-count row are
 *   stored, and their capture time is no later than the stored tick was last seen) are
 *   counted as duplicates without a write: a second run, or a run after a kill, passes over
 *   what is stored at the speed of reading and writes from where the first stopped.
 * - Tolerant: a capture that cannot be read, fails its feed's schema, or whose write fails
 *   for good (the batch is then written again one capture per transaction) is skipped and
 *   reported by commit or line; the import goes on. A database that cannot be reached ends it.
 * - Alongside live collection: each batch holds the collectors' advisory locks, so it and a
 *   live tick are never written at once; each batch announces what it changed
 *   (storage/changes.ts), so running services move their data versions at its commit.
 * - Rollups: every capture's write invalidates them as a live tick's does; refreshed once
 *   at the end (storage/rollups.ts), not per capture.
 * - Rebuilt captures (the community's JSON, community.ts): their texts in every language
 *   are stored, as the live collector stores FEED_LANGUAGES'; the summary counts what they
 *   could not give (`notRebuilt`).
 */
import { randomUUID } from 'node:crypto'
import type { CollectorName, Tick, WriteResult } from '../collect/collector.ts'
import type { AnyCollector } from '../collect/index.ts'
import { fullStatus } from '../collect/full-status.ts'
import { playerCount } from '../collect/player-count.ts'
import { warInfo } from '../collect/war-info.ts'
import { isTransient, type Sql, type Tx } from '../db/connect.ts'
import type { Edition } from '../db/edition.ts'
import type { Fetched } from '../feeds/throttle.ts'
import { NO_DRIFT } from '../feeds/schema.ts'
import { parseAssignments, parseNewsFeed, parseWarInfo, parseWarStatus, parseWarSummary, type Assignment, type WarInfo, type WarStatus } from '../feeds/upstream.ts'
import { errorText, type Logger } from '../log.ts'
import { announce, type DataVersions, type Dataset } from '../storage/changes.ts'
import { upstreamWarTimes } from '../storage/player-counts.ts'
import { refreshRollups, refreshWrittenRange, type SourceTable } from '../storage/rollups.ts'
import { seenUntil } from '../storage/ticks.ts'
import { GAPS, parseRebuiltAssignments, parseRebuiltWarInfo, type Gap } from './community.ts'
import type { Capture, CaptureSource, SourceItem } from './sources.ts'

export interface ImportOptions {
  db: { sql: Sql; info: { edition: Edition } }
  source: CaptureSource
  /** The war of captures that name none (neither the NDJSON line nor the status's `warId`): WAR_ID. */
  warId: number
  /**
   * The language the archive's texts were fetched in (Accept-Language): the primary of
   * FEED_LANGUAGES. A capture rebuilt from the community's JSON says its own (the source's).
   */
  language?: string
  /** Captures per transaction (default 100). */
  batchSize?: number
  /** Stops the import: the batch in flight rolls back, what committed stays; the summary says `aborted`. */
  signal?: AbortSignal
  /** After every batch. */
  onProgress?: (p: ImportProgress) => void
  /** This process's data versions, moved after each batch commits (other processes hear of it by LISTEN). */
  versions?: DataVersions
  log?: Logger
}

export interface ImportProgress {
  /** Captures read so far (imported, duplicates and skipped). */
  done: number
  /** Captures in the source when known (git). */
  total: number | null
  /** Share of the source read, when the count is unknown (NDJSON). */
  fraction: number | null
  imported: number
  duplicates: number
  skipped: number
  capturesPerSecond: number
  /** Seconds left at this rate; null before it can be told. */
  etaSeconds: number | null
  elapsedMs: number
}

export interface SkippedCapture {
  ref: string
  reason: SkipReason
  detail: string
}

export type SkipReason = 'unreadable' | 'no status' | 'schema' | 'write failed'

export interface ImportSummary {
  source: string
  /** Captures read from the source, each counted once below. */
  captures: number
  /** Captures that added rows. */
  imported: number
  /** Captures whose rows were all stored already (a second import, live collection, a frozen war's same status). */
  duplicates: number
  skipped: number
  skippedByReason: Partial<Record<SkipReason, number>>
  /** The first SKIPPED_LISTED skipped captures, with what was wrong. */
  skippedCaptures: SkippedCapture[]
  /** Rows written, by the collectors' counts (planetStatus, warSummary, upstreamRows, …). */
  rows: Record<string, number>
  /** Capture times of the captures imported or found stored: the range whose rollups were refreshed. */
  from: string | null
  to: string | null
  /** Raw tables whose continuous aggregates were refreshed (Community), or `rollups` (the other editions). */
  refreshed: string[]
  /**
   * What captures rebuilt from the community's JSON could not give (community.ts GAPS): each
   * gap with the captures imported or found stored that have it; empty for raw payloads.
   */
  notRebuilt: { gap: Gap; captures: number; detail: string }[]
  /**
   * What reading and mapping cost, in ms per capture read: waiting for input (git's answers;
   * it overlaps the writes of the batch before), JSON parsing, rebuilding (community), the
   * collections the source asks for, the schema checks and the collectors' `map`
   * (prepare); with the bytes read per capture. Null before any capture was read.
   */
  reading: { bytes: number; waitMs: number; parseMs: number; rebuildMs: number; gcMs: number; prepareMs: number; totalMs: number } | null
  aborted: boolean
  durationMs: number
  capturesPerSecond: number
}

export const SKIPPED_LISTED = 100
const DEFAULT_BATCH = 100

/** The ticks one capture writes, as its collectors map them. */
interface Prepared {
  ref: string
  at: Date
  warId: number
  /** The status's war time (null: a war info without a status). */
  warTime: number | null
  ticks: { collector: AnyCollector; tick: Tick }[]
  /** What the capture, rebuilt from another shape, could not give. */
  gaps?: readonly Gap[]
}

type Outcome = { kind: 'imported' | 'duplicate'; written: Record<string, number>; changed: Dataset[] }

class Aborted extends Error {}

/** Import every capture of `source`; resolves with the summary (also when aborted). Throws when the database fails. */
export async function importCaptures(opts: ImportOptions): Promise<ImportSummary> {
  const { db, source, signal } = opts
  const language = opts.language ?? 'en-US'
  const batchSize = Math.max(1, opts.batchSize ?? DEFAULT_BATCH)
  const t0 = performance.now()
  const s: ImportSummary = {
    source: source.label, captures: 0, imported: 0, duplicates: 0, skipped: 0, skippedByReason: {}, skippedCaptures: [],
    rows: {}, from: null, to: null, refreshed: [], notRebuilt: [], reading: null, aborted: false, durationMs: 0, capturesPerSecond: 0,
  }
  const gaps = new Map<Gap, number>()
  const prepareMs = { total: 0 }
  let range: { from: Date; to: Date } | null = null
  const seen = (at: Date) => {
    range = range ? { from: at < range.from ? at : range.from, to: at > range.to ? at : range.to } : { from: at, to: at }
  }
  const skip = (ref: string, reason: SkipReason, detail: string) => {
    s.skipped++
    s.skippedByReason[reason] = (s.skippedByReason[reason] ?? 0) + 1
    if (s.skippedCaptures.length < SKIPPED_LISTED) s.skippedCaptures.push({ ref, reason, detail })
    // Listed in the summary (the first SKIPPED_LISTED); a log line each only when debugging.
    opts.log?.debug('import: capture skipped', { ref, reason, detail })
  }
  const count = (o: Outcome, p: Prepared) => {
    if (o.kind === 'imported') s.imported++
    else s.duplicates++
    for (const [k, n] of Object.entries(o.written)) if (n > 0) s.rows[k] = (s.rows[k] ?? 0) + n
    for (const gap of p.gaps ?? []) gaps.set(gap, (gaps.get(gap) ?? 0) + 1)
    seen(p.at)
  }
  const progress = () => {
    const elapsedMs = performance.now() - t0
    const rate = elapsedMs > 0 ? (s.captures * 1000) / elapsedMs : 0
    const fraction = source.total === null ? source.readFraction() : null
    let eta: number | null = null
    if (source.total !== null && rate > 0) eta = Math.max(0, source.total - s.captures) / rate
    else if (fraction !== null && fraction > 0) eta = ((elapsedMs / 1000) * (1 - fraction)) / fraction
    opts.onProgress?.({
      done: s.captures, total: source.total, fraction, imported: s.imported, duplicates: s.duplicates, skipped: s.skipped,
      capturesPerSecond: rate, etaSeconds: eta, elapsedMs,
    })
  }

  // The next batch is read and mapped while the one before is written.
  const batches = readBatches(source, batchSize, language, opts.warId, prepareMs)[Symbol.asyncIterator]()
  try {
    let next = batches.next()
    for (;;) {
      const { value: batch, done } = await next
      if (done) break
      if (signal?.aborted) throw new Aborted()
      next = batches.next()
      next.catch(() => {}) // seen when awaited
      s.captures += batch.length
      const ready: Prepared[] = []
      for (const item of batch) {
        if ('skipped' in item) skip(item.ref, item.skipped, item.detail)
        else ready.push(item)
      }
      const toWrite = await dropStored(db.sql, ready, (p) => count({ kind: 'duplicate', written: {}, changed: [] }, p))
      if (toWrite.length) {
        for (const [p, o] of await writeBatch(db.sql, toWrite, signal, skip, opts.versions)) count(o, p)
      }
      progress()
    }
  } catch (err) {
    if (!(err instanceof Aborted)) throw err
    s.aborted = true
    // The captures of a batch rolled back were read but are not counted: only what was accounted for.
    s.captures = s.imported + s.duplicates + s.skipped
  } finally {
    await batches.return?.(undefined)
    await source.close()
  }

  const written = range as { from: Date; to: Date } | null
  if (written) {
    s.from = written.from.toISOString()
    s.to = written.to.toISOString()
    s.refreshed = await refreshOnce(db, written, s.rows, opts)
  }
  s.notRebuilt = (Object.keys(GAPS) as Gap[]).flatMap((gap) => (gaps.has(gap) ? [{ gap, captures: gaps.get(gap)!, detail: GAPS[gap] }] : []))
  s.reading = readingCost(source, s.captures, prepareMs.total)
  s.durationMs = Math.round(performance.now() - t0)
  s.capturesPerSecond = s.durationMs > 0 ? Math.round((s.captures * 1000 * 10) / s.durationMs) / 10 : 0
  return s
}

// ------------------------------------------------------------------ reading and mapping

type BatchItem = Prepared | { ref: string; skipped: SkipReason; detail: string }

/** Lets the event loop run between captures: the answers of the batch being written are read as they come, not after a chunk of captures. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

async function* readBatches(source: CaptureSource, size: number, language: string, defaultWarId: number, spent: { total: number }): AsyncGenerator<BatchItem[]> {
  let batch: BatchItem[] = []
  for await (const item of source.items()) {
    const t0 = performance.now()
    batch.push(prepare(item, language, defaultWarId))
    spent.total += performance.now() - t0
    await yieldToLoop()
    if (batch.length >= size) {
      yield batch
      batch = []
    }
  }
  if (batch.length) yield batch
}

/** The cost of reading per capture read, in ms (3 decimals), with the bytes per capture. */
function readingCost(source: CaptureSource, captures: number, prepareMs: number): ImportSummary['reading'] {
  if (captures === 0) return null
  const c = source.cost?.() ?? { bytes: 0, waitMs: 0, parseMs: 0, rebuildMs: 0, gcMs: 0 }
  const per = (ms: number) => Math.round((ms / captures) * 1000) / 1000
  return {
    bytes: Math.round(c.bytes / captures), waitMs: per(c.waitMs), parseMs: per(c.parseMs), rebuildMs: per(c.rebuildMs), gcMs: per(c.gcMs),
    prepareMs: per(prepareMs), totalMs: per(c.waitMs + c.parseMs + c.rebuildMs + c.gcMs + prepareMs),
  }
}

// An import reports no drift: its payloads are checked, not walked for it.
const fetched = <T>(data: T, at: Date): Fetched<T> => ({ data, drift: NO_DRIFT, fetchedAt: at, fromCache: false, stale: false })

const validWarId = (v: unknown): number | undefined => (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 2_147_483_647 ? (v as number) : undefined)

/**
 * One capture's ticks, mapped by the collectors as a live run maps what it fetched: the
 * full-status tick and the upstream player count when there is a status, the war info
 * when there is one. Each payload is checked against its feed's schema; one that fails
 * skips the capture, as it fails a live run. A capture rebuilt from the community's JSON
 * brings its texts in every language (the full-status tick stores them as the live one
 * stores FEED_LANGUAGES'), and its war info and assignments are checked with the fields it
 * cannot give as null (community.ts).
 */
export function prepare(item: SourceItem, language: string, defaultWarId: number): BatchItem {
  if (item.error !== undefined) return { ref: item.ref, skipped: 'unreadable', detail: item.error }
  const c: Capture = item.capture
  const at = c.capturedAt
  const { status: rawStatus, warInfo: rawInfo, summary: rawSummary, assignments: rawAssignments, newsfeed: rawNews } = c.parts
  if (rawStatus === undefined && rawInfo === undefined) {
    return {
      ref: c.ref, skipped: 'no status',
      detail: `only ${Object.keys(c.parts).join(', ') || 'nothing'}: a summary, assignments or newsfeed is stored with the status captured with it (its tick), never alone`,
    }
  }
  const rebuilt = c.rebuilt
  // A rebuilt war info's sector ids and assignments' setting types are null: the collectors'
  // map copies them into the rows as they are (upstream_sector_id, setting_type: null).
  const checkInfo = rebuilt ? (v: unknown) => parseRebuiltWarInfo.checked(v) as unknown as WarInfo : parseWarInfo.checked
  const checkAssignments = rebuilt ? (v: unknown) => parseRebuiltAssignments.checked(v) as unknown as Assignment[] : parseAssignments.checked
  try {
    const status = rawStatus === undefined ? null : fetched(parseWarStatus.checked(rawStatus), at)
    const info = rawInfo === undefined ? null : fetched(checkInfo(rawInfo), at)
    const warId = c.warId ?? validWarId((rawStatus as { warId?: unknown } | undefined)?.warId) ?? validWarId((rawInfo as { warId?: unknown } | undefined)?.warId) ?? defaultWarId
    const ticks: Prepared['ticks'] = []
    const tick = (collector: AnyCollector, rows: unknown) =>
      ticks.push({ collector, tick: { id: randomUUID(), collector: collector.name as CollectorName, warId, capturedAt: at.toISOString(), rows } })
    if (info) {
      // A war info alone (an archive of it) updates the war and its planets, not their state.
      const states = status ?? fetched({ time: 0, planetStatus: [] } as unknown as WarStatus, at)
      tick(warInfo, warInfo.map({ info, status: states }, { warId, now: at }).rows)
    }
    if (status) {
      const payload = {
        status,
        summary: rawSummary === undefined ? null : fetched(parseWarSummary.checked(rawSummary), at),
        assignments: rawAssignments === undefined ? null : fetched(checkAssignments(rawAssignments), at),
        news: rawNews === undefined ? null : fetched(parseNewsFeed.checked(rawNews), at),
        // A raw archive holds one language's texts: the primary's, from the tick's own rows;
        // a rebuilt capture every language's. None is known stored (an empty map): every
        // text goes with the tick, and one stored already is not written again (its key).
        languages: {
          fetched: (rebuilt?.languages ?? []).map((l) => ({
            language: l.language,
            ...(l.assignments === undefined ? {} : { assignments: checkAssignments(l.assignments) }),
            ...(l.newsfeed === undefined ? {} : { news: parseNewsFeed.checked(l.newsfeed) }),
          })),
          stored: new Map(),
        },
        primary: rebuilt?.language ?? language,
      }
      tick(fullStatus, fullStatus.map(payload, { warId, now: at }).rows)
      tick(playerCount, playerCount.map({ status, pcstore: null }, { warId, now: at }).rows)
    }
    return { ref: c.ref, at, warId, warTime: status?.data.time ?? null, ticks, ...(rebuilt ? { gaps: rebuilt.gaps } : {}) }
  } catch (err) {
    return { ref: c.ref, skipped: 'schema', detail: rebuilt ? `${errorText(err)} (rebuilt from the community's JSON)` : errorText(err) }
  }
}

// ------------------------------------------------------------------ writing

/**
 * The captures that would add something. A capture without a war info whose full-status
 * tick is stored and was seen at or after its capture time, and whose upstream row is
 * stored, would write nothing: it is counted (`onStored`) and left out.
 */
async function dropStored(sql: Sql, batch: Prepared[], onStored: (p: Prepared) => void): Promise<Prepared[]> {
  const byWar = new Map<number, number[]>()
  for (const p of batch) if (p.warTime !== null) (byWar.get(p.warId) ?? byWar.set(p.warId, []).get(p.warId)!).push(p.warTime)
  const known = new Map<number, { seen: Map<number, Date>; upstream: Set<number> }>()
  await Promise.all(
    [...byWar].map(async ([warId, times]) => {
      const [seen, upstream] = await Promise.all([seenUntil(sql, warId, times), upstreamWarTimes(sql, warId, times)])
      known.set(warId, { seen, upstream })
    }),
  )
  return batch.filter((p) => {
    const k = known.get(p.warId)
    const until = p.warTime === null ? undefined : k?.seen.get(p.warTime)
    const stored = p.warTime !== null && until !== undefined && p.at <= until && k!.upstream.has(p.warTime) && p.ticks.every((t) => t.collector.name !== 'war-info')
    if (stored) onStored(p)
    return !stored
  })
}

/**
 * One transaction for the batch; if it fails for a reason no retry cures (a constraint, a
 * value out of range), each capture again in a transaction of its own, and the ones that
 * still fail are skipped. A database that cannot be reached fails the import.
 */
async function writeBatch(
  sql: Sql,
  batch: Prepared[],
  signal: AbortSignal | undefined,
  skip: (ref: string, reason: SkipReason, detail: string) => void,
  versions: DataVersions | undefined,
): Promise<[Prepared, Outcome][]> {
  try {
    return await commit(sql, batch, signal, versions)
  } catch (err) {
    if (err instanceof Aborted || isTransient(err)) throw err
    if (batch.length === 1) {
      skip(batch[0]!.ref, 'write failed', writeError(err))
      return []
    }
  }
  const out: [Prepared, Outcome][] = []
  for (const p of batch) {
    try {
      out.push(...(await commit(sql, [p], signal, versions)))
    } catch (err) {
      if (err instanceof Aborted || isTransient(err)) throw err
      skip(p.ref, 'write failed', writeError(err))
    }
  }
  return out
}

/** A write error in words; a key already taken is most often a second capture at the same time (git dates are to the second). */
function writeError(err: unknown): string {
  const text = errorText(err)
  return (err as { code?: string }).code === '23505' ? `${text} (a capture of the same war is stored at the same capture time with another war time)` : text
}

/** The batch in one transaction, under the locks of the collectors it writes for; its changes announced at commit. */
async function commit(sql: Sql, batch: Prepared[], signal: AbortSignal | undefined, versions: DataVersions | undefined): Promise<[Prepared, Outcome][]> {
  const result = await sql.begin(async (tx) => {
    // The live runner takes the same locks without waiting (collect/runner.ts): while a batch
    // holds them, a live tick is retried shortly; a batch waits for a live tick's write.
    const names = [...new Set(batch.flatMap((p) => p.ticks.map((t) => t.collector.name)))].sort()
    // Sent together: the connection takes them in this order.
    await Promise.all(names.map((name) => tx`SELECT pg_advisory_xact_lock(hashtext(${`collector:${name}`}))`))
    if (signal?.aborted) throw new Aborted()
    const outcomes = await writeCaptures(tx, batch)
    // Stopped while the batch was written: it rolls back.
    if (signal?.aborted) throw new Aborted()
    const out = batch.map((p, i): [Prepared, Outcome] => [p, outcomes[i]!])
    await announce(tx, [...new Set(outcomes.flatMap((o) => o.changed))])
    return out
  })
  versions?.bump(new Set(result.flatMap(([, o]) => o.changed)))
  return result
}

/**
 * The ticks of a batch's captures, collector by collector: a collector that writes many
 * ticks at once (writeBatch: few statements for the whole batch) gets all of its ticks in
 * source order, the others get theirs one after the other. Collectors write tables of
 * their own, so they go out together (postgres.js pipelines them on the transaction).
 */
async function writeCaptures(tx: Tx, batch: readonly Prepared[]): Promise<Outcome[]> {
  const byCollector = new Map<AnyCollector, { i: number; j: number; tick: Tick }[]>()
  batch.forEach((p, i) =>
    p.ticks.forEach(({ collector, tick }, j) => {
      const items = byCollector.get(collector) ?? byCollector.set(collector, []).get(collector)!
      items.push({ i, j, tick })
    }),
  )
  const results = batch.map((p) => new Array<WriteResult>(p.ticks.length))
  await Promise.all(
    [...byCollector].map(async ([collector, items]) => {
      let written: WriteResult[]
      if (collector.writeBatch) {
        written = await collector.writeBatch(tx, items.map(({ i, tick }) => ({ at: batch[i]!.at, tick })))
      } else {
        written = []
        for (const { i, tick } of items) written.push(await collector.write(tx, batch[i]!.at, tick))
      }
      items.forEach(({ i, j }, n) => (results[i]![j] = written[n]!))
    }),
  )
  return batch.map((p, i) => outcomeOf(p.ticks.map(({ collector }, j) => ({ collector, r: results[i]![j]! }))))
}

/** What one capture's ticks wrote. */
function outcomeOf(results: { collector: AnyCollector; r: WriteResult }[]): Outcome {
  const written: Record<string, number> = {}
  const changed = new Set<Dataset>()
  let added = false
  for (const { collector, r } of results) {
    for (const [k, n] of Object.entries(r.written)) {
      written[k] = (written[k] ?? 0) + n
      if (n > 0 && collector.changes[k]) changed.add(collector.changes[k]!)
    }
    // New rows of the capture's own (its tick, its player count, its war info); texts and a
    // frozen war's last sighting also move for a duplicate, as they do live.
    if (collector.name === 'full-status' ? r.unchanged?.tick === 0 : Object.values(r.written).some((n) => n > 0)) added = true
  }
  return { kind: added ? 'imported' : 'duplicate', written, changed: [...changed] }
}

/** The raw tables with rollups, by the counts that write them. */
const ROLLUP_SOURCES: [SourceTable, string, Dataset][] = [
  ['player_count_snapshots', 'upstreamRows', 'player-counts'],
  ['war_summary_snapshots', 'warSummary', 'war-summary'],
]

/**
 * The rollups, once, over the range of the captures imported or found stored (a run after
 * a kill refreshes what the killed one committed): Community's continuous aggregates by a
 * refresh of that range; the other editions' rollup tables by the service's own refresh.
 * Refreshed datasets are announced again: a process may have kept an answer computed from
 * the aggregates meanwhile.
 */
async function refreshOnce(db: ImportOptions['db'], range: { from: Date; to: Date }, rows: Record<string, number>, opts: ImportOptions): Promise<string[]> {
  const refreshed: string[] = []
  const datasets: Dataset[] = []
  try {
    if (db.info.edition === 'timescale') {
      for (const [table, , dataset] of ROLLUP_SOURCES) {
        if (await refreshWrittenRange(db.sql, db.info.edition, table, range.from, range.to)) {
          refreshed.push(table)
          datasets.push(dataset)
        }
      }
    } else {
      await refreshRollups(db.sql, db.info.edition)
      refreshed.push('rollups')
      datasets.push(...ROLLUP_SOURCES.filter(([, count]) => (rows[count] ?? 0) > 0).map(([, , d]) => d))
    }
    await announce(db.sql, datasets)
    opts.versions?.bump(datasets)
  } catch (err) {
    // The rows are committed; the service's refresh (or Community's policies) catch up.
    opts.log?.warn('import: rollup refresh failed; the next scheduled refresh covers it', { error: errorText(err) })
  }
  return refreshed
}
