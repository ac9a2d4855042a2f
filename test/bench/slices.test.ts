/**
 * The bench's split runs (bench/load.ts): a target route's ratio is its median pair's, and
 * the exactness checks of its slices add up to one tally (bench/check.ts).
 */
import { describe, expect, test } from 'bun:test'
import { mergeTallies, type CheckTally } from '../../bench/check.ts'
import { medianSlice, sliceSeconds, type LoadResult, type Slice } from '../../bench/load.ts'

const run = (rps: number): LoadResult => ({ rps, p50Ms: 0.3, p99Ms: 2, requests: rps * 5, errors: 0, non2xx: 0 })
const pair = (service: number, ceiling: number): Slice => ({ service: run(service), ceiling: run(ceiling), ratio: service / ceiling })

describe('slices of a load run', () => {
  test('the median pair by ratio, whatever the order; of an even count the lower middle one; one pair is itself', () => {
    const low = pair(80, 100)
    const mid = pair(95, 105)
    const high = pair(99, 100)
    expect(medianSlice([high, low, mid])).toBe(mid)
    expect(medianSlice([mid, high, low])).toBe(mid)
    expect(medianSlice([high, low])).toBe(low)
    expect(medianSlice([low])).toBe(low)
    expect(() => medianSlice([])).toThrow()
  })

  test('slice seconds: whole seconds for wrk, at least one', () => {
    expect(sliceSeconds({ durationS: 15, slices: 3 })).toBe(5)
    expect(sliceSeconds({ durationS: 5, slices: 1 })).toBe(5)
    expect(sliceSeconds({ durationS: 2, slices: 3 })).toBe(1)
  })

  test('tallies of slices add up: counts, posts by collector, rows by dataset, the first mismatch, distinct errors', () => {
    const tally = (t: Partial<CheckTally>): CheckTally => ({
      equal: 0, skipped: 0, mismatched: 0, failed: 0, firstMismatch: null, errors: [], posts: [], rowsWritten: {}, rawMsTotal: 0, samples: 0, durationMs: 0, ...t,
    })
    const merged = mergeTallies([
      tally({ equal: 3, skipped: 1, samples: 4, rawMsTotal: 10, durationMs: 5000, posts: [{ collector: 'player-count', posts: 2, wrote: 1, failed: 0 }], rowsWritten: { upstreamRows: 1 }, errors: ['a'] }),
      tally({ equal: 2, mismatched: 1, failed: 1, samples: 4, rawMsTotal: 7, durationMs: 5000, firstMismatch: 'second', errors: ['a', 'b'],
        posts: [{ collector: 'player-count', posts: 3, wrote: 1, failed: 1 }, { collector: 'full-status', posts: 3, wrote: 2, failed: 0 }], rowsWritten: { upstreamRows: 2, planetStatus: 522 } }),
      tally({ mismatched: 1, samples: 1, firstMismatch: 'third' }),
    ])
    expect(merged).toEqual({
      equal: 5, skipped: 1, mismatched: 2, failed: 1, firstMismatch: 'second', errors: ['a', 'b'],
      posts: [{ collector: 'player-count', posts: 5, wrote: 2, failed: 1 }, { collector: 'full-status', posts: 3, wrote: 2, failed: 0 }],
      rowsWritten: { upstreamRows: 3, planetStatus: 522 }, rawMsTotal: 17, samples: 9, durationMs: 10000,
    })
  })
})
