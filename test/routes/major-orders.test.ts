/**
 * /major-orders in words and in time (issue 25 item 3) on the real assignment samples
 * (Eradicate, Control, Expand) plus a defense count and an unknown task type, written
 * tick by tick through the full-status writes: each task's words, and each derived figure
 * (progressPct, ratePerHour, projectedAtExpiry, onTrack) against a direct computation over
 * the stored rows. Also `brief` on /historical-major-orders.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { rewardMedals, rewardsOf } from '../../src/collect/full-status.ts'
import type { Sql } from '../../src/db/connect.ts'
import type { Assignment } from '../../src/feeds/upstream.ts'
import { RATE_WINDOW_HOURS } from '../../src/services/major-orders.ts'
import * as majorOrders from '../../src/storage/major-orders.ts'
import { claimFullStatus } from '../../src/storage/ticks.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { loadSample } from '../support/samples.ts'
import { seedWarsAndLookups } from '../support/seed.ts'
import { openHarness, type Harness } from './helpers.ts'

const MIN = 60_000
const HOUR = 60 * MIN
const NOW = new Date('2026-11-20T12:00:00.000Z')
/** A tick every 5 minutes over 8 hours, the last one a minute before NOW. */
const LAST = NOW.getTime() - MIN
const TIMES = Array.from({ length: 97 }, (_, k) => LAST - 8 * HOUR + k * 5 * MIN)
const K = TIMES.length - 1

const sample = (name: string) => (loadSample(`arrowhead/assignment_v2_801_${name}.json`) as Assignment[])[0]!
const ERADICATE = sample('eradicate_multi_task_mockserver')
const CONTROL = sample('hd2api2db_pyrepr_converted')
const EXPAND = sample('2025-05-09_daveydoodles97')
const DEFENSE = 5001
const ODD = 5002

/** Hours before the last tick. */
const hoursBefore = (k: number) => (LAST - TIMES[k]!) / HOUR
/** Deterministic noise, zero at the last tick (whose progress is the sample's). */
const wobble = (k: number, salt: number, amplitude: number) => (k === K ? 0 : Math.round(((((k + salt) * 7919) % 1000) / 1000 - 0.5) * 2 * amplitude))

/** An order as the collector maps a real assignment, its time left counted down to `expiresAt`. */
function fromSample(a: Assignment, at: number, expiresAt: number, progress: number[]): majorOrders.OrderInput {
  const rewards = rewardsOf(a)
  return {
    order_id32: a.id32, expires_in: Math.round((expiresAt - at) / 1000), start_war_time: null, setting_type: a.setting.type, flags: a.setting.flags,
    title: a.setting.overrideTitle, briefing: a.setting.overrideBrief, task_description: a.setting.taskDescription,
    tasks: a.setting.tasks.map(({ type, values, valueTypes }) => ({ type, values, valueTypes })), rewards, reward_medals: rewardMedals(rewards), progress,
  }
}

const made = (id: number, at: number, expiresAt: number, tasks: object[], rewards: { type: number; id32: number; amount: number }[], progress: number[]): majorOrders.OrderInput => ({
  order_id32: id, expires_in: Math.round((expiresAt - at) / 1000), start_war_time: null, setting_type: 4, flags: 1, title: 'MAJOR ORDER',
  briefing: `Briefing ${id}`, task_description: '', tasks, rewards, reward_medals: rewardMedals(rewards), progress,
})

const EXPIRES = {
  eradicate: LAST + ERADICATE.expiresIn * 1000,
  control: LAST + CONTROL.expiresIn * 1000,
  expand: LAST + EXPAND.expiresIn * 1000,
  defense: LAST + 10 * HOUR,
  odd: LAST + 48 * HOUR,
}

