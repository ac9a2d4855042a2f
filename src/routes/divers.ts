/** /divers/history: the player-count curve of the second game over a range, about 200 points. */
import { Elysia, t } from 'elysia'
import { Answers, jsonNoStore, JsonTemplate } from '../http/answers.ts'
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

/** The first row of each series (api, pcstore), kept per data version. */
const firstRowsOf = (answers: Answers, q: Store['playerCounts']) =>
  answers.get('divers/first-rows', ['player-counts'], () => Promise.all([q.firstRowAt('api'), q.firstRowAt('pcstore')]))

/** Where the window starts and how it is bucketed; for `all`, which series serves it. */
interface Window {
  source?: DiverSource
  from: Date
  bucketSeconds: number
}

/** The window of `range` at `to`. For `all` it needs the first row of each series (kept per data version). */
async function windowOf(answers: Answers, q: Store['playerCounts'], range: DiverRange, to: Date): Promise<Window> {
  let source: DiverSource | undefined
  let windowStart: Date
  if (range === 'all') {
    // The series that started first, over its whole history (ties: api).
    const [api, pcstore] = await firstRowsOf(answers, q)
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

/** The answer for `range` at `to`: kept per window and data version, `to` filled in per request. */
async function keptDiverHistory(answers: Answers, storage: Store, range: DiverRange, to: Date): Promise<string> {
  const q = storage.playerCounts
  const w = await windowOf(answers, q, range, to)
  const [answer, firstRows] = await Promise.all([
    answers.get(`divers/${range}/${w.from.getTime()}/${w.bucketSeconds}`, ['player-counts'], async () => {
      const history = await diverHistory(q, range, w, to)
      return { source: history.source, template: new JsonTemplate(history, ['to', 'coverage']) }
    }),
    firstRowsOf(answers, q),
  ])
  const first = answer.source === 'api' ? firstRows[0] : firstRows[1]
  return answer.template.render({ to, coverage: coverageOf(first, w.from, to) })
}

export const diverRoutes = (context: ReadContext) =>
  new Elysia({ name: 'routes/divers', detail: { tags: ['live'] } })
    .use(context)
    .get('/divers/history', async ({ query, storage, answers, now }) => jsonNoStore(await keptDiverHistory(answers, storage, query.range ?? '24h', now())), {
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
