import { afterAll, beforeAll, expect, test } from 'bun:test'
import { buildApp } from '../../src/app.ts'
import { scheduledRun, WriteBacklog } from '../../src/collectors/backlog.ts'
import { collectors, type CollectorDeps } from '../../src/collectors/index.ts'
import { loadConfig } from '../../src/config.ts'
import { openDatabase, type Database } from '../../src/db/index.ts'
import { silentLogger } from '../../src/log.ts'
import { describeTimescale } from '../support/db.ts'
import { startOwnTimescale } from '../support/outage.ts'
import { simulatedFeeds } from '../support/sim.ts'

describeTimescale('a database outage during scheduled collection and reads', () => {
  let pg: Awaited<ReturnType<typeof startOwnTimescale>>
  let db: Database
  let s: Awaited<ReturnType<typeof simulatedFeeds>>
  let deps: CollectorDeps & { backlog: WriteBacklog }
  const config = loadConfig({})
  const ticks = async () => (await db.sql<{ captured_at: Date }[]>`SELECT captured_at FROM war_summary_snapshots ORDER BY 1`).map((r) => r.captured_at.toISOString())
  const get = (path: string) => buildApp({ config, sql: db.sql, db: db.info, log: silentLogger, feeds: s.feeds }).handle(new Request(`http://localhost${path}`))
  const tick = () => scheduledRun(collectors['full-status'], 'full-status', deps)

  beforeAll(async () => {
    pg = await startOwnTimescale(`outage-${process.pid}`)
    db = await openDatabase({ databaseUrl: pg.url, dataDir: '', dbPoolMax: 4, dbStatementTimeoutMs: 10_000 }, silentLogger)
    s = await simulatedFeeds()
    deps = { sql: db.sql, feeds: s.feeds, log: silentLogger, config, backlog: new WriteBacklog(240, silentLogger) }
  }, 120_000)
  afterAll(async () => {
    await s?.stop()
    await db?.close().catch(() => {})
    await pg?.stop()
  })

  test('reads answer 503 {error}, missed ticks are kept and written when the database is back, no restart needed', async () => {
    await tick()
    expect(await ticks()).toHaveLength(1)

    await pg.pause()
    const ready = await get('/health/ready')
    expect(ready.status).toBe(503)
    const kept: string[] = []
    for (let i = 0; i < 3; i++) {
      s.later(300)
      const status = (await s.feeds.upstream.status(801))
      kept.push(status.fetchedAt.toISOString())
      await expect(tick()).rejects.toThrow()
    }
    expect(deps.backlog.size('full-status')).toBe(3)
    const read = await get('/api/v1/historical-war-summary')
    expect(read.status).toBe(503)
    expect(await read.json()).toEqual({ error: 'database unavailable' })

    await pg.resume()
    s.later(300)
    const now = await tick()
    expect(now.outcome).toBe('written')
    expect(deps.backlog.size()).toBe(0)
    const stored = await ticks()
    // The first tick, the three kept ones at their own capture times, and the current one.
    expect(stored).toHaveLength(5)
    for (const at of kept) expect(stored).toContain(at)
    expect((await get('/health/ready')).status).toBe(200)
  }, 120_000)

  test('the backlog is bounded: past the bound the oldest ticks are dropped and counted', async () => {
    const small = new WriteBacklog(2, silentLogger)
    const bounded = { ...deps, backlog: small }
    await pg.pause()
    try {
      for (let i = 0; i < 4; i++) {
        s.later(300)
        await expect(scheduledRun(collectors['full-status'], 'full-status', bounded)).rejects.toThrow()
      }
      expect(small.size('full-status')).toBe(2)
      expect(small.dropped).toBe(2)
    } finally {
      await pg.resume()
    }
    const before = (await ticks()).length
    s.later(300)
    await scheduledRun(collectors['full-status'], 'full-status', bounded)
    expect((await ticks()).length).toBe(before + 3)
  }, 120_000)
})
