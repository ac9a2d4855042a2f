/**
 * Database outages against the real service process, with its schedule on, a TimescaleDB
 * of its own that the test stops (connections refused) and freezes (SIGSTOP: connections
 * open, nothing answered), and the feed simulator:
 * - under read load: every tick fetched during the outages is stored once, with its
 *   capture time; reads answer 503 {error} within 2 s (p99); no request goes unanswered;
 * - a restart in the middle of an outage (SIGKILL): the ticks kept on disk are stored
 *   once the database is back.
 * Outages last longer than the driver's old reconnect wait (up to ~40 s was measured).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Cron } from 'croner'
import { connect, type Sql } from '../../src/db/connect.ts'
import { SCHEDULE_PATTERNS } from '../../src/collect/schedule.ts'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'
import { describeTimescale } from '../support/db.ts'
import { startOwnTimescale } from '../support/outage.ts'
import { freshDataDir, removeDataDir, startService, type ServiceProcess } from '../support/process.ts'

const OUTAGE_MS = 45_000
const FULL_STATUS_CRON = '*/15 * * * * *'
const READ_ROUTES = [
  '/api/v1/historical-war-summary',
  '/api/v1/divers/history?range=24h',
  '/api/v1/historical-planet-status?planetId=0',
  '/api/v1/planet/0/history?hours=24',
  '/api/v1/historical-dispatches',
  '/health/ready',
]

interface Answer {
  route: string
  startMs: number
  ms: number
  status: number | 'no answer'
  body: unknown
}

/** `loops` concurrent readers cycling over the routes, each request with a 10 s client deadline. */
function readLoad(baseUrl: string, loops: number, pauseMs: number) {
  const answers: Answer[] = []
  let running = true
  const loop = async (offset: number) => {
    for (let i = offset; running; i++) {
      const route = READ_ROUTES[i % READ_ROUTES.length]!
      const startMs = Date.now()
      const t0 = performance.now()
      try {
        const res = await fetch(baseUrl + route, { signal: AbortSignal.timeout(10_000) })
        const text = await res.text()
        answers.push({ route, startMs, ms: performance.now() - t0, status: res.status, body: text ? JSON.parse(text) : null })
      } catch {
        answers.push({ route, startMs, ms: performance.now() - t0, status: 'no answer', body: null })
      }
      await Bun.sleep(pauseMs)
    }
  }
  const done = Promise.all(Array.from({ length: loops }, (_, i) => loop(i)))
  return {
    answers,
    stop: async () => {
      running = false
      await done
    },
  }
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0
}

/** Per collector, as /health/ready reports them. */
interface TickCounts {
  fetched: number
  failed: number
  skipped: number
  pending: number
  dropped: number
  rejected: number
}

/** Ticks the service reported kept (debug log), by collector. */
const kept = (svc: ServiceProcess, collector: string) =>
  svc.lines.filter((l) => l.msg === 'tick kept' && l.collector === collector).map((l) => String(l.capturedAt))

/** Wait until the service's spool is empty (every kept tick written). */
async function drained(svc: ServiceProcess, timeoutMs = 60_000) {
  for (const t0 = Date.now(); Date.now() - t0 < timeoutMs; await Bun.sleep(500)) {
    const res = await fetch(`${svc.baseUrl}/health/ready`).catch(() => null)
    const body = (await res?.json().catch(() => null)) as { collectors?: Record<string, TickCounts> } | null
    if (res?.status === 200 && body?.collectors && Object.values(body.collectors).every((c) => c.pending === 0)) return body.collectors
  }
  throw new Error('the spool did not drain')
}

