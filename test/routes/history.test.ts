/**
 * The paged historical routes on seeded history, on the embedded database and on
 * TimescaleDB: happy paths, defaults, filters, aliases, both date formats, sort orders,
 * paging and clamping.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Elysia, type TSchema } from 'elysia'
import { Paged, paged } from '../../src/http/paging.ts'
import { LocalizedDispatchRow } from '../../src/storage/dispatches.ts'
import { createStore } from '../../src/storage/index.ts'
import { LocalizedMajorOrderRow } from '../../src/storage/major-orders.ts'
import { PlanetStatusRow } from '../../src/storage/planet-status.ts'
import { PlayerCountRow } from '../../src/storage/player-counts.ts'
import { invalidateRollups } from '../../src/storage/rollups.ts'
import { WarSummaryRow } from '../../src/storage/war-summary.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { deleteTick, SEED, seedAll, writeTick } from '../support/seed.ts'
import { openHarness, type Harness } from './helpers.ts'

const MIN = 60_000
/** The planet row the kept-page tests write at a tick of their own. */
const ROW = { planet_index: 1, owner: 2, health: 1, regen_per_second: 0, players: 1 }

const DAY = 86_400_000
const isoDay = (d: Date) => d.toISOString().slice(0, 10)
const times = (items: { timestamp: string }[]) => items.map((i) => Date.parse(i.timestamp))
const isSortedDesc = (xs: number[]) => xs.every((x, i) => i === 0 || xs[i - 1]! >= x)

