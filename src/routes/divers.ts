/** /divers/history: the player-count curve of the second game over a range, about 200 points. */
import { Elysia, t } from 'elysia'
import { Answers, jsonNoStore, jsonTime, JsonTemplate } from '../http/answers.ts'
import { errorResponses } from '../http/errors.ts'
import type { Store } from '../storage/index.ts'
import { Timestamp } from '../storage/model.ts'
import type { DiverSource } from '../storage/player-counts.ts'
import { PLAYER_COUNT_ROLLUPS, timeBucket } from '../storage/rollups.ts'
import type { ReadContext } from './context.ts'

/** Span of each fixed range, in seconds. */
export const RANGE_SECONDS = { '24h': 86_400, '7d': 7 * 86_400, '30d': 30 * 86_400, '90d': 90 * 86_400 } as const
export type DiverRange = keyof typeof RANGE_SECONDS | 'all'
const RangeSchema = (opts: { description: string; error?: string }) =>
  t.Union([t.Literal('24h'), t.Literal('7d'), t.Literal('30d'), t.Literal('90d'), t.Literal('all')], opts)

/**
 * Bucket width for a span: the smallest multiple of 300 s giving at most 200 buckets,
 * rounded up to whole hours from an hour on and to whole days from a day on, so it is
 * always a multiple of a rollup level.
 */
export function bucketSecondsFor(spanS: number): number {
  let w = Math.max(300, Math.ceil(spanS / (200 * 300)) * 300)
  if (w >= 3600) w = Math.ceil(w / 3600) * 3600
  if (w >= 86_400) w = Math.ceil(w / 86_400) * 86_400
  return w
}

/** Index (in PLAYER_COUNT_ROLLUPS) of the coarsest rollup whose width divides `widthS`. */
export function rollupLevelFor(widthS: number): number {
  for (let i = PLAYER_COUNT_ROLLUPS.length - 1; i > 0; i--) if (widthS % PLAYER_COUNT_ROLLUPS[i]!.seconds === 0) return i
  return 0
}

const Extreme = (description: string) =>
  t.Union([t.Object({ value: t.Integer(), at: Timestamp('Time of the first raw row with that value in the window') }), t.Null()], { description })

const DiverHistory = t.Object({
  range: RangeSchema({ description: 'The requested range' }),
  source: t.Union([t.Literal('api'), t.Literal('pcstore')], {
    description: 'api: upstream cross-platform total (15 s cadence); pcstore: PC store total (10 min cadence)',
  }),
  bucketSeconds: t.Integer({ description: 'Width of one bucket' }),
  from: Timestamp('Start of the first bucket (window start aligned with time_bucket)'),
  to: Timestamp('End of the window (now)'),
  points: t.Array(t.Object({ t: Timestamp('Bucket start'), v: t.Integer({ description: 'Average over the bucket, rounded' }) }), {
    description: 'Buckets with data, oldest first',
  }),
  stats: t.Object({
    current: t.Union([t.Integer(), t.Null()], { description: 'Latest raw value of the source (any time); null without history' }),
    peak: Extreme('Highest raw value in the window; null without data'),
    low: Extreme('Lowest raw value in the window; null without data'),
    avg: t.Union([t.Integer(), t.Null()], { description: 'Average of the raw values in the window, rounded; null without data' }),
  }),
  coverage: t.Number({
    minimum: 0,
    maximum: 1,
    description: "Share of the window [from, to] from the chosen series' first row on (1: it spans the whole window; 0: it has no rows). Gaps inside are not subtracted.",
  }),
})

/** Ranges short enough for the 15-second upstream series whenever it has rows in them (spec: "upstream for short windows"). */
const SHORT_RANGES: readonly DiverRange[] = ['24h', '7d']

/**
 * Which series serves a fixed range. Short ranges: api whenever it has a row in the
 * window; long ranges: api when it covers the window start (its first bucket). Otherwise
 * pcstore when it has a row in the window, else api.
 */
async function sourceForWindow(q: Store['playerCounts'], range: DiverRange, from: Date, widthS: number, to: Date): Promise<DiverSource> {
  if (SHORT_RANGES.includes(range) ? await q.hasRowIn('api', from, to) : await q.hasRowAtOrBefore('api', new Date(from.getTime() + widthS * 1000))) return 'api'
  return (await q.hasRowIn('pcstore', from, to)) ? 'pcstore' : 'api'
}

/** Share of [from, to] after the series' first row (0 without rows), rounded to 4 digits. */
export function coverageOf(first: Date | null, from: Date, to: Date): number {
  const span = to.getTime() - from.getTime()
  if (first === null || first > to) return 0
  if (span <= 0) return 1
  return Math.round(Math.min(1, (to.getTime() - Math.max(from.getTime(), first.getTime())) / span) * 10_000) / 10_000
}

type FirstRows = [api: Date | null, pcstore: Date | null]
const FIRST_ROWS = 'divers/first-rows'

/** The first row of each series (api, pcstore), kept per data version. */
const firstRowsOf = (answers: Answers, q: Store['playerCounts']): Promise<FirstRows> =>
  answers.get(FIRST_ROWS, ['player-counts'], () => Promise.all([q.firstRowAt('api'), q.firstRowAt('pcstore')]))

/** Where the window starts and how it is bucketed; for `all`, which series serves it. */
interface Window {
  source?: DiverSource
  from: Date
  bucketSeconds: number
}

