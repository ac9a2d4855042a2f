/**
 * Retention of the raw 15-second player counts (RAW_RETENTION_DAYS) keeps the rollups, on
 * the embedded database (plain PostgreSQL: rows deleted in batches) and on TimescaleDB
 * (Apache edition: whole 90-day chunks dropped with drop_chunks), with the service's own job:
 * - the diver history answers every range as before from the rollups: same source, window,
 *   points, current, average, peak and low values; a peak or low time in the dropped past
 *   is the start of its 5-minute bucket (the raw row that had it is gone), and so is a
 *   dropped first row's time that coverage counts from;
 * - /historical-player-count lists the rows still kept, its totals equal count(*) over
 *   them and its pages equal OFFSET over them;
 * - nothing past the rollups' watermarks is dropped.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { dropOldRawPlayerCounts } from '../../src/storage/policies.ts'
import { refreshRollups, timeBucket } from '../../src/storage/rollups.ts'
import { openHarness, type Harness } from '../routes/helpers.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { seedPlayerCounts } from '../support/seed.ts'

const DAY = 86_400_000
const RANGES = ['24h', '7d', '30d', '90d', 'all'] as const
const KEEP_DAYS = 3

describeOnEachDatabase('raw player-count retention keeps the rollups', (target) => {
  let h: Harness
  const now = new Date(Date.now() - 5000)
  const before: Record<string, any> = {}
  let dropped: Awaited<ReturnType<typeof dropOldRawPlayerCounts>>
  let rowsBefore = 0

  const divers = async (range: string) => {
    const res = await h.get(`/divers/history?range=${range}`)
    expect(res.status).toBe(200)
    return res.body
  }

  beforeAll(async () => {
    const db = await target.open()
    await seedPlayerCounts(db.sql, now)
    await refreshRollups(db.sql, db.info.edition, now)
    h = await openHarness({ db, now: () => now })
    for (const r of RANGES) before[r] = await divers(r)
    rowsBefore = (await db.sql<{ n: number }[]>`SELECT count(*)::bigint AS n FROM player_count_snapshots`)[0]!.n
    // Through the harness's connection: the app hears of the rows it drops.
    dropped = await dropOldRawPlayerCounts(h.db.sql, db.info.edition === 'timescale' ? 'apache' : db.info.edition, KEEP_DAYS, now)
  }, 180_000)
  afterAll(() => h?.close())

  test('raw rows older than the horizon are gone (whole chunks on TimescaleDB), newer ones kept', async () => {
    const sql = h.db.sql
    expect(dropped.horizon.getTime()).toBeLessThanOrEqual(now.getTime() - KEEP_DAYS * DAY)
    const { oldest, n, newer } = (await sql<{ oldest: Date; n: number; newer: number }[]>`
      SELECT min(captured_at) AS oldest, count(*)::bigint AS n,
             count(*) FILTER (WHERE captured_at >= ${dropped.horizon})::bigint AS newer
      FROM player_count_snapshots`)[0]!
    expect(n).toBeLessThan(rowsBefore)
    if (h.db.info.edition === 'postgres') {
      expect(dropped.rows).toBe(rowsBefore - n)
      expect(oldest.getTime()).toBeGreaterThanOrEqual(dropped.horizon.getTime())
    } else {
      expect(dropped.chunks).toBeGreaterThan(0)
      // drop_chunks drops only chunks entirely older than the horizon (90-day chunks, sql/0005).
      expect(oldest.getTime()).toBeGreaterThan(dropped.horizon.getTime() - 90 * DAY)
    }
    expect(newer).toBeGreaterThan(0)
    // The rollups still cover the whole history (120 days of pcstore rows).
    const { first } = (await sql<{ first: Date }[]>`SELECT min(bucket) AS first FROM player_count_1d`)[0]!
    expect(first.getTime()).toBeLessThan(now.getTime() - 100 * DAY)
  })

  for (const range of RANGES) {
    test(`diver history ${range}: the same answer from the rollups`, async () => {
      const after = await divers(range)
      const b = before[range]
      expect({ ...after, stats: undefined, coverage: undefined }).toEqual({ ...b, stats: undefined, coverage: undefined })
      // Coverage counts from the series' first row: once that raw row is dropped, its time is
      // known from the rollup, to its 5-minute bucket, so the share may grow by up to 5
      // minutes of the window (and the rounding to 4 digits); where the first row is kept, the same.
      const spanMs = Date.parse(after.to) - Date.parse(after.from)
      expect(after.coverage).toBeGreaterThanOrEqual(b.coverage)
      expect(after.coverage - b.coverage).toBeLessThanOrEqual(300_000 / spanMs + 0.0001)
      expect(after.stats.current).toBe(b.stats.current)
      expect(after.stats.avg).toBe(b.stats.avg)
      for (const k of ['peak', 'low'] as const) {
        expect(after.stats[k].value).toBe(b.stats[k].value)
        const at = Date.parse(b.stats[k].at)
        // A time in the dropped past: its 5-minute bucket.
        const want = at < Date.parse((await h.db.sql<{ t: Date }[]>`SELECT min(captured_at) AS t FROM player_count_snapshots`)[0]!.t.toISOString())
          ? timeBucket(300, new Date(at)).toISOString()
          : b.stats[k].at
        expect(after.stats[k].at).toBe(want)
      }
    })
  }

  test('/historical-player-count: the kept rows, totals and pages equal to count(*) and OFFSET over them', async () => {
    const sql = h.db.sql
    const { n } = (await sql<{ n: number }[]>`SELECT count(*)::bigint AS n FROM player_count_snapshots`)[0]!
    for (const [query, where] of [
      ['startDate=2000-01-01&endDate=2100-01-01', sql`true`],
      ['startDate=2000-01-01&endDate=2100-01-01&gameName=Game', sql`game_name = 'Game'`],
    ] as const) {
      const { total } = (await sql<{ total: number }[]>`SELECT count(*)::bigint AS total FROM player_count_snapshots WHERE ${where}`)[0]!
      const first = await h.get(`/historical-player-count?${query}&limit=500`)
      expect(first.status).toBe(200)
      expect(first.body.totalResults).toBe(total)
      const last = first.body.totalPages
      for (const page of [1, Math.ceil(last / 2), last]) {
        const res = await h.get(`/historical-player-count?${query}&limit=500&page=${page}`)
        const rows = await sql<{ t: Date }[]>`
          SELECT captured_at AS t FROM player_count_snapshots WHERE ${where}
          ORDER BY captured_at DESC, game_name, source LIMIT 500 OFFSET ${(page - 1) * 500}`
        expect(res.body.items.map((i: any) => i.timestamp)).toEqual(rows.map((r) => r.t.toISOString()))
      }
    }
    expect(n).toBeGreaterThan(0)
    // A window wholly in the dropped past: nothing listed (its rows are only in the rollups).
    const past = await h.get(`/historical-player-count?startDate=${new Date(now.getTime() - 115 * DAY).toISOString().slice(0, 10)}&endDate=${new Date(now.getTime() - 110 * DAY).toISOString().slice(0, 10)}`)
    expect(past.status).toBe(200)
    expect({ total: past.body.totalResults, items: past.body.items }).toEqual({ total: 0, items: [] })
  })
})

test('retention never passes a rollup watermark (rows not materialized yet stay)', async () => {
  const { openEmbeddedTestDatabase } = await import('../support/db.ts')
  const db = await openEmbeddedTestDatabase()
  try {
    const now = new Date(Date.now() - 5000)
    await seedPlayerCounts(db.sql, now)
    // No refresh: every watermark is at its start (2000-01-03), so nothing may go.
    const before = (await db.sql<{ n: number }[]>`SELECT count(*)::bigint AS n FROM player_count_snapshots`)[0]!.n
    const done = await dropOldRawPlayerCounts(db.sql, 'postgres', 1, now)
    expect(done.rows).toBe(0)
    expect(done.horizon.toISOString()).toBe('2000-01-03T00:00:00.000Z')
    expect((await db.sql<{ n: number }[]>`SELECT count(*)::bigint AS n FROM player_count_snapshots`)[0]!.n).toBe(before)
  } finally {
    await db.dispose()
  }
}, 60_000)
