/**
 * The demo that starts mid-war (issue 26, item 3): `npm run demo` writes 30 days of
 * simulated history before the service starts (src/sim/history.ts, the library call the
 * demo makes), so every range of the pages' charts is full and every trend known at first
 * look, and the same war goes on live from the end of the history.
 *
 * Run here as the demo runs it, on the embedded database, with the end of the history
 * (the demo's start) and the wall clock injected: nothing sleeps.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { fullStatus } from '../../src/collect/full-status.ts'
import { playerCount } from '../../src/collect/player-count.ts'
import { CollectorRunner } from '../../src/collect/runner.ts'
import { warInfo } from '../../src/collect/war-info.ts'
import { DEFAULT_FEED_LANGUAGES } from '../../src/config.ts'
import { createCommunityClient } from '../../src/feeds/community.ts'
import type { Feeds } from '../../src/feeds/index.ts'
import { createPcstoreClient } from '../../src/feeds/pcstore.ts'
import { createUpstreamClient } from '../../src/feeds/upstream.ts'
import { silentLogger } from '../../src/log.ts'
import { bucketSecondsFor, RANGE_SECONDS } from '../../src/services/divers.ts'
import { timeBucket } from '../../src/storage/rollups.ts'
import { createStore } from '../../src/storage/index.ts'
import { DEMO_CADENCE, historyTimes, seedDemoHistory, storedDatasets, type DemoHistory, type HistoryCadence } from '../../src/sim/history.ts'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'
import { World } from '../../src/sim/world.ts'
import { counts, dump } from '../import/support.ts'
import { openHarness, type Harness } from '../routes/helpers.ts'
import { openEmbeddedTestDatabase, type TestDatabase } from '../support/db.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR
/** The demo's start: the end of its history (not on any cadence's grid, as a real start is not). */
const END = Date.parse('2025-06-01T12:34:56.789Z')

/** Feed clients of a simulator whose clocks (cache ages, fetch times) are the test's. */
function feedsOf(sim: Simulator, now: () => number, languages: readonly string[] = ['en-US']): Feeds {
  return {
    upstream: createUpstreamClient({ baseUrl: sim.upstreamUrl, timeoutMs: 5000, userAgent: 'gws-test', now, languages }),
    community: createCommunityClient({ baseUrl: sim.communityUrl, timeoutMs: 5000, superClient: 'gws-test', superContact: 'test@example.invalid', now }),
    pcstore: createPcstoreClient({ baseUrl: sim.pcstoreUrl, timeoutMs: 5000, now }),
  }
}

/** The buckets of `width` seconds from `from` to `to`, both ends' buckets included. */
const bucketsIn = (from: string, to: string, width: number) => Math.floor((Date.parse(to) - Date.parse(from)) / (width * 1000)) + 1

