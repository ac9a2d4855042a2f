/**
 * The simulated major orders: each task type's progress follows its rule, read from the
 * war's own state (src/sim/war.ts, `Order`). The war is driven step by step; the orders
 * are read as the upstream serves them (parsed by the service's feed schema).
 */
import { describe, expect, test } from 'bun:test'
import { parseAssignments, type Assignment, type Task } from '../../src/feeds/upstream.ts'
import { goalOf, planetOf, STEP_S, TASK_TYPES, War } from '../../src/sim/war.ts'

const HUMANS = 1
const HOUR_STEPS = 3600 / STEP_S

const orders = (war: War) => parseAssignments(war.assignments()).data
const showcaseOf = (war: War) => orders(war).find((o) => o.setting.tasks.length === 8)!
const indexOf = (o: Assignment, type: number) => o.setting.tasks.findIndex((t) => t.type === type)
const raceOf = (t: Task) => t.values[t.valueTypes.indexOf(1)] ?? 0
/** Every task at its goal: a completed order, listed a while with its final progress. */
const completed = (o: Assignment) => o.setting.tasks.every((t, i) => (o.progress[i] ?? 0) >= goalOf(t))

/**
 * Steps `war` for `steps` steps; `each` sees the orders before and after every step, the
 * defenses that ended in it (won: gone before their deadline with the planet held) and the
 * planets liberated in it.
 */
function drive(
  war: War,
  steps: number,
  each: (x: { before: Assignment[]; after: Assignment[]; won: { race: number }[]; lost: { race: number }[]; liberated: number[] }) => void,
) {
  let before = orders(war)
  for (let k = 0; k < steps; k++) {
    const events = war.eventsView().map((e) => ({ ...e }))
    const owners = war.planetsView().map((p) => p.owner)
    war.step()
    const listed = new Set(war.eventsView().map((e) => e.id))
    const gone = events.filter((e) => !listed.has(e.id))
    const planets = war.planetsView()
    const won = gone.filter((e) => planets[e.planetIndex]!.owner === HUMANS && war.time < e.expireTime)
    const lost = gone.filter((e) => !won.includes(e))
    const liberated = planets.filter((p, i) => p.owner === HUMANS && owners[i] !== HUMANS).map((p) => p.index)
    const after = orders(war)
    each({ before, after, won, lost, liberated })
    before = after
  }
}

describe('order progress per task type', () => {
  test('Defense: a defense won against its race adds one (capped at the goal); a lost one or another race adds nothing', () => {
    let raised = 0
    let lostSeen = 0
    for (const seed of [1, 2, 3]) {
      const war = new War({ seed, warId: 801, from: 'samples' })
      drive(war, 10 * HOUR_STEPS, ({ before, after, won, lost }) => {
        lostSeen += lost.length
        for (const o of after) {
          const prev = before.find((b) => b.id32 === o.id32)
          if (!prev || completed(prev)) continue
          o.setting.tasks.forEach((t, i) => {
            if (t.type !== TASK_TYPES.defense) return
            const race = raceOf(t)
            const counted = won.filter((e) => race === 0 || e.race === race).length
            expect(o.progress[i]).toBe(Math.min(goalOf(t), prev.progress[i]! + counted))
            if (o.progress[i]! > prev.progress[i]!) raised++
          })
        }
      })
    }
    // The opening's near-won defense raises the showcase's defense task within minutes, in each war.
    expect(raised).toBeGreaterThanOrEqual(3)
    expect(lostSeen).toBeGreaterThanOrEqual(3)
  })

  test('Liberation and Control: 1 while the players hold the planet, else 0; Expand: the planets liberated since the order began', () => {
    let liberationsDone = 0
    let expanded = 0
    for (const seed of [4, 9]) {
      const war = new War({ seed, warId: 801, from: 'samples' })
      // Per order, the planets liberated since it was first listed (an order issued in a step counts from after that step's fighting).
      const liberatedSince = new Map(orders(war).map((o) => [o.id32, 0]))
      drive(war, 30 * HOUR_STEPS, ({ after, before, liberated }) => {
        for (const o of after) liberatedSince.set(o.id32, (liberatedSince.get(o.id32) ?? -liberated.length) + liberated.length)
        for (const o of after) {
          if (completed(o)) continue
          const prev = before.find((b) => b.id32 === o.id32)
          o.setting.tasks.forEach((t, i) => {
            if (t.type === TASK_TYPES.liberation || t.type === TASK_TYPES.control) {
              const planet = planetOf(t)!
              expect(o.progress[i]).toBe(war.planetsView()[planet]!.owner === HUMANS ? 1 : 0)
              if (t.type === TASK_TYPES.liberation && prev?.progress[i] === 0 && o.progress[i] === 1) {
                expect(liberated).toContain(planet)
                liberationsDone++
              }
            }
            if (t.type === TASK_TYPES.expand) {
              expect(o.progress[i]).toBe(liberatedSince.get(o.id32))
              if (o.progress[i]! > 0) expanded++
            }
          })
        }
      })
    }
    // The showcase's liberation target falls to the players within the day in these wars.
    expect(liberationsDone).toBeGreaterThanOrEqual(2)
    expect(expanded).toBeGreaterThan(0)
  })

  test('Extract, CompleteMissions, CompleteOperations and Eradicate count up with the players online', () => {
    const war = new War({ seed: 1, warId: 801, from: 'samples' })
    const counting: number[] = [TASK_TYPES.extract, TASK_TYPES.completeMissions, TASK_TYPES.completeOperations, TASK_TYPES.eradicate]
    const showcase = showcaseOf(war)
    const slots = counting.map((type) => indexOf(showcase, type))
    expect(slots.every((i) => i >= 0)).toBe(true)
    const hours: { players: number; gained: number[] }[] = []
    let players = 0
    let start = showcase.progress
    drive(war, 24 * HOUR_STEPS, ({ before, after }) => {
      const prev = before.find((o) => o.id32 === showcase.id32)!
      const now = after.find((o) => o.id32 === showcase.id32)!
      slots.forEach((i) => expect(now.progress[i]).toBeGreaterThanOrEqual(prev.progress[i]!))
      players += war.planetsView().reduce((n, p) => n + p.players, 0)
      if (war.tick % HOUR_STEPS === 0) {
        hours.push({ players, gained: slots.map((i) => now.progress[i]! - start[i]!) })
        players = 0
        start = now.progress
      }
    })
    expect(hours).toHaveLength(24)
    for (const h of hours) for (const g of h.gained) expect(g).toBeGreaterThan(0)
    // The tasks on any race (Extract and CompleteOperations, by difficulty) gain in proportion
    // to the player-time of the hour: the same ratio at night and at the evening peak.
    const busiest = hours.reduce((a, b) => (b.players > a.players ? b : a))
    const quietest = hours.reduce((a, b) => (b.players < a.players ? b : a))
    expect(busiest.players / quietest.players).toBeGreaterThan(3)
    for (const k of [0, 2]) {
      const ratios = hours.map((h) => h.gained[k]! / h.players)
      expect(Math.max(...ratios) / Math.min(...ratios)).toBeLessThan(1.1)
      expect(busiest.gained[k]!).toBeGreaterThan(3 * quietest.gained[k]!)
    }
  })
})

