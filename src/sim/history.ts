/**
 * The demo's history (`npm run demo`, docs/operations.md "Demo and simulator"): the
 * simulated war fast-forwarded over the days before `end`, written as a live service on a
 * fixed cadence would have written it, so the demo starts mid-war with every range of
 * every chart full and every trend known; then the same world goes on live from `end`.
 *
 * What is written, each at the time a live collection would have written it, through the
 * live write paths:
 * - full-status captures (the status, summary, assignments and newsfeed as the simulated
 *   upstream serves them, the war info with the first and the last), on DEMO_CADENCE:
 *   written by the importer (`importCaptures`: the full-status tick and the upstream
 *   player-count row of each, rollups refreshed once at the end);
 * - player-count ticks, each with the pcstore counts (due at each: live, they are due
 *   every 10 minutes, and these are 30 minutes or more apart) and its upstream row: the
 *   player-count collector's own `map` and `write`, in batches, committed before the
 *   importer's refresh;
 * - the texts of the other FEED_LANGUAGES (orders and dispatches), at the capture that
 *   first lists each, as the full-status tick carries them (`textRows`), through the same
 *   storage writes.
 * Not written: planet statistics (the community feed's per-planet counters: no chart reads
 * them) and the war info between the first and the last capture (its rows hold the
 * current state only).
 *
 * The world's clock: held at `end` while the history is written (the fast-forward moves it
 * with `advance`, a simulated second per second of history, whatever the speed), then it
 * follows the wall clock at the simulator's speed from where the history ended, so the
 * first live tick continues the war (a later war time) and never repeats a stored one.
 */
import { randomUUID } from 'node:crypto'
import type { Tick } from '../collect/collector.ts'
import { textRows, type LanguagePayloads } from '../collect/languages.ts'
import { playerCount } from '../collect/player-count.ts'
import { DEFAULT_FEED_LANGUAGES } from '../config.ts'
import type { Sql } from '../db/connect.ts'
import type { Edition } from '../db/edition.ts'
import { PCSTORE_APP_IDS, type PcstoreCounts } from '../feeds/pcstore.ts'
import type { Fetched } from '../feeds/throttle.ts'
import type { Assignment, NewsItem, WarStatus } from '../feeds/upstream.ts'
import { importCaptures, type ImportSummary } from '../import/importer.ts'
import type { CaptureSource, SourceItem } from '../import/sources.ts'
import type { Logger } from '../log.ts'
import { announce, type DataVersions, type Dataset } from '../storage/changes.ts'
import * as coverage from '../storage/coverage.ts'
import * as texts from '../storage/texts.ts'
import { languageOf } from './languages.ts'
import { World } from './world.ts'

/** A cadence within the last `lastS` seconds before `end` (Infinity: the whole history). */
export interface Tier {
  lastS: number
  everyS: number
}

/**
 * When the history's rows are written: each series on the union of its tiers, every time
 * on its cadence's UTC grid (as cron fires); full-status also at the history's first and
 * last moment.
 */
export interface HistoryCadence {
  fullStatus: Tier[]
  /** Player-count ticks, each with the pcstore counts. */
  playerCount: Tier[]
}

const DAY_S = 86_400

/**
 * The demo's cadence, chosen for its first look and for a start within 30 s on the
 * embedded database (docs/operations.md), whose writes bound it: 842 full-status captures
 * for 30 days (hourly: a point every hour on the planet charts of 7 and 30 days; every 10
 * minutes over the last day: every 10-minute bucket of the 24h diver history, the raw
 * ticks of the planets' 24 h) and 912 player-count ticks (hourly, which gives the pcstore
 * series of the 90d range; every 30 minutes over the last 8 days, so every 55-minute
 * bucket of the 7d diver history, its first one included, holds upstream rows).
 */
export const DEMO_CADENCE: HistoryCadence = {
  fullStatus: [{ lastS: Infinity, everyS: 3600 }, { lastS: DAY_S, everyS: 600 }],
  playerCount: [{ lastS: Infinity, everyS: 3600 }, { lastS: 8 * DAY_S, everyS: 1800 }],
}
export const DEMO_HISTORY_DAYS = 30

