/**
 * Live routes against the feed simulator: /player-count (each feed may fail on its own,
 * never a 503) and /war-stats (503 when the upstream is unreachable).
 */
import { afterAll, beforeAll, beforeEach, expect, test } from 'bun:test'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'
import { buildApp } from '../../src/app.ts'
import { createPcstoreClient, PCSTORE_APP_IDS } from '../../src/feeds/pcstore.ts'
import { createUpstreamClient } from '../../src/feeds/upstream.ts'
import { openEmbeddedTestDatabase, type TestDatabase } from '../support/db.ts'
import { errorOf, openHarness } from './helpers.ts'

let sim: Simulator
let db: TestDatabase

beforeAll(async () => {
  sim = startSimulator({ port: 0, seed: 11, speed: 0 })
  db = await openEmbeddedTestDatabase()
})
afterAll(async () => {
  await sim.stop()
  await db.dispose()
})
beforeEach(() => sim.control.reset())

/** A fresh app (fresh throttled client, so no cached feed answers carry over). */
const fresh = () => openHarness({ db, keepDb: true, simulator: sim })

async function simFigures() {
  const status = (await (await fetch(`${sim.upstreamUrl}/WarSeason/801/Status`)).json()) as { planetStatus: { players: number }[] }
  const pc = async (app: number) =>
    ((await (await fetch(`${sim.pcstoreUrl}/ISteamUserStats/GetNumberOfCurrentPlayers/v1/?appid=${app}`)).json()) as { response: { player_count: number } }).response.player_count
  return {
    gameActive: status.planetStatus.reduce((s, p) => s + p.players, 0),
    game1: await pc(PCSTORE_APP_IDS.game1),
    game2: await pc(PCSTORE_APP_IDS.game2),
  }
}

test('/player-count: upstream and pcstore figures, sums, sources', async () => {
  const h = await fresh()
  const before = Date.now()
  const res = await h.get('/player-count')
  expect(res.status).toBe(200)
  expect(res.headers.get('cache-control')).toBe('no-store')
  const want = await simFigures()
  expect(want.gameActive).toBeGreaterThan(0)
  expect(res.body).toEqual({
    capturedAt: expect.any(String),
    dataCapturedAt: expect.any(String),
    dataAgeSeconds: expect.any(Number),
    gameActive: want.gameActive,
    game1: { pcstore: want.game1, console: 0, total: want.game1 },
    game2: { pcstore: want.game2, console: 0, total: want.game2 },
    all: { pcstore: want.game1 + want.game2, console: 0, total: want.game1 + want.game2 },
    sources: { game1: 'pcstore', game2: 'pcstore', gameActive: 'upstream' },
  })
  expect(Date.parse(res.body.capturedAt)).toBeGreaterThanOrEqual(before - 1000)
  expect(new Date(res.body.capturedAt).toISOString()).toBe(res.body.capturedAt)
})

test('/player-count: concurrent and repeated requests share one store request per game and one status request', async () => {
  const h = await fresh()
  const answers = await Promise.all(Array.from({ length: 25 }, () => h.get('/player-count')))
  expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200))
  for (let i = 0; i < 5; i++) expect((await h.get('/player-count')).status).toBe(200)
  const requests = sim.control.requests()
  expect({ pcstore: requests['pcstore:players'], status: requests['upstream:status'] }).toEqual({ pcstore: 2, status: 1 })
})

test('/player-count: a failed upstream makes only gameActive unavailable', async () => {
  sim.control.addFault({ kind: 'outage', feed: 'upstream', endpoint: 'status' })
  const res = await (await fresh()).get('/player-count')
  expect(res.status).toBe(200)
  expect(res.body.gameActive).toBe(0)
  expect(res.body.sources).toEqual({ game1: 'pcstore', game2: 'pcstore', gameActive: 'unavailable' })
  expect(res.body.game2.pcstore).toBeGreaterThan(0)
})

test('/player-count: a failed pcstore makes game1/game2 unavailable (0), gameActive stays', async () => {
  sim.control.addFault({ kind: 'server_error', feed: 'pcstore' })
  const res = await (await fresh()).get('/player-count')
  expect(res.status).toBe(200)
  expect(res.body.game1).toEqual({ pcstore: 0, console: 0, total: 0 })
  expect(res.body.game2).toEqual({ pcstore: 0, console: 0, total: 0 })
  expect(res.body.all).toEqual({ pcstore: 0, console: 0, total: 0 })
  expect(res.body.sources).toEqual({ game1: 'unavailable', game2: 'unavailable', gameActive: 'upstream' })
  expect(res.body.gameActive).toBeGreaterThan(0)
})

test('/player-count: both feeds down is still 200, every figure unavailable', async () => {
  sim.control.addFault({ kind: 'outage', feed: 'upstream' })
  sim.control.addFault({ kind: 'outage', feed: 'pcstore' })
  const res = await (await fresh()).get('/player-count')
  expect(res.status).toBe(200)
  expect(res.body).toMatchObject({ gameActive: 0, all: { pcstore: 0, console: 0, total: 0 } })
  expect(res.body.sources).toEqual({ game1: 'unavailable', game2: 'unavailable', gameActive: 'unavailable' })
})

