/** Timing helpers: repeated runs after a warm-up, percentiles. */

export interface Timing {
  n: number
  p50: number
  p95: number
  mean: number
  min: number
  max: number
}

/** Nearest-rank percentile of sorted samples. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!
}

export function summarize(samples: number[]): Timing {
  const s = [...samples].sort((a, b) => a - b)
  return {
    n: s.length,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    mean: s.reduce((a, b) => a + b, 0) / Math.max(1, s.length),
    min: s[0] ?? NaN,
    max: s[s.length - 1] ?? NaN,
  }
}

export interface RepeatOptions {
  /** Untimed runs first. */
  warmup: number
  /** Timed runs wanted. */
  reps: number
  /** Stop early (after `minReps`) once the timed runs took this long: for slow baselines. */
  budgetMs?: number
  minReps?: number
  /** Runs before each run (warm-ups included), outside the timed interval: e.g. moving the data versions. */
  before?: () => unknown
}

/** Run `fn` warm-up + reps times; returns the timings (ms) of the timed runs. */
export async function repeat(fn: () => Promise<unknown>, o: RepeatOptions): Promise<Timing> {
  for (let i = 0; i < o.warmup; i++) {
    await o.before?.()
    await fn()
  }
  const samples: number[] = []
  const started = performance.now()
  for (let i = 0; i < o.reps; i++) {
    await o.before?.()
    const t = performance.now()
    await fn()
    samples.push(performance.now() - t)
    if (o.budgetMs !== undefined && samples.length >= (o.minReps ?? 5) && performance.now() - started > o.budgetMs) break
  }
  return summarize(samples)
}

export const ms = (v: number) => (Number.isNaN(v) ? '–' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2))
/** Milliseconds with three significant digits down to the microsecond: 0.042, not 0.04 (nor 0.00). */
export const msFine = (v: number) => (Number.isNaN(v) ? '–' : v >= 1 ? ms(v) : v >= 0.1 ? v.toFixed(3) : v.toFixed(4))
/** Milliseconds as microseconds, three significant digits (a kept answer takes a few µs: 0.01 ms would round it away). */
export const us = (v: number) => {
  if (Number.isNaN(v)) return '–'
  const u = v * 1000
  return u >= 100 ? u.toFixed(0) : u >= 10 ? u.toFixed(1) : u.toFixed(2)
}

/** A count with thousands separators. */
export const n = (v: number) => Math.round(v).toLocaleString('en')
/** Bytes as MB, or GB from 1 GB (2^30 bytes) up. */
export const mb = (b: number | null) => (b === null ? '–' : b >= 1 << 30 ? `${(b / (1 << 30)).toFixed(2)} GB` : `${(b / (1 << 20)).toFixed(1)} MB`)
export const size = (b: number) => (b < 1024 ? `${b} B` : b < 1 << 20 ? `${(b / 1024).toFixed(1)} KB` : mb(b))
export const ratio = (r: number) => (r >= 100 ? `${r.toFixed(0)}×` : `${r.toFixed(1)}×`)
/** A share in percent: whole percents, one decimal below 10 % (0.2 % is not 0 %). */
export const percent = (r: number) => (100 * r).toFixed(r < 0.1 ? 1 : 0)
export const pct = (r: number) => `${percent(r)} %`
