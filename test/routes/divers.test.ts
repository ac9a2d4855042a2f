/**
 * /divers/history on seeded history, on the embedded database and on TimescaleDB: every
 * range gives 100-250 aligned points inside from..to, the source rule, and points and
 * stats equal to a direct computation over the raw rows.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { openEmbeddedTestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { seedPlayerCounts } from '../support/seed.ts'
import { refreshRollups } from '../../src/storage/rollups.ts'
import { announcing, openHarness, type Harness } from './helpers.ts'

const ORIGIN = Date.parse('2000-01-03T00:00:00Z')

/** The same figures straight from the raw rows of one series in [from, to]. */
async function rawFigures(sql: Sql, source: 'api' | 'pcstore', from: Date, to: Date, width: number) {
  const src = source === 'api' ? 'upstream' : 'pcstore'
  const v = source === 'api' ? sql`api_total_player_count` : sql`total_player_count`
  const where = sql`game_name = 'Game 2' AND source = ${src} AND captured_at >= ${from} AND captured_at <= ${to}`
  const [agg] = await sql<{ max: number; min: number; avg: number; n: number }[]>`
    SELECT max(${v}) AS max, min(${v}) AS min, round(avg(${v}))::int AS avg, count(*) AS n FROM player_count_snapshots WHERE ${where}`
  const [peakAt] = await sql<{ at: Date }[]>`SELECT min(captured_at) AS at FROM player_count_snapshots WHERE ${where} AND ${v} = ${agg!.max}`
  const [lowAt] = await sql<{ at: Date }[]>`SELECT min(captured_at) AS at FROM player_count_snapshots WHERE ${where} AND ${v} = ${agg!.min}`
  const [current] = await sql<{ v: number }[]>`
    SELECT ${v} AS v FROM player_count_snapshots WHERE game_name = 'Game 2' AND source = ${src} ORDER BY captured_at DESC LIMIT 1`
  const points = await sql<{ t: Date; v: number }[]>`
    SELECT time_bucket(make_interval(secs => ${width}), captured_at) AS t, round(avg(${v}))::int AS v
    FROM player_count_snapshots WHERE ${where} GROUP BY 1 ORDER BY 1`
  return {
    points: points.map((p) => ({ t: p.t.toISOString(), v: p.v })),
    stats: {
      current: current?.v ?? null,
      peak: { value: agg!.max, at: peakAt!.at.toISOString() },
      low: { value: agg!.min, at: lowAt!.at.toISOString() },
      avg: agg!.avg,
    },
    n: agg!.n,
  }
}

describeOnEachDatabase('diver history', (target) => {
  let h: Harness

  beforeAll(async () => {
    const db = await target.open()
    const now = new Date(Date.now() - 5000)
    await seedPlayerCounts(db.sql, now)
    await refreshRollups(db.sql, db.info.edition, now)
    // A few rows after the refresh: only the rollups' live tail has them.
    await db.sql`
      INSERT INTO player_count_snapshots (captured_at, game_name, source, api_total_player_count, upstream_war_time, war_id)
      VALUES (${new Date(now.getTime() + 4000)}, 'Game 2', 'upstream', 1000000, 9000001, 801)`
    h = await openHarness({ db })
  }, 120_000)
  afterAll(() => h?.close())

  const expected = {
    '24h': { source: 'api', width: 600 },
    '7d': { source: 'api', width: 3300 },
    '30d': { source: 'pcstore', width: 14_400 },
    '90d': { source: 'pcstore', width: 39_600 },
    all: { source: 'pcstore', width: 54_000 },
  } as const

  for (const [range, want] of Object.entries(expected)) {
    test(`${range}: source ${want.source}, ${want.width} s buckets, 100-250 aligned points, stats equal to the raw rows`, async () => {
      const res = await h.get(`/divers/history?range=${range}`)
      expect(res.status).toBe(200)
      expect(res.headers.get('cache-control')).toBe('no-store')
      const body = res.body
      expect(body).toMatchObject({ range, source: want.source, bucketSeconds: want.width })
      const from = Date.parse(body.from)
      const to = Date.parse(body.to)
      expect((from - ORIGIN) % (want.width * 1000)).toBe(0)
      expect(Math.abs(to - Date.now())).toBeLessThan(60_000)
      if (range !== 'all') {
        const span = { '24h': 1, '7d': 7, '30d': 30, '90d': 90 }[range as '24h']! * 86_400_000
        expect(from).toBeLessThanOrEqual(to - span)
        expect(from).toBeGreaterThan(to - span - want.width * 1000)
      }
      expect(body.points.length).toBeGreaterThanOrEqual(100)
      expect(body.points.length).toBeLessThanOrEqual(250)
      const ts = body.points.map((p: any) => Date.parse(p.t))
      for (let i = 0; i < ts.length; i++) {
        expect(ts[i]).toBeGreaterThanOrEqual(from)
        expect(ts[i]).toBeLessThanOrEqual(to)
        expect((ts[i] - from) % (want.width * 1000)).toBe(0)
        if (i > 0) expect(ts[i]).toBeGreaterThan(ts[i - 1])
      }
      const raw = await rawFigures(h.db.sql, want.source, new Date(from), new Date(to), want.width)
      expect(raw.n).toBeGreaterThan(0)
      expect(body.points).toEqual(raw.points)
      expect(body.stats).toEqual(raw.stats)
    })
  }

  test('default range is 24h; current is the latest raw value (the row after the refresh)', async () => {
    const res = await h.get('/divers/history')
    expect(res.body.range).toBe('24h')
    expect(res.body.stats.current).toBe(1_000_000)
    expect(res.body.stats.peak.value).toBe(1_000_000)
  })

  test('the pcstore ranges read only the second game', async () => {
    const res = await h.get('/divers/history?range=30d')
    // Game 1 rows are around 4000 players; Game 2 around 50000.
    expect(res.body.stats.low.value).toBeGreaterThan(30_000)
  })
})