describe('the demo starts with 30 days of history', () => {
  let db: TestDatabase
  let h: Harness
  let history: DemoHistory
  /** The wall clock: the world follows it once the history is written; the routes read at it. */
  let wall = END

  beforeAll(async () => {
    db = await openEmbeddedTestDatabase()
    history = await seedDemoHistory({ db, end: new Date(END), now: () => wall })
    h = await openHarness({ db, now: () => new Date(wall) })
  }, 300_000)
  afterAll(async () => {
    await h?.close()
  })

  test('30 days before the start: full-status hourly and every 10 minutes over the last day, player counts with pcstore', () => {
    const s = history.summary
    expect(s.from).toBe(new Date(END - 30 * DAY).toISOString())
    expect(s.to).toBe(new Date(END).toISOString())
    const times = historyTimes(END - 30 * DAY, END, DEMO_CADENCE)
    expect(s.captures).toBe(times.filter((t) => t.fullStatus).length)
    expect(s.captures).toBe(30 * 24 + 24 * 5 + 2) // the hours, the last day's other 10-minute marks, the start and the end
    expect(s.playerCountTicks).toBe(times.filter((t) => t.playerCount).length)
    expect(s.import).toMatchObject({ imported: s.captures, duplicates: 0, skipped: 0, aborted: false })
    expect(s.import.rows.planetStatus).toBe(s.captures * 261)
    // Every player-count tick wrote both games' pcstore counts (due: they are at least 10 minutes apart).
    expect(s.playerCountRows.pcstoreRows).toBe(2 * s.playerCountTicks)
    // The texts of the eight other languages of every order and dispatch.
    expect(s.texts.dispatchTexts).toBe(8 * s.import.rows.dispatchTexts!)
    expect(s.warTimes[1]).toBeGreaterThan(s.warTimes[0] + 29 * 86_400)
  })

  test('/divers/history: every range is full (24h, 7d, 30d and all at 145-185 points; 90d every 11-hour bucket of the 30 days)', async () => {
    const ranges: Record<string, { source: string; bucketSeconds: number; from: string; to: string; points: { t: string }[]; coverage: number }> = {}
    for (const range of ['24h', '7d', '30d', '90d', 'all']) {
      const res = await h.get(`/divers/history?range=${range}`)
      expect(res.status).toBe(200)
      ranges[range] = res.body
    }
    const r = ranges as Record<'24h' | '7d' | '30d' | '90d' | 'all', (typeof ranges)[string]>
    // The upstream series (every platform) serves 24h, 7d, 30d and all, with a point in every
    // bucket of the window.
    for (const range of ['24h', '7d', '30d', 'all'] as const) {
      expect(r[range].source).toBe('api')
      expect(r[range].points.length).toBe(bucketsIn(r[range].from, r[range].to, r[range].bucketSeconds))
    }
    expect(r['7d'].points.length).toBeGreaterThanOrEqual(150)
    expect(r['30d'].points.length).toBeGreaterThanOrEqual(150)
    expect(r.all.points.length).toBeGreaterThanOrEqual(150)
    expect(r['30d'].coverage).toBeGreaterThan(0.99)
    // 24h cannot have 150 points by the bucket rule, whatever the data: its buckets are 600 s
    // (the smallest multiple of 300 s giving at most 200 points), so a day holds 144 of them
    // and the window 145 (its first and last partly). Every one of them has its point.
    expect(r['24h'].bucketSeconds).toBe(600)
    expect(r['24h'].points.length).toBe(145)
    // 90d cannot have 150 points from 30 days of data: its buckets are 11 hours
    // (bucketSecondsFor(90 days)), and 30 days hold 65.5 of them (150 points would need 69
    // days). The upstream series does not reach the window's start, so the pcstore series
    // serves it (the source rule of the long ranges); it has a point in every bucket from
    // the first pcstore row (the first hour of the history) to now.
    expect(r['90d'].bucketSeconds).toBe(bucketSecondsFor(RANGE_SECONDS['90d']))
    expect(r['90d'].bucketSeconds).toBe(11 * 3600)
    expect(r['90d'].source).toBe('pcstore')
    const first = timeBucket(r['90d'].bucketSeconds, new Date(Math.ceil((END - 30 * DAY) / HOUR) * HOUR)).toISOString()
    expect(r['90d'].points[0]!.t).toBe(first)
    expect(r['90d'].points.length).toBe(bucketsIn(first, r['90d'].to, r['90d'].bucketSeconds))
    expect(r['90d'].points.length).toBeGreaterThanOrEqual(65)
  })

  test('/war/trends: the 1h, 24h and 7d windows are all known, each reaching back its whole window', async () => {
    const res = await h.get('/war/trends')
    expect(res.status).toBe(200)
    const windows = res.body.windows as Record<string, { from: string | null; to: string | null; coverage: number; deltas: Record<string, number> | null; divers: { from: string; to: string } | null }>
    for (const [name, span] of [['1h', HOUR], ['24h', DAY], ['7d', 7 * DAY]] as const) {
      const w = windows[name]!
      expect(w.deltas).not.toBeNull()
      expect(w.divers).not.toBeNull()
      expect(Date.parse(w.to!)).toBe(END)
      // The latest capture at or before `to − window`: within the cadence of that time.
      const back = END - Date.parse(w.from!)
      expect(back).toBeGreaterThanOrEqual(span)
      expect(back).toBeLessThan(span + HOUR)
      expect(w.deltas!.missionsWon).toBeGreaterThan(0)
      expect(END - Date.parse(w.divers!.from)).toBeGreaterThanOrEqual(span)
      // The 30 days span each window.
      expect(w.coverage).toBe(1)
    }
    // How far back the trends can reach: the war's oldest summary tick, within the history's first hour.
    const [oldest] = await db.sql<{ t: Date }[]>`SELECT min(captured_at) AS t FROM war_summary_snapshots WHERE war_id = ${res.body.warID}`
    expect(res.body.since).toBe(oldest!.t.toISOString())
    expect(Date.parse(res.body.since) - (END - 30 * DAY)).toBeLessThan(HOUR)
  })

  test('the planet pages: 24 h of 10-minute ticks, 7 and 30 days of hourly points', async () => {
    const [first] = await db.sql<{ t: Date }[]>`SELECT min(captured_at) AS t FROM planet_status_snapshots WHERE war_id = 801 AND planet_index = 0`
    for (const [hours, min] of [[24, 144], [168, 168], [720, 720]] as const) {
      const res = await h.get(`/planet/0/history?hours=${hours}`)
      expect(res.status).toBe(200)
      expect(res.body.points.length).toBeGreaterThanOrEqual(min)
      expect(res.body.points.length).toBeLessThanOrEqual(min + 2)
      // How much of the window the history spans: all of 24 h and 7 days; of the 30 days'
      // window (from the hour before), the share from the first tick on.
      expect(res.body.since).toBe(first!.t.toISOString())
      const [from, to] = [Date.parse(res.body.from), Date.parse(res.body.to)]
      expect(res.body.coverage).toBe(Math.round(Math.min(1, (to - Math.max(from, first!.t.getTime())) / (to - from)) * 10_000) / 10_000)
      if (hours < 720) expect(res.body.coverage).toBe(1)
      else expect(res.body.coverage).toBeGreaterThan(0.99)
    }
  })

  test('the war pages: front rates, order rates, a month of timeline, dispatches in every language', async () => {
    const campaigns = await h.get('/campaigns')
    expect(campaigns.status).toBe(200)
    expect(campaigns.body.items.length).toBeGreaterThan(0)
    expect(campaigns.body.items.some((c: { ratePctPerHour: number | null }) => c.ratePctPerHour !== null)).toBe(true)
    const orders = await h.get('/major-orders?limit=50')
    expect(orders.status).toBe(200)
    const active = orders.body.items.filter((o: { status: string }) => o.status === 'active')
    expect(active.length).toBeGreaterThan(0)
    expect(active.some((o: { tasks: { ratePerHour: number | null }[] }) => o.tasks.some((t) => t.ratePerHour !== null))).toBe(true)
    // Orders came and went over the month.
    expect(orders.body.items.length).toBeGreaterThan(3)
    const timeline = await h.get(`/timeline?from=${new Date(END - 30 * DAY).toISOString()}&limit=1000`)
    expect(timeline.status).toBe(200)
    const ats = timeline.body.items.map((e: { at: string }) => Date.parse(e.at))
    expect(Math.min(...ats)).toBeLessThan(END - 20 * DAY)
    expect(new Set(timeline.body.items.map((e: { type: string }) => e.type)).size).toBeGreaterThan(4)
    for (const lang of ['en-US', 'de-DE', 'zh-Hant']) {
      const news = await h.get(`/historical-dispatches?lang=${lang}&limit=500`)
      expect(news.status).toBe(200)
      const messages = news.body.items.map((d: { message: string | null }) => d.message)
      expect(messages.length).toBeGreaterThan(50)
      expect(messages.every((m: string | null) => typeof m === 'string' && (lang === 'en-US' ? !m.startsWith('[') : m.startsWith(`[${lang}]`)))).toBe(true)
    }
  })

  test('/health/ready tells the history from the demo start: 30 days of every dataset the demo writes', async () => {
    const res = await h.get('/health/ready')
    expect(res.status).toBe(200)
    for (const dataset of ['player-counts-upstream', 'player-counts-pcstore', 'full-status', 'major-orders']) {
      expect(Date.parse(res.body.history[dataset].oldest)).toBeLessThanOrEqual(END - 30 * DAY + HOUR)
      expect(Date.parse(res.body.history[dataset].newest)).toBeGreaterThanOrEqual(END - 10 * 60_000)
    }
    expect(await storedDatasets(db.sql)).toContain('full-status')
  })

  test('then the war goes on live: the next ticks are new (later war times), never unchanged nor earlier', async () => {
    const world = history.world
    const last = history.summary.warTimes[1]
    expect(world.state().time).toBe(last)
    wall = END + 45_000
    // The world follows the wall clock from the end of the history, at its speed (1).
    expect(world.state().time).toBeGreaterThan(last)
    expect(world.state().time).toBeLessThanOrEqual(last + 50)
    const sim = startSimulator({ port: 0, world })
    try {
      const runner = new CollectorRunner({ db: h.db, store: createStore(h.db), feeds: feedsOf(sim, () => wall), log: silentLogger, config: { warId: 801 } })
      const now = new Date(wall)
      const counted = await runner.runOnce(playerCount, { now })
      expect(counted.outcome).toBe('written')
      expect(counted.written.upstreamRows).toBe(1)
      const ticked = await runner.runOnce(fullStatus, { now })
      expect(ticked.outcome).toBe('written')
      expect(ticked.written.planetStatus).toBe(261)
      const [tick] = await db.sql<{ w: number }[]>`SELECT max(upstream_war_time)::int AS w FROM full_status_ticks WHERE war_id = 801`
      expect(tick!.w).toBe(world.state().time)
      expect(tick!.w).toBeGreaterThan(last)
      // A minute later: a later war time again.
      wall += 60_000
      const next = await runner.runOnce(fullStatus, { now: new Date(wall) })
      expect(next.outcome).toBe('written')
      expect(world.state().time).toBeGreaterThan(tick!.w)
    } finally {
      await sim.stop()
    }
  })
})

