import { afterAll, beforeAll, expect, test } from 'bun:test'
import { buildApp } from '../../src/app.ts'
import { COLLECTORS } from '../../src/collect/index.ts'
import type { CollectorRunner } from '../../src/collect/runner.ts'
import { Spool } from '../../src/collect/spool.ts'
import { SpoolWriter } from '../../src/collect/writer.ts'
import { loadConfig } from '../../src/config.ts'
import { openDatabase, type Database } from '../../src/db/index.ts'
import { silentLogger } from '../../src/log.ts'
import { testRunner } from '../support/collect.ts'
import { describeTimescale } from '../support/db.ts'
import { startOwnTimescale } from '../support/outage.ts'
import { simulatedFeeds } from '../support/sim.ts'

/** In process, against a TimescaleDB of its own that the test stops and starts: the spool and its writer. */
describeTimescale('a database outage during scheduled collection and reads', () => {
  let pg: Awaited<ReturnType<typeof startOwnTimescale>>
  let db: Database
  let s: Awaited<ReturnType<typeof simulatedFeeds>>
  let runner: CollectorRunner
  const config = loadConfig({})
  const ticks = async () => (await db.sql<{ captured_at: Date }[]>`SELECT captured_at FROM war_summary_snapshots ORDER BY 1`).map((r) => r.captured_at.toISOString())
  const get = (path: string) => buildApp({ config, db, log: silentLogger, feeds: s.feeds }).handle(new Request(`http://localhost${path}`))
  /** What a scheduled firing does: fetch now (never waiting on the database), keep the tick in the spool. */
  const fire = async (writer: SpoolWriter) => {
    const { tick } = await runner.capture(COLLECTORS['full-status'])
    await writer.keep(tick)
    return tick.capturedAt
  }
  const drained = async (spool: Spool, timeoutMs = 20_000) => {
    for (const t0 = Date.now(); spool.size() > 0 && Date.now() - t0 < timeoutMs; ) await Bun.sleep(50)
    return spool.size()
  }

  beforeAll(async () => {
    pg = await startOwnTimescale(`outage-${process.pid}`)
    db = await openDatabase({ databaseUrl: pg.url, dataDir: '', dbPoolMax: 4, dbStatementTimeoutMs: 10_000 }, silentLogger)
    s = await simulatedFeeds()
    runner = testRunner(db, s.feeds, { config })
  }, 120_000)
  afterAll(async () => {
    await s?.stop()
    await db?.close().catch(() => {})
    await pg?.stop()
  })

  test('reads answer 503 {error}, ticks fetched meanwhile are kept and written when the database is back, no restart needed', async () => {
    const spool = await Spool.open(null, 240, silentLogger)
    const writer = new SpoolWriter(runner, spool, db.gate, silentLogger)
    writer.start()
    try {
      await fire(writer)
      expect(await drained(spool)).toBe(0)
      expect(await ticks()).toHaveLength(1)

      await pg.pause()
      const ready = await get('/health/ready')
      expect(ready.status).toBe(503)
      const kept: string[] = []
      for (let i = 0; i < 3; i++) {
        s.later(300)
        kept.push(await fire(writer))
      }
      // Give the writer time to try: the ticks stay kept, none is lost.
      await Bun.sleep(1500)
      expect(spool.size('full-status')).toBe(3)
      const read = await get('/api/v1/historical-war-summary')
      expect(read.status).toBe(503)
      expect(await read.json()).toEqual({ error: 'database unavailable' })

      await pg.resume()
      s.later(300)
      kept.push(await fire(writer))
      expect(await drained(spool)).toBe(0)
      const stored = await ticks()
      // The first tick, the three kept ones at their own capture times, and the current one.
      expect(stored).toHaveLength(5)
      for (const at of kept) expect(stored).toContain(at)
      expect(spool.counts()['full-status']).toMatchObject({ added: 5, written: 5, dropped: 0, rejected: 0 })
      expect((await get('/health/ready')).status).toBe(200)
    } finally {
      await writer.stop()
      await spool.close()
    }
  }, 120_000)

  test('the spool is bounded: past the bound the oldest ticks are dropped and counted', async () => {
    const spool = await Spool.open(null, 2, silentLogger)
    const writer = new SpoolWriter(runner, spool, db.gate, silentLogger)
    writer.start()
    try {
      const before = (await ticks()).length
      await pg.pause()
      try {
        for (let i = 0; i < 4; i++) {
          s.later(300)
          await fire(writer)
        }
        expect(spool.size('full-status')).toBe(2)
        expect(spool.counts()['full-status'].dropped).toBe(2)
      } finally {
        await pg.resume()
      }
      // The two kept ticks are written once the database answers, then the next one.
      expect(await drained(spool)).toBe(0)
      expect((await ticks()).length).toBe(before + 2)
      s.later(300)
      await fire(writer)
      expect(await drained(spool)).toBe(0)
      expect((await ticks()).length).toBe(before + 3)
    } finally {
      await writer.stop()
      await spool.close()
    }
  }, 120_000)
})