describe('diver history source rule (embedded)', () => {
  let h: Harness
  let sql: Sql
  const now = new Date()
  const t0 = new Date(Math.floor(now.getTime() / 60_000) * 60_000 - 2 * 86_400_000)

  beforeAll(async () => {
    h = await openHarness({ db: await openEmbeddedTestDatabase() })
    sql = h.db.sql
    // Upstream rows only, for the last 2 days.
    await sql`
      INSERT INTO player_count_snapshots (captured_at, game_name, source, api_total_player_count, upstream_war_time, war_id)
      SELECT ${t0}::timestamptz + make_interval(secs => g), 'Game 2', 'upstream', 1000 + g % 97, g, 801
      FROM generate_series(0, 2 * 86400 - 60, 15) AS g`
  })
  afterAll(() => h?.close())

  const source = async (range: string) => (await h.get(`/divers/history?range=${range}`)).body.source

  test('api not covering the window start and no pcstore rows → api', async () => {
    expect(await source('24h')).toBe('api')
    expect(await source('7d')).toBe('api')
    expect(await source('all')).toBe('api')
  })

  test('short ranges: api whenever it has rows in the window; long ranges: pcstore unless api covers the window start; coverage says how much', async () => {
    await sql`
      INSERT INTO player_count_snapshots (captured_at, game_name, source, pcstore_player_count, console_player_count, total_player_count)
      SELECT ${t0}::timestamptz + make_interval(secs => g), 'Game 2', 'pcstore', 500, 0, 500
      FROM generate_series(0, 2 * 86400 - 60, 600) AS g`
    const covered = (body: any) => (Date.parse(body.to) - Math.max(Date.parse(body.from), t0.getTime())) / (Date.parse(body.to) - Date.parse(body.from))
    for (const [range, want] of [['24h', 'api'], ['7d', 'api'], ['30d', 'pcstore'], ['90d', 'pcstore']] as const) {
      const body = (await h.get(`/divers/history?range=${range}`)).body
      expect(body.source).toBe(want)
      // Both series start at t0 (two days ago).
      expect(body.coverage).toBeCloseTo(covered(body), 3)
    }
    expect((await h.get('/divers/history?range=24h')).body.coverage).toBe(1)
    expect((await h.get('/divers/history?range=7d')).body.coverage).toBeLessThan(0.3)
    // Both series start at the same time: the tie goes to api.
    const all = await h.get('/divers/history?range=all')
    expect(all.body.source).toBe('api')
    expect(Date.parse(all.body.from)).toBeLessThanOrEqual(t0.getTime())
    expect(all.body.points.length).toBeGreaterThanOrEqual(100)
  })

  test('all: the series that started first wins', async () => {
    await sql`
      INSERT INTO player_count_snapshots (captured_at, game_name, source, pcstore_player_count, console_player_count, total_player_count)
      VALUES (${new Date(t0.getTime() - 3 * 86_400_000)}, 'Game 2', 'pcstore', 400, 0, 400)`
    const all = await h.get('/divers/history?range=all')
    expect(all.body.source).toBe('pcstore')
    expect(all.body.stats.low).toEqual({ value: 400, at: new Date(t0.getTime() - 3 * 86_400_000).toISOString() })
  })
})

describe('diver history round trips (embedded)', () => {
  let h: Harness
  let statements = 0
  const now = new Date('2026-06-01T12:34:56Z')

  beforeAll(async () => {
    const db = await openEmbeddedTestDatabase()
    await seedPlayerCounts(db.sql, now)
    await refreshRollups(db.sql, db.info.edition, now)
    // The app's own connection, counted: each statement it runs, once it completes.
    h = await openHarness({ db: { ...db, sql: announcing(db.sql, () => statements++) }, now: () => now })
  }, 180_000)
  afterAll(() => h?.close())

  test('a computed answer is one statement for a fixed range, two for all (the first rows, then the history)', async () => {
    for (const [range, want] of [['24h', 1], ['7d', 1], ['30d', 1], ['90d', 1], ['all', 2]] as const) {
      h.deps.versions!.bumpAll()
      statements = 0
      const res = await h.get(`/divers/history?range=${range}`)
      expect(res.status).toBe(200)
      expect({ range, statements }).toEqual({ range, statements: want })
    }
  })
})
