/** Liberation rate and ETA on constructed histories whose answers are known. */
import { describe, expect, test } from 'bun:test'
import { eventPctOf, liberation, libPctOf, project, slope, STALEMATE_RATE, type ProgressPoint, type StatusTick } from '../../src/war/liberation.ts'

const MAX = 1_000_000
const T0 = Date.parse('2026-11-20T10:00:00Z')
const MIN = 60_000
const HOUR = 3_600_000
const TERMINIDS = 2
const HUMANS = 1

/** A tick `minutes` after T0 at liberation % `pct` of its owner. */
function tick(minutes: number, pct: number, owner = TERMINIDS, regenPerSecond = 0): StatusTick {
  const health = owner === HUMANS ? (pct / 100) * MAX : MAX - (pct / 100) * MAX
  return { t: new Date(T0 + minutes * MIN), owner, health: Math.round(health), regenPerSecond, players: 1000 + minutes }
}
const series = (minutes: number[], pct: (m: number) => number, owner = TERMINIDS, regen = 0) => minutes.map((m) => tick(m, pct(m), owner, regen))
const everyMinute = (n: number) => Array.from({ length: n }, (_, i) => i)
/** The moment asked, while the war's clock runs. */
const running = (asOf: Date) => ({ asOf, frozen: false })

describe('liberation outlook (the players\' side)', () => {
  test('steady gain on an enemy planet: the rate, and the ETA when 100 % is reached', () => {
    // 40 % → 42 % over two hours: 1 %/h; 58 % left → 58 h after the last tick.
    const ticks = series(everyMinute(121), (m) => 40 + m / 60)
    const asOf = new Date(T0 + 120 * MIN + 30_000)
    const l = liberation(ticks, MAX, running(asOf))!
    expect(l.ratePctPerHour).toBeCloseTo(1, 3)
    expect(l.libPct).toBeCloseTo(42, 3)
    expect(l.outlook).toBe('winning')
    expect(l.eta!.getTime()).toBeCloseTo(T0 + 120 * MIN + 58 * HOUR, -4)
    expect(l.etaHours).toBeCloseTo(58 - 0.5 / 60, 2)
    expect(l.samples).toBe(121)
    expect(l.ageSeconds).toBe(30)
  })

  test('regeneration: impact = observed rate + regeneration, in % of max health per hour', () => {
    // Regen 100 health/s = 360,000/h = 36 %/h of a 1 M planet; observed +2 %/h → players did 38 %/h.
    const l = liberation(series(everyMinute(61), (m) => 10 + (2 * m) / 60, TERMINIDS, 100), MAX, running(new Date(T0 + 60 * MIN)))!
    expect(l.regenPctPerHour).toBeCloseTo(36, 6)
    expect(l.ratePctPerHour).toBeCloseTo(2, 3)
    expect(l.impactPctPerHour).toBeCloseTo(38, 3)
  })

  test('an enemy planet losing ground (regeneration beats the players) is losing, with no ETA: at 0 the enemy simply keeps it', () => {
    const l = liberation(series(everyMinute(61), (m) => 30 - m / 60, TERMINIDS, 10), MAX, running(new Date(T0 + 60 * MIN)))!
    expect(l.ratePctPerHour).toBeCloseTo(-1, 3)
    expect(l.outlook).toBe('losing')
    expect(l.eta).toBeNull()
    expect(l.etaHours).toBeNull()
  })

  test('a flat front is a stalemate, either side of the threshold', () => {
    const flat = liberation(series(everyMinute(61), () => 55), MAX, running(new Date(T0 + 60 * MIN)))!
    expect(flat.ratePctPerHour).toBe(0)
    expect(flat.outlook).toBe('stalemate')
    // Just above the threshold it is a liberation again (with an ETA far away).
    const slow = liberation(series(everyMinute(61), (m) => 55 + (STALEMATE_RATE * 2 * m) / 60), MAX, running(new Date(T0 + 60 * MIN)))!
    expect(slow.outlook).toBe('winning')
  })

  test("loss on the players' planet: health falling, the ETA when it reaches 0", () => {
    // 80 % → 76 % in two hours: -2 %/h; 76 % left → 38 h.
    const l = liberation(series(everyMinute(121), (m) => 80 - (2 * m) / 60, HUMANS), MAX, running(new Date(T0 + 120 * MIN)))!
    expect(l.ratePctPerHour).toBeCloseTo(-2, 3)
    expect(l.outlook).toBe('losing')
    expect(l.etaHours).toBeCloseTo(38, 2)
    expect(l.impactPctPerHour).toBeNull()
    // Regeneration means nothing on the players' planet.
    expect(l.regenPctPerHour).toBeNull()
  })

  test('a planet that changes hands mid-window: only the ticks since the change count', () => {
    // Enemy-held and falling fast until minute 60, then liberated and holding at 100 % health... then slowly lost.
    const before = series(everyMinute(60), (m) => 50 + m / 2)
    const after = series(everyMinute(61).map((m) => m + 60), (m) => 100 - (m - 60) / 60, HUMANS)
    const l = liberation([...before, ...after], MAX, running(new Date(T0 + 120 * MIN)))!
    expect(l.owner).toBe(HUMANS)
    expect(l.samples).toBe(61)
    expect(l.since!.getTime()).toBe(T0 + 60 * MIN)
    expect(l.ratePctPerHour).toBeCloseTo(-1, 3)
    expect(l.outlook).toBe('losing')
  })

  test('gaps in the history: the slope weighs each tick at its own time', () => {
    // Ticks at irregular times on an exact line of 3 %/h: the slope is exact.
    const minutes = [0, 1, 2, 40, 41, 90, 118, 119, 120]
    const l = liberation(series(minutes, (m) => 20 + (3 * m) / 60), MAX, running(new Date(T0 + 120 * MIN)))!
    expect(l.ratePctPerHour).toBeCloseTo(3, 3)
    expect(l.samples).toBe(minutes.length)
    // Two rates over the same span and points: the pairwise difference rate from the two ends would be the same here,
    // but a noisy end point does not swing the least-squares rate as much.
    const noisy = series(minutes, (m) => 20 + (3 * m) / 60 + (m === 120 ? 2 : 0))
    const twoRows = (libPctOf(TERMINIDS, noisy.at(-1)!.health, MAX) - libPctOf(TERMINIDS, noisy.at(-2)!.health, MAX)) * 60
    const ls = liberation(noisy, MAX, running(new Date(T0 + 120 * MIN)))!.ratePctPerHour!
    expect(Math.abs(ls - 3)).toBeLessThan(Math.abs(twoRows - 3) / 10)
  })

  test('too little history: unknown, never a guess', () => {
    expect(liberation([], MAX, running(new Date(T0)))).toBeNull()
    expect(liberation([tick(0, 10)], MAX, running(new Date(T0)))!.outlook).toBe('unknown')
    // Two ticks less than five minutes apart.
    const l = liberation([tick(0, 10), tick(4, 11)], MAX, running(new Date(T0 + 4 * MIN)))!
    expect(l.outlook).toBe('unknown')
    expect(l.ratePctPerHour).toBeNull()
  })

  test('slope: exact on a line, null without two distinct times', () => {
    expect(slope([0, 1, 2, 3], [1, 3, 5, 7])).toBeCloseTo(2, 12)
    expect(slope([1, 1], [0, 5])).toBeNull()
    expect(slope([1], [0])).toBeNull()
  })
})