/** A cadence in words: `every 1 h, every 10 min in the last 24 h`. */
export function cadenceText(tiers: Tier[]): string {
  const span = (s: number) => (s % 3600 === 0 ? `${s / 3600} h` : s % 60 === 0 ? `${s / 60} min` : `${s} s`)
  return [...tiers]
    .sort((a, b) => b.lastS - a.lastS)
    .map((t) => `every ${span(t.everyS)}${Number.isFinite(t.lastS) ? ` in the last ${t.lastS % DAY_S === 0 && t.lastS > DAY_S ? `${t.lastS / DAY_S} d` : span(t.lastS)}` : ''}`)
    .join(', ')
}

export interface DemoHistoryOptions {
  db: { sql: Sql; info: { edition: Edition } }
  /** When the history ends: the demo's start. The world's war is at `days` of history then. */
  end: Date
  /** Days of history (default 30); may be fractional. */
  days?: number
  seed?: number
  /** The simulator's speed from `end` on (the history itself runs at 1). */
  speed?: number
  /** Default DEMO_CADENCE. */
  cadence?: HistoryCadence
  /** The service's FEED_LANGUAGES, primary first (the texts it would have collected). */
  languages?: readonly string[]
  /** The wall clock the world follows once the history is written (tests inject one). Default Date.now. */
  now?: () => number
  /** Captures per import transaction (the importer's default otherwise). */
  batchSize?: number
  versions?: DataVersions
  log?: Logger
  /** Progress of the fast-forward: captures written so far of all, and those simulated (read ahead of the writes). */
  onProgress?: (p: { captures: number; simulated: number; total: number; elapsedMs: number }) => void
}

export interface DemoHistorySummary {
  from: string
  to: string
  warId: number
  /** War times of the first and the last capture. */
  warTimes: [number, number]
  captures: number
  playerCountTicks: number
  /** Rows written by the player-count ticks (upstream rows beside the captures', pcstore rows of both games). */
  playerCountRows: { upstreamRows: number; pcstoreRows: number }
  /** Texts of the other languages written (orders, dispatches). */
  texts: { majorOrderTexts: number; dispatchTexts: number }
  import: ImportSummary
  /** Wall time of the whole seeding; of it, the simulator's stepping and rendering, and the player-count ticks' writes. */
  durationMs: number
  simulationMs: number
  playerCountMs: number
}

export interface DemoHistory {
  /** The world at `end` and after: hand it to `startSimulator({ world })`. */
  world: World
  summary: DemoHistorySummary
}

type PlayerCountRows = ReturnType<typeof playerCount.map>['rows']

/** Player-count ticks per transaction. */
const TICKS_PER_BATCH = 500

/** Every multiple of `stepS` seconds (UTC) in [fromMs, toMs]. */
function grid(fromMs: number, toMs: number, stepS: number): number[] {
  const step = stepS * 1000
  const out: number[] = []
  for (let t = Math.ceil(fromMs / step) * step; t <= toMs; t += step) out.push(t)
  return out
}

const onTiers = (tiers: Tier[], startMs: number, endMs: number) =>
  tiers.flatMap((tier) => grid(Math.max(startMs, endMs - tier.lastS * 1000), endMs, tier.everyS))

/** The times of the history's writes in [startMs, endMs], oldest first, and what is written at each. */
export function historyTimes(startMs: number, endMs: number, cadence: HistoryCadence): { at: number; fullStatus: boolean; playerCount: boolean }[] {
  const full = new Set([startMs, ...onTiers(cadence.fullStatus, startMs, endMs), endMs])
  const counts = new Set(onTiers(cadence.playerCount, startMs, endMs))
  return [...new Set([...full, ...counts])].sort((a, b) => a - b).map((at) => ({ at, fullStatus: full.has(at), playerCount: counts.has(at) }))
}

/** The datasets that already hold captures (/health/ready's spans): a history is only written into a database with none. */
export async function storedDatasets(sql: Sql): Promise<string[]> {
  const spans = await coverage.reads.spans(sql)
  return Object.entries(spans).filter(([, span]) => span.oldest !== null).map(([name]) => name)
}

const fetched = <T>(data: T, at: Date): Fetched<T> => ({ data, fetchedAt: at, fromCache: false, stale: false, drift: { missing: [], unknown: [] } })

/**
 * Write the history of the `days` before `end` into the database and return the world at
 * `end`, its clock following the wall clock from there. The database should hold nothing
 * of the simulated war yet (the demo's is new): stored war times would be passed over.
 */
