/**
 * The fight kept per full-status tick (campaigns, planet events, attack lines, joint
 * operations): mapped from the real March-2024 status capture, written by the full-status
 * collector on both editions, once per tick.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { fightOf, fullStatus, wallClockOf } from '../../src/collect/full-status.ts'
import type { CollectorRunner } from '../../src/collect/runner.ts'
import { parseWarStatus, type WarStatus } from '../../src/feeds/upstream.ts'
import { createStore } from '../../src/storage/index.ts'
import { collect, testRunner } from '../support/collect.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { loadSample } from '../support/samples.ts'
import { simulatedFeeds } from '../support/sim.ts'

const REAL = loadSample('arrowhead/warstatus_801_2024-03-08_sector-hq.json') as WarStatus

describe('the fight of the real status capture', () => {
  const at = new Date('2024-03-08T12:00:00.000Z')
  const f = fightOf(REAL, at)

  test('its defense: the event as sent, its war times placed around the capture by the status time', () => {
    expect(REAL.planetEvents).toHaveLength(1)
    const e = REAL.planetEvents![0]!
    expect(f.events).toEqual([
      {
        event_id: e.id, planet_index: e.planetIndex, event_type: e.eventType, race: e.race, health: e.health, max_health: e.maxHealth,
        start_war_time: e.startTime, expire_war_time: e.expireTime,
        // 2,610,780 war seconds at the capture; started 85,350 s before it, ends 1,050 s after it.
        starts_at: new Date(at.getTime() - (REAL.time - e.startTime) * 1000).toISOString(),
        expires_at: new Date(at.getTime() + (e.expireTime - REAL.time) * 1000).toISOString(),
        campaign_id: e.campaignId, joint_operation_ids: e.jointOperationIds,
      },
    ])
    expect(f.events[0]!.expires_at).toBe('2024-03-08T12:17:30.000Z')
    expect(wallClockOf(at, 100, 100)).toBe(at.toISOString())
  })

  test('attack lines with their lanes: every line the feed lists, each counted as many times as listed', () => {
    const listed = REAL.planetAttacks!
    expect(f.attacks.reduce((n, a) => n + a.lanes, 0)).toBe(listed.length)
    for (const a of f.attacks) expect(listed.filter((l) => l.source === a.source_index && l.target === a.target_index)).toHaveLength(a.lanes)
    expect(new Set(f.attacks.map((a) => `${a.source_index}>${a.target_index}`)).size).toBe(f.attacks.length)
    expect(f.attacks.some((a) => a.lanes > 1)).toBe(true)
  })

  test('campaigns and joint operations as sent; a payload without events, lines or operations has none', () => {
    expect(f.campaigns).toEqual(REAL.campaigns.map((c) => ({ campaign_id: c.id, planet_index: c.planetIndex, type: c.type, count: c.count, race: c.race ?? null })))
    expect(f.jointOperations).toEqual(REAL.jointOperations!.map((j) => ({ operation_id: j.id, planet_index: j.planetIndex, hq_node_index: j.hqNodeIndex })))
    const { planetEvents: _e, planetAttacks: _a, jointOperations: _j, ...bareStatus } = REAL
    const bare = parseWarStatus(bareStatus).data
    expect(fightOf(bare, at)).toMatchObject({ events: [], attacks: [], jointOperations: [] })
  })
})

describeOnEachDatabase('the fight kept per full-status tick', (target) => {
  let db: TestDatabase
  let s: Awaited<ReturnType<typeof simulatedFeeds>>
  let runner: CollectorRunner

  beforeAll(async () => {
    db = await target.open()
    s = await simulatedFeeds()
    runner = testRunner(db, s.feeds)
  }, 60_000)
  afterAll(async () => {
    await s?.stop()
    await db?.dispose()
  })

  const counts = async () =>
    (await db.sql<{ n: number }[]>`
      SELECT (SELECT count(*) FROM campaign_snapshots) + (SELECT count(*) FROM planet_event_snapshots)
           + (SELECT count(*) FROM planet_attack_snapshots) + (SELECT count(*) FROM joint_operation_snapshots) AS n`)[0]!.n

  test('a tick stores its fight as the collector read it, and reads back at that tick; the same tick again adds nothing', async () => {
    const summary = await collect(runner, 'full-status')
    const status = (await s.feeds.upstream.status(801)).data
    const [tick] = await db.sql<{ t: Date }[]>`SELECT max(captured_at) AS t FROM full_status_ticks WHERE war_id = 801`
    const expected = fightOf(status, tick!.t)
    expect(summary.written).toMatchObject({
      campaignHistory: expected.campaigns.length, planetEvents: expected.events.length, planetAttacks: expected.attacks.length, jointOperations: expected.jointOperations.length,
    })
    expect(expected.events.length).toBeGreaterThan(0)
    const store = createStore(db)
    const t = tick!.t
    const [clock, campaigns, events, attacks, jointOperations] = await Promise.all([
      store.ticks.clock(801),
      store.fight.campaignsAt(801, t),
      store.fight.eventWindows({ warId: 801, at: t, from: new Date(t.getTime() - 1), to: t }),
      store.fight.attacksAt(801, t),
      db.sql`SELECT operation_id AS "operationId", planet_index AS "planetIndex", hq_node_index AS "hqNodeIndex" FROM joint_operation_snapshots WHERE war_id = 801 AND captured_at = ${t} ORDER BY operation_id`,
    ])
    const stored = {
      at: clock.at,
      campaigns: campaigns.map(({ firstSeenAt: _, ...c }) => c),
      events: events.map(({ ticks: _, ...e }) => e),
      attacks,
      jointOperations: [...jointOperations],
    }
    expect(stored.at).toEqual(tick!.t)
    expect(stored.campaigns).toEqual(expected.campaigns.map((c) => ({ campaignId: c.campaign_id, planetIndex: c.planet_index, type: c.type, count: c.count, race: c.race })))
    expect(stored.events).toEqual(
      expected.events.map((e) => ({
        eventId: e.event_id, planetIndex: e.planet_index, eventType: e.event_type, race: e.race, health: e.health, maxHealth: e.max_health,
        startWarTime: e.start_war_time, expireWarTime: e.expire_war_time, startsAt: new Date(e.starts_at), expiresAt: new Date(e.expires_at),
        campaignId: e.campaign_id, jointOperationIds: e.joint_operation_ids,
      })),
    )
    expect(stored.attacks).toEqual(expected.attacks.map((a) => ({ source: a.source_index, target: a.target_index, lanes: a.lanes })).sort((a, b) => a.source - b.source || a.target - b.target))
    expect(stored.jointOperations).toEqual(expected.jointOperations.map((j) => ({ operationId: j.operation_id, planetIndex: j.planet_index, hqNodeIndex: j.hq_node_index })))

    const before = await counts()
    const again = await collect(runner, 'full-status')
    expect(again.outcome).toBe('unchanged')
    expect(await counts()).toBe(before)
  })

  test("a tick keeps each part's own fetch time: a summary from the client's cache, older than the status, says so", async () => {
    s.later(60)
    // The summary fetched first (a public read, say), then the tick five seconds later: its summary comes from the cache.
    const cached = await s.feeds.upstream.summary(801)
    s.ageCache(5)
    const summary = await collect(runner, 'full-status')
    expect(summary.outcome).toBe('written')
    const [row] = await db.sql<{ captured_at: Date; summary_fetched_at: Date; assignments_fetched_at: Date; newsfeed_fetched_at: Date }[]>`
      SELECT captured_at, summary_fetched_at, assignments_fetched_at, newsfeed_fetched_at FROM full_status_ticks WHERE war_id = 801 ORDER BY captured_at DESC LIMIT 1`
    // The cached answer's time (the client stamps its cache entry a few milliseconds after the answer it returned first).
    expect(Math.abs(row!.summary_fetched_at.getTime() - cached.fetchedAt.getTime())).toBeLessThan(100)
    expect(row!.captured_at.getTime() - row!.summary_fetched_at.getTime()).toBeGreaterThanOrEqual(4_900)
    // The parts fetched with the status, fresh, at about its time.
    for (const t of [row!.assignments_fetched_at, row!.newsfeed_fetched_at]) expect(Math.abs(t.getTime() - row!.captured_at.getTime())).toBeLessThan(5_000)
  })

  test('a tick spooled before the fight was kept (no fight in its rows) is written without one', async () => {
    s.later(60)
    const { tick } = await runner.capture(fullStatus)
    const rows = tick.rows as { fight?: unknown }
    delete rows.fight
    const before = await counts()
    const summary = await runner.write(fullStatus, tick)
    expect(summary.outcome).toBe('written')
    expect(summary.written).toMatchObject({ campaignHistory: 0, planetEvents: 0, planetAttacks: 0, jointOperations: 0 })
    expect(await counts()).toBe(before)
  })
})
