/**
 * Kept answers stay exact across processes: a row committed by one service process is in
 * the other's answers within 1 s (LISTEN/NOTIFY), and in the writer's own answers at once.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connect, type Sql } from '../../src/db/connect.ts'
import { migrate } from '../../src/db/migrate.ts'
import { CHANGES_CHANNEL } from '../../src/storage/changes.ts'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'
import { createScratchDatabase, describeTimescale } from '../support/db.ts'
import { startService, type ServiceProcess } from '../support/process.ts'

describeTimescale('kept answers across service processes', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>
  let sql: Sql
  let sim: Simulator
  let a: ServiceProcess
  let b: ServiceProcess

  /** A diver-history answer without the fields made per request (`to`, and `coverage`, which moves with it). */
  const divers = async (svc: ServiceProcess, range = '24h') => {
    const res = await fetch(`${svc.baseUrl}/api/v1/divers/history?range=${range}`)
    expect(res.status).toBe(200)
    const { to: _to, coverage, ...rest } = (await res.json()) as Record<string, unknown>
    expect(coverage).toBeWithin(0, 1.0001)
    return rest
  }
  /** Poll until `check` passes; the time it took, or a failure after `limitMs`. */
  const within = async (limitMs: number, check: () => Promise<boolean>) => {
    const t0 = performance.now()
    while (!(await check())) {
      if (performance.now() - t0 > limitMs) throw new Error(`not seen within ${limitMs} ms`)
      await Bun.sleep(20)
    }
    return performance.now() - t0
  }

  beforeAll(async () => {
    scratch = await createScratchDatabase('kept_answers')
    sql = connect({ url: scratch.url, max: 2 })
    await migrate(sql)
    sim = startSimulator({ port: 0, seed: 9, speed: 1 })
    const env = {
      DATABASE_URL: scratch.url,
      UPSTREAM_URL: sim.upstreamUrl,
      COMMUNITY_API_URL: sim.communityUrl,
      PCSTORE_API_URL: sim.pcstoreUrl,
      SCHEDULE_ENABLED: 'false',
    }
    ;[a, b] = await Promise.all([startService(env), startService(env)])
  }, 60_000)
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()])
    await sim?.stop()
    await sql?.end()
    await scratch?.drop()
  })

  test('a player-count tick collected by one process is in both processes\' diver history (the other within 1 s)', async () => {
    // Both keep the empty answer first.
    const empty = await divers(b)
    expect(empty.points).toEqual([])
    expect(await divers(a)).toEqual(empty)

    const res = await fetch(`${a.baseUrl}/api/v1/collect/player-count`, { method: 'POST' })
    expect(res.status).toBe(200)
    const [stored] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM player_count_snapshots`
    expect(stored!.n).toBeGreaterThan(0)

    // The writer: at once.
    const fresh = await divers(a)
    expect(fresh.points).not.toEqual([])
    // The other process: within 1 s, the same answer.
    const ms = await within(1000, async () => JSON.stringify(await divers(b)) === JSON.stringify(fresh))
    expect(ms).toBeLessThan(1000)
    expect(await divers(b, 'all')).toEqual(await divers(a, 'all'))
  }, 30_000)

  test('the cached /war of the other process follows a change to the war data within 1 s', async () => {
    expect((await fetch(`${a.baseUrl}/api/v1/collect/war-info`, { method: 'POST' })).status).toBe(200)
    const war = async (svc: ServiceProcess) => {
      const res = await fetch(`${svc.baseUrl}/api/v1/war`)
      expect(res.status).toBe(200)
      // The data's age is counted at each request (a clock field): the rest is the kept answer.
      const { dataAgeSeconds: _age, ...answer } = (await res.json()) as { dataAgeSeconds: number; planets: { index: number; name: string }[] }
      return answer
    }
    // Both keep the war; then a planet is renamed, with the notification.
    expect(await war(b)).toEqual(await war(a))
    await sql.begin(async (tx) => {
      await tx`UPDATE planets SET name = 'Renamed Prime' WHERE planet_index = 0`
      await tx`SELECT pg_notify(${CHANGES_CHANNEL}, 'war')`
    })
    const renamed = async (svc: ServiceProcess) => JSON.stringify(await war(svc)).includes('Renamed Prime')
    await within(1000, () => renamed(a))
    await within(1000, () => renamed(b))
  }, 30_000)

  test('a write made with SQL that sends the documented notification reaches both processes', async () => {
    // The 30-day window starts before the first upstream row: the PC store series serves it.
    const current = async (svc: ServiceProcess) => {
      const answer = await divers(svc, '30d')
      expect(answer.source).toBe('pcstore')
      return (answer.stats as { current: number | null }).current
    }
    const kept = await Promise.all([current(a), current(b)])
    expect(kept[0]).not.toBe(424242)
    // A backfill of one newer row, as an operator would make it (README "Operations").
    await sql.begin(async (tx) => {
      await tx`
        INSERT INTO player_count_snapshots (captured_at, game_name, source, pcstore_player_count, console_player_count, total_player_count)
        VALUES (now(), 'Game 2', 'pcstore', 424242, 0, 424242)`
      await tx`SELECT pg_notify(${CHANGES_CHANNEL}, 'player-counts')`
    })
    await within(1000, async () => (await current(a)) === 424242)
    await within(1000, async () => (await current(b)) === 424242)
  }, 30_000)
})