describe('orders over time', () => {
  test('regular orders come one at a time; a completed one stays listed at its goals for a while, then goes', () => {
    let found = false
    for (let seed = 1; seed <= 12 && !found; seed++) {
      const war = new War({ seed, warId: 900, from: 'fresh', startDate: 1_800_000_000 })
      let completedAt: number | undefined
      let id32 = 0
      drive(war, 2 * 24 * HOUR_STEPS, ({ after }) => {
        expect(after.filter((o) => !completed(o)).length).toBeLessThanOrEqual(1)
        expect(after.length).toBeLessThanOrEqual(2)
        const news = war.newsfeed({ fromTimestamp: war.time - 1, maxEntries: 5, withMessage: true })
        if (completedAt === undefined && news.some((n) => n.message!.startsWith('MAJOR ORDER COMPLETE'))) {
          const done = after.find(completed)
          if (!done) return
          completedAt = war.time
          id32 = done.id32
        }
        if (completedAt === undefined || found) return
        const listed = after.find((o) => o.id32 === id32)
        if (listed) {
          expect(completed(listed)).toBe(true)
          expect(war.time - completedAt).toBeLessThan(3600)
        } else {
          expect(war.time - completedAt).toBeGreaterThanOrEqual(5 * 60)
          found = true
        }
      })
    }
    expect(found).toBe(true)
  })

  test('fresh wars issue orders of every task type over time', () => {
    const types = new Set<number>()
    for (let seed = 1; seed <= 12 && types.size < 8; seed++) {
      const war = new War({ seed, warId: 900, from: 'fresh', startDate: 1_800_000_000 })
      for (let h = 0; h < 10 * 24; h++) {
        war.advanceTo(war.tick + HOUR_STEPS)
        for (const o of orders(war)) for (const t of o.setting.tasks) types.add(t.type)
      }
    }
    expect([...types].sort((a, b) => a - b)).toEqual(Object.values(TASK_TYPES).sort((a, b) => a - b))
  })

  test('attack lines follow the fronts: from a planet the players hold into a front they attack', () => {
    for (const from of ['samples', 'fresh'] as const) {
      const war = new War({ seed: 6, warId: from === 'samples' ? 801 : 900, from, startDate: 1_800_000_000 })
      for (let h = 0; h < 4 * 24; h++) {
        const status = war.status()
        const fronts = new Set(status.campaigns.map((c) => c.planetIndex).filter((i) => status.planetStatus[i]!.owner !== HUMANS))
        expect(status.planetAttacks!.length).toBeGreaterThan(0)
        for (const a of status.planetAttacks!) {
          expect(status.planetStatus[a.source]!.owner).toBe(HUMANS)
          expect(fronts.has(a.target)).toBe(true)
        }
        for (const f of fronts) expect(status.planetAttacks!.some((a) => a.target === f)).toBe(true)
        war.advanceTo(war.tick + HOUR_STEPS)
      }
    }
  })
})
