/**
 * The read routes on data written by the real collectors (fed by the simulator), one
 * happy path per route group: the collectors and the readers agree on the tables.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { silentLogger } from '../../src/log.ts'
import { collect, testRunner } from '../support/collect.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { simulatedFeeds } from '../support/sim.ts'

describeOnEachDatabase('read routes on collector-written data', (target) => {
  let db: TestDatabase
  let s: Awaited<ReturnType<typeof simulatedFeeds>>
  const config = { ...loadConfig({}), warId: 801 }
  const get = async (path: string) => {
    const res = await buildApp({ config, db, log: silentLogger, feeds: s.feeds }).handle(new Request(`http://localhost/api/v1${path}`))
    return { status: res.status, body: (await res.json()) as any }
  }

  beforeAll(async () => {
    db = await target.open()
    s = await simulatedFeeds(5)
    const runner = testRunner(db, s.feeds, { config })
    await collect(runner, 'war-info')
    for (let tick = 0; tick < 3; tick++) {
      await collect(runner, 'player-count')
      await collect(runner, 'full-status')
      s.later(300)
    }
  }, 60_000)
  afterAll(async () => {
    await s?.stop()
    await db?.dispose()
  })

  test('war and lookups', async () => {
    const war = await get('/war')
    expect(war.status).toBe(200)
    expect(war.body.war.warID).toBe(801)
    expect(war.body.planets.length).toBeGreaterThan(10)
    expect(war.body.planets[0]).toMatchObject({ indexID: 0, warID: 801, planetName: 'Super Earth', sectorName: 'Sol' })
    expect((await get('/war/801?planetID=0')).body.planets).toHaveLength(1)
    const planets = await get('/planets')
    expect(planets.body.length).toBe(war.body.planets.length)
    expect((await get('/sectors')).body.length).toBeGreaterThan(0)
    expect((await get('/factions')).body.length).toBe(4)
  })

  test('historical routes', async () => {
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)
    const pc = await get(`/historical-player-count?startDate=${day(-1)}&endDate=${day(1)}`)
    expect(pc.status).toBe(200)
    expect(pc.body.items.some((r: any) => r.apiTotalPlayerCount !== null)).toBe(true)
    expect(pc.body.items.some((r: any) => r.pcstorePlayerCount !== null)).toBe(true)
    const ps = await get('/historical-planet-status?planetId=0')
    expect(ps.body.totalResults).toBeGreaterThanOrEqual(1)
    expect(ps.body.items[0]).toMatchObject({ warID: 801, planetIndex: 0 })
    const ws = await get('/historical-war-summary')
    expect(ws.body.totalResults).toBeGreaterThanOrEqual(1)
    expect(ws.body.items[0].bugKills).toBeGreaterThan(0)
    const mo = await get('/historical-major-orders')
    expect(mo.body.totalResults).toBeGreaterThanOrEqual(1)
    const progress = await get(`/historical-major-orders/${mo.body.items[0].orderId32}/progress`)
    expect(progress.body.totalResults).toBeGreaterThanOrEqual(1)
    expect(Array.isArray(progress.body.items[0].progress)).toBe(true)
    const d = await get('/historical-dispatches')
    expect(d.body.totalResults).toBeGreaterThanOrEqual(1)
    expect(typeof d.body.items[0].publishedWarTime).toBe('number')
  })

  test('planet history and diver history', async () => {
    const ph = await get('/planet/0/history')
    expect(ph.status).toBe(200)
    expect(ph.body.points.length).toBeGreaterThanOrEqual(1)
    // The collected ticks began minutes ago: since is the first of them, and coverage the
    // small share of the day from it on (0 when the simulated ticks run ahead of the clock).
    const [first] = await db.sql<{ t: Date }[]>`SELECT min(captured_at) AS t FROM planet_status_snapshots WHERE war_id = 801 AND planet_index = 0`
    expect(ph.body.since).toBe(first!.t.toISOString())
    const [from, to] = [Date.parse(ph.body.from), Date.parse(ph.body.to)]
    expect(ph.body.coverage).toBe(first!.t.getTime() > to ? 0 : Math.round(Math.min(1, (to - Math.max(from, first!.t.getTime())) / (to - from)) * 10_000) / 10_000)
    expect(ph.body.coverage).toBeLessThan(0.05)
    const dh = await get('/divers/history')
    expect(dh.status).toBe(200)
    // Both series began minutes ago: the 24 h window uses the upstream series, which has
    // rows in it, and says it covers at most the last minutes of it.
    expect(dh.body.source).toBe('api')
    // (The simulated ticks run ahead of the wall clock here, so it may be 0.)
    expect(dh.body.coverage).toBeLessThan(0.05)
    expect(dh.body.points.length).toBeGreaterThanOrEqual(1)
    expect(dh.body.stats.current).toBeGreaterThan(0)
  })

  test('war trends: since is the first collected summary tick, coverage the share of each window from it on', async () => {
    const trends = await get('/war/trends')
    expect(trends.status).toBe(200)
    const [span] = await db.sql<{ first: Date; last: Date }[]>`SELECT min(captured_at) AS first, max(captured_at) AS last FROM war_summary_snapshots WHERE war_id = 801`
    expect(trends.body.since).toBe(span!.first.toISOString())
    // Ticks minutes apart: a share of each window, and no deltas yet.
    for (const [name, hours] of [['1h', 1], ['24h', 24], ['7d', 168]] as const) {
      const covered = Math.round(Math.min(1, (span!.last.getTime() - span!.first.getTime()) / (hours * 3_600_000)) * 10_000) / 10_000
      expect({ name, coverage: trends.body.windows[name].coverage }).toEqual({ name, coverage: covered })
      expect(trends.body.windows[name].deltas).toBeNull()
    }
    expect(trends.body.windows['1h'].coverage).toBeGreaterThan(0)
  })
})
