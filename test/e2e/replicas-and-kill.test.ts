import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connect, type Sql } from '../../src/db/connect.ts'
import { migrate } from '../../src/db/migrate.ts'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'
import { createScratchDatabase, describeTimescale } from '../support/db.ts'
import { startService, type ServiceProcess } from '../support/process.ts'

/** Real service processes on one TimescaleDB, fed by the simulator. */
describeTimescale('service processes on one database', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>
  let sql: Sql
  let sim: Simulator
  const started: ServiceProcess[] = []
  const env = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: scratch.url,
    UPSTREAM_URL: sim.upstreamUrl,
    COMMUNITY_API_URL: sim.communityUrl,
    PCSTORE_API_URL: sim.pcstoreUrl,
    FEED_TIMEOUT_MS: '3000',
    ...extra,
  })
  const start = async (extra?: Record<string, string>) => {
    const svc = await startService(env(extra))
    started.push(svc)
    return svc
  }
  const one = async <T>(q: Promise<T[]>) => (await q)[0]!

  beforeAll(async () => {
    scratch = await createScratchDatabase('replicas')
    sql = connect({ url: scratch.url, max: 4 })
    await migrate(sql)
    sim = startSimulator({ port: 0, seed: 3, speed: 1 })
  }, 60_000)
  afterAll(async () => {
    for (const s of started) await s.stop('SIGKILL')
    await sim?.stop()
    await sql?.end()
    await scratch?.drop()
  })

  test('three replicas with schedules on store each tick once', async () => {
    // Full-status every 10 s so a short run sees several ticks.
    const replicas = await Promise.all([1, 2, 3].map(() => start({ SCHEDULE_ENABLED: 'true', FULL_STATUS_CRON: '*/10 * * * * *' })))
    await Bun.sleep(32_000)
    for (const r of replicas) expect(await r.stop('SIGTERM')).toBe(0)

    const ticks = await one(sql<{ n: number; summaries: number; planets: number; expected: number }[]>`
      SELECT (SELECT count(*) FROM full_status_ticks) AS n,
             (SELECT count(*) FROM war_summary_snapshots) AS summaries,
             (SELECT count(*) FROM planet_status_snapshots) AS planets,
             (SELECT coalesce(sum(planets_written), 0) FROM full_status_ticks) AS expected`)
    expect(ticks.n).toBeGreaterThanOrEqual(2)
    expect(ticks.summaries).toBe(ticks.n)
    expect(ticks.planets).toBe(ticks.expected)
    const upstream = await one(sql<{ rows: number; times: number }[]>`
      SELECT count(*) AS rows, count(DISTINCT upstream_war_time) AS times FROM player_count_snapshots WHERE source = 'upstream'`)
    expect(upstream.rows).toBeGreaterThanOrEqual(2)
    expect(upstream.rows).toBe(upstream.times)
    const pcstore = await sql`SELECT game_name, count(*)::int AS n FROM player_count_snapshots WHERE source = 'pcstore' GROUP BY 1 ORDER BY 1`
    expect([...pcstore]).toEqual([{ game_name: 'Game', n: 1 }, { game_name: 'Game 2', n: 1 }])
    // The replicas did meet: some runs found the lock held or the tick already stored.
    const outcomes = replicas.flatMap((r) => r.lines.filter((l) => l.msg === 'collector run').map((l) => l.outcome))
    expect(outcomes).toContain('written')
    expect(outcomes.some((o) => o === 'locked' || o === 'unchanged')).toBe(true)
  }, 90_000)

  test('a process killed in the middle of a full-status tick leaves no partial tick', async () => {
    const svc = await start({ SCHEDULE_ENABLED: 'false' })
    const before = await one(sql<{ ticks: number; planets: number }[]>`
      SELECT (SELECT count(*) FROM full_status_ticks) AS ticks, (SELECT count(*) FROM planet_status_snapshots) AS planets`)
    // Hold the dispatches table: the tick writes its planets, then waits at its last step.
    const blocker = connect({ url: scratch.url, max: 1 })
    const reserved = await blocker.reserve()
    await reserved`BEGIN`
    await reserved`LOCK TABLE dispatches IN ACCESS EXCLUSIVE MODE`
    sim.control.advance(11) // a new war time (10 s steps), so the tick is not a repeat
    const pending = fetch(`${svc.baseUrl}/api/v1/collect/full-status`, { method: 'POST' }).catch(() => null)
    for (let i = 0; i < 100; i++) {
      const [w] = await sql`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name = 'galactic-war-stats' AND datname = current_database()`
      if (w) break
      await Bun.sleep(100)
    }
    const waiting = await sql`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name = 'galactic-war-stats' AND datname = current_database()`
    expect(waiting.length).toBe(1)
    await svc.stop('SIGKILL')
    await pending
    await reserved`ROLLBACK`
    reserved.release()
    await blocker.end()
    // The backend notices its client is gone and aborts: once the killed process's backends
    // are gone (this database is this file's: other files run at the same time), nothing of
    // the tick remains.
    for (let i = 0; i < 100; i++) {
      const [left] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'galactic-war-stats' AND datname = current_database()`
      if (left!.n === 0) break
      await Bun.sleep(100)
    }
    const after = await one(sql<{ ticks: number; planets: number }[]>`
      SELECT (SELECT count(*) FROM full_status_ticks) AS ticks, (SELECT count(*) FROM planet_status_snapshots) AS planets`)
    expect(after).toEqual(before)

    const again = await start({ SCHEDULE_ENABLED: 'false' })
    const res = await fetch(`${again.baseUrl}/api/v1/collect/full-status`, { method: 'POST' })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { outcome: string }).outcome).toBe('written')
  }, 90_000)

  // Last in this file: the simulated world stays on the new war.
  test('a service started on WAR_ID=801 while the upstream is on war 802 collects war 802 from its first tick', async () => {
    sim.control.addFault({ kind: 'new_war', warId: 802 })
    const ticksOf = async (warId: number) => (await one(sql<{ n: number }[]>`SELECT count(*)::int AS n FROM full_status_ticks WHERE war_id = ${warId}`)).n
    const old = await ticksOf(801)
    const svc = await start({ SCHEDULE_ENABLED: 'true', WAR_ID: '801', FULL_STATUS_CRON: '*/2 * * * * *' })
    for (let i = 0; i < 50 && (await ticksOf(802)) === 0; i++) await Bun.sleep(200)
    await svc.stop('SIGTERM')
    expect(await ticksOf(802)).toBeGreaterThan(0)
    // Not one tick went to the war of WAR_ID, not even the first.
    expect(await ticksOf(801)).toBe(old)
    expect(svc.lines.some((l) => l.msg === 'current war changed' && l.from === 801 && l.to === 802)).toBe(true)
  }, 30_000)
})