export async function seedDemoHistory(opts: DemoHistoryOptions): Promise<DemoHistory> {
  const t0 = performance.now()
  const { db } = opts
  const cadence = opts.cadence ?? DEMO_CADENCE
  const days = opts.days ?? DEMO_HISTORY_DAYS
  const endMs = opts.end.getTime()
  const startMs = endMs - Math.round(days * 86_400_000)
  const wall = opts.now ?? Date.now
  const languages = opts.languages?.length ? opts.languages : DEFAULT_FEED_LANGUAGES
  const primary = languages[0]!
  const others = languages.slice(1)

  // Held at `end` until the history is written; then the wall clock, never before `end`.
  let held = true
  const world = new World({
    seed: opts.seed ?? 1, speed: opts.speed ?? 1, now: () => (held ? endMs : Math.max(endMs, wall())), liveAfterS: (endMs - startMs) / 1000,
  })
  const warId = world.currentWarId
  const times = historyTimes(startMs, endMs, cadence)
  const total = times.filter((t) => t.fullStatus).length

  let simulationMs = 0
  let clockS = 0
  const moveTo = (at: number) => {
    const s = (at - startMs) / 1000
    if (s > clockS) world.advance(s - clockS)
    clockS = s
  }

  // Player-count ticks, written in batches as the fast-forward goes (before the importer's refresh).
  let pending: Tick<PlayerCountRows>[] = []
  const countRows = { upstreamRows: 0, pcstoreRows: 0 }
  let ticks = 0
  let playerCountMs = 0
  // Queued, not awaited, while the fast-forward goes on: the one connection runs the writes
  // in the order they were asked for, and the simulation does not wait for the importer's
  // transaction before them.
  const flushes: Promise<void>[] = []
  let flushFailed: unknown = null
  const queueFlush = () => {
    if (!pending.length) return
    const write = flush(pending)
    pending = []
    write.catch((err: unknown) => {
      flushFailed ??= err
    })
    flushes.push(write)
  }
  const flush = async (batch: Tick<PlayerCountRows>[]) => {
    const f0 = performance.now()
    const changed = new Set<Dataset>()
    await db.sql.begin(async (tx) => {
      // The live runner's lock: never at once with a live tick of this collector.
      await tx`SELECT pg_advisory_xact_lock(hashtext(${`collector:${playerCount.name}`}))`
      for (const tick of batch) {
        const r = await playerCount.write(tx, new Date(tick.capturedAt), tick)
        for (const [k, n] of Object.entries(r.written)) {
          if (k in countRows) countRows[k as keyof typeof countRows] += n
          if (n > 0 && playerCount.changes[k]) changed.add(playerCount.changes[k]!)
        }
      }
      await announce(tx, [...changed])
    })
    opts.versions?.bump(changed)
    playerCountMs += performance.now() - f0
  }

  // The other languages' texts, at the capture that first lists each item (as textRows gives them).
  const storedTexts = new Map<string, Set<number>>(others.map((l) => [l, new Set<number>()]))
  const seenOrders = new Map<string, Set<number>>(others.map((l) => [l, new Set<number>()]))
  const textBatches: { at: Date; orders: texts.OrderTextInput[]; dispatches: texts.DispatchTextInput[] }[] = []
  let lastNewsId = -1
  let knownOrders = new Set<number>()

  let firstWarTime = 0
  let lastWarTime = 0
  let captures = 0
  let stored = 0
  const report = opts.onProgress
  const source: CaptureSource = {
    label: `the simulated war ${warId} (seed ${world.seed}), ${days} days before ${opts.end.toISOString()}`,
    total,
    readFraction: () => null,
    close: async () => {},
    async *items(): AsyncGenerator<SourceItem> {
      for (const { at, fullStatus, playerCount: counted } of times) {
        const s0 = performance.now()
        moveTo(at)
        const when = new Date(at)
        const war = world.current()
        if (counted) {
          const pcstore: PcstoreCounts = {
            game1: world.pcstorePlayers(PCSTORE_APP_IDS.game1) ?? null,
            game2: world.pcstorePlayers(PCSTORE_APP_IDS.game2) ?? null,
            fetchedAt: { game1: when, game2: when },
            drift: { missing: [], unknown: [] },
          }
          const { rows } = playerCount.map({ status: fetched(war.status(), when), pcstore }, { warId, now: when })
          pending.push({ id: randomUUID(), collector: playerCount.name, warId, capturedAt: when.toISOString(), rows })
          ticks++
        }
        if (!fullStatus) {
          simulationMs += performance.now() - s0
          continue
        }
        const status: WarStatus = war.status()
        const assignments = war.assignments(languageOf(primary))
        const newsfeed = war.newsfeed({ maxEntries: 1024, fromTimestamp: 1000, withMessage: true, language: languageOf(primary) })
        collectTexts(war, when, assignments, newsfeed)
        const first = captures === 0
        const last = at === endMs
        if (first) firstWarTime = status.time
        lastWarTime = status.time
        captures++
        const capture = {
          ref: `capture ${captures} (${when.toISOString()})`,
          capturedAt: when,
          warId,
          parts: { status, summary: war.summary(), assignments, newsfeed, ...(first || last ? { warInfo: war.warInfo() } : {}) },
        }
        simulationMs += performance.now() - s0
        if (flushFailed) throw flushFailed
        if (pending.length >= TICKS_PER_BATCH) queueFlush()
        report?.({ captures: stored, simulated: captures, total, elapsedMs: performance.now() - t0 })
        yield { ref: capture.ref, capture }
      }
      queueFlush()
      await Promise.all(flushes)
    },
  }

  function collectTexts(war: ReturnType<World['current']>, at: Date, orders: Assignment[], news: NewsItem[]) {
    if (!others.length) return
    const newestNews = news.at(-1)?.id ?? -1
    const newOrders = orders.some((o) => !knownOrders.has(o.id32))
    if (newestNews <= lastNewsId && !newOrders) return
    const fetchedOthers: LanguagePayloads['fetched'] = others.map((language) => ({
      language,
      assignments: war.assignments(languageOf(language)),
      news: war.newsfeed({ maxEntries: 1024, fromTimestamp: 1000, withMessage: true, language: languageOf(language) }).filter((n) => n.id > lastNewsId),
    }))
    const rows = textRows(primary, orders, news, { fetched: fetchedOthers, stored: storedTexts })
    for (const d of rows.dispatches) storedTexts.get(d.lang)?.add(d.dispatch_id)
    // An order's texts do not change in the simulated war: stored at its first sighting, later upserts change nothing.
    const orderTexts = rows.orders.filter((o) => {
      const seen = seenOrders.get(o.lang)!
      if (seen.has(o.order_id32)) return false
      seen.add(o.order_id32)
      return true
    })
    if (orderTexts.length || rows.dispatches.length) textBatches.push({ at, orders: orderTexts, dispatches: rows.dispatches })
    lastNewsId = Math.max(lastNewsId, newestNews)
    knownOrders = new Set(orders.map((o) => o.id32))
  }

  const imported = await importCaptures({
    db, source, warId, language: primary, batchSize: opts.batchSize, versions: opts.versions, log: opts.log,
    onProgress: (p) => {
      stored = p.done
      report?.({ captures: stored, simulated: captures, total, elapsedMs: performance.now() - t0 })
    },
  })
  if (imported.skipped > 0) throw new Error(`demo history: ${imported.skipped} captures skipped: ${JSON.stringify(imported.skippedCaptures.slice(0, 3))}`)

  const written = { majorOrderTexts: 0, dispatchTexts: 0 }
  if (textBatches.length) {
    await db.sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(hashtext('collector:full-status'))`
      for (const b of textBatches) {
        written.majorOrderTexts += await texts.upsertOrderTexts(tx, b.at, b.orders)
        written.dispatchTexts += await texts.insertDispatchTexts(tx, b.at, warId, b.dispatches)
      }
      await announce(tx, ['major-orders', 'dispatches'])
    })
    opts.versions?.bump(['major-orders', 'dispatches'])
  }

  held = false
  return {
    world,
    summary: {
      from: new Date(startMs).toISOString(),
      to: opts.end.toISOString(),
      warId,
      warTimes: [firstWarTime, lastWarTime],
      captures,
      playerCountTicks: ticks,
      playerCountRows: countRows,
      texts: written,
      import: imported,
      durationMs: Math.round(performance.now() - t0),
      simulationMs: Math.round(simulationMs),
      playerCountMs: Math.round(playerCountMs),
    },
  }
}