describe('a defense against its deadline', () => {
  /** A defense bar at `pct(m)` each minute of `minutes`. */
  const bar = (minutes: number[], pct: (m: number) => number): ProgressPoint[] => minutes.map((m) => ({ t: new Date(T0 + m * MIN), pct: pct(m) }))
  const at60 = new Date(T0 + 60 * MIN)

  test('fast enough: winning, the ETA before the deadline, the margin and the rate it needs', () => {
    // 20 % → 30 % in an hour: 10 %/h; 70 % left → 7 h. Deadline 10 h after the last tick: 3 h to spare; needs 7 %/h.
    const p = project(bar(everyMinute(61), (m) => 20 + m / 6), { asOf: at60, deadline: new Date(T0 + 60 * MIN + 10 * HOUR), zeroIsLoss: false, frozen: false })!
    expect(p.progressPct).toBeCloseTo(30, 6)
    expect(p.ratePctPerHour).toBeCloseTo(10, 3)
    expect(p.outlook).toBe('winning')
    expect(p.eta!.getTime()).toBeCloseTo(T0 + 60 * MIN + 7 * HOUR, -3)
    expect(p.marginHours).toBeCloseTo(3, 2)
    expect(p.requiredRatePctPerHour).toBeCloseTo(7, 4)
  })

  test('rising but too slow for the deadline: losing, with a negative margin', () => {
    // 10 %/h with 70 % left needs 7 h; the deadline is in 5 h: 2 h short; needs 14 %/h.
    const p = project(bar(everyMinute(61), (m) => 20 + m / 6), { asOf: at60, deadline: new Date(T0 + 60 * MIN + 5 * HOUR), zeroIsLoss: false, frozen: false })!
    expect(p.outlook).toBe('losing')
    expect(p.marginHours).toBeCloseTo(-2, 2)
    expect(p.requiredRatePctPerHour).toBeCloseTo(14, 4)
  })

  test('flat or falling with a deadline: losing (the deadline decides), no ETA', () => {
    const flat = project(bar(everyMinute(61), () => 40), { asOf: at60, deadline: new Date(T0 + 20 * HOUR), zeroIsLoss: false, frozen: false })!
    expect(flat.outlook).toBe('losing')
    expect(flat.eta).toBeNull()
    expect(flat.marginHours).toBeNull()
    const falling = project(bar(everyMinute(61), (m) => 40 - m / 60), { asOf: at60, deadline: new Date(T0 + 20 * HOUR), zeroIsLoss: false, frozen: false })!
    expect(falling.outlook).toBe('losing')
    expect(falling.eta).toBeNull()
  })

  test('a frozen war projects nothing: no outlook, ETA, margin or required rate; the observed rate stays', () => {
    const p = project(bar(everyMinute(61), (m) => 20 + m / 6), { asOf: at60, deadline: new Date(T0 + 60 * MIN + 10 * HOUR), zeroIsLoss: false, frozen: true })!
    expect(p.ratePctPerHour).toBeCloseTo(10, 3)
    expect(p.outlook).toBe('unknown')
    expect([p.eta, p.etaHours, p.marginHours, p.requiredRatePctPerHour]).toEqual([null, null, null, null])
  })

  test("the event's bar: the share of its health taken", () => {
    expect(eventPctOf(294_550, 900_000)).toBeCloseTo(67.27222, 4)
    expect(eventPctOf(0, 900_000)).toBe(100)
    expect(eventPctOf(5, 0)).toBe(0)
  })
})
