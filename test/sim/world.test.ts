import { describe, expect, test } from 'bun:test'
import { World } from '../../src/sim/world.ts'
import { playersTotalAt, STEP_S, WAR_TIME_RATE } from '../../src/sim/war.ts'
import { parseAssignments, parseNewsFeed, parseWarInfo, parseWarStatus, parseWarSummary } from '../../src/feeds/upstream.ts'

const HOUR = 3600

describe('living war', () => {
  test('war time moves in 10 s steps at 99.5 % of the simulated clock', () => {
    const world = new World({ seed: 1, speed: 0 })
    const t0 = world.state().time
    world.advance(9)
    expect(world.state().time).toBe(t0)
    world.advance(1.06) // 10.06 s × 0.995 ≥ 10
    expect(world.state().time).toBe(t0 + STEP_S)
    world.advance(HOUR)
    const dt = world.state().time - t0
    expect(dt % STEP_S).toBe(0)
    expect(dt).toBe(Math.floor(((HOUR + 10.06) * WAR_TIME_RATE) / STEP_S) * STEP_S)
  })

  test('speed scales wall time', () => {
    // The world's clock is injected: 60 ms of it at speed 2000 are 120 simulated seconds.
    let wall = Date.parse('2026-01-01T00:00:00Z')
    const world = new World({ seed: 1, speed: 2000, now: () => wall })
    const t0 = world.state().time
    wall += 60
    expect(world.state().time - t0).toBe(Math.floor((120 * WAR_TIME_RATE) / STEP_S) * STEP_S)
    wall += 60
    expect(world.state().time - t0).toBe(Math.floor((240 * WAR_TIME_RATE) / STEP_S) * STEP_S)
  })

  test('deterministic for a seed; different seeds differ', () => {
    const a = new World({ seed: 42, speed: 0 })
    const b = new World({ seed: 42, speed: 0 })
    const c = new World({ seed: 43, speed: 0 })
    for (const w of [a, b, c]) w.advance(2 * 86_400)
    expect(a.current().status()).toEqual(b.current().status())
    expect(a.current().summary()).toEqual(b.current().summary())
    expect(a.current().newsfeed({ maxEntries: 1024, withMessage: true })).toEqual(b.current().newsfeed({ maxEntries: 1024, withMessage: true }))
    expect(a.state()).toEqual(b.state())
    expect(c.state().playersTotal).not.toBe(a.state().playersTotal)
  })

  test('players follow a daily rhythm, 20–29 planets busy, busiest ~50 %', () => {
    const world = new World({ seed: 5, speed: 0 })
    const totals: number[] = []
    for (let i = 0; i < 48; i++) {
      world.advance(HOUR / 2)
      const s = world.state()
      totals.push(s.playersTotal)
      // The total is the pure daily-rhythm function of war time, so it can be predicted.
      expect(s.playersTotal).toBe(playersTotalAt(5, s.time))
      expect(s.planetsWithPlayers).toBeGreaterThanOrEqual(20)
      expect(s.planetsWithPlayers).toBeLessThanOrEqual(29)
      const share = s.busiestPlanet.players / s.playersTotal
      expect(share).toBeGreaterThan(0.25)
      expect(share).toBeLessThan(0.7)
    }
    expect(Math.min(...totals)).toBeGreaterThan(20_000)
    expect(Math.max(...totals)).toBeLessThan(600_000)
    expect(Math.max(...totals) / Math.min(...totals)).toBeGreaterThan(3)
    const status = world.current().status()
    expect(status.planetStatus.reduce((n, p) => n + p.players, 0)).toBe(world.state().playersTotal)
  })

  test('counters only grow; quirks hold', () => {
    const world = new World({ seed: 9, speed: 0 })
    let prev = world.current().summary()
    for (let i = 0; i < 12; i++) {
      world.advance(HOUR)
      const next = world.current().summary()
      for (const key of ['missionsWon', 'timePlayed', 'bulletsFired', 'bulletsHit', 'deaths'] as const) {
        expect(next.galaxy_stats[key]).toBeGreaterThan(prev.galaxy_stats[key])
      }
      next.planets_stats.forEach((row, i) => {
        const before = prev.planets_stats[i]!
        expect(row.planetIndex).toBe(before.planetIndex)
        expect(row.timePlayed).toBeGreaterThanOrEqual(before.timePlayed)
        expect(row.bugKills + row.automatonKills + row.illuminateKills).toBeGreaterThanOrEqual(
          before.bugKills + before.automatonKills + before.illuminateKills,
        )
      })
      prev = next
    }
    const g = prev.galaxy_stats
    expect(g.revives).toBe(2)
    expect(g.bulletsHit).toBeGreaterThan(g.bulletsFired)
    expect(g.accurracy).toBe(100)
    expect(g.missionTime).toBe(g.timePlayed)
    expect(prev.planets_stats.filter((r) => r.planetIndex < 0).map((r) => r.planetIndex)).toEqual([-1337, -420])
  })

  test('over days: owners flip, dispatches append with war-time stamps, orders come and go', () => {
    const world = new World({ seed: 3, speed: 0 })
    const war = world.current()
    const owners0 = war.status().planetStatus.map((p) => p.owner)
    const firstNew = war.nextDispatchId
    const orderIds = new Set<number>()
    let sawNoOrder = false
    let lastExpires = Infinity
    for (let day = 0; day < 12 * 4; day++) {
      world.advance(6 * HOUR)
      const [order] = war.assignments()
      if (!order) sawNoOrder = true
      else {
        if (orderIds.has(order.id32)) expect(order.expiresIn).toBeLessThan(lastExpires)
        orderIds.add(order.id32)
        lastExpires = order.expiresIn
        expect(order.progress).toHaveLength(order.setting.tasks.length)
        expect(order.setting.rewards?.[0]).toEqual(order.setting.reward!)
      }
    }
    const flipped = war.status().planetStatus.filter((p, i) => p.owner !== owners0[i])
    expect(flipped.length).toBeGreaterThan(0)
    const news = war.newsfeed({ maxEntries: 1024, withMessage: true }).filter((n) => n.id >= firstNew)
    expect(news.length).toBeGreaterThan(3)
    news.forEach((n, i) => {
      expect(n.id).toBe(firstNew + i)
      expect(n.published % STEP_S).toBe(0)
      if (i > 0) expect(n.published).toBeGreaterThanOrEqual(news[i - 1]!.published)
    })
    expect(orderIds.size).toBeGreaterThan(1)
    expect(sawNoOrder).toBe(true)
  })

  test('every payload passes the parsers', () => {
    const world = new World({ seed: 11, speed: 0 })
    world.advance(3 * 86_400)
    const war = world.current()
    expect(parseWarStatus(war.status()).data.planetStatus).toHaveLength(261)
    expect(parseWarInfo(war.warInfo()).data.planetInfos).toHaveLength(261)
    expect(parseWarSummary(war.summary()).data.planets_stats?.length).toBe(263)
    parseAssignments(war.assignments()).data
    parseNewsFeed(war.newsfeed({ withMessage: false })).data
  })

  test('newsfeed paging: default 10, fromTimestamp filter, no message without a language', () => {
    const war = new World({ seed: 1, speed: 0 }).current()
    const all = war.newsfeed({ maxEntries: 1024, fromTimestamp: 0, withMessage: true })
    expect(war.newsfeed({ withMessage: true })).toHaveLength(Math.min(10, all.length))
    expect(war.newsfeed({ fromTimestamp: 2_800_000, maxEntries: 1024, withMessage: true }).every((n) => n.published > 2_800_000)).toBe(true)
    expect(war.newsfeed({ withMessage: false }).every((n) => !('message' in n))).toBe(true)
  })
})
