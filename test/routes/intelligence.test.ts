/**
 * The derived war view on a constructed history whose answers are known, written through
 * the same storage writes the full-status collector uses: major-order states, liberation
 * rate and ETA, trend deltas, the timeline.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import * as dispatches from '../../src/storage/dispatches.ts'
import * as majorOrders from '../../src/storage/major-orders.ts'
import * as planetStatus from '../../src/storage/planet-status.ts'
import * as playerCounts from '../../src/storage/player-counts.ts'
import { claimFullStatus } from '../../src/storage/ticks.ts'
import * as warSummary from '../../src/storage/war-summary.ts'
import { trendTolerance } from '../../src/services/intelligence.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { seedWarsAndLookups } from '../support/seed.ts'
import { errorOf, openHarness, type Harness } from './helpers.ts'

const MIN = 60_000
const HOUR = 60 * MIN
const NOW = new Date('2026-11-20T12:00:00.000Z')
/** Ticks every 5 minutes over the last 26 hours, hourly for the 8 days before; the last one a minute before NOW. */
const LAST = NOW.getTime() - MIN
const STEP = 5 * MIN
const TIMES = [
  ...Array.from({ length: 8 * 24 - 26 }, (_, i) => LAST - (8 * 24 - i) * HOUR),
  ...Array.from({ length: (26 * HOUR) / STEP + 1 }, (_, i) => LAST - 26 * HOUR + i * STEP),
]
const TICKS = TIMES.length
const tickAt = (k: number) => new Date(TIMES[k]!)
/** The index of the latest tick at or before `ms`. */
const tickIndexAtOrBefore = (ms: number) => TIMES.findLastIndex((t) => t <= ms)
const MAX = 1_000_000
const HUMANS = 1
const BUGS = 2

/** Planet i's (owner, liberation %) at time `ms` (minutes from the first tick `m`). */
function planetAt(i: number, ms: number): { owner: number; pct: number } {
  const h = (ms - LAST) / HOUR // hours before the last tick (negative)
  switch (i) {
    case 1: return { owner: BUGS, pct: 40 + h } // +1 %/h: 60 % left → ETA 60 h after the last tick
    case 2: return { owner: HUMANS, pct: 80 - 2 * h } // -2 %/h: loss in 40 h
    case 3: return { owner: BUGS, pct: 25 } // stalemate
    case 4: return h < -1 ? { owner: BUGS, pct: 99 } : { owner: HUMANS, pct: 10 + 3 * (h + 1) } // liberated 1 h before the last tick
    default: return { owner: HUMANS, pct: 100 }
  }
}
const healthOf = ({ owner, pct }: { owner: number; pct: number }) => Math.round(owner === HUMANS ? (pct / 100) * MAX : MAX - (pct / 100) * MAX)

const task = (goal: number) => ({ type: 3, values: [2, 0, goal], valueTypes: [1, 2, 3] })
/** The orders of tick k: 1001 completes at k = COMPLETE_AT, 1002 runs out of time, 1003 disappears early, 1004 stays. */
const COMPLETE_AT = TICKS - 30
function ordersAt(k: number, at: Date): majorOrders.OrderInput[] {
  const left = (until: number) => Math.round((until - at.getTime()) / 1000)
  const order = (id: number, tasks: object[], progress: number[], expiresAt: number): majorOrders.OrderInput => ({
    order_id32: id, expires_in: left(expiresAt), start_war_time: null, setting_type: 4, flags: 1, title: `Order ${id}`,
    briefing: 'b', task_description: 'd', tasks, rewards: [{ type: 1, id32: 0, amount: 45 }], reward_medals: 45, progress,
  })
  const out = [
    order(1001, [task(1000), task(0)], [Math.min(1000, (k * 1000) / COMPLETE_AT), k >= COMPLETE_AT - 5 ? 1 : 0], LAST + 10 * HOUR),
    order(1004, [task(500)], [100], LAST + 48 * HOUR),
  ]
  // 1002 expires 2 h before NOW, still listed until its time ran out.
  if (at.getTime() <= NOW.getTime() - 2 * HOUR) out.push(order(1002, [{ type: 11, values: [1], valueTypes: [3] }], [0], NOW.getTime() - 2 * HOUR))
  // 1003 vanishes 3 h before NOW with 20 h left.
  if (at.getTime() <= NOW.getTime() - 3 * HOUR) out.push(order(1003, [task(10)], [2], NOW.getTime() + 17 * HOUR))
  return out
}

