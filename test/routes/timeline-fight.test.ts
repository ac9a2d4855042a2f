/**
 * The timeline's defense and campaign events: each defense ending by each rule (its health
 * at 0, its expiry passed while still listed, gone early with the planet held, gone with
 * the planet lost), one still running, a campaign that ended and one that runs. The ticks
 * are written out of order (a tick written late must not change an event), then a frozen
 * war (the same war time again) must add none. The real capture's defense (event 4311)
 * shapes the events; the planets are the real war info's.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { fullStatus } from '../../src/collect/full-status.ts'
import type { Sql } from '../../src/db/connect.ts'
import { parseWarStatus, type WarStatus } from '../../src/feeds/upstream.ts'
import { statusTick } from '../support/collect.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { loadSample } from '../support/samples.ts'
import { seedRealWarInfo } from '../support/seed.ts'
import { errorOf, openHarness, type Harness } from './helpers.ts'

const REAL = parseWarStatus(loadSample('arrowhead/warstatus_801_2024-03-08_sector-hq.json')).data
const REAL_EVENT = REAL.planetEvents![0]!
const T0 = new Date('2024-03-08T12:00:00.000Z')
const STEP_S = 300
const TICKS = 10
const tickAt = (k: number) => new Date(T0.getTime() + k * STEP_S * 1000)
const warTimeAt = (k: number) => REAL.time + k * STEP_S
const HUMANS = 1
const BUGS = 2

/** The defenses: planet, the ticks listing them, health per tick, expiry (as a tick), and the planet's owner per tick. */
const DEFENSES = {
  // Beaten: health at 0 on tick 4, gone on tick 5.
  won: { id: 9001, planet: 10, ticks: [1, 2, 3, 4], health: (k: number) => Math.max(0, 400_000 - k * 100_000), expiresTick: 20 },
  // Still listed with health left past its expiry (tick 6): lost at tick 6.
  expired: { id: 9002, planet: 11, ticks: [2, 3, 4, 5, 6, 7], health: () => 500_000, expiresTick: 6 },
  // Gone on tick 4, long before its expiry, the players still holding the planet: won.
  vanishedHeld: { id: 9003, planet: 12, ticks: [1, 2, 3], health: () => 300_000, expiresTick: 30 },
  // Gone on tick 4 with the planet taken by the enemy on that tick: lost.
  vanishedTaken: { id: 9004, planet: 13, ticks: [1, 2, 3], health: () => 300_000, expiresTick: 30 },
  // Runs to the last tick: no end.
  running: { id: REAL_EVENT.id, planet: REAL_EVENT.planetIndex, ticks: [5, 6, 7, 8, 9], health: () => REAL_EVENT.health, expiresTick: 40 },
} as const
const CAMPAIGNS = { ended: { id: 7001, planet: 20, ticks: [0, 1, 2, 3, 4, 5] }, running: { id: 7002, planet: 21, ticks: [3, 4, 5, 6, 7, 8, 9] } } as const
const listedAt = (ticks: readonly number[], k: number) => ticks.includes(k)

function statusAt(k: number): WarStatus {
  const planets = [...Object.values(DEFENSES), ...Object.values(CAMPAIGNS)].map((d) => d.planet)
  return {
    ...REAL,
    time: warTimeAt(k),
    planetStatus: planets.map((index) => ({
      index, owner: index === DEFENSES.vanishedTaken.planet && k >= 4 ? BUGS : HUMANS, health: 1_000_000, regenPerSecond: 0, players: 1000 + index,
    })),
    campaigns: [
      ...Object.values(DEFENSES).filter((d) => listedAt(d.ticks, k)).map((d) => ({ id: 5000 + d.id, planetIndex: d.planet, type: 0, count: 1 })),
      ...Object.values(CAMPAIGNS).filter((c) => listedAt(c.ticks, k)).map((c) => ({ id: c.id, planetIndex: c.planet, type: 0, count: 1 })),
    ],
    planetEvents: Object.values(DEFENSES)
      .filter((d) => listedAt(d.ticks, k))
      .map((d) => ({
        ...REAL_EVENT, id: d.id, planetIndex: d.planet, campaignId: 5000 + d.id, health: d.health(k), maxHealth: 900_000,
        startTime: warTimeAt(d.ticks[0]!), expireTime: warTimeAt(d.expiresTick), jointOperationIds: [],
      })),
  }
}

/** A tick written as the full-status collector writes it (its rows, then the defenses it decides). */
async function writeTick(sql: Sql, k: number, at = tickAt(k)) {
  const tick = statusTick(statusAt(k), at)
  await sql.begin((tx) => fullStatus.write(tx, at, tick))
}

const FIGHT_TYPES = 'defense_started,defense_won,defense_lost,campaign_started,campaign_ended'