/** War 801 (planets stored, named Planet-801-i): Eradicate, Expand, a defense count, odd tasks. War 802 (no planets stored): Control. */
function ordersAt(k: number): { 801: majorOrders.OrderInput[]; 802: majorOrders.OrderInput[] } {
  const at = TIMES[k]!
  const h = hoursBefore(k)
  const rates = [1_000_000, 1_200_000, 500_000]
  return {
    801: [
      // Counting tasks: running kill counts ending at the sample's.
      fromSample(ERADICATE, at, EXPIRES.eradicate, ERADICATE.progress.map((p, i) => Math.round(p - rates[i]! * h) + wobble(k, i, 50_000))),
      // A count of planets against a goal of 1: 0, then 1 four hours ago, then the sample's 2 at the last tick.
      fromSample(EXPAND, at, EXPIRES.expand, [k === K ? EXPAND.progress[0]! : h <= 4 ? 1 : 0]),
      // A defense count (no real capture has one): one planet defended every 2 hours, 4 of 5 by now.
      made(DEFENSE, at, EXPIRES.defense, [{ type: 12, values: [3, 5], valueTypes: [1, 3] }], [{ type: 1, id32: 897894480, amount: 30 }], [Math.floor((8 - h) / 2)]),
      // A type no table knows, and the liberation of a planet war 801 has not stored (its name from the lookup).
      made(ODD, at, EXPIRES.odd, [{ type: 99, values: [123], valueTypes: [3] }, { type: 11, values: [1, 1, 100], valueTypes: [3, 11, 12] }], [{ type: 9, id32: 5, amount: 1 }], [k, 0]),
    ],
    // Planet tasks: two planets held all along, the third never.
    802: [fromSample(CONTROL, at, EXPIRES.control, [1, 0, 1])],
  }
}

async function writeTick(sql: Sql, k: number) {
  const at = new Date(TIMES[k]!)
  const orders = ordersAt(k)
  await sql.begin(async (tx) => {
    for (const war of [801, 802] as const) {
      await claimFullStatus(tx, at, war, 1_000_000 + k * 300, 6)
      await majorOrders.upsertWithProgress(tx, at, war, orders[war])
    }
  })
}

/** Least-squares slope of y against x. */
function slope(xs: number[], ys: number[]): number | null {
  const n = xs.length
  if (n < 2) return null
  const mx = xs.reduce((a, b) => a + b, 0) / n
  const my = ys.reduce((a, b) => a + b, 0) / n
  let sxy = 0
  let sxx = 0
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my)
    sxx += (xs[i]! - mx) ** 2
  }
  return sxx === 0 ? null : sxy / sxx
}

/** Each task's figures computed directly from the stored rows of an order, as of NOW. */
async function direct(sql: Sql, orderId: number) {
  const [o] = await sql<{ tasks: { type: number; values: number[]; valueTypes: number[] }[]; expiresAt: Date; completedAt: Date | null }[]>`
    SELECT tasks, last_seen_at + make_interval(secs => expires_in_last_seen) AS "expiresAt", completed_at AS "completedAt"
    FROM major_orders WHERE order_id32 = ${orderId}`
  const rows = await sql<{ at: Date; progress: number[] }[]>`
    SELECT captured_at AS at, progress FROM major_order_progress WHERE order_id32 = ${orderId} ORDER BY captured_at`
  const latest = rows.at(-1)!
  const window = rows.filter((r) => r.at.getTime() > NOW.getTime() - RATE_WINDOW_HOURS * HOUR && r.at.getTime() <= NOW.getTime())
  const active = o!.completedAt === null && o!.expiresAt.getTime() > NOW.getTime()
  return o!.tasks.map((task, i) => {
    const goalAt = task.valueTypes.indexOf(3)
    const goal = goalAt >= 0 && task.values[goalAt]! > 0 ? task.values[goalAt]! : null
    const value = latest.progress[i]!
    const done = goal === null ? value !== 0 : value >= goal
    const rate = slope(window.map((r) => (r.at.getTime() - NOW.getTime()) / HOUR), window.map((r) => r.progress[i]!))
    const projected = active && rate !== null ? value + (rate * (o!.expiresAt.getTime() - latest.at.getTime())) / HOUR : null
    return {
      value, goal, done, rate, samples: window.length, projected,
      progressPct: goal === null ? (done ? 100 : 0) : Math.min(100, (value / goal) * 100),
      onTrack: done || o!.completedAt !== null ? true : projected === null || goal === null ? null : projected >= goal,
    }
  })
}

