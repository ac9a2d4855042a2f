/**
 * Read replicas (DATABASE_READ_URL) with a real hot-standby streaming replica of a
 * TimescaleDB of the test's own (scripts/testdb.sh replica: pg_basebackup, streaming),
 * and real service processes:
 * - the read routes' statements run on the replica (its pg_stat_activity shows the
 *   service's read pool; /health/ready counts them), rows written through the service
 *   reach it;
 * - exactness: a row committed and announced on the primary is in the next answers even
 *   while the replica's replay is paused (reads go to the primary until it has replayed);
 * - a replica whose replay lags past READ_REPLICA_MAX_LAG_MS leaves the rotation and
 *   /health/ready reports its lag; it comes back once it has caught up;
 * - a stopped replica, and a frozen one: every read is answered (by the primary), none
 *   fails; reads caught by the freeze wait at most the gate's bound.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connect, type Sql } from '../../src/db/connect.ts'
import { migrate } from '../../src/db/migrate.ts'
import type { ReplicaStatus } from '../../src/db/replicas.ts'
import { CHANGES_CHANNEL } from '../../src/storage/changes.ts'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'
import { describeTimescale } from '../support/db.ts'
import { startOwnTimescale } from '../support/outage.ts'
import { startService, type ServiceProcess } from '../support/process.ts'

interface ReadyBody {
  status: string
  readReplicas?: { maxLagMs: number; primaryReads: number; replicas: ReplicaStatus[] }
}

/**
 * Read routes of the load. The history pages end at the moment of the request: a page of a
 * fixed window is kept per data version (routes/history.ts), a new window is read from
 * the database, which is what these tests watch.
 */
const upToNow = () => encodeURIComponent(new Date().toISOString())
const readRoutes = () => [
  '/api/v1/divers/history?range=24h',
  '/api/v1/divers/history?range=all',
  `/api/v1/historical-player-count?startDate=2000-01-01&endDate=${upToNow()}`,
  `/api/v1/historical-war-summary?endDate=${upToNow()}`,
  '/api/v1/historical-dispatches',
  '/api/v1/war/801',
  '/api/v1/planets',
]