describeOnEachDatabase('/timeline: defenses and campaigns', (target) => {
  let db: TestDatabase
  let h: Harness
  const events = async () =>
    ((await h.get(`/timeline?type=${FIGHT_TYPES}&limit=1000`)).body.items as any[]).map((e) => `${e.at} ${e.type} ${e.type.startsWith('campaign') ? e.campaignId : e.eventId}`).sort()

  beforeAll(async () => {
    db = await target.open()
    await seedRealWarInfo(db.sql, T0)
    // Out of order: every other tick late.
    for (const k of [0, 2, 1, 4, 3, 6, 5, 8, 7, 9]) await writeTick(db.sql, k)
    h = await openHarness({ db, now: () => tickAt(TICKS) })
  }, 120_000)
  afterAll(async () => {
    await h?.close()
  })

  const expected = [
    ...Object.values(DEFENSES).map((d) => `${tickAt(d.ticks[0]!).toISOString()} defense_started ${d.id}`),
    `${tickAt(4).toISOString()} defense_won ${DEFENSES.won.id}`,
    `${tickAt(6).toISOString()} defense_lost ${DEFENSES.expired.id}`,
    `${tickAt(4).toISOString()} defense_won ${DEFENSES.vanishedHeld.id}`,
    `${tickAt(4).toISOString()} defense_lost ${DEFENSES.vanishedTaken.id}`,
    // Each defense's campaign starts and ends with it (the running one's stays).
    ...Object.values(DEFENSES).map((d) => `${tickAt(d.ticks[0]!).toISOString()} campaign_started ${5000 + d.id}`),
    ...[DEFENSES.won, DEFENSES.expired, DEFENSES.vanishedHeld, DEFENSES.vanishedTaken].map((d) => `${tickAt(d.ticks.at(-1)! + 1).toISOString()} campaign_ended ${5000 + d.id}`),
    `${tickAt(0).toISOString()} campaign_started ${CAMPAIGNS.ended.id}`,
    `${tickAt(6).toISOString()} campaign_ended ${CAMPAIGNS.ended.id}`,
    `${tickAt(3).toISOString()} campaign_started ${CAMPAIGNS.running.id}`,
  ].sort()

  test('each defense ends by its rule, at the first tick that shows it; campaigns start and end; running ones have no end', async () => {
    expect(await events()).toEqual(expected)
    const won = (await h.get(`/timeline?type=defense_won&limit=10`)).body.items.find((e: any) => e.eventId === DEFENSES.won.id)
    expect(won).toMatchObject({ planetIndex: DEFENSES.won.planet, campaignId: 5000 + DEFENSES.won.id, race: REAL_EVENT.race, warID: 801, correction: null })
    expect(typeof won.planetName).toBe('string')
  })

  test("a defense's campaign events carry its event's id; other campaigns' carry none", async () => {
    const items = (await h.get('/timeline?type=campaign_started,campaign_ended&limit=100')).body.items as any[]
    for (const d of Object.values(DEFENSES)) {
      for (const e of items.filter((x) => x.campaignId === 5000 + d.id)) expect(e.eventId).toBe(d.id)
    }
    expect(items.filter((x) => x.campaignId === CAMPAIGNS.ended.id || x.campaignId === CAMPAIGNS.running.id).map((x) => x.eventId)).toEqual([null, null, null])
  })

  test('the spans kept at write time equal a rebuild from the per-tick history (what the migration backfills)', async () => {
    const spans = await db.sql`SELECT * FROM planet_event_spans ORDER BY event_id`
    const rebuilt = await db.sql`
      SELECT DISTINCT ON (e.event_id) e.event_id, min(e.captured_at) OVER w AS first_seen_at, max(e.captured_at) OVER w AS last_seen_at,
             e.health AS last_health, min(e.captured_at) FILTER (WHERE e.health <= 0) OVER w AS zero_at
      FROM planet_event_snapshots e WINDOW w AS (PARTITION BY e.event_id) ORDER BY e.event_id, e.captured_at DESC`
    expect(spans.map((s) => [s.event_id, s.first_seen_at, s.last_seen_at, s.last_health, s.zero_at])).toEqual(
      rebuilt.map((r) => [r.event_id, r.first_seen_at, r.last_seen_at, r.last_health, r.zero_at]),
    )
  })

  test('a frozen war (the last status seen again later, same war time) adds no event and no tick', async () => {
    await writeTick(h.db.sql, TICKS - 1, new Date(tickAt(TICKS - 1).getTime() + 10 * 60_000))
    expect(await events()).toEqual(expected)
  })

  test('planetId keeps one planet\'s events', async () => {
    const all = (await h.get('/timeline?limit=1000')).body.items as any[]
    const mine = (await h.get(`/timeline?limit=1000&planetId=${DEFENSES.won.planet}`)).body
    expect(mine.items.length).toBeGreaterThan(1)
    expect(mine.items).toEqual(all.filter((e) => e.planetIndex === DEFENSES.won.planet))
    expect(errorOf(await h.get('/timeline?planetId=x'))).toContain('planetId')
  })

  test('the type filter names the new types and refuses unknown ones', async () => {
    const started = (await h.get('/timeline?type=defense_started&limit=100')).body.items
    expect(started.map((e: any) => e.eventId).sort()).toEqual(Object.values(DEFENSES).map((d) => d.id).sort())
    expect(errorOf(await h.get('/timeline?type=defense_exploded'))).toContain('type')
  })
})