test('/player-count: the feeds are fetched concurrently', async () => {
  // Both feeds hold their answer for 800 ms. One after the other, the second feed's first
  // request would arrive >= 800 ms after the first feed's; together, at about the same time.
  sim.control.addFault({ kind: 'slow', feed: 'upstream', endpoint: 'status', delayMs: 800 })
  sim.control.addFault({ kind: 'slow', feed: 'pcstore', delayMs: 800 })
  const h = await fresh()
  const feedsSeen = () => Object.keys(sim.control.requests()).filter((k) => k.startsWith('upstream:status') || k.startsWith('pcstore')).length
  const pending = h.get('/player-count')
  let firstAt = 0
  let bothAt = 0
  for (let i = 0; i < 300 && bothAt === 0; i++) {
    const n = feedsSeen()
    if (n >= 1 && firstAt === 0) firstAt = performance.now()
    if (n >= 2) bothAt = performance.now()
    await Bun.sleep(5)
  }
  const res = await pending
  expect(res.body.sources).toEqual({ game1: 'pcstore', game2: 'pcstore', gameActive: 'upstream' })
  expect(bothAt).toBeGreaterThan(0)
  expect(bothAt - firstAt).toBeLessThan(400)
})

test('/war-stats: galaxy stats of the upstream summary', async () => {
  const res = await (await fresh()).get('/war-stats')
  expect(res.status).toBe(200)
  expect(res.headers.get('cache-control')).toBe('no-store')
  const summary = (await (await fetch(`${sim.upstreamUrl}/Stats/War/801/Summary`)).json()) as { galaxy_stats: Record<string, number> }
  const g = summary.galaxy_stats
  expect(res.body.stats).toEqual({
    missionsWon: g.missionsWon,
    missionsLost: g.missionsLost,
    missionTime: g.missionTime,
    bugKills: g.bugKills,
    automatonKills: g.automatonKills,
    illuminateKills: g.illuminateKills,
    bulletsFired: g.bulletsFired,
    bulletsHit: g.bulletsHit,
    timePlayed: g.timePlayed,
    deaths: g.deaths,
    revives: g.revives,
    friendlies: g.friendlies,
    missionSuccessRate: g.missionSuccessRate,
    accuracy: g.accurracy,
  })
  expect(new Date(res.body.at).toISOString()).toBe(res.body.at)
  expect(Math.abs(Date.parse(res.body.at) - Date.now())).toBeLessThan(10_000)
})

test('/war-stats: unreachable upstream (503, or 404 from a moved endpoint) → 503 {error}', async () => {
  for (const status of [503, 404]) {
    sim.control.reset()
    sim.control.addFault({ kind: 'outage', feed: 'upstream', endpoint: 'summary', status })
    const res = await (await fresh()).get('/war-stats')
    expect({ upstream: status, answer: res.status }).toEqual({ upstream: status, answer: 503 })
  }
  const res = await (await fresh()).get('/war-stats')
  expect(res.status).toBe(503)
  expect(errorOf(res)).toContain('upstream')
  expect(res.headers.get('cache-control')).toBe('no-store')
})

test('/player-count: the body kept from the feeds\' cached answers follows them when they are fetched anew', async () => {
  // The feeds' clock moves by hand: within the TTL the answers come from the cache (the
  // route's synchronous path), past it they are fetched again from a world that moved on.
  let nowMs = Date.now()
  const now = () => nowMs
  const h = await fresh()
  const feeds = {
    ...h.deps.feeds,
    upstream: createUpstreamClient({ baseUrl: sim.upstreamUrl, timeoutMs: 2000, userAgent: 'test', now }),
    pcstore: createPcstoreClient({ baseUrl: sim.pcstoreUrl, timeoutMs: 2000, now }),
  }
  const app = buildApp({ ...h.deps, feeds })
  const get = async () => (await (await app.handle(new Request('http://localhost/api/v1/player-count'))).json()) as { gameActive: number; dataCapturedAt: string; capturedAt: string | number }
  const first = await get()
  expect(first).toMatchObject({ gameActive: (await simFigures()).gameActive })
  nowMs += 5_000
  const kept = await get()
  expect({ ...kept, capturedAt: 0 }).toEqual({ ...first, capturedAt: 0 })
  sim.control.advance(3600)
  nowMs += 15_000
  const moved = await simFigures()
  const next = await get()
  expect(next).toMatchObject({ gameActive: moved.gameActive, game1: { pcstore: moved.game1 }, game2: { pcstore: moved.game2 } })
  expect(next.gameActive).not.toBe(first.gameActive)
  expect(next.dataCapturedAt).not.toBe(first.dataCapturedAt)
})
