import { afterAll, beforeAll, expect, test } from 'bun:test'
import { buildApp } from '../../src/app.ts'
import type { CollectorRunner } from '../../src/collect/runner.ts'
import { loadConfig } from '../../src/config.ts'
import { connect } from '../../src/db/connect.ts'
import { silentLogger } from '../../src/log.ts'
import { collect, testRunner } from '../support/collect.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { simulatedFeeds } from '../support/sim.ts'
import { DATASET_TABLES } from '../support/tables.ts'

type Sim = Awaited<ReturnType<typeof simulatedFeeds>>

const TABLES = DATASET_TABLES

describeOnEachDatabase('collectors', (target) => {
  let db: TestDatabase
  let s: Sim
  let runner: CollectorRunner
  const config = loadConfig({ WAR_ID: '801' })

  /** Row count of every dataset: what "the database exactly as before" compares. */
  const counts = async () => {
    const out: Record<string, number> = {}
    for (const t of TABLES) {
      const [r] = await db.sql<{ n: number }[]>`SELECT count(*) AS n FROM ${db.sql(t)}`
      out[t] = r!.n
    }
    return out
  }
  const app = () => buildApp({ config, db, log: silentLogger, feeds: s.feeds })
  const post = (path: string, headers: Record<string, string> = {}) =>
    app().handle(new Request(`http://localhost/api/v1${path}`, { method: 'POST', headers }))

  beforeAll(async () => {
    db = await target.open()
    s = await simulatedFeeds()
    runner = testRunner(db, s.feeds, { config })
  }, 60_000)
  afterAll(async () => {
    await s?.stop()
    await db?.dispose()
  })

  test('war-info writes the war, its planets with names and sectors, lookups and planet war info; a rerun writes nothing', async () => {
    const first = await collect(runner, 'war-info')
    const info = (await s.feeds.upstream.warInfo(801)).data
    const status = (await s.feeds.upstream.status(801)).data
    expect(first.outcome).toBe('written')
    expect(first.written).toMatchObject({ wars: 1, factions: 4, planets: info.planetInfos.length, planetWarInfo: status.planetStatus.length })
    const [superEarth] = await db.sql`SELECT name, sector_name FROM planets WHERE war_id = 801 AND planet_index = 0`
    expect(superEarth).toEqual({ name: 'Super Earth', sector_name: 'Sol' })
    const [{ sum }] = (await db.sql`SELECT sum(players)::int AS sum FROM planet_war_info WHERE war_id = 801`) as unknown as [{ sum: number }]
    expect(sum).toBe(status.planetStatus.reduce((a, p) => a + p.players, 0))

    const again = await collect(runner, 'war-info')
    expect(again.outcome).toBe('unchanged')
    expect(Object.values(again.written).every((n) => n === 0)).toBe(true)
  })

  test('player-count writes the upstream total and both pcstore games once; same tick again writes nothing', async () => {
    const before = await counts()
    const summary = await collect(runner, 'player-count')
    expect(summary.written).toEqual({ upstreamRows: 1, pcstoreRows: 2 })
    const [row] = await db.sql`SELECT api_total_player_count, upstream_war_time FROM player_count_snapshots WHERE source = 'upstream'`
    expect(row).toEqual({ api_total_player_count: s.sim.control.state().playersTotal, upstream_war_time: s.sim.control.state().time })
    const pcstore = await db.sql`SELECT game_name, console_player_count, total_player_count = pcstore_player_count AS same FROM player_count_snapshots WHERE source = 'pcstore' ORDER BY 1`
    expect([...pcstore]).toEqual([{ game_name: 'Game', console_player_count: 0, same: true }, { game_name: 'Game 2', console_player_count: 0, same: true }])

    expect((await collect(runner, 'player-count')).outcome).toBe('unchanged')
    expect((await counts()).player_count_snapshots).toBe(before.player_count_snapshots! + 3)
  })

  test('a new war time adds an upstream row; a frozen war adds none; pcstore waits ~10 minutes', async () => {
    s.later(60)
    const next = await collect(runner, 'player-count')
    expect(next.written.upstreamRows).toBe(1)
    expect(next.written.pcstoreRows).toBe(0) // last pcstore rows are younger than 10 minutes

    s.sim.control.addFault({ kind: 'freeze', feed: 'upstream' })
    s.later(600)
    const frozen = await collect(runner, 'player-count')
    expect(frozen.written.upstreamRows).toBe(0)
    s.sim.control.clearFaults()
  })

  test('full-status writes one tick: every planet, one summary, orders with progress, dispatches; the same tick again writes nothing', async () => {
    s.later(30)
    const status = (await s.feeds.upstream.status(801)).data
    const orders = (await s.feeds.upstream.assignments(801)).data
    const news = (await s.feeds.upstream.newsfeed(801)).data
    const summary = await collect(runner, 'full-status')
    expect(summary.written).toEqual({
      planetStatus: status.planetStatus.length,
      campaigns: status.campaigns.length,
      // The fight, as history (test/collect/fight.test.ts checks the rows).
      campaignHistory: status.campaigns.length,
      planetEvents: status.planetEvents!.length,
      planetAttacks: new Set(status.planetAttacks!.map((a) => `${a.source}>${a.target}`)).size,
      jointOperations: status.jointOperations!.length,
      // The planets' active effects (test/collect/planet-effects.test.ts checks the rows).
      planetEffects: new Set(status.planetActiveEffects!.map((e) => `${e.index}:${e.galacticEffectId}`)).size,
      // No defense ends at the first tick.
      defenseOutcomes: 0,
      warSummary: 1,
      majorOrders: orders.length,
      majorOrderProgress: orders.length,
      dispatches: news.length,
      // Texts of the primary language (the only one of these feeds), keyed (item, language).
      majorOrderTexts: orders.length,
      dispatchTexts: news.filter((n) => n.message !== undefined).length,
      // The 2025 surfaces' change rows and event texts (test/collect/surfaces.test.ts checks the rows).
      warItems: expect.any(Number),
      globalEventTexts: expect.any(Number),
    })
    const [tick] = await db.sql`SELECT upstream_war_time FROM full_status_ticks`
    expect(tick!.upstream_war_time).toBe(status.time)
    const stored = await db.sql<{ order_id32: number; reward_medals: number; tasks: unknown }[]>`SELECT order_id32, reward_medals, tasks FROM major_orders`
    expect(stored.map((o) => o.order_id32).sort()).toEqual(orders.map((o) => o.id32).sort())
    for (const o of stored) expect(o.tasks).toEqual(orders.find((a) => a.id32 === o.order_id32)!.setting.tasks)

    const before = await counts()
    const again = await collect(runner, 'full-status')
    expect(again.outcome).toBe('unchanged')
    expect(await counts()).toEqual(before)
  })

  test('planet-stats writes every planet first, then only the planets whose counters changed', async () => {
    const first = await collect(runner, 'planet-stats')
    const planets = (await s.feeds.community.planets()).data
    expect(first.written.planetStats).toBe(planets.length)
    expect((await collect(runner, 'planet-stats')).written.planetStats).toBe(0)

    s.later(300)
    const after = (await s.feeds.community.planets()).data
    const key = (p: (typeof planets)[number]) => JSON.stringify({ ...p.statistics, playerCount: 0, missionSuccessRate: 0, accuracy: 0 })
    const changed = after.filter((p) => key(p) !== key(planets.find((q) => q.index === p.index)!)).length
    expect(changed).toBeGreaterThan(0)
    expect(changed).toBeLessThan(after.length) // idle planets do not move
    expect((await collect(runner, 'planet-stats')).written.planetStats).toBe(changed)
  })

  test('upstream faults fail the run with 503 {error} and leave the database exactly as before', async () => {
    for (const kind of ['rate_limit', 'server_error', 'slow', 'malformed_json', 'html_maintenance', 'empty_body', 'invalid_payload'] as const) {
      s.later(30)
      s.sim.control.addFault({ kind, feed: 'upstream', endpoint: 'summary', delayMs: 3000 })
      const before = await counts()
      const res = await post('/collect/full-status')
      expect({ kind, status: res.status }).toEqual({ kind, status: 503 })
      expect(Object.keys((await res.json()) as object)).toEqual(['error'])
      expect(await counts()).toEqual(before)
      s.sim.control.clearFaults()
    }
    // The next healthy run writes normally.
    s.later(30)
    expect((await post('/collect/full-status')).status).toBe(200)
  }, 60_000)

  test('a database failure in the middle of a tick leaves no partial tick; the next run completes', async () => {
    await db.sql.unsafe(`
      CREATE FUNCTION fail_dispatch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$;
      CREATE TRIGGER fail_dispatch BEFORE INSERT ON dispatches FOR EACH ROW EXECUTE FUNCTION fail_dispatch();`)
    // The dispatch insert is the tick's last step: planet, summary and order rows went in before it fails.
    s.later(600)
    const before = await counts()
    await expect(collect(runner, 'full-status')).rejects.toThrow('injected failure')
    expect(await counts()).toEqual(before)
    await db.sql.unsafe('DROP TRIGGER fail_dispatch ON dispatches; DROP FUNCTION fail_dispatch();')
    const retry = await collect(runner, 'full-status')
    expect(retry.outcome).toBe('written')
    expect(retry.written.planetStatus).toBeGreaterThan(0)
    expect(retry.written.warSummary).toBe(1)
  })

  // PGlite is one session shared by every connection, so two "instances" on it would share
  // one transaction: the replica case needs a real server.
  const replicaTest = target.label === 'embedded' ? test.skip : test
  replicaTest(`two app instances running the same collector at once write the tick once${target.label === 'embedded' ? ' (skipped on PGlite: a single session cannot host two replicas)' : ''}`, async () => {
    s.later(30)
    const otherSql = connect({ url: db.url!, max: 4 })
    const other = testRunner({ sql: otherSql, gate: db.gate }, s.feeds, { config })
    try {
      const before = await counts()
      const [a, b] = await Promise.all([collect(runner, 'full-status'), collect(other, 'full-status')])
      // One wrote the tick; the other found the lock held, or (if it came second) the tick stored.
      expect([a.outcome, b.outcome]).toContain('written')
      expect([a.outcome, b.outcome].filter((o) => o === 'written')).toHaveLength(1)
      const after = await counts()
      expect(after.full_status_ticks).toBe(before.full_status_ticks! + 1)
      expect(after.war_summary_snapshots).toBe(before.war_summary_snapshots! + 1)
    } finally {
      await otherSql.end()
    }
  })
})