describeOnEachDatabase('historical routes', (target) => {
  let h: Harness
  let now: Date
  const count = async (q: Promise<{ n: number }[]>) => (await q)[0]!.n

  beforeAll(async () => {
    const db = await target.open()
    now = new Date()
    await seedAll(db.sql, db.info.edition, now)
    h = await openHarness({ db })
  }, 120_000)
  afterAll(() => h?.close())

  // ---------------------------------------------------------------- player counts

  test('player counts: both row shapes, newest first, totals match the table', async () => {
    const start = new Date(now.getTime() - 2 * 3600_000)
    const qs = `startDate=${start.toISOString()}&endDate=${now.toISOString()}`
    const res = await h.get(`/historical-player-count?${qs}&limit=500`)
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const direct = await count(h.db.sql`SELECT count(*) AS n FROM player_count_snapshots WHERE captured_at >= ${start} AND captured_at <= ${now}`)
    expect(res.body.totalResults).toBe(direct)
    expect(res.body.totalPages).toBe(Math.ceil(direct / 500))
    expect(isSortedDesc(times(res.body.items))).toBe(true)
    const api = res.body.items.find((r: any) => r.apiTotalPlayerCount !== null)
    expect(api).toMatchObject({ gameName: 'Game 2', pcstorePlayerCount: null, consolePlayerCount: null, totalPlayerCount: null })
    expect(Object.keys(api).sort()).toEqual(['apiTotalPlayerCount', 'consolePlayerCount', 'gameName', 'pcstorePlayerCount', 'timestamp', 'totalPlayerCount'])
    const pc = res.body.items.find((r: any) => r.pcstorePlayerCount !== null)
    expect(pc).toMatchObject({ consolePlayerCount: 0, apiTotalPlayerCount: null })
    expect(pc.totalPlayerCount).toBe(pc.pcstorePlayerCount)
    expect(typeof pc.timestamp).toBe('string')
    expect(new Date(pc.timestamp).toISOString()).toBe(pc.timestamp)
  })

  test('player counts: gameName filter', async () => {
    const qs = `startDate=${isoDay(new Date(now.getTime() - 2 * DAY))}&endDate=${isoDay(now)}`
    const game1 = await h.get(`/historical-player-count?${qs}&gameName=Game&limit=500`)
    expect(game1.body.items.length).toBeGreaterThan(200)
    expect(game1.body.items.every((r: any) => r.gameName === 'Game' && r.pcstorePlayerCount !== null)).toBe(true)
    const game2 = await h.get(`/historical-player-count?${qs}&gameName=Game%202`)
    const all = await h.get(`/historical-player-count?${qs}`)
    expect(game1.body.totalResults + game2.body.totalResults).toBe(all.body.totalResults)
  })

  test('player counts: a bare endDate covers the whole day; the datetime forms are exact', async () => {
    const day = isoDay(new Date(now.getTime() - 3 * DAY))
    const from = new Date(`${day}T00:00:00Z`)
    const direct = (to: Date, inclusive: boolean) =>
      count(h.db.sql`SELECT count(*) AS n FROM player_count_snapshots WHERE captured_at >= ${from} AND ${inclusive ? h.db.sql`captured_at <= ${to}` : h.db.sql`captured_at < ${to}`}`)
    const bare = await h.get(`/historical-player-count?startDate=${day}&endDate=${day}`)
    expect(bare.status).toBe(200)
    expect(bare.body.totalResults).toBe(await direct(new Date(from.getTime() + DAY), false))
    // All rows of the day: 5760 upstream + 144 pcstore per game.
    expect(bare.body.totalResults).toBeGreaterThan(5760)
    const spaced = await h.get(`/historical-player-count?startDate=${day}%2000:00:00&endDate=${day}%2012:00:00`)
    expect(spaced.body.totalResults).toBe(await direct(new Date(`${day}T12:00:00Z`), true))
    const isoT = await h.get(`/historical-player-count?startDate=${day}T00:00:00&endDate=${day}T12:00:00Z`)
    expect(isoT.body.totalResults).toBe(spaced.body.totalResults)
    expect(spaced.body.totalResults).toBeLessThan(bare.body.totalResults)
    // Newest row is within the window's end.
    expect(Date.parse(spaced.body.items[0].timestamp)).toBeLessThanOrEqual(Date.parse(`${day}T12:00:00Z`))
  })

  test('player counts: pages are stable and disjoint; beyond the last page is empty', async () => {
    const qs = `startDate=${isoDay(now)}&endDate=${isoDay(now)}`
    const p1 = await h.get(`/historical-player-count?${qs}&limit=7&page=1`)
    const p2 = await h.get(`/historical-player-count?${qs}&limit=7&page=2`)
    const both = await h.get(`/historical-player-count?${qs}&limit=14&page=1`)
    expect([...p1.body.items, ...p2.body.items]).toEqual(both.body.items)
    expect(p2.body).toMatchObject({ page: 2, limit: 7, totalResults: p1.body.totalResults, totalPages: Math.ceil(p1.body.totalResults / 7) })
    const past = await h.get(`/historical-player-count?${qs}&limit=7&page=${p1.body.totalPages + 1}`)
    expect(past.body.items).toEqual([])
    expect(past.body.totalResults).toBe(p1.body.totalResults)
  })

  // ---------------------------------------------------------------- planet status

  test('planet status: default window is the last 24 hours of the configured war', async () => {
    const res = await h.get('/historical-planet-status?planetId=1&limit=1000')
    expect(res.status).toBe(200)
    const ts = times(res.body.items)
    expect(isSortedDesc(ts)).toBe(true)
    // One tick every 5 minutes: 288 a day (one more or less at the window's edges).
    expect(res.body.totalResults).toBeGreaterThanOrEqual(287)
    expect(res.body.totalResults).toBeLessThanOrEqual(289)
    expect(Math.min(...ts)).toBeGreaterThanOrEqual(Date.now() - DAY - 60_000)
    expect(res.body.items[0]).toMatchObject({ warID: 801, planetIndex: 1, owner: 2, regenPerSecond: 2.25 })
    expect(Object.keys(res.body.items[0]).sort()).toEqual(['health', 'owner', 'planetIndex', 'players', 'regenPerSecond', 'timestamp', 'warID'])
  })

  test('planet status: planetID and warID aliases; other war; explicit window', async () => {
    // A fixed window: the default one ends at the moment of each request.
    const window = `startDate=${new Date(now.getTime() - DAY).toISOString()}&endDate=${now.toISOString()}`
    const a = await h.get(`/historical-planet-status?planetId=2&limit=20&${window}`)
    const b = await h.get(`/historical-planet-status?planetID=2&warID=801&limit=20&${window}`)
    expect(b.body).toEqual(a.body)
    const old = await h.get('/historical-planet-status?planetId=0&warId=800')
    expect(old.body.totalResults).toBe(13)
    expect(old.body.items.every((r: any) => r.warID === 800 && r.health === 42)).toBe(true)
    const start = new Date(now.getTime() - 10 * DAY)
    const end = new Date(start.getTime() + 3600_000)
    const win = await h.get(`/historical-planet-status?planetId=0&startDate=${start.toISOString()}&endDate=${end.toISOString()}`)
    expect(win.body.totalResults).toBe(12)
    for (const t of times(win.body.items)) {
      expect(t).toBeGreaterThanOrEqual(start.getTime())
      expect(t).toBeLessThanOrEqual(end.getTime())
    }
    // Only startDate given: the window ends now.
    const open = await h.get(`/historical-planet-status?planetId=0&startDate=${isoDay(new Date(now.getTime() - 2 * DAY))}`)
    expect(open.body.totalResults).toBeGreaterThan(288)
  })

  // ---------------------------------------------------------------- war summary

  test('war summary: default 7 days, newest first, limit clamped to 1000', async () => {
    const res = await h.get('/historical-war-summary?limit=5000')
    expect(res.status).toBe(200)
    expect(res.body.limit).toBe(1000)
    expect(res.body.items.length).toBe(1000)
    expect(res.body.totalResults).toBeGreaterThanOrEqual(7 * 288 - 1)
    expect(res.body.totalResults).toBeLessThanOrEqual(7 * 288 + 1)
    expect(res.body.totalPages).toBe(Math.ceil(res.body.totalResults / 1000))
    expect(isSortedDesc(times(res.body.items))).toBe(true)
    const first = res.body.items[0]
    expect(first).toMatchObject({ warID: 801, revives: 2, missionSuccessRate: 83, accuracy: 98 })
    expect(first.bugKills).toBeGreaterThan(2_900_000_000)
    expect(Object.keys(first).sort()).toEqual(
      ['accuracy', 'automatonKills', 'bugKills', 'bulletsFired', 'bulletsHit', 'deaths', 'friendlies', 'illuminateKills', 'missionSuccessRate',
        'missionTime', 'missionsLost', 'missionsWon', 'revives', 'timePlayed', 'timestamp', 'warID'].sort(),
    )
    // Cumulative: older rows have smaller counters.
    expect(res.body.items[1].bugKills).toBeLessThan(first.bugKills)
    const defaulted = await h.get('/historical-war-summary')
    expect(defaulted.body.limit).toBe(100)
    const old = await h.get('/historical-war-summary?warID=800')
    expect(old.body.totalResults).toBe(5)
  })

  // ---------------------------------------------------------------- major orders

  test('major orders: every war by default, sorted by lastSeenAt descending', async () => {
    const res = await h.get('/historical-major-orders')
    expect(res.status).toBe(200)
    expect(res.body.items.map((o: any) => o.orderId32)).toEqual([SEED.orders.recent, SEED.orders.older, SEED.orders.big, SEED.orders.oldWar])
    const ts = res.body.items.map((o: any) => Date.parse(o.lastSeenAt))
    expect(isSortedDesc(ts)).toBe(true)
    expect(res.body.items[0]).toEqual({
      orderId32: 1001,
      warID: 801,
      title: 'MAJOR ORDER',
      briefing: 'Hold the line',
      brief: 'Hold the line',
      description: 'Liberate 2 planets',
      firstSeenAt: new Date(now.getTime() - 3 * DAY).toISOString(),
      lastSeenAt: new Date(now.getTime() - 3600_000).toISOString(),
      expiresInLastSeen: 86400,
      startWarTime: 4000000,
      flags: 1,
      tasks: [{ type: 3, values: [2, 0, 1000000], valueTypes: [1, 2, 3] }],
      rewards: [{ type: 1, id32: 897894480, amount: 45 }],
      rewardMedals: 45,
    })
    expect(res.body.items[1].tasks).toBeNull()
    expect(res.body.items[2].orderId32).toBe(3_000_000_000)
    const w801 = await h.get('/historical-major-orders?warId=801&limit=2')
    expect(w801.body).toMatchObject({ totalResults: 3, totalPages: 2, limit: 2 })
    const w800 = await h.get('/historical-major-orders?warID=800')
    expect(w800.body.items.map((o: any) => o.orderId32)).toEqual([SEED.orders.oldWar])
  })

  test('major order progress: newest first, default limit 200, window, unknown order', async () => {
    const res = await h.get(`/historical-major-orders/${SEED.orders.recent}/progress`)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ limit: 200, totalResults: SEED.progressTicks, totalPages: 3 })
    expect(res.body.items[0]).toEqual({ orderId32: 1001, progress: [1], timestamp: new Date(now.getTime() - 7000).toISOString() })
    expect(isSortedDesc(times(res.body.items))).toBe(true)
    const last = await h.get(`/historical-major-orders/${SEED.orders.recent}/progress?page=3`)
    expect(last.body.items.length).toBe(SEED.progressTicks - 400)
    expect(last.body.items.at(-1).progress).toEqual([0])
    const clamped = await h.get(`/historical-major-orders/${SEED.orders.recent}/progress?limit=3000`)
    expect(clamped.body.limit).toBe(2000)
    expect(clamped.body.items.length).toBe(SEED.progressTicks)
    const since = new Date(now.getTime() - 3600_000)
    const win = await h.get(`/historical-major-orders/${SEED.orders.recent}/progress?startDate=${since.toISOString()}`)
    expect(win.body.totalResults).toBe(12)
    const unknown = await h.get('/historical-major-orders/424242/progress')
    expect(unknown.status).toBe(200)
    expect(unknown.body).toEqual({ items: [], page: 1, limit: 200, totalResults: 0, totalPages: 0 })
  })

  // ---------------------------------------------------------------- dispatches

  const ids = (res: { body: any }) => res.body.items.map((d: any) => d.id)

  test('dispatches: configured war by default, newest first, id breaks ties', async () => {
    const res = await h.get('/historical-dispatches')
    expect(res.status).toBe(200)
    expect(res.body.totalResults).toBe(30)
    const expected = Array.from({ length: 30 }, (_, i) => 30 - i)
    // 20 and 21 share a publication time: id descending puts 21 first, which is already the order.
    expect(ids(res)).toEqual(expected)
    const ts = res.body.items.map((d: any) => Date.parse(d.publishedAt))
    expect(isSortedDesc(ts)).toBe(true)
    expect(res.body.items[0]).toEqual({
      id: 30,
      warID: 801,
      publishedAt: new Date(now.getTime() - 3600_000).toISOString(),
      publishedWarTime: 300000,
      type: 0,
      message: 'Routine dispatch number 30',
    })
    expect(ids(await h.get('/historical-dispatches?warId=800'))).toEqual([903, 902, 901])
    expect(ids(await h.get('/historical-dispatches?warID=800&limit=2&page=2'))).toEqual([901])
  })

  test('dispatches: since is exclusive war time', async () => {
    expect(ids(await h.get('/historical-dispatches?since=250000'))).toEqual([30, 29, 28, 27, 26])
    expect(ids(await h.get('/historical-dispatches?since=260000'))).toEqual([30, 29, 28, 27])
    expect((await h.get('/historical-dispatches?since=300000')).body.totalResults).toBe(0)
    expect((await h.get('/historical-dispatches?since=0')).body.totalResults).toBe(30)
  })

  test('dispatches: q is a case-insensitive literal substring (%, _ and \\ are not wildcards)', async () => {
    const q = async (text: string) => ids(await h.get(`/historical-dispatches?q=${encodeURIComponent(text)}`))
    expect(await q('100%')).toEqual([3])
    expect(await q('100')).toEqual([4, 3])
    expect(await q('snake_case')).toEqual([5])
    expect(await q('_')).toEqual([5])
    expect(await q('%')).toEqual([3])
    expect(await q('C:\\galaxy')).toEqual([7])
    expect(await q('\\')).toEqual([7])
    expect(await q('super EARTH')).toEqual([9])
    expect(await q('ROUTINE DISPATCH NUMBER 2')).toEqual([29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 2])
    expect((await h.get(`/historical-dispatches?q=routine&since=280000`)).body.totalResults).toBe(2)
  })

  // ---------------------------------------------------------------- kept pages

  test('a page with fixed filters is kept per data version: a write the app hears of shows at once, one it does not is not seen', async () => {
    const raw = h.deps.db.sql // the app's own connection: statements it does not hear of
    const at = [new Date(now.getTime() - 7 * MIN), new Date(now.getTime() - 8 * MIN)] // between two seeded ticks
    const fixed = `/historical-planet-status?planetId=1&startDate=${new Date(now.getTime() - 3600_000).toISOString()}&endDate=${now.toISOString()}`
    const before = await h.get(fixed)
    expect(before.body.totalResults).toBe(12)
    try {
      await writeTick(h.db.sql, 801, at[0]!, [ROW])
      const after = await h.get(fixed)
      expect(after.body.totalResults).toBe(13)
      expect(after.body.items.map((r: any) => r.timestamp)).toContain(at[0]!.toISOString())
      expect(after.headers.get('cache-control')).toBe('no-store')
      // Not heard of: the kept page is the one of the data version it was computed at.
      await writeTick(raw, 801, at[1]!, [ROW])
      expect(await h.get(fixed)).toEqual(after)
    } finally {
      for (const t of at) await deleteTick(h.db.sql, 801, t)
    }
  })

  test('a page of a window ending now is kept while no row can have entered or left it', async () => {
    // Seeded ticks are 5 minutes apart, the newest 3 s before `now`; the oldest in the
    // default 24 h window leaves it 297 s after `now`.
    let clock = now
    const c = await openHarness({ db: h.db, keepDb: true, now: () => clock })
    const raw = c.deps.db.sql // statements the app does not hear of
    const path = '/historical-planet-status?planetId=1&limit=5'
    const direct = () => count(raw`
      SELECT count(*) AS n FROM planet_status_snapshots
      WHERE war_id = 801 AND planet_index = 1 AND captured_at >= ${new Date(clock.getTime() - DAY)} AND captured_at <= ${clock}`)
    const inserted = [new Date(now.getTime() - 7 * MIN), new Date(now.getTime() + 2 * MIN)]
    try {
      const first = await c.get(path)
      expect(first.body.totalResults).toBe(await direct())
      // A row written inside the window that the app has not heard of: the kept page holds.
      // Its rollup bucket is invalidated as every write below the watermark must be
      // (docs/operations.md "Database and editions"): 7 minutes back is in an already
      // materialized hour during the first minutes of each hour, and the page's totals come
      // from the rollups' bucket counts.
      await writeTick(raw, 801, inserted[0]!, [ROW])
      clock = new Date(now.getTime() + 200_000)
      expect(await c.get(path)).toEqual(first)
      // Past the moment the oldest row leaves: computed again, exact for the new window.
      clock = new Date(now.getTime() + 400_000)
      const moved = await c.get(path)
      expect(moved.body.totalResults).toBe(await direct())
      expect(moved.body.totalResults).toBe(first.body.totalResults) // one row left, one came
      expect(moved.body.items.map((r: any) => r.timestamp)).toContain(inserted[0]!.toISOString())
      expect(moved.body.items[0].timestamp).toBe(new Date(now.getTime() - 3000).toISOString())
      // A row newer than the moment a page is computed (a clock ahead), heard of: the page is computed and not kept.
      await writeTick(c.db.sql, 801, inserted[1]!, [ROW])
      clock = new Date(now.getTime() + MIN)
      const early = await c.get(path)
      expect(early.body.totalResults).toBe(await direct())
      clock = new Date(now.getTime() + 3 * MIN)
      const later = await c.get(path)
      expect(later.body.totalResults).toBe(early.body.totalResults + 1)
      expect(later.body.items[0].timestamp).toBe(inserted[1]!.toISOString())
    } finally {
      for (const t of inserted) await deleteTick(c.db.sql, 801, t)
      await c.close()
    }
  })

  test("every route's page is what Elysia made of the same value with the route's schema (the bytes before pages were kept)", async () => {
    const store = createStore(h.db)
    const page = { page: 2, limit: 20, offset: 20 }
    const range = { from: new Date(now.getTime() - DAY), to: now, toExclusive: false }
    const dates = `startDate=${range.from.toISOString()}&endDate=${now.toISOString()}&page=2&limit=20`
    const elysiaBytes = async (row: TSchema, value: unknown) => {
      const app = new Elysia().get('/x', () => value as never, { response: { 200: Paged(row, 'x') } })
      return (await app.handle(new Request('http://localhost/x'))).text()
    }
    const first = { page: 1, limit: 3, offset: 0 }
    const cases: [string, TSchema, unknown, typeof page][] = [
      [`/historical-player-count?${dates}`, PlayerCountRow, await store.playerCounts.history({ range }, page), page],
      [`/historical-planet-status?planetId=2&${dates}`, PlanetStatusRow, await store.planetStatus.history({ warId: 801, planetIndex: 2, range }, page), page],
      [`/historical-war-summary?${dates}`, WarSummaryRow, await store.warSummary.history({ warId: 801, range }, page), page],
      ['/historical-major-orders?limit=3', LocalizedMajorOrderRow, await store.majorOrders.orders({}, first), first],
      ['/historical-dispatches?limit=3', LocalizedDispatchRow, await store.dispatches.page({ warId: 801 }, first), first],
    ]
    for (const [path, row, value, p] of cases) {
      const res = await h.get(path)
      expect(res.body.items.length).toBeGreaterThan(0)
      expect({ path, bytes: JSON.stringify(res.body) }).toEqual({ path, bytes: await elysiaBytes(row, paged(value as never, p)) })
    }
  })

  test('a page of the window ending now has the same bytes as the same window given by its dates', async () => {
    // Same window both ways: the default (the 24 h before a fixed clock, kept as a window
    // ending now) and the same dates given (kept by its dates).
    const clock = new Date(now.getTime() - 30 * MIN)
    const fixedClock = await openHarness({ db: h.db, keepDb: true, now: () => clock })
    try {
      const dates = `startDate=${new Date(clock.getTime() - 86_400_000).toISOString()}&endDate=${clock.toISOString()}`
      for (const query of ['planetId=2&limit=50', 'planetId=2&limit=50&page=3']) {
        const read = await fixedClock.get(`/historical-planet-status?${query}`)
        const kept = await fixedClock.get(`/historical-planet-status?${query}&${dates}`)
        const keptAgain = await fixedClock.get(`/historical-planet-status?${query}&${dates}`)
        expect(read.body.items.length).toBe(50)
        expect(JSON.stringify(kept.body)).toBe(JSON.stringify(read.body))
        expect(keptAgain).toEqual(kept)
      }
    } finally {
      await fixedClock.close()
    }
  })
})