describeTimescale('read replicas: a real streaming replica', () => {
  let pg: Awaited<ReturnType<typeof startOwnTimescale>>
  let replicaUrl: string
  let sql: Sql
  let rsql: Sql
  let sim: Simulator
  const started: ServiceProcess[] = []
  const start = async (env: Record<string, string>) => {
    const svc = await startService({
      DATABASE_URL: pg.url,
      DATABASE_READ_URL: replicaUrl,
      UPSTREAM_URL: sim.upstreamUrl,
      COMMUNITY_API_URL: sim.communityUrl,
      PCSTORE_API_URL: sim.pcstoreUrl,
      SCHEDULE_ENABLED: 'false',
      ...env,
    })
    started.push(svc)
    return svc
  }
  const ready = async (svc: ServiceProcess) => (await (await fetch(`${svc.baseUrl}/health/ready`)).json()) as ReadyBody
  const replicaOf = async (svc: ServiceProcess) => (await ready(svc)).readReplicas!.replicas[0]!
  /** Poll until `check` passes, or fail after `limitMs`. */
  const until = async (limitMs: number, what: string, check: () => Promise<boolean>) => {
    const t0 = performance.now()
    while (!(await check())) {
      if (performance.now() - t0 > limitMs) throw new Error(`${what}: not within ${limitMs} ms`)
      await Bun.sleep(50)
    }
    return performance.now() - t0
  }
  const get = async (svc: ServiceProcess, path: string) => {
    const res = await fetch(svc.baseUrl + path)
    return { status: res.status, body: (await res.json()) as any }
  }
  /** A row written outside the service, announced as README "Caching" asks. */
  let warTime = 1_000_000
  const writeAnnounced = async (value: number) => {
    warTime += 10
    await sql.begin(async (tx) => {
      await tx`INSERT INTO player_count_snapshots (captured_at, game_name, source, api_total_player_count, war_id, upstream_war_time)
               VALUES (clock_timestamp(), 'Game 2', 'upstream', ${value}, 801, ${warTime})`
      await tx`SELECT pg_notify(${CHANGES_CHANNEL}, 'player-counts')`
    })
  }
  const newestCount = async (svc: ServiceProcess) => {
    const { status, body } = await get(svc, `/api/v1/historical-player-count?startDate=2000-01-01&endDate=${upToNow()}&gameName=Game%202&limit=1`)
    expect(status).toBe(200)
    return body.items[0]?.apiTotalPlayerCount as number | undefined
  }

  beforeAll(async () => {
    pg = await startOwnTimescale(`replicas-${process.pid}`)
    sql = connect({ url: pg.url, max: 2 })
    await migrate(sql)
    replicaUrl = await pg.replica()
    rsql = connect({ url: replicaUrl, max: 1 })
    sim = startSimulator({ port: 0, seed: 5, speed: 1 })
  }, 180_000)
  afterAll(async () => {
    for (const s of started) await s.stop('SIGKILL')
    await sim?.stop()
    await rsql?.end({ timeout: 1 })
    await sql?.end({ timeout: 1 })
    await pg?.stop()
  }, 60_000)

  test('reads run on the replica, and rows written through the service reach it', async () => {
    const svc = await start({ READ_REPLICA_MAX_LAG_MS: '5000' })
    await until(5000, 'replica in rotation', async () => (await replicaOf(svc)).inRotation)
    expect((await rsql<{ r: boolean }[]>`SELECT pg_is_in_recovery() AS r`)[0]!.r).toBe(true)
    // The war and its planets (for /war/801), written through the service.
    expect((await fetch(`${svc.baseUrl}/api/v1/collect/war-info`, { method: 'POST' })).status).toBe(200)

    const post = await fetch(`${svc.baseUrl}/api/v1/collect/player-count`, { method: 'POST' })
    expect(post.status).toBe(200)
    const onPrimary = (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM player_count_snapshots`)[0]!.n
    expect(onPrimary).toBeGreaterThan(0)
    // The write reaches the replica (streaming).
    await until(5000, 'rows on the replica', async () => (await rsql<{ n: number }[]>`SELECT count(*)::int AS n FROM player_count_snapshots`)[0]!.n === onPrimary)

    const before = await replicaOf(svc)
    for (const route of readRoutes()) expect((await get(svc, route)).status).toBe(200)
    // Right after the write, the first reads may go to the primary until the replica has
    // replayed it; once it has, reads are the replica's.
    await Bun.sleep(300)
    for (const route of readRoutes()) expect((await get(svc, route)).status).toBe(200)
    const after = await replicaOf(svc)
    expect(after.reads).toBeGreaterThan(before.reads)
    expect(after.failedReads).toBe(0)
    // The newest row as the service answers it is the one on the primary.
    const newest = (await sql<{ t: Date; source: string }[]>`
      SELECT captured_at AS t, source FROM player_count_snapshots WHERE game_name = 'Game 2' ORDER BY captured_at DESC, source LIMIT 1`)[0]!
    const { body } = await get(svc, '/api/v1/historical-player-count?startDate=2000-01-01&endDate=2100-01-01&gameName=Game%202&limit=1')
    expect(body.items[0].timestamp).toBe(newest.t.toISOString())
    expect(body.items[0].apiTotalPlayerCount === null).toBe(newest.source === 'pcstore')
    // The replica's own view: the service's read pool is connected there.
    const sessions = await rsql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'galactic-war-stats/read'`
    expect(sessions[0]!.n).toBeGreaterThan(0)
  }, 60_000)

  test('a row committed on the primary is in the next answers while the replica has not replayed it', async () => {
    // A bound far above the test: the replica stays in rotation while behind.
    const svc = await start({ READ_REPLICA_MAX_LAG_MS: '600000' })
    await until(5000, 'replica in rotation', async () => (await replicaOf(svc)).inRotation)
    await writeAnnounced(111_111)
    await until(2000, 'first row seen', async () => (await newestCount(svc)) === 111_111)
    await Bun.sleep(300)
    const kept = await get(svc, '/api/v1/divers/history?range=all')
    expect((await replicaOf(svc)).reads).toBeGreaterThan(0)

    await rsql`SELECT pg_wal_replay_pause()`
    try {
      await writeAnnounced(222_222)
      // Heard of by LISTEN within a second; from then on every answer has it, although the
      // replica (in rotation) has not replayed it.
      await until(2000, 'second row seen', async () => (await newestCount(svc)) === 222_222)
      // (Reads before the notification arrived could still go to the replica: nothing was known to be missing.)
      const readsBefore = (await replicaOf(svc)).reads
      expect((await rsql<{ n: number }[]>`SELECT count(*)::int AS n FROM player_count_snapshots WHERE api_total_player_count = 222222`)[0]!.n).toBe(0)
      const fresh = await get(svc, '/api/v1/divers/history?range=all')
      expect(fresh.status).toBe(200)
      expect(fresh.body.source).toBe('api')
      expect(fresh.body.stats.current).toBe(222_222)
      expect(kept.body.stats.current).toBe(111_111)
      await until(3000, 'pause reported', async () => (await replicaOf(svc)).replayPaused === true)
      // The lag shows at a check once the primary's WAL position (written asynchronously here:
      // synchronous_commit is off) is past the replica's: within a check or two.
      await until(3000, 'lag reported', async () => ((await replicaOf(svc)).lagBytes ?? 0) > 0)
      const behind = await replicaOf(svc)
      expect(behind.inRotation).toBe(true)
      expect(behind.lagBytes!).toBeGreaterThan(0)
      // Nothing it answered since the pause: the primary did.
      for (let i = 0; i < 5; i++) expect(await newestCount(svc)).toBe(222_222)
      expect((await replicaOf(svc)).reads).toBe(readsBefore)
    } finally {
      await rsql`SELECT pg_wal_replay_resume()`
    }
    // Once replayed, reads are the replica's again.
    const readsPaused = (await replicaOf(svc)).reads
    await until(5000, 'reads back on the replica', async () => {
      await newestCount(svc)
      return (await replicaOf(svc)).reads > readsPaused
    })
    expect(await newestCount(svc)).toBe(222_222)
  }, 60_000)

  test('a replica lagging past READ_REPLICA_MAX_LAG_MS leaves the rotation, reported in /health/ready', async () => {
    const svc = await start({ READ_REPLICA_MAX_LAG_MS: '1000' })
    await until(5000, 'replica in rotation', async () => (await replicaOf(svc)).inRotation)
    await rsql`SELECT pg_wal_replay_pause()`
    try {
      await writeAnnounced(333_333)
      await until(6000, 'replica out of rotation', async () => !(await replicaOf(svc)).inRotation)
      const out = await replicaOf(svc)
      expect(out.lagMs!).toBeGreaterThan(1000)
      expect(out.lagBytes!).toBeGreaterThan(0)
      expect(out.replayPaused).toBe(true)
      expect(out.reason).toContain('lag')
      const body = await ready(svc)
      expect(body.status).toBe('ready') // reads are answered by the primary meanwhile
      for (const route of readRoutes()) expect((await get(svc, route)).status).toBe(200)
      expect(await newestCount(svc)).toBe(333_333)
    } finally {
      await rsql`SELECT pg_wal_replay_resume()`
    }
    await until(5000, 'replica back in rotation', async () => (await replicaOf(svc)).inRotation)
    expect((await replicaOf(svc)).lagMs!).toBeLessThanOrEqual(1000)
  }, 60_000)

  /** `n` readers cycling over the read routes until stopped: every failure, and the slowest answer. */
  const readLoad = (svc: ServiceProcess, n = 4) => {
    const failures: string[] = []
    let answered = 0
    let slowestMs = 0
    let running = true
    const loop = async (offset: number) => {
      for (let i = offset; running; i++) {
        const routes = readRoutes()
        const route = routes[i % routes.length]!
        const t0 = performance.now()
        try {
          const res = await fetch(svc.baseUrl + route, { signal: AbortSignal.timeout(10_000) })
          await res.arrayBuffer()
          if (res.status === 200) answered++
          else failures.push(`${route}: ${res.status}`)
        } catch (err) {
          failures.push(`${route}: ${String(err)}`)
        }
        slowestMs = Math.max(slowestMs, performance.now() - t0)
      }
    }
    const readers = Promise.all(Array.from({ length: n }, (_, i) => loop(i)))
    return {
      stop: async () => {
        running = false
        await readers
        return { failures, answered, slowestMs }
      },
    }
  }

  test('a stopped replica: reads fall back to the primary, no request fails', async () => {
    const svc = await start({ READ_REPLICA_MAX_LAG_MS: '5000' })
    await until(5000, 'replica in rotation', async () => (await replicaOf(svc)).inRotation)
    const load = readLoad(svc)
    await Bun.sleep(500)
    const primaryBefore = (await ready(svc)).readReplicas!.primaryReads
    await pg.replicaPause()
    await until(5000, 'replica reported out of rotation', async () => !(await replicaOf(svc)).inRotation)
    await Bun.sleep(1000)
    const down = await ready(svc)
    expect(down.status).toBe('ready')
    expect(down.readReplicas!.replicas[0]!.reason).toMatch(/unreachable|read failed/)
    expect(down.readReplicas!.primaryReads).toBeGreaterThan(primaryBefore)
    await pg.replicaResume()
    // The standby restarts, reconnects to the primary and catches up: seconds, more on a loaded machine.
    await until(30_000, 'replica back in rotation', async () => (await replicaOf(svc)).inRotation)
    await Bun.sleep(500)
    const { failures, answered } = await load.stop()
    expect(failures).toEqual([])
    expect(answered).toBeGreaterThan(50)
  }, 90_000)

  test('a frozen replica (connections open, nothing answered): reads go to the primary within the gate\'s bound, none fails', async () => {
    const svc = await start({ READ_REPLICA_MAX_LAG_MS: '5000' })
    await until(10_000, 'replica in rotation', async () => (await replicaOf(svc)).inRotation)
    const load = readLoad(svc)
    await Bun.sleep(500)
    await pg.replicaFreeze()
    try {
      await until(5000, 'replica reported out of rotation', async () => !(await replicaOf(svc)).inRotation)
      await Bun.sleep(3000)
      expect((await ready(svc)).status).toBe('ready')
    } finally {
      await pg.replicaThaw()
    }
    // The standby restarts, reconnects to the primary and catches up: seconds, more on a loaded machine.
    await until(30_000, 'replica back in rotation', async () => (await replicaOf(svc)).inRotation)
    const { failures, answered, slowestMs } = await load.stop()
    expect(failures).toEqual([])
    expect(answered).toBeGreaterThan(50)
    // A read already waiting on the replica when it froze: released after suspect (0.5 s) + probe (1 s).
    expect(slowestMs).toBeLessThan(3000)
  }, 90_000)
})
