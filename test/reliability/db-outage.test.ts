import { afterAll, beforeAll, expect, test } from 'bun:test'
import { buildApp } from '../../src/app.ts'
import { COLLECTORS } from '../../src/collect/index.ts'
import type { CollectorRunner } from '../../src/collect/runner.ts'
import { Spool } from '../../src/collect/spool.ts'
import { SpoolWriter } from '../../src/collect/writer.ts'
import { loadConfig } from '../../src/config.ts'
import { connect, probeConnection } from '../../src/db/connect.ts'
import { DatabaseGate } from '../../src/db/gate.ts'
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

  test('a stop and start of the server met while busy: available again within seconds, and the first reads on pooled connections the restart closed answer (none 503)', async () => {
    expect((await get('/health/ready')).status).toBe(200)
    // The server stops and starts while this process is busy (its event loop blocked): its
    // pooled connections learn that their server processes are gone only at their next use.
    pg.pauseBlocking()
    // A read meets the outage; the gate then asks every half second, refused each time.
    expect((await get('/health/ready')).status).toBe(503)
    await Bun.sleep(8000)
    expect(db.gate.available).toBe(false)
    pg.resumeBlocking()
    const back = Date.now()
    while (!db.gate.available && Date.now() - back < 30_000) await Bun.sleep(50)
    expect({ available: db.gate.available, afterMs: Date.now() - back < 5000 ? 'under 5 s' : Date.now() - back })
      .toEqual({ available: true, afterMs: 'under 5 s' })
    // The first reads after it, several at once: each pooled connection learns of the
    // restart only at its next use, and none of them may answer 503 for it.
    const paths = ['/api/v1/historical-war-summary', '/api/v1/historical-dispatches', '/api/v1/timeline', '/api/v1/divers/history?range=24h', '/api/v1/historical-major-orders', '/health/ready']
    const statuses = await Promise.all(paths.map(async (path) => [path, (await get(path)).status]))
    expect(Object.fromEntries(statuses)).toEqual(Object.fromEntries(paths.map((path) => [path, 200])))
  }, 120_000)

  test('the gate\'s probe after a stop of seconds met while busy (every probe refused): the database is available again within seconds of its return', async () => {
    // A probe client that had failed to connect that many times went on timing out its
    // connects for about 16 s after the server was back (probeConnection renews it).
    const probe = probeConnection(pg.url, 'gws-test/probe')
    const gate = new DatabaseGate(() => probe.ask(), silentLogger)
    const pool = connect({ url: pg.url, max: 3 })
    await probe.ask()
    let reading = true
    const reads = (async () => {
      while (reading) {
        await gate.run(() => pool`SELECT 1`).catch(() => {})
        await Bun.sleep(300)
      }
    })()
    try {
      await Bun.sleep(1000)
      pg.pauseBlocking()
      await Bun.sleep(8000)
      expect(gate.available).toBe(false)
      pg.resumeBlocking()
      const back = Date.now()
      while (!gate.available && Date.now() - back < 30_000) await Bun.sleep(50)
      expect({ available: gate.available, afterMs: Date.now() - back < 5000 ? 'under 5 s' : Date.now() - back }).toEqual({ available: true, afterMs: 'under 5 s' })
    } finally {
      reading = false
      await reads
      gate.stop()
      await Promise.all([pool.end({ timeout: 1 }), probe.end(1)])
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
