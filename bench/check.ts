/**
 * Exact answers under load. While wrk loads a history route on the service, this checker
 * runs in the bench process:
 *
 * - ingest: every POST_EVERY_MS it advances the simulator's war (WAR_STEP_S of war time,
 *   one simulator step) and POSTs the collectors to the real service (`player-count`, plus
 *   `full-status` for planet history), so that rows land in the database during the load.
 *   Only these POSTs write (the service runs with SCHEDULE_ENABLED=false). The service's
 *   feed cache keeps a war status for 15 s (fresh for 14 s), so a POST sees a new war time,
 *   and writes a row, only about every 14 s; each POST's summary says what it wrote, and the
 *   report counts it. The cadence is 2.1 s rather than 2 s so that in one 15 s run the
 *   POST at 14.7 s falls after the 14 s freshness window of the first one. A target
 *   route's load runs in 5 s slices (bench/load.ts), each with its own check (POSTs at 0,
 *   2.1 and 4.2 s of it); its three slices span ~30 s of wall time with the ceiling's runs
 *   between them, so about two of its POSTs see a new war time.
 * - samples: every SAMPLE_EVERY_MS it GETs the route itself from the service, computes the
 *   raw answer for that answer's own `to` (bench/baseline.ts) and compares the two.
 *
 * A sample is ambiguous, and skipped (counted), when a POST that wrote rows (or whose
 * outcome is unknown) overlapped [request start - SLACK_MS, end of the raw computation +
 * SLACK_MS]: its commit may fall between the service's answer and the raw computation
 * (the raw `current` reads the latest row at any time, and a row is stamped with the
 * time its feed answer was fetched, up to 14 s earlier). Otherwise the answers must be
 * equal: a difference is a mismatch, and the run fails (exit code 3).
 *
 * During each of the ceiling's runs of the same route, the same sampling runs against the
 * ceiling without comparing ("shadow"), so that both sides of the ratio share the cores
 * with the same raw computations; the ingest POSTs run only during the service's runs.
 */
import type { Sql } from '../src/db/connect.ts'
import { diversFromRaw, firstDifference, pageFromRaw, planetFromRaw, type PageSeries } from './baseline.ts'

export const POST_EVERY_MS = 2100
export const SAMPLE_EVERY_MS = 250
export const SLACK_MS = 100
/** War time per ingest step: one simulator step (war time moves in 10-second steps). */
export const WAR_STEP_S = 10

export type CheckSpec =
  | { kind: 'divers'; range: string }
  | { kind: 'planet'; warId: number; planetIndex: number; hours: number }
  | { kind: 'page'; series: PageSeries }

export interface CheckerDeps {
  /** The bench database (raw computations). */
  sql: Sql
  /** The service, for the ingest POSTs. */
  serviceBase: string
  secret: string
  /** Moves the in-process simulator's war by `seconds`. */
  advanceWar: (seconds: number) => void
}

interface Post {
  collector: string
  start: number
  end: number
  /** Rows written by dataset; null when the POST failed or its answer could not be read (treated as a writer). */
  written: Record<string, number> | null
  status: number
}

interface Sample {
  start: number
  end: number
  /** null: equal; otherwise the first difference. */
  diff: string | null
  /** The sample's request or raw computation failed: nothing to compare. */
  error: string | null
  rawMs: number
}

export interface CheckTally {
  /** Samples compared with the raw answer and equal. */
  equal: number
  /** Samples overlapping a writing POST: not compared. */
  skipped: number
  mismatched: number
  /** Samples whose request (a non-200 answer) or raw computation failed: not compared. */
  failed: number
  /** The first mismatch: which sample, and the first difference. */
  firstMismatch: string | null
  /** The distinct errors of failed samples (at most 5). */
  errors: string[]
  /** POSTs per collector, and how many wrote rows. */
  posts: { collector: string; posts: number; wrote: number; failed: number }[]
  /** Rows written by the ingest POSTs during the run, by dataset. */
  rowsWritten: Record<string, number>
  /** Raw computations (ms): their share of the run is the checker's load on the database. */
  rawMsTotal: number
  samples: number
  durationMs: number
}

export interface RunningCheck {
  stop(): Promise<CheckTally>
}

const sleepUntil = async (t: number, running: () => boolean) => {
  while (running() && performance.now() < t) await Bun.sleep(Math.min(50, Math.max(1, t - performance.now())))
}

/**
 * The difference between a sampled answer and the raw one, null when equal. The history
 * answers carry their `to`; a page does not: its window ends at the moment the service
 * handled it, somewhere between the request's start and its answer, so it must equal the
 * raw page at one of the two (they differ only when a row crossed the window's start in
 * those few milliseconds).
 */
export async function compareWithRaw(sql: Sql, spec: CheckSpec, answer: Record<string, unknown>, requested: Date, answered: Date): Promise<string | null> {
  if (spec.kind !== 'page') {
    const to = new Date(String(answer.to))
    const raw = spec.kind === 'divers' ? await diversFromRaw(sql, spec.range, to) : await planetFromRaw(sql, spec.warId, spec.planetIndex, spec.hours, to)
    return firstDifference(answer, raw)
  }
  const got = { totalResults: answer.totalResults, timestamps: (answer.items as { timestamp: string }[]).map((i) => i.timestamp) }
  const limit = Number(answer.limit)
  const diff = firstDifference(got, await pageFromRaw(sql, spec.series, requested, limit))
  return diff && firstDifference(got, await pageFromRaw(sql, spec.series, answered, limit)) && diff
}