describeTimescale('database outages, real processes', () => {
  let pg: Awaited<ReturnType<typeof startOwnTimescale>>
  let sql: Sql
  let sim: Simulator
  const started: ServiceProcess[] = []
  const start = async (env: Record<string, string>) => {
    const svc = await startService({
      DATABASE_URL: pg.url,
      UPSTREAM_URL: sim.upstreamUrl,
      COMMUNITY_API_URL: sim.communityUrl,
      PCSTORE_API_URL: sim.pcstoreUrl,
      FEED_TIMEOUT_MS: '3000',
      FULL_STATUS_CRON,
      LOG_LEVEL: 'debug',
      ...env,
    })
    started.push(svc)
    return svc
  }
  /** Capture times stored once each, and how many of them. */
  const stored = async (collector: 'player-count' | 'full-status') => {
    const rows =
      collector === 'player-count'
        ? await sql<{ at: Date }[]>`SELECT captured_at AS at FROM player_count_snapshots WHERE source = 'upstream'`
        : await sql<{ at: Date }[]>`SELECT captured_at AS at FROM full_status_ticks`
    return rows.map((r) => r.at.toISOString())
  }
  const expectStoredOnce = async (ticks: Record<'player-count' | 'full-status', string[]>) => {
    for (const collector of ['player-count', 'full-status'] as const) {
      const rows = await stored(collector)
      const missingOrDoubled = ticks[collector].filter((at) => rows.filter((r) => r === at).length !== 1)
      expect({ collector, missingOrDoubled }).toEqual({ collector, missingOrDoubled: [] })
    }
  }

  beforeAll(async () => {
    pg = await startOwnTimescale(`outages-${process.pid}`)
    sql = connect({ url: pg.url, max: 2 })
    // War time runs twice as fast: two fetches 15 s apart never see the same war time.
    sim = startSimulator({ port: 0, seed: 9, speed: 2 })
  }, 120_000)
  afterAll(async () => {
    for (const s of started) await s.stop('SIGKILL')
    await sim?.stop()
    await sql?.end({ timeout: 1 }).catch(() => {})
    await pg?.stop()
  })

  test('stopped, then frozen, under read load: every tick stored once with its capture time; 503 within 2 s; every read answered', async () => {
    const svc = await start({})
    // The planets the planet routes look up (the schedule's war-info runs once a minute).
    expect((await fetch(`${svc.baseUrl}/api/v1/collect/war-info`, { method: 'POST' })).status).toBe(200)
    const fromMs = Date.now()
    const load = readLoad(svc.baseUrl, 8, 100)
    const outages: [number, number][] = []
    const drills = [
      { begin: () => pg.pause(), end: () => pg.resume() },
      { begin: () => pg.freeze(), end: () => pg.thaw() },
    ]
    await Bun.sleep(20_000)
    for (const drill of drills) {
      const began = Date.now()
      await drill.begin()
      await Bun.sleep(OUTAGE_MS)
      await drill.end()
      outages.push([began, Date.now()])
      await Bun.sleep(15_000)
    }
    const counts = await drained(svc)
    await load.stop()
    const toMs = Date.now()
    expect(await svc.stop('SIGTERM')).toBe(0)

    // Every request got an answer, and only the answers the README promises.
    expect(load.answers.filter((a) => a.status === 'no answer')).toEqual([])
    const unexpected = load.answers.filter((a) => a.status !== 200 && a.status !== 503)
    expect(unexpected.map((a) => `${a.route} ${a.status}`)).toEqual([])
    const unavailable = load.answers.filter((a) => a.status === 503)
    for (const a of unavailable) expect(Object.keys(a.body as object)).toContain('error')
    // Each outage was seen by the readers, and answered fast.
    for (const [i, [began, ended]] of outages.entries()) {
      const during = unavailable.filter((a) => a.startMs >= began && a.startMs <= ended)
      const ms = during.map((a) => a.ms)
      console.log(`outage ${i ? 'frozen' : 'stopped'} ${Math.round((ended - began) / 1000)} s: ${load.answers.filter((a) => a.startMs >= began && a.startMs <= ended).length} reads, ${during.length} answered 503, p50 ${percentile(ms, 50).toFixed(0)} ms, p99 ${percentile(ms, 99).toFixed(0)} ms, max ${Math.max(...ms).toFixed(0)} ms`)
      expect(during.length).toBeGreaterThan(20)
      expect(percentile(ms, 99)).toBeLessThanOrEqual(2000)
    }

    // Every firing fetched its tick (none failed, none skipped), none dropped or set aside...
    for (const collector of ['player-count', 'full-status'] as const) {
      const pattern = collector === 'player-count' ? SCHEDULE_PATTERNS['player-count'] : FULL_STATUS_CRON
      const firings = new Cron(pattern, { timezone: 'UTC' })
      let n = 0
      // Firings within 3 s of either end may fall before the schedule started or after the counts were read.
      for (let t = firings.nextRun(new Date(fromMs + 3000)); t && t.getTime() < toMs - 3000; t = firings.nextRun(t)) n++
      const c = counts[collector]!
      expect({ collector, failed: c.failed, skipped: c.skipped, dropped: c.dropped, rejected: c.rejected }).toEqual({ collector, failed: 0, skipped: 0, dropped: 0, rejected: 0 })
      expect(c.fetched).toBeGreaterThanOrEqual(n)
      expect(kept(svc, collector).length).toBe(c.fetched)
    }
    // ...including those fetched while the database was away...
    for (const [began, ended] of outages) {
      const inOutage = kept(svc, 'player-count').filter((at) => Date.parse(at) > began + 1000 && Date.parse(at) < ended)
      expect(inOutage.length).toBeGreaterThanOrEqual(2)
    }
    // ...and each is stored exactly once, under its own capture time.
    await expectStoredOnce({ 'player-count': kept(svc, 'player-count'), 'full-status': kept(svc, 'full-status') })
    expect((await stored('player-count')).length).toBe(kept(svc, 'player-count').length)
    console.log(`ticks kept and stored once: player-count ${kept(svc, 'player-count').length}, full-status ${kept(svc, 'full-status').length}; ${load.answers.length} reads, none unanswered`)
    // One line when each outage starts (and one when it ends): an operator's log, not a flood.
    expect(svc.lines.filter((l) => l.msg === 'database unavailable: requests answer 503, scheduled ticks are kept until it is back')).toHaveLength(2)
    expect(svc.lines.filter((l) => l.msg === 'database available again')).toHaveLength(2)
  }, 300_000)

  test('a restart during an outage (SIGKILL): the ticks kept on disk are stored once the database is back', async () => {
    const dataDir = freshDataDir()
    const first = await start({ DATA_DIR: dataDir })
    await Bun.sleep(17_000)
    await pg.pause()
    const began = Date.now()
    await Bun.sleep(OUTAGE_MS)
    await first.stop('SIGKILL')
    await pg.resume()
    const inOutage = (c: 'player-count' | 'full-status') => kept(first, c).filter((at) => Date.parse(at) > began + 1000)
    expect(inOutage('player-count').length).toBeGreaterThanOrEqual(2)
    expect(inOutage('full-status').length).toBeGreaterThanOrEqual(2)

    // The same data folder; no schedule, so only what the first process kept is written.
    const second = await start({ DATA_DIR: dataDir, SCHEDULE_ENABLED: 'false' })
    await drained(second)
    expect(second.lines.some((l) => l.msg === 'spool: ticks from a previous run will be written')).toBe(true)
    await expectStoredOnce({ 'player-count': kept(first, 'player-count'), 'full-status': kept(first, 'full-status') })
    expect(await second.stop('SIGTERM')).toBe(0)
    removeDataDir(dataDir)
  }, 180_000)
})
