/** The planet history's rules, without a database: libPct and the raw or hourly windows. */
import { expect, test } from 'bun:test'
import { libPct, PlanetHistoryService } from '../../src/services/planet-history.ts'

const MAX = 1_000_000

test('libPct: human planets count health up, others count it down; 4 decimals', () => {
  expect(libPct(1, 250_000, MAX)).toBe(25)
  expect(libPct(2, 250_000, MAX)).toBe(75)
  expect(libPct(3, 123_456, MAX)).toBe(87.6544)
  expect(libPct(1, 1, 3)).toBe(33.3333)
  expect(libPct(2, 0, 0)).toBe(0)
})

test('windows: raw ticks up to 48 hours end now and move with the clock; longer windows start on the hour', () => {
  // The windows need no storage.
  const s = new PlanetHistoryService({} as never)
  const to = new Date('2026-06-01T12:34:56.789Z')
  expect(s.from(24, to).toISOString()).toBe('2026-05-31T12:34:56.789Z')
  expect(s.spanMs(24)).toBe(24 * 3_600_000)
  expect(s.windowKey(48, to)).toBe('')
  expect(s.from(49, to).toISOString()).toBe('2026-05-30T11:00:00.000Z')
  expect(s.spanMs(49)).toBeNull()
  expect(s.windowKey(720, to)).toBe(String(Date.parse('2026-05-02T12:00:00.000Z')))
})