describe('the history is what live collection at its times would have written', () => {
  /** Three hours: full-status every 30 minutes, player counts every 10 (the grid's ends are on both). */
  const end = Date.parse('2025-06-01T12:00:00Z')
  const start = end - 3 * HOUR
  const cadence: HistoryCadence = { fullStatus: [{ lastS: Infinity, everyS: 1800 }], playerCount: [{ lastS: Infinity, everyS: 600 }] }
  let seeded: TestDatabase
  let live: TestDatabase

  beforeAll(async () => {
    ;[seeded, live] = await Promise.all([openEmbeddedTestDatabase(), openEmbeddedTestDatabase()])
  })
  afterAll(async () => {
    await Promise.all([seeded?.dispose(), live?.dispose()])
  })

  test('same rows in every table and rollup as the collectors (every language) collecting the simulated feeds at those times', async () => {
    const s = await seedDemoHistory({ db: seeded, end: new Date(end), days: 3 / 24, cadence, now: () => end })
    expect(s.summary.captures).toBe(7)
    expect(s.summary.playerCountTicks).toBe(19)

    // The same world, served over HTTP; its clock is the test's.
    let wall = start
    const world = new World({ seed: 1, speed: 1, now: () => wall })
    const sim = startSimulator({ port: 0, world })
    try {
      const runner = new CollectorRunner({
        db: live, store: createStore(live), feeds: feedsOf(sim, () => wall, DEFAULT_FEED_LANGUAGES), log: silentLogger, config: { warId: 801 },
      })
      const times = historyTimes(start, end, cadence)
      for (const [i, t] of times.entries()) {
        wall = t.at
        const now = new Date(t.at)
        const runs = [...(t.playerCount ? [playerCount] : []), ...(t.fullStatus ? [fullStatus] : []), ...(i === 0 || i === times.length - 1 ? [warInfo] : [])]
        for (const collector of runs) expect((await runner.runOnce(collector, { now })).outcome).toBe('written')
      }
    } finally {
      await sim.stop()
    }

    const [a, b] = await Promise.all([dump(seeded), dump(live)])
    expect(counts(a)).toEqual(counts(b))
    expect(counts(a).planet_status_snapshots).toBe(7 * 261)
    expect(counts(a).dispatch_texts).toBeGreaterThan(9 * 5)
    expect(a).toEqual(b)
  }, 120_000)
})