async function writeTick(sql: Sql, k: number) {
  const at = tickAt(k)
  await sql.begin(async (tx) => {
    await claimFullStatus(tx, at, 801, 1_000_000 + k * 300, 6)
    await planetStatus.insert(tx, at, 801, [0, 1, 2, 3, 4, 5].map((i) => {
      const s = planetAt(i, at.getTime())
      return { planet_index: i, owner: s.owner, health: healthOf(s), regen_per_second: i === 1 ? 10 : 0, players: 100 * i }
    }))
    await planetStatus.replaceCampaigns(tx, at, 801, [1, 2, 3, 4].map((i) => ({ campaign_id: 50 + i, planet_index: i, type: 0, count: 1 })))
    const counters = warSummary.countersOf(Object.fromEntries(warSummary.COUNTER_KEYS.map((key, j) => [key, (j + 1) * k * 10])))
    await warSummary.insert(tx, at, 801, 1_000_000 + k * 300, counters)
    await majorOrders.upsertWithProgress(tx, at, 801, ordersAt(k, at))
    await playerCounts.insertUpstream(tx, at, 801, 1_000_000 + k * 300, 100_000 + k)
    if (k === TICKS - 10) {
      await dispatches.insertNew(tx, at, 801, [{ dispatch_id: 77, published_war_time: 1, published_at: at.toISOString(), type: 0, message: 'Planet 4 is ours' }])
    }
  })
}

