/**
 * The diver history: the player-count curve of the second game over a range, about 200
 * points, from the best series (the source rule), read from the rollup level that fits
 * the bucket width. Route: routes/divers.ts; SQL: storage/player-counts.ts.
 */
import type { Dataset } from '../storage/changes.ts'
import type { Store } from '../storage/index.ts'
import type { DiverSource, SeriesChoice } from '../storage/player-counts.ts'
import { PLAYER_COUNT_ROLLUPS, timeBucket } from '../storage/rollups.ts'
import { coverageOf } from '../war/data-age.ts'

/** Span of each fixed range, in seconds. */
export const RANGE_SECONDS = { '24h': 86_400, '7d': 7 * 86_400, '30d': 30 * 86_400, '90d': 90 * 86_400 } as const
export type DiverRange = keyof typeof RANGE_SECONDS | 'all'
export const DIVER_RANGES = ['24h', '7d', '30d', '90d', 'all'] as const satisfies readonly DiverRange[]

/** Ranges short enough for the 15-second upstream series whenever it has rows in them (spec: "upstream for short windows"). */
const SHORT_RANGES: readonly DiverRange[] = ['24h', '7d']

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

type FirstRows = [api: Date | null, pcstore: Date | null]

/** Where a service keeps an intermediate result per data version (the app's Keeper, http/keep.ts). */
export interface KeptValues {
  value<T>(key: string, datasets: readonly Dataset[], compute: () => Promise<T>): T | Promise<T>
}

/** Where a range's window starts and how it is bucketed; for `all`, which series serves it. */
export interface DiverWindow {
  source?: DiverSource
  from: Date
  bucketSeconds: number
}

/** The window of `range` at `to`. For `all` it starts at the first row of the series that started first. */
export function windowOf(range: DiverRange, to: Date, [api, pcstore]: FirstRows): DiverWindow {
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
 * The first row of the answer's series: what its coverage is measured from (not part of the
 * body). For a fixed range, its first raw row instead when that is at or before the window
 * start (the coverage is 1 either way).
 */
export const SERIES_START = Symbol('seriesStart')

export type DiverHistory = Awaited<ReturnType<DiverHistoryService['history']>>

export class DiverHistoryService {
  constructor(
    private readonly q: Store['playerCounts'],
    private readonly kept: KeptValues,
  ) {}

  /** The first row of each series (api, pcstore), kept per data version. */
  private firstRows(): FirstRows | Promise<FirstRows> {
    return this.kept.value('divers/first-rows', ['player-counts'], () => this.q.firstRowsAt())
  }

  /**
   * What identifies the answer of `range` at `to` for one data version: its window (start
   * and width). A fixed range's window needs no data; `all` starts at the first row.
   */
  windowKey(range: DiverRange, to: Date): string | Promise<string> {
    const key = (firstRows: FirstRows) => {
      const w = windowOf(range, to, firstRows)
      return `${w.from.getTime()}/${w.bucketSeconds}`
    }
    if (range !== 'all') return key([null, null])
    const firstRows = this.firstRows()
    return firstRows instanceof Promise ? firstRows.then(key) : key(firstRows)
  }

  /** The answer's coverage at `to`: it changes with every request while the series is younger than the window. */
  coverageAt(answer: { from: Date; [SERIES_START]: Date | null }, to: Date): number {
    return coverageOf(answer[SERIES_START], answer.from, to)
  }

  /**
   * Which series serves a fixed range. Short ranges: api whenever it has a row in the
   * window; long ranges: api when it covers the window start (its first bucket). Otherwise
   * pcstore when it has a row in the window, else api. Asked in the statement that reads
   * the history: one round trip whichever answers.
   */
  private seriesFor(range: DiverRange, from: Date, widthS: number, to: Date): SeriesChoice {
    const inWindow = { from, to }
    return {
      candidates: [
        { source: 'api', has: SHORT_RANGES.includes(range) ? inWindow : { atOrBefore: new Date(from.getTime() + widthS * 1000) } },
        { source: 'pcstore', has: inWindow },
      ],
      otherwise: 'api',
    }
  }

  /**
   * The diver history of `range` as of `to`, from the stored rows. A fixed range: one
   * statement (its series, figures and first row). `all`: the first rows (kept per data
   * version; the window's key reads them too), then one statement.
   */
  async history(range: DiverRange, to: Date) {
    // A fixed range's window needs no data; `all` starts at the first row of the series that started first.
    const firstRows = range === 'all' ? await this.firstRows() : null
    const { from, bucketSeconds, source: allSource } = windowOf(range, to, firstRows ?? [null, null])
    const level = rollupLevelFor(bucketSeconds)
    const figures = allSource
      ? await this.q.diverHistory({ source: allSource }, level, bucketSeconds, from, to)
      : await this.q.diverHistory(this.seriesFor(range, from, bucketSeconds, to), level, bucketSeconds, from, to, { seriesStart: true })
    const { source, points, current, peak, low, avg } = figures
    const seriesStart = firstRows ? firstRows[source === 'api' ? 0 : 1] : figures.seriesStart
    return {
      range,
      source,
      bucketSeconds,
      from,
      to,
      points,
      stats: { current, peak, low, avg },
      coverage: coverageOf(seriesStart, from, to),
      [SERIES_START]: seriesStart,
    }
  }
}
