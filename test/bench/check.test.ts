/**
 * bench/check.ts against the real service process on a small generated history: the
 * checker's POSTs write through the service, its samples of the real answers are equal to
 * the raw answers, and a server answering a wrong body is caught as a mismatch (a check
 * that cannot fail checks nothing).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { COLLECTORS } from '../../src/collect/index.ts'
import { CollectorRunner } from '../../src/collect/runner.ts'
import { silentLogger } from '../../src/log.ts'
import { createStore } from '../../src/storage/index.ts'
import { refreshRollups } from '../../src/storage/rollups.ts'
import { startCheck, type CheckTally } from '../../bench/check.ts'
import { generate } from '../../bench/generate.ts'
import { COLLECTOR_SECRET, serviceEnv, stopProcess } from '../../bench/load.ts'
import { WAR_ID } from '../../bench/setup.ts'
import { describeTimescale, openTimescaleTestDatabase, type TestDatabase } from '../support/db.ts'
import { freshDataDir, startListening, type Listening } from '../support/process.ts'
import { simulatedFeeds } from '../support/sim.ts'

const PATH = '/api/v1/divers/history?range=24h'

describeTimescale('bench exactness check under load', () => {
  let db: TestDatabase
  let feeds: ReturnType<typeof simulatedFeeds>
  let service: Listening
  let base: string
  let wrong: ReturnType<typeof Bun.serve> | undefined

  beforeAll(async () => {
    db = await openTimescaleTestDatabase('bench_check')
    feeds = simulatedFeeds(11, 5000)
    const runner = new CollectorRunner({ db, store: createStore(db), feeds: feeds.feeds, log: silentLogger, config: { warId: WAR_ID } })
    await runner.runOnce(COLLECTORS['war-info'])
    const warTimeAtNow = (await feeds.feeds.upstream.status(WAR_ID)).data.time
    const scale = { years: 2 / 365, planetDays: 0.1, summaryDays: 0.1, orders: 2, dispatches: 5 }
    await generate(db.sql, scale, { now: new Date(), warId: WAR_ID, warTimeAtNow, progress: () => {} })
    await refreshRollups(db.sql, db.info.edition)
    const sim = feeds.sim
    service = await startListening(
      [process.execPath, 'src/main.ts'],
      {
        ...serviceEnv({ databaseUrl: db.url!, poolMax: 4, feeds: { upstreamUrl: sim.upstreamUrl, communityUrl: sim.communityUrl, pcstoreUrl: sim.pcstoreUrl } }),
        DATA_DIR: freshDataDir(),
      },
    )
    base = `http://127.0.0.1:${service.port}`
  }, 60_000)

  afterAll(async () => {
    wrong?.stop(true)
    if (service) await stopProcess(service.proc)
    await feeds?.stop()
    await db?.dispose()
  })

  const deps = () => ({ sql: db.sql, serviceBase: base, secret: COLLECTOR_SECRET, advanceWar: (s: number) => feeds.sim.control.advance(s) })

  test('the service: POSTs write through it, every sample not overlapped by a write is equal', async () => {
    const check = startCheck(deps(), { kind: 'divers', range: '24h' }, base, PATH, true)
    await Bun.sleep(4500)
    const t: CheckTally = await check.stop()
    expect({ mismatched: t.mismatched, failed: t.failed, firstMismatch: t.firstMismatch }).toEqual({ mismatched: 0, failed: 0, firstMismatch: null })
    expect(t.equal).toBeGreaterThan(5)
    expect(t.equal + t.skipped).toBe(t.samples)
    // The first POST meets an empty feed cache: a new war time, a new row.
    const pc = t.posts.find((p) => p.collector === 'player-count')!
    expect(pc.posts).toBeGreaterThanOrEqual(2)
    expect(pc.wrote).toBeGreaterThanOrEqual(1)
    expect(pc.failed).toBe(0)
    expect(t.rowsWritten.upstreamRows).toBe(pc.wrote)
  }, 20_000)

  test('kept pages: a page of the window ending now and a page of a fixed window stay equal to the raw rows while POSTs write', async () => {
    const [row] = await db.sql<{ planet_index: number }[]>`SELECT planet_index FROM planet_status_snapshots LIMIT 1`
    const planetIndex = row!.planet_index
    const day = 86_400_000
    const today = new Date(Math.floor(Date.now() / day) * day)
    const specs = [
      {
        path: `/api/v1/historical-planet-status?planetId=${planetIndex}`,
        spec: { kind: 'page', series: { table: 'planet_status_snapshots', warId: WAR_ID, planetIndex, spanMs: day } },
        wrote: 'planetStatus',
        ms: 4500,
      },
      {
        path: `/api/v1/historical-player-count?startDate=${today.toISOString().slice(0, 10)}&endDate=${today.toISOString().slice(0, 10)}`,
        spec: { kind: 'page', series: { table: 'player_count_snapshots', from: today, toExclusive: new Date(today.getTime() + day) } },
        wrote: 'upstreamRows',
        // Until the live-count feed answer cached by the first test's POSTs (fresh for 14 s) has expired.
        ms: 8000,
      },
    ] as const
    for (const { path, spec, wrote, ms } of specs) {
      const check = startCheck(deps(), spec, base, path, true)
      await Bun.sleep(ms)
      const t = await check.stop()
      expect({ path, mismatched: t.mismatched, failed: t.failed, firstMismatch: t.firstMismatch }).toEqual({ path, mismatched: 0, failed: 0, firstMismatch: null })
      expect(t.equal).toBeGreaterThan(5)
      // Rows were written into the page's window during the run, after its first answer was kept.
      expect(t.rowsWritten[wrote]).toBeGreaterThan(0)
    }
  }, 40_000)

  test('a server answering a wrong body (the average off by one): mismatches', async () => {
    const body = (await (await fetch(base + PATH)).json()) as { stats: { avg: number } }
    body.stats.avg += 1
    wrong = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => Response.json(body) })
    const check = startCheck(deps(), { kind: 'divers', range: '24h' }, `http://127.0.0.1:${wrong.port}`, PATH, true)
    await Bun.sleep(2000)
    const t = await check.stop()
    expect(t.mismatched).toBeGreaterThan(0)
    expect(t.firstMismatch).toContain('$.stats.avg')
  }, 20_000)
})
