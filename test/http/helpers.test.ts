/** The shared HTTP helpers, directly: parameters, dates, paging (the routes' tests cover them through HTTP too). */
import { describe, expect, test } from 'bun:test'
import { parseDate, timeRange } from '../../src/http/dates.ts'
import { paged, pageOf } from '../../src/http/paging.ts'
import { parseInteger, planetIndexOf, UINT32_MAX, warIdOf } from '../../src/http/params.ts'

/** The 400 `{error}` a helper throws, or fails the test when it does not throw one. */
function rejection(fn: () => unknown): string {
  try {
    fn()
  } catch (e) {
    const r = e as { code?: number; response?: { error?: string } }
    if (r.code === 400 && typeof r.response?.error === 'string') return r.response.error
    throw e
  }
  throw new Error('no 400 was thrown')
}

describe('params', () => {
  test('integers: decimal digits only, within the bounds', () => {
    expect(parseInteger('0', 'n', 0, 5)).toBe(0)
    expect(parseInteger('005', 'n', 0, 5)).toBe(5)
    expect(parseInteger(String(UINT32_MAX), 'orderId', 0, UINT32_MAX)).toBe(UINT32_MAX)
    for (const raw of ['6', '-1', '1.5', '1e2', '0x10', ' 5', '', '99999999999999999999']) {
      expect(rejection(() => parseInteger(raw, 'n', 0, 5))).toBe('n must be an integer between 0 and 5')
    }
  })

  test('aliases: either spelling, both when equal; different values are a 400 naming both', () => {
    expect(warIdOf({})).toBeUndefined()
    expect(warIdOf({ warId: '801' })).toBe(801)
    expect(warIdOf({ warID: '802' })).toBe(802)
    expect(warIdOf({ warId: '801', warID: '801' })).toBe(801)
    expect(rejection(() => warIdOf({ warId: '801', warID: '802' }))).toBe('warId and warID are the same parameter; they were given different values')
    expect(rejection(() => warIdOf({ warId: '0' }))).toBe('warId must be an integer between 1 and 2147483647')
    expect(planetIndexOf({ planetID: '0' })).toBe(0)
    expect(rejection(() => planetIndexOf({ planetId: '2147483648' }))).toBe('planetId must be an integer between 0 and 2147483647')
  })
})

describe('dates', () => {
  test('the three accepted forms, UTC unless an offset is given', () => {
    expect(parseDate('2026-01-02', 'startDate')).toEqual({ at: new Date('2026-01-02T00:00:00Z'), dateOnly: true })
    expect(parseDate('2026-01-02 03:04:05', 'startDate').at.toISOString()).toBe('2026-01-02T03:04:05.000Z')
    expect(parseDate('2026-01-02T03:04:05.5+02:00', 'startDate').at.toISOString()).toBe('2026-01-02T01:04:05.500Z')
    expect(parseDate('0001-01-01', 'startDate').at.getUTCFullYear()).toBe(1)
  })

  test('impossible dates, other forms and years outside 1..9998 are a 400 naming the parameter', () => {
    for (const raw of ['2026-02-30', '2026-13-01', '2026-01-02 24:00:00', '2026-1-2', '02/01/2026', '9999-01-01', '0000-01-01', '2026-01-02T03:04:05+24:00']) {
      expect(rejection(() => parseDate(raw, 'endDate'))).toBe('endDate must be a valid date: YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (UTC)')
    }
  })

  const now = new Date('2026-06-10T12:00:00Z')
  test('a bare endDate includes its whole day; open bounds stay open', () => {
    expect(timeRange({ startDate: '2026-06-01', endDate: '2026-06-02' }, { now })).toEqual({
      from: new Date('2026-06-01T00:00:00Z'), to: new Date('2026-06-03T00:00:00Z'), toExclusive: true,
    })
    expect(timeRange({ endDate: '2026-06-02 10:00:00' }, { now })).toEqual({ from: null, to: new Date('2026-06-02T10:00:00Z'), toExclusive: false })
    expect(timeRange({}, { now })).toEqual({ from: null, to: null, toExclusive: false })
  })

  test('default spans end at endDate (default now); required dates name the missing one; start after end is a 400', () => {
    expect(timeRange({}, { now, defaultSpanMs: 86_400_000 })).toEqual({ from: new Date('2026-06-09T12:00:00Z'), to: now, toExclusive: false })
    expect(timeRange({ endDate: '2026-06-05 00:00:00' }, { now, defaultSpanMs: 3_600_000 }).from).toEqual(new Date('2026-06-04T23:00:00Z'))
    expect(rejection(() => timeRange({ endDate: '2026-06-02' }, { now, required: true }))).toBe('startDate is required')
    expect(rejection(() => timeRange({ startDate: '2026-06-02' }, { now, required: true }))).toBe('endDate is required')
    expect(rejection(() => timeRange({ startDate: '2026-06-03', endDate: '2026-06-02' }, { now }))).toBe('startDate must not be after endDate')
    // The same day as start and bare end is one whole day, not an empty window.
    expect(timeRange({ startDate: '2026-06-02', endDate: '2026-06-02' }, { now }).to).toEqual(new Date('2026-06-03T00:00:00Z'))
  })
})

describe('paging', () => {
  const limits = { defaultLimit: 50, maxLimit: 500 }
  test('defaults, clamping, offsets', () => {
    expect(pageOf({}, limits)).toEqual({ page: 1, limit: 50, offset: 0 })
    expect(pageOf({ page: '3', limit: '20' }, limits)).toEqual({ page: 3, limit: 20, offset: 40 })
    expect(pageOf({ limit: '100000000000000000000000' }, limits)).toEqual({ page: 1, limit: 500, offset: 0 })
  })

  test('page and limit must be positive; page fits a PostgreSQL integer', () => {
    expect(rejection(() => pageOf({ page: '0' }, limits))).toBe('page must be an integer between 1 and 2147483647')
    expect(rejection(() => pageOf({ page: '2147483648' }, limits))).toBe('page must be an integer between 1 and 2147483647')
    expect(rejection(() => pageOf({ limit: '0' }, limits))).toBe('limit must be a positive integer')
  })

  test('the paged body: totalPages = ceil(total / limit), 0 when nothing matches', () => {
    expect(paged({ rows: ['a', 'b'], total: 101 }, { page: 2, limit: 50, offset: 50 })).toEqual({
      items: ['a', 'b'], page: 2, limit: 50, totalResults: 101, totalPages: 3,
    })
    expect(paged({ rows: [], total: 0 }, { page: 1, limit: 50, offset: 0 }).totalPages).toBe(0)
  })
})