/**
 * Start checking `path` on `base`. `compare` false: the shadow run against the ceiling
 * (same sampling and raw computations, nothing compared, no ingest).
 */
export function startCheck(deps: CheckerDeps, spec: CheckSpec, base: string, path: string, compare: boolean): RunningCheck {
  let running = true
  const started = performance.now()
  const posts: Post[] = []
  const samples: Sample[] = []
  const planets = spec.kind === 'planet' || (spec.kind === 'page' && spec.series.table === 'planet_status_snapshots')
  const collectors = planets ? ['player-count', 'full-status'] : ['player-count']

  const ingest = async () => {
    for (let k = 0; running; k++) {
      deps.advanceWar(WAR_STEP_S)
      for (const collector of collectors) {
        const post: Post = { collector, start: performance.now(), end: 0, written: null, status: 0 }
        posts.push(post)
        try {
          const res = await fetch(`${deps.serviceBase}/api/v1/collect/${collector}`, { method: 'POST', headers: { 'x-collector-secret': deps.secret } })
          post.status = res.status
          const body = (await res.json()) as { written?: Record<string, number> }
          if (res.status === 200 && body.written) post.written = body.written
        } catch {
          // An unreadable answer: the POST may have written; post.written stays null.
        }
        post.end = performance.now()
      }
      await sleepUntil(started + (k + 1) * POST_EVERY_MS, () => running)
    }
  }

  const sample = async () => {
    for (let k = 0; running; k++) {
      const t0 = performance.now()
      let diff: string | null = null
      let error: string | null = null
      let rawMs = 0
      try {
        const requested = new Date()
        const res = await fetch(base + path)
        const text = await res.text()
        const answered = new Date()
        if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text.slice(0, 200)}`)
        const r0 = performance.now()
        const d = await compareWithRaw(deps.sql, spec, JSON.parse(text) as Record<string, unknown>, requested, answered)
        rawMs = performance.now() - r0
        if (compare) diff = d
      } catch (err) {
        error = err instanceof Error ? err.message : String(err)
      }
      samples.push({ start: t0, end: performance.now(), diff, error, rawMs })
      await sleepUntil(t0 + SAMPLE_EVERY_MS, () => running)
    }
  }

  const loops = Promise.all([compare ? ingest() : Promise.resolve(), sample()])
  return {
    async stop() {
      running = false
      await loops
      const writers = posts.filter((p) => p.written === null || Object.values(p.written).some((v) => v > 0))
      let equal = 0
      let skipped = 0
      let mismatched = 0
      let firstMismatch: string | null = null
      if (compare) {
        for (const s of samples) {
          const ambiguous = writers.some((p) => p.start <= s.end + SLACK_MS && p.end >= s.start - SLACK_MS)
          if (s.error !== null) continue
          if (ambiguous) skipped++
          else if (s.diff === null) equal++
          else {
            mismatched++
            firstMismatch ??= `${path}, sample at ${((s.start - started) / 1000).toFixed(2)} s: ${s.diff}`
          }
        }
      }
      const rowsWritten: Record<string, number> = {}
      for (const p of posts) for (const [k, v] of Object.entries(p.written ?? {})) rowsWritten[k] = (rowsWritten[k] ?? 0) + v
      return {
        equal,
        skipped,
        mismatched,
        failed: samples.filter((s) => s.error !== null).length,
        firstMismatch,
        errors: [...new Set(samples.flatMap((s) => (s.error === null ? [] : [s.error])))].slice(0, 5),
        posts: collectors.map((collector) => {
          const mine = posts.filter((p) => p.collector === collector)
          return {
            collector,
            posts: mine.length,
            wrote: mine.filter((p) => p.written !== null && Object.values(p.written).some((v) => v > 0)).length,
            failed: mine.filter((p) => p.written === null).length,
          }
        }),
        rowsWritten,
        rawMsTotal: samples.reduce((a, s) => a + s.rawMs, 0),
        samples: samples.length,
        durationMs: performance.now() - started,
      }
    },
  }
}

/** One tally of several checks of a route (its slices of load, bench/load.ts). */
export function mergeTallies(tallies: CheckTally[]): CheckTally {
  const sum = (pick: (t: CheckTally) => number) => tallies.reduce((a, t) => a + pick(t), 0)
  const posts = new Map<string, CheckTally['posts'][number]>()
  const rowsWritten: Record<string, number> = {}
  for (const t of tallies) {
    for (const p of t.posts) {
      const seen = posts.get(p.collector) ?? { collector: p.collector, posts: 0, wrote: 0, failed: 0 }
      posts.set(p.collector, { collector: p.collector, posts: seen.posts + p.posts, wrote: seen.wrote + p.wrote, failed: seen.failed + p.failed })
    }
    for (const [k, v] of Object.entries(t.rowsWritten)) rowsWritten[k] = (rowsWritten[k] ?? 0) + v
  }
  return {
    equal: sum((t) => t.equal),
    skipped: sum((t) => t.skipped),
    mismatched: sum((t) => t.mismatched),
    failed: sum((t) => t.failed),
    firstMismatch: tallies.find((t) => t.firstMismatch !== null)?.firstMismatch ?? null,
    errors: [...new Set(tallies.flatMap((t) => t.errors))].slice(0, 5),
    posts: [...posts.values()],
    rowsWritten,
    rawMsTotal: sum((t) => t.rawMsTotal),
    samples: sum((t) => t.samples),
    durationMs: sum((t) => t.durationMs),
  }
}