describeOnEachDatabase('/major-orders in words and in time', (target) => {
  let db: TestDatabase
  let h: Harness
  let items: Record<number, any>

  beforeAll(async () => {
    db = await target.open()
    await seedWarsAndLookups(db.sql, NOW)
    for (let k = 0; k <= K; k++) await writeTick(db.sql, k)
    h = await openHarness({ db, now: () => NOW })
    const [w801, w802] = await Promise.all([h.get('/major-orders'), h.get('/major-orders?warId=802')])
    expect([w801.status, w802.status]).toEqual([200, 200])
    items = Object.fromEntries([...w801.body.items, ...w802.body.items].map((o: any) => [o.orderId32, o]))
  }, 300_000)
  afterAll(async () => {
    await h?.close()
  })

  test('every task in words: kind, description and targets by name (stored in the war, else the lookup)', () => {
    const words = (id: number) => items[id].tasks.map((x: any) => ({ kind: x.kind, description: x.description, targets: x.targets }))
    expect(words(ERADICATE.id32)).toEqual(
      [1978117092, 934703916, 4038802832].map((item) => ({ kind: 'eradicate', description: `Kill 500,000,000 Terminids with item ${item}`, targets: [] })),
    )
    expect(words(CONTROL.id32)).toEqual([
      { kind: 'control', description: "Hold Widow's Harbor", targets: [{ planetIndex: 3, name: "Widow's Harbor" }] },
      { kind: 'control', description: 'Hold Pilen V', targets: [{ planetIndex: 5, name: 'Pilen V' }] },
      { kind: 'control', description: 'Hold New Haven', targets: [{ planetIndex: 4, name: 'New Haven' }] },
    ])
    expect(words(EXPAND.id32)).toEqual([{ kind: 'expand', description: 'Liberate 1 planet', targets: [] }])
    expect(words(DEFENSE)).toEqual([{ kind: 'defense', description: 'Defend 5 planets against the Automatons', targets: [] }])
    expect(words(ODD)).toEqual([
      { kind: 'type-99', description: 'Task type 99 (goal 123)', targets: [] },
      { kind: 'liberation', description: 'Liberate Trandor', targets: [{ planetIndex: 100, name: 'Trandor' }] },
    ])
  })

  test('a planet the war has stored is named by its stored name', async () => {
    await h.db.sql.begin(async (tx) => {
      const at = new Date(LAST + 30_000)
      await majorOrders.upsertWithProgress(tx, at, 801, [made(5003, at.getTime(), LAST + HOUR, [{ type: 13, values: [1, 1, 3], valueTypes: [3, 11, 12] }], [], [0])])
    })
    const res = await h.get('/major-orders?limit=100')
    const order = res.body.items.find((o: any) => o.orderId32 === 5003)
    expect(order.tasks[0]).toMatchObject({ description: 'Hold Planet-801-3', targets: [{ planetIndex: 3, name: 'Planet-801-3' }] })
    await h.db.sql`DELETE FROM major_order_progress WHERE order_id32 = 5003`
    await h.db.sql`DELETE FROM major_orders WHERE order_id32 = 5003`
  })

  test('progressPct, ratePerHour, projectedAtExpiry and onTrack equal a direct computation over the stored rows', async () => {
    for (const id of [ERADICATE.id32, CONTROL.id32, EXPAND.id32, DEFENSE, ODD]) {
      const want = await direct(db.sql, id)
      const got = items[id].tasks
      expect(got).toHaveLength(want.length)
      want.forEach((w, i) => {
        const g = got[i]
        const label = `order ${id} task ${i}`
        expect({ label, value: g.value, target: g.target, done: g.done, rateSamples: g.rateSamples }).toEqual({ label, value: w.value, target: w.goal, done: w.done, rateSamples: w.samples })
        expect(g.progressPct).toBeCloseTo(w.progressPct, 3)
        if (w.rate === null) expect(g.ratePerHour).toBeNull()
        else expect(g.ratePerHour).toBeCloseTo(w.rate, Math.abs(w.rate) > 1000 ? 0 : 3)
        if (w.projected === null) expect(g.projectedAtExpiry).toBeNull()
        else expect(Math.abs(g.projectedAtExpiry - w.projected)).toBeLessThanOrEqual(Math.max(0.01, Math.abs(w.projected) * 1e-6))
        expect({ label, onTrack: g.onTrack }).toEqual({ label, onTrack: w.onTrack })
      })
    }
    // The window holds the ticks of the last 6 hours: 72 five-minute snapshots.
    expect(items[DEFENSE].tasks[0].rateSamples).toBe(72)
  })

  test('the figures, order by order: counting, planet and defense-count tasks; the whole order on track when every task is', () => {
    // Eradicate: about 1.0, 1.2 and 0.5 million kills an hour, far from 500 million by expiry.
    const eradicate = items[ERADICATE.id32]
    expect(eradicate.status).toBe('active')
    expect(eradicate.tasks.map((x: any) => Math.round(x.ratePerHour / 100_000) / 10)).toEqual([1, 1.2, 0.5])
    expect(eradicate.tasks.map((x: any) => x.value)).toEqual(ERADICATE.progress)
    expect(eradicate.tasks[0].progressPct).toBeCloseTo((9039838 / 500_000_000) * 100, 4)
    expect(eradicate.tasks.map((x: any) => x.onTrack)).toEqual([false, false, false])
    expect(eradicate.onTrack).toBe(false)
    // Control: two planets held (done), the third never: a flat rate projects 0 of 1.
    const control = items[CONTROL.id32]
    expect(control.tasks.map((x: any) => [x.progressPct, x.ratePerHour, x.projectedAtExpiry, x.onTrack])).toEqual([[100, 0, 1, true], [0, 0, 0, false], [100, 0, 1, true]])
    expect(control.onTrack).toBe(false)
    // Expand: 2 planets of a goal of 1, completed four hours ago: 100 %, nothing projected.
    const expand = items[EXPAND.id32]
    expect(expand).toMatchObject({ status: 'completed', onTrack: true })
    expect(expand.tasks[0]).toMatchObject({ value: 2, target: 1, progressPct: 100, projectedAtExpiry: null, onTrack: true })
    expect(expand.tasks[0].ratePerHour).toBeGreaterThan(0)
    // Defense: 4 of 5 planets, half a planet an hour, 10 hours left: on track.
    const defense = items[DEFENSE]
    expect(defense.tasks[0]).toMatchObject({ value: 4, target: 5, progressPct: 80, onTrack: true })
    expect(defense.tasks[0].ratePerHour).toBeCloseTo(0.5, 1)
    expect(defense.tasks[0].projectedAtExpiry).toBeGreaterThan(8)
    expect(defense.onTrack).toBe(true)
    // A generic task is projected like any other; a planet not liberated with a flat rate is not on track.
    expect(items[ODD].tasks.map((x: any) => x.onTrack)).toEqual([true, false])
    expect(items[ODD].onTrack).toBe(false)
  })

  test("target, done and tasksDone (written out in the read) equal sql/0008's functions, also on odd task lists", async () => {
    const at = new Date(LAST - 10 * MIN)
    const odd = (id: number, tasks: unknown, progress: number[]) => ({ ...made(id, at.getTime(), LAST + HOUR, [], [], progress), tasks: tasks as object[] })
    await h.db.sql.begin(async (tx) => {
      await claimFullStatus(tx, at, 803, 1_000_000, 6)
      await majorOrders.upsertWithProgress(tx, at, 803, [
        odd(6001, null, [1, 0]), // no task list
        odd(6002, [{ type: 3, values: [2, 0, 10], valueTypes: [1, 3, 3] }], [10, 5, 0]), // goal 0 first (not > 0), progress longer than the tasks
        odd(6003, [{ type: 3, values: [5], valueTypes: [3, 3] }, { type: 11, values: [], valueTypes: [] }], [4]), // a goal value missing, progress shorter
        odd(6004, [{ type: 12, values: [3, 5], valueTypes: [1, 3] }, { type: 7, values: [10, 20], valueTypes: [3, 3] }], [5, 10]), // two goals: the first counts
      ])
    })
    const res = await h.get('/major-orders?warId=803')
    expect(res.body.items.map((o: any) => o.orderId32).sort()).toEqual([6001, 6002, 6003, 6004])
    const want = await db.sql<{ id: number; done: number; total: number; targets: (number | null)[]; dones: boolean[] }[]>`
      SELECT o.order_id32::int AS id, coalesce(mo_tasks_done(o.tasks, p.progress), 0) AS done,
             greatest(jsonb_array_length(coalesce(o.tasks, '[]')), jsonb_array_length(p.progress)) AS total,
             (SELECT jsonb_agg(CASE WHEN mo_task_target(o.tasks -> i) > 0 THEN mo_task_target(o.tasks -> i) END ORDER BY i) FROM generate_series(0, 2) i) AS targets,
             (SELECT jsonb_agg(coalesce(mo_task_done(o.tasks -> i, (p.progress ->> i)::numeric), false) ORDER BY i) FROM generate_series(0, 2) i) AS dones
      FROM major_orders o JOIN major_order_progress p USING (order_id32) WHERE o.war_id = 803`
    for (const w of want) {
      const got = res.body.items.find((o: any) => o.orderId32 === w.id)
      expect({ id: w.id, done: got.tasksDone, total: got.tasksTotal }).toEqual({ id: w.id, done: w.done, total: w.total })
      expect(got.tasks.map((x: any) => [x.target, x.done])).toEqual(got.tasks.map((_: unknown, i: number) => [w.targets[i], w.dones[i]]))
      // Words for whatever the list holds, never an error.
      for (const x of got.tasks) expect(typeof x.description).toBe('string')
    }
  })

  test('rewards in words, the raw fields kept', () => {
    expect(items[ERADICATE.id32].rewards).toEqual([{ type: 1, id32: 897894480, amount: 55, kind: 'medals' }])
    expect(items[ODD].rewards).toEqual([{ type: 9, id32: 5, amount: 1, kind: 'type-9' }])
    expect(items[ERADICATE.id32].rewardMedals).toBe(55)
  })

  test('/historical-major-orders: brief is the briefing, in every form of lang', async () => {
    for (const path of ['/historical-major-orders', '/historical-major-orders?lang=all', '/historical-major-orders?lang=en-US']) {
      const res = await h.get(path)
      expect(res.status).toBe(200)
      expect(res.body.items.length).toBeGreaterThan(0)
      for (const o of res.body.items) expect(o.brief).toEqual(o.briefing)
    }
    const first = (await h.get('/historical-major-orders?warId=802')).body.items[0]
    expect(first).toMatchObject({ brief: CONTROL.setting.overrideBrief, title: 'MAJOR ORDER', rewardMedals: 50, lastSeenAt: new Date(LAST).toISOString() })
    expect(first.expiresInLastSeen).toBe(CONTROL.expiresIn)
  })

  test('a frozen war projects nothing (its latest war time seen again minutes later); the rates stay', async () => {
    expect((await h.get('/major-orders')).body.frozenSince).toBeNull()
    await h.db.sql.begin((tx) => claimFullStatus(tx, new Date(LAST + 3 * MIN), 801, 1_000_000 + K * 300, 6))
    const res = await h.get('/major-orders')
    expect(res.body.frozenSince).toBe(new Date(LAST).toISOString())
    const defense = res.body.items.find((o: any) => o.orderId32 === DEFENSE)
    expect(defense.tasks[0]).toMatchObject({ projectedAtExpiry: null, onTrack: null })
    expect(defense.tasks[0].ratePerHour).toBeCloseTo(0.5, 1)
    expect(defense.onTrack).toBeNull()
  })
})
