/**
 * bench/measure.ts against the real app on a small generated history: every GET route
 * under /api/v1 has a case, every case is timed computed and kept, a computed request of a
 * route that reads the database did query it (the versions moved before it: no kept answer
 * served it), and the exactness checks (history answers against raw rows, page totals
 * against count(*)) run on both answers without a mismatch.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { COLLECTORS } from '../../src/collect/index.ts'
import { CollectorRunner } from '../../src/collect/runner.ts'
import { loadConfig } from '../../src/config.ts'
import { silentLogger } from '../../src/log.ts'
import { createStore } from '../../src/storage/index.ts'
import { refreshRollups } from '../../src/storage/rollups.ts'
import { generate } from '../../bench/generate.ts'
import { dataFacts, measureLatency, type LatencyResult } from '../../bench/measure.ts'
import { WAR_ID } from '../../bench/setup.ts'
import { describeTimescale, openTimescaleTestDatabase, type TestDatabase } from '../support/db.ts'
import { simulatedFeeds } from '../support/sim.ts'

/** Routes whose answers read no database: the feeds' cache (/player-count, /war-stats) and the process (/health/throttle). */
const NO_DATABASE = new Set(['player-count', 'war-stats', 'health/throttle'])

describeTimescale('bench read latency: computed and kept', () => {
  let db: TestDatabase
  let feeds: ReturnType<typeof simulatedFeeds>
  let result: LatencyResult
  const REPS = 4

  beforeAll(async () => {
    db = await openTimescaleTestDatabase('bench_measure')
    feeds = simulatedFeeds(13, 5000)
    const runner = new CollectorRunner({ db, store: createStore(db), feeds: feeds.feeds, log: silentLogger, config: { warId: WAR_ID } })
    await runner.runOnce(COLLECTORS['war-info'])
    const warTimeAtNow = (await feeds.feeds.upstream.status(WAR_ID)).data.time
    const now = new Date()
    const scale = { years: 3 / 365, planetDays: 0.5, summaryDays: 1, orders: 3, dispatches: 20 }
    await generate(db.sql, scale, { now, warId: WAR_ID, warTimeAtNow, progress: () => {} })
    await refreshRollups(db.sql, db.info.edition)
    const deps = { config: { ...loadConfig({}), warId: WAR_ID }, db, log: silentLogger, feeds: feeds.feeds }
    result = await measureLatency(deps, await dataFacts(db.sql, now), { reps: REPS, warmup: 1, baselineBudgetMs: 5_000, connections: 1, progress: () => {} })
  }, 90_000)

  afterAll(async () => {
    await feeds?.stop()
    await db?.dispose()
  })

  test('every GET route under /api/v1 has a case', () => {
    expect(result.coverage.routes.length).toBeGreaterThanOrEqual(15)
    expect(result.coverage.routes).toContain('/api/v1/divers/history')
    expect(result.coverage.routes).toContain('/api/v1/planet/:planetId/history')
    expect(result.coverage.untimed).toEqual([])
  })

  test('every case is timed both ways, with the reps asked for', () => {
    for (const c of result.cases) {
      expect({ name: c.name, computed: c.computed?.timing.n, kept: c.kept?.timing.n, status: c.status }).toEqual({ name: c.name, computed: REPS, kept: REPS, status: 200 })
    }
  })

  test('a computed request of a route that reads the database queried it, every time', () => {
    const reading = result.cases.filter((c) => !NO_DATABASE.has(c.name))
    expect(reading.length).toBeGreaterThan(30)
    for (const c of reading) expect({ name: c.name, queried: c.computed!.queried }).toEqual({ name: c.name, queried: REPS })
  })

  test('history routes: compared with raw rows (computed and kept equal), raw timed; pages: totals equal count(*)', () => {
    const histories = result.cases.filter((c) => c.group === 'divers' || c.group === 'planet')
    expect(histories).toHaveLength(8)
    for (const c of histories) {
      expect(c.baseline?.equal).toBe(true)
      expect(c.baseline!.timing.n).toBeGreaterThanOrEqual(1)
    }
    const whole = result.cases.filter((c) => c.target === 'page')
    expect(whole.length).toBeGreaterThan(5)
    for (const c of whole) expect(c.totals?.totalResults).toBe(c.totals!.counted)
  })
})