/** The window of `range` at `to`. For `all` it starts at the first row of the series that started first. */
function windowOf(range: DiverRange, to: Date, [api, pcstore]: FirstRows): Window {
  let source: DiverSource | undefined
  let windowStart: Date
  if (range === 'all') {
    // The series that started first, over its whole history (ties: api).
    source = api && (!pcstore || api <= pcstore) ? 'api' : pcstore ? 'pcstore' : 'api'
    windowStart = (source === 'api' ? api : pcstore) ?? to
  } else windowStart = new Date(to.getTime() - RANGE_SECONDS[range] * 1000)
  const bucketSeconds = bucketSecondsFor(Math.max(0, (to.getTime() - windowStart.getTime()) / 1000))
  return { source, from: timeBucket(bucketSeconds, windowStart), bucketSeconds }
}

/**
 * The diver history of `range` for a window, from the stored rows, as of `to`. Within one
 * window (same start and width) nothing of it but `to` changes until rows are written.
 */
export async function diverHistory(q: Store['playerCounts'], range: DiverRange, w: Window, to: Date) {
  const { from, bucketSeconds } = w
  const source = w.source ?? (await sourceForWindow(q, range, from, bucketSeconds, to))
  const level = rollupLevelFor(bucketSeconds)
  const [rows, current] = await Promise.all([q.buckets(source, level, bucketSeconds, from, to), q.latestValue(source)])
  let stats = { current, peak: null as { value: number; at: Date } | null, low: null as { value: number; at: Date } | null, avg: null as number | null }
  if (rows.length > 0) {
    let max = -Infinity, min = Infinity, sum = 0, n = 0
    for (const r of rows) {
      max = Math.max(max, r.max)
      min = Math.min(min, r.min)
      sum += r.sum
      n += r.n
    }
    const [maxAt, minAt] = await Promise.all([
      q.firstTimeOf(source, 'max', max, level, from, to),
      q.firstTimeOf(source, 'min', min, level, from, to),
    ])
    stats = {
      current,
      peak: maxAt ? { value: max, at: maxAt } : null,
      low: minAt ? { value: min, at: minAt } : null,
      avg: Math.round(sum / n),
    }
  }
  return {
    range,
    source,
    bucketSeconds,
    from,
    to,
    points: rows.map((r) => ({ t: r.t, v: r.v })),
    stats,
    coverage: 0,
  }
}

interface KeptHistory {
  source: DiverSource
  template: JsonTemplate<'to' | 'coverage'>
}

const historyKey = (range: DiverRange, w: Window) => `divers/${range}/${w.from.getTime()}/${w.bucketSeconds}`

/**
 * The answer for `range` at `to`: kept per window and data version, `to` filled in per
 * request. When both the first rows and the window's answer are kept for the current
 * data (every request but the first after a write or a window move), at once.
 */
function keptDiverHistory(answers: Answers, storage: Store, range: DiverRange, to: Date): string | Promise<string> {
  const render = ({ source, template }: KeptHistory, w: Window, firstRows: FirstRows) =>
    template.renderJson({ to: jsonTime(to), coverage: JSON.stringify(coverageOf(source === 'api' ? firstRows[0] : firstRows[1], w.from, to)) })
  const firstRows = answers.kept<FirstRows>(FIRST_ROWS, ['player-counts'])
  if (firstRows) {
    const w = windowOf(range, to, firstRows)
    const answer = answers.kept<KeptHistory>(historyKey(range, w), ['player-counts'])
    if (answer) return render(answer, w, firstRows)
  }
  const q = storage.playerCounts
  return (async () => {
    const firstRows = await firstRowsOf(answers, q)
    const w = windowOf(range, to, firstRows)
    const answer = await answers.get<KeptHistory>(historyKey(range, w), ['player-counts'], async () => {
      const history = await diverHistory(q, range, w, to)
      return { source: history.source, template: new JsonTemplate(history, ['to', 'coverage']) }
    })
    return render(answer, w, firstRows)
  })()
}

export const diverRoutes = (context: ReadContext) =>
  new Elysia({ name: 'routes/divers', detail: { tags: ['live'] } })
    .use(context)
    .get('/divers/history', async ({ query, storage, answers, now }) => {
      // Awaited only when not kept (keptDiverHistory); Elysia needs an async handler to wait for a promise.
      const body = keptDiverHistory(answers, storage, query.range ?? '24h', now())
      return jsonNoStore(typeof body === 'string' ? body : await body)
    }, {
      query: t.Object({
        range: t.Optional(
          RangeSchema({
            description: 'Window: 24h, 7d, 30d, 90d or all (the whole history of the chosen source). Default 24h.',
            error: 'range must be one of 24h, 7d, 30d, 90d, all',
          }),
        ),
      }),
      response: { 200: DiverHistory, ...errorResponses },
      detail: {
        summary: 'Player-count history of the second game',
        description:
          'range: 24h, 7d, 30d, 90d or all (default 24h). About 100-200 averaged points over the range, from the best source: for 24h and 7d the upstream series (15 s) whenever it has rows in the window, for 30d and 90d when it covers the window start; else the PC store series (10 min); for all, the series that started first. coverage says how much of the window the chosen series spans. Stats (peak, low, avg) are exact over the raw rows of the window.',
      },
    })