describeOnEachDatabase('war intelligence routes', (target) => {
  let db: TestDatabase
  let h: Harness

  beforeAll(async () => {
    db = await target.open()
    await seedWarsAndLookups(db.sql, NOW)
    for (let k = 0; k < TICKS; k++) await writeTick(db.sql, k)
    h = await openHarness({ db, now: () => NOW })
  }, 300_000)
  afterAll(async () => {
    await h?.close()
  })

  test('/major-orders: status, tasks done, expiry, completion time and per-task progress', async () => {
    const res = await h.get('/major-orders')
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const byId = Object.fromEntries(res.body.items.map((o: any) => [o.orderId32, o]))
    expect(Object.keys(byId).sort()).toEqual(['1001', '1002', '1003', '1004'])
    expect(byId[1001]).toMatchObject({ status: 'completed', tasksDone: 2, tasksTotal: 2, completedAt: tickAt(COMPLETE_AT).toISOString() })
    // The fields of the derived state (words and projection: test/routes/major-orders.test.ts).
    expect(byId[1001].tasks).toMatchObject([
      { index: 0, type: 3, value: 1000, target: 1000, done: true, fraction: 1 },
      { index: 1, type: 3, value: 1, target: null, done: true, fraction: null },
    ])
    expect(byId[1002]).toMatchObject({ status: 'failed', tasksDone: 0, completedAt: null })
    expect(byId[1003]).toMatchObject({ status: 'withdrawn', tasksDone: 0 })
    expect(byId[1004]).toMatchObject({ status: 'active', tasksDone: 0, tasksTotal: 1, expiresAt: new Date(LAST + 48 * HOUR).toISOString() })
    expect(byId[1004].tasks[0]).toMatchObject({ index: 0, type: 3, value: 100, target: 500, done: false, fraction: 0.2 })
    // Last seen first, limited.
    expect((await h.get('/major-orders?limit=1')).body.items).toHaveLength(1)
    expect(errorOf(await h.get('/major-orders?limit=0'))).toContain('limit')
  })

  test('/planets/liberation: every campaign planet with rate, regeneration, impact and outlook', async () => {
    const res = await h.get('/planets/liberation')
    expect(res.status).toBe(200)
    expect(res.body.windowHours).toBe(2)
    const byIndex = Object.fromEntries(res.body.items.map((p: any) => [p.planetIndex, p]))
    expect(Object.keys(byIndex)).toEqual(['1', '2', '3', '4'])
    const p1 = byIndex[1]
    expect(p1.ratePctPerHour).toBeCloseTo(1, 3)
    expect(p1.outlook).toBe('winning')
    expect(p1.libPct).toBeCloseTo(40, 3)
    // 60 % left at 1 %/h from the last tick, a minute before NOW.
    expect(p1.etaHours).toBeCloseTo(60 - 1 / 60, 2)
    expect(p1.regenPctPerHour).toBeCloseTo(3.6, 6)
    expect(p1.impactPctPerHour).toBeCloseTo(4.6, 3)
    expect(p1).toMatchObject({ planetName: 'Planet-801-1', sectorName: 'Sol', capturedAt: new Date(LAST).toISOString(), ageSeconds: 60, samples: 24 })
    expect(byIndex[2]).toMatchObject({ outlook: 'losing', regenPctPerHour: null })
    expect(byIndex[2].etaHours).toBeCloseTo(40 - 1 / 60, 2)
    expect(byIndex[3]).toMatchObject({ outlook: 'stalemate', ratePctPerHour: 0, eta: null })
    // Liberated an hour ago: the rate uses the ticks since (3 %/h on the players' side, not a loss).
    expect(byIndex[4]).toMatchObject({ owner: HUMANS, outlook: 'winning', samples: 13, since: new Date(LAST - HOUR).toISOString() })
    expect(byIndex[4].ratePctPerHour).toBeCloseTo(3, 3)

    const one = await h.get('/planets/liberation?planetId=0&window=24')
    expect(one.body.items).toHaveLength(1)
    expect(one.body.items[0]).toMatchObject({ planetIndex: 0, outlook: 'stalemate', samples: 288 })
    expect((await h.get('/planets/liberation?planetId=99')).status).toBe(404)
    expect(errorOf(await h.get('/planets/liberation?window=25'))).toContain('window')
  })

  test('/war/trends: counter deltas between the latest tick and the tick at or before 1 h, 24 h, 7 d earlier', async () => {
    const res = await h.get('/war/trends')
    expect(res.status).toBe(200)
    for (const [name, hours] of [['1h', 1], ['24h', 24], ['7d', 168]] as const) {
      const w = res.body.windows[name]
      const ticksBack = TICKS - 1 - tickIndexAtOrBefore(LAST - hours * HOUR)
      expect(w.to).toBe(new Date(LAST).toISOString())
      expect(w.from).toBe(new Date(LAST - hours * HOUR).toISOString())
      // Counter j at tick k is (j + 1) * k * 10.
      expect(w.deltas.bugKills).toBe(1 * ticksBack * 10)
      expect(w.deltas.friendlies).toBe(12 * ticksBack * 10)
      expect(w.deltas.accuracy).toBeUndefined()
      expect(w.divers).toEqual({ from: w.from, to: w.to, fromValue: 100_000 + TICKS - 1 - ticksBack, toValue: 100_000 + TICKS - 1, change: ticksBack })
    }
  })

  test('/war/trends says how much history it has: since = the oldest summary tick, coverage per window', async () => {
    const oldest = async (war: number) => (await h.db.sql<{ t: Date | null }[]>`SELECT min(captured_at) AS t FROM war_summary_snapshots WHERE war_id = ${war}`)[0]!.t
    const latest = async (war: number) => (await h.db.sql<{ t: Date | null }[]>`SELECT max(captured_at) AS t FROM war_summary_snapshots WHERE war_id = ${war}`)[0]!.t
    /** The share of [latest - window, latest] from the oldest tick on, computed from the stored rows. */
    const expected = async (war: number, hours: number) => {
      const [first, last] = [await oldest(war), await latest(war)]
      return first && last ? Math.round(Math.min(1, (last.getTime() - first.getTime()) / (hours * HOUR)) * 10_000) / 10_000 : 0
    }
    const windows = [['1h', 1], ['24h', 24], ['7d', 168]] as const

    // Eight days of ticks: every window is covered.
    const full = await h.get('/war/trends')
    expect(full.body.since).toBe((await oldest(801))!.toISOString())
    expect(full.body.since).toBe(tickAt(0).toISOString())
    for (const [name, hours] of windows) {
      expect(full.body.windows[name].coverage).toBe(1)
      expect(full.body.windows[name].coverage).toBe(await expected(801, hours))
    }

    // A known war without a summary tick: nothing, said as nothing.
    expect(await oldest(800)).toBeNull()
    const empty = await h.get('/war/trends?warId=800')
    expect(empty.status).toBe(200)
    expect(empty.body).toHaveProperty('since', null)
    for (const [name] of windows) expect(empty.body.windows[name]).toEqual({ from: null, to: null, coverage: 0, deltas: null, divers: null })

    // Half an hour of ticks: half the hour, a share of the day and the week, no deltas.
    const young = [LAST - 30 * MIN, LAST - 15 * MIN, LAST]
    const counters = warSummary.countersOf(Object.fromEntries(warSummary.COUNTER_KEYS.map((key) => [key, 1])))
    try {
      await h.db.sql.begin(async (tx) => {
        for (const [k, t] of young.entries()) await warSummary.insert(tx, new Date(t), 800, 7_000 + k, counters)
      })
      const part = await h.get('/war/trends?warId=800')
      expect(part.body.since).toBe(new Date(young[0]!).toISOString())
      expect(part.body.since).toBe((await oldest(800))!.toISOString())
      expect(part.body.windows['1h'].coverage).toBe(0.5)
      expect(part.body.windows['24h'].coverage).toBe(0.0208)
      expect(part.body.windows['7d'].coverage).toBe(0.003)
      for (const [name, hours] of windows) {
        expect(part.body.windows[name].coverage).toBe(await expected(800, hours))
        expect(part.body.windows[name].deltas).toBeNull()
      }
    } finally {
      await h.db.sql`DELETE FROM war_summary_snapshots WHERE war_id = 800`
    }
  })

  test('/war/trends across a gap: a window whose start falls in it says so (coverage below 1, no deltas, no diver change), as a young history does', async () => {
    // War 800: two ticks ten days back, then every 5 minutes over the last 20 hours.
    const times = [LAST - 10 * 24 * HOUR - HOUR, LAST - 10 * 24 * HOUR, ...Array.from({ length: (20 * HOUR) / STEP + 1 }, (_, i) => LAST - 20 * HOUR + i * STEP)]
    const counters = (k: number) => warSummary.countersOf(Object.fromEntries(warSummary.COUNTER_KEYS.map((key) => [key, k])))
    try {
      await h.db.sql.begin(async (tx) => {
        for (const [k, t] of times.entries()) {
          await warSummary.insert(tx, new Date(t), 800, 9_000 + k, counters(k))
          // Off the war 801 ticks' times (the counts are keyed by time, not war).
          await playerCounts.insertUpstream(tx, new Date(t + 30_000), 800, 9_000 + k, 50_000 + k)
        }
      })
      const res = await h.get('/war/trends?warId=800')
      // The hour is whole: deltas and diver change from the tick an hour before.
      const hour = res.body.windows['1h']
      expect([hour.coverage, hour.from, hour.deltas.bugKills, hour.divers?.change]).toEqual([1, new Date(LAST - HOUR).toISOString(), 12, 12])
      // The day and the week start in the gap: their `from` rows are ten days back, beyond
      // the tolerance (2.4 h, 16.8 h); the stored ticks cover 20 hours of each.
      for (const [name, hours] of [['24h', 24], ['7d', 168]] as const) {
        expect(trendTolerance(hours * HOUR)).toBeLessThan(3 * 24 * HOUR)
        expect(res.body.windows[name]).toEqual({ from: null, to: null, coverage: Math.floor((20 / hours) * 10_000) / 10_000, deltas: null, divers: null })
      }
    } finally {
      await h.db.sql`DELETE FROM war_summary_snapshots WHERE war_id = 800`
      await h.db.sql`DELETE FROM player_count_snapshots WHERE war_id = 800`
    }
  })

  test('/timeline: owner changes, order events, dispatches and the war start; type and time filters; paging', async () => {
    const all = await h.get('/timeline?limit=1000')
    expect(all.status).toBe(200)
    const types = all.body.items.map((e: any) => e.type)
    expect(types).toContain('war_started')
    const liberated = all.body.items.filter((e: any) => e.type === 'planet_liberated')
    // Planet 4 changed hands once: the first tick an hour before the last with the players as owner.
    expect(liberated).toEqual([expect.objectContaining({ planetIndex: 4, planetName: 'Planet-801-4', fromOwner: BUGS, toOwner: HUMANS })])
    const firstHuman = Array.from({ length: TICKS }, (_, k) => k).find((k) => planetAt(4, tickAt(k).getTime()).owner === HUMANS)!
    expect(liberated[0].at).toBe(tickAt(firstHuman).toISOString())
    const orders = all.body.items.filter((e: any) => e.type.startsWith('major_order_')).map((e: any) => `${e.type}:${e.orderId32}`).sort()
    expect(orders).toEqual([
      'major_order_completed:1001', 'major_order_failed:1002',
      'major_order_issued:1001', 'major_order_issued:1002', 'major_order_issued:1003', 'major_order_issued:1004',
      'major_order_withdrawn:1003',
    ])
    expect(all.body.items.find((e: any) => e.type === 'dispatch')).toMatchObject({ dispatchId: 77, message: 'Planet 4 is ours' })
    // Newest first.
    const times = all.body.items.map((e: any) => Date.parse(e.at))
    expect(times).toEqual([...times].sort((a, b) => b - a))

    const filtered = await h.get(`/timeline?type=planet_liberated,dispatch&from=${new Date(LAST - 2 * HOUR).toISOString()}`)
    expect(filtered.body.items.map((e: any) => e.type).sort()).toEqual(['dispatch', 'planet_liberated'])
    const paged = await h.get('/timeline?limit=2&page=2')
    expect(paged.body).toMatchObject({ page: 2, limit: 2, totalResults: all.body.totalResults, totalPages: Math.ceil(all.body.totalResults / 2) })
    expect(paged.body.items).toEqual(all.body.items.slice(2, 4))
    expect(errorOf(await h.get('/timeline?type=planet_exploded'))).toContain('type')
    expect(errorOf(await h.get('/timeline?from=yesterday'))).toContain('from')
  })

  test('/war says how old its planet data is: the newest planet refresh and its age', async () => {
    const later = await openHarness({ db, keepDb: true, now: () => new Date(NOW.getTime() + 90_500) })
    try {
      const war = await later.get('/war')
      // The seed refreshed planet i at NOW - i seconds: the newest is NOW.
      expect(war.body).toMatchObject({ dataCapturedAt: NOW.toISOString(), dataAgeSeconds: 90 })
      expect((await later.get('/war/801?planetId=3')).body).toMatchObject({ dataCapturedAt: new Date(NOW.getTime() - 3000).toISOString(), dataAgeSeconds: 93 })
    } finally {
      await later.close()
    }
  })

  test('owner changes kept at write time equal a rebuild over every row, also after a tick written late', async () => {
    const dump = () => db.sql`SELECT captured_at, planet_index, from_owner, to_owner FROM planet_owner_changes ORDER BY 1, 2`
    // A late tick between the two around planet 4's change, still with the old owner: the change moves after it.
    const k = Array.from({ length: TICKS }, (_, i) => i).find((i) => planetAt(4, tickAt(i).getTime()).owner === HUMANS)!
    const late = new Date(tickAt(k).getTime() - 60_000)
    await db.sql.begin((tx) => planetStatus.insert(tx, late, 801, [{ planet_index: 4, owner: BUGS, health: 10_000, regen_per_second: 0, players: 1 }]))
    const kept = await dump()
    await db.sql`SELECT planet_owner_changes_rebuild(NULL, '-infinity', 'infinity')`
    expect(await dump()).toEqual(kept)
    expect(kept.filter((r) => r.planet_index === 4)).toHaveLength(1)
  })

  test('a planet missing from the previous tick is compared with its own last row (and one never seen records nothing)', async () => {
    const dump = () => db.sql`SELECT captured_at, planet_index, from_owner, to_owner FROM planet_owner_changes ORDER BY 1, 2`
    // Two newest ticks: planet 3 (bugs until now) absent from the first, back with humans in
    // the second, so its change is found two ticks back; planet 5 stays with humans; planet
    // 42 appears for the first time (nothing to compare with).
    const write = (k: number, planets: { planet_index: number; owner: number }[]) =>
      db.sql.begin(async (tx) => {
        const at = new Date(LAST + k * STEP)
        await claimFullStatus(tx, at, 801, 2_000_000 + k * 300, planets.length)
        await planetStatus.insert(tx, at, 801, planets.map((p) => ({ ...p, health: 1, regen_per_second: 0, players: 1 })))
      })
    await write(1, [{ planet_index: 5, owner: HUMANS }])
    await write(2, [{ planet_index: 3, owner: HUMANS }, { planet_index: 5, owner: HUMANS }, { planet_index: 42, owner: BUGS }])
    const kept = await dump()
    expect(kept.filter((r) => r.captured_at.getTime() > LAST)).toEqual([
      { captured_at: new Date(LAST + 2 * STEP), planet_index: 3, from_owner: BUGS, to_owner: HUMANS },
    ])
    await db.sql`SELECT planet_owner_changes_rebuild(NULL, '-infinity', 'infinity')`
    expect(await dump()).toEqual(kept)
  })
})
