/** The diver history's rules, without a database: bucket widths, rollup levels, windows and coverage. */
import { expect, test } from 'bun:test'
import { bucketSecondsFor, rollupLevelFor, windowOf } from '../../src/services/divers.ts'
import { coverageOf } from '../../src/war/data-age.ts'

test('bucket widths: multiples of 300 s, whole hours from 1 h, whole days from 1 d; about 200 buckets', () => {
  expect(bucketSecondsFor(0)).toBe(300)
  expect(bucketSecondsFor(86_400)).toBe(600)
  expect(bucketSecondsFor(7 * 86_400)).toBe(3300)
  expect(bucketSecondsFor(30 * 86_400)).toBe(14_400)
  expect(bucketSecondsFor(90 * 86_400)).toBe(39_600)
  expect(bucketSecondsFor(400 * 86_400)).toBe(2 * 86_400)
  for (const span of [3600, 86_400, 604_800, 2_592_000, 7_776_000, 31_536_000, 123_456_789]) {
    const w = bucketSecondsFor(span)
    expect(w % 300).toBe(0)
    if (w >= 3600) expect(w % 3600).toBe(0)
    if (w >= 86_400) expect(w % 86_400).toBe(0)
    if (span >= 86_400) {
      expect(span / w).toBeGreaterThan(95)
      expect(span / w).toBeLessThanOrEqual(200)
    }
  }
  // The coarsest rollup dividing the width.
  expect(rollupLevelFor(600)).toBe(0)
  expect(rollupLevelFor(3300)).toBe(0)
  expect(rollupLevelFor(14_400)).toBe(1)
  expect(rollupLevelFor(39_600)).toBe(1)
  expect(rollupLevelFor(2 * 86_400)).toBe(2)
})

test('windows: a fixed range ends at `to` and starts on a bucket boundary; `all` starts at the series that started first (ties: api)', () => {
  const to = new Date('2026-06-01T12:34:56Z')
  const w = windowOf('24h', to, [null, null])
  expect(w.bucketSeconds).toBe(600)
  expect(w.from.getTime() % 600_000).toBe(0)
  expect(to.getTime() - w.from.getTime()).toBeGreaterThanOrEqual(86_400_000)
  expect(to.getTime() - w.from.getTime()).toBeLessThan(86_400_000 + 600_000)
  expect(w.source).toBeUndefined()
  const api = new Date('2026-05-01T00:00:00Z')
  const pcstore = new Date('2026-04-01T00:00:00Z')
  expect(windowOf('all', to, [api, pcstore]).source).toBe('pcstore')
  expect(windowOf('all', to, [api, api]).source).toBe('api')
  expect(windowOf('all', to, [null, null])).toMatchObject({ source: 'api', bucketSeconds: 300 })
})

test('coverage: the share of the window from the series\' first row on, 4 digits; 0 without rows, 1 when it spans the window', () => {
  const from = new Date('2026-06-01T00:00:00Z')
  const to = new Date('2026-06-02T00:00:00Z')
  expect(coverageOf(null, from, to)).toBe(0)
  expect(coverageOf(new Date('2026-05-01T00:00:00Z'), from, to)).toBe(1)
  expect(coverageOf(new Date('2026-06-01T18:00:00Z'), from, to)).toBe(0.25)
  expect(coverageOf(new Date('2026-06-01T16:00:00Z'), from, to)).toBe(0.3333)
  expect(coverageOf(new Date('2026-06-03T00:00:00Z'), from, to)).toBe(0)
})
