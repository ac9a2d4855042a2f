/**
 * The simulated fronts move as the real war's did (src/sim/fronts.ts): they advance, stall,
 * are won and lost at the rates the real captures show, and `npm run demo` (seed 1, 30 days
 * of history, then live) shows every outlook in its first hour, as the service reads them
 * (docs/api.md "War intelligence"; the maths of src/war/liberation.ts).
 *
 * REAL was measured by a throwaway script from the 1,000 consecutive captures of
 * upstream-samples/arrowhead/series/DERIVED_warstatus_timeseries_2024-03_first1000_sector-hq.json
 * (1–8 March 2024, about 5 minutes apart; every planet's maxHealth 1,000,000 in the war info
 * of that month), reading a front as the service does: at each capture, each liberation
 * campaign (no planet event on its planet, the planet the enemy's) has the least-squares
 * slope, against capture time, of its bar (maxHealth − health) / maxHealth × 100 over its
 * own captures of the 2 hours before (the same owner throughout, at least two captures 5
 * minutes apart): 7,555 rates. A defense's rate is the same slope of its event's bar.
 */
import { describe, expect, test } from 'bun:test'
import type { WarStatus } from '../../src/feeds/upstream.ts'
import { DEMO_CADENCE, DEMO_HISTORY_DAYS, historyTimes } from '../../src/sim/history.ts'
import { World } from '../../src/sim/world.ts'
import { eventPctOf, liberation, project, STALEMATE_RATE, type Outlook } from '../../src/war/liberation.ts'

const REAL = {
  /** Quantiles of the liberation campaigns' rates, %/h. */
  rate: { p1: -5.72, p10: -2.5, p25: -0.68, p50: 0, p75: 0.4, p90: 1.44, p99: 5.11 },
  /** Of those rates, the shares moving (beyond the service's stalemate bound either way), rising and falling; of the bars, the share at 0 %. */
  moving: 0.66,
  rising: 0.35,
  falling: 0.31,
  atZero: 0.35,
  /** At a capture, the share of its liberation campaigns that move: 10th percentile over the captures. */
  movingAtACaptureP10: 0.5,
  /** Quantiles of the defenses' rates (%/h, 449 rates over 4 defenses). */
  defenseRate: { p10: 0.07, p50: 1.21, p90: 4.31 },
} as const

const HOUR = 3_600_000
const WINDOW = 2 * HOUR
const DEMO_SEED = 1

interface Front {
  type: 'liberation' | 'defense'
  planetIndex: number
  pct: number
  rate: number | null
  outlook: Outlook
}

/** The fronts of the latest capture as the service reads them: each campaign over its own captures in the 2 hours before. */
class Reader {
  private readonly seen: { at: number; status: WarStatus }[] = []
  private readonly firstSeen = new Map<number, number>()

  add(at: number, status: WarStatus): void {
    this.seen.push({ at, status })
    while (this.seen[0]!.at <= at - WINDOW) this.seen.shift()
    for (const c of status.campaigns) if (!this.firstSeen.has(c.id)) this.firstSeen.set(c.id, at)
  }

  fronts(maxHealthOf: (planetIndex: number) => number): Front[] {
    const last = this.seen.at(-1)!
    const asOf = new Date(last.at)
    return last.status.campaigns.map((c) => {
      const own = this.seen.filter((s) => s.at >= this.firstSeen.get(c.id)!)
      const event = last.status.planetEvents?.find((e) => e.campaignId === c.id)
      if (event) {
        const points = own.flatMap((s) => (s.status.planetEvents ?? []).filter((e) => e.id === event.id).map((e) => ({ t: new Date(s.at), pct: eventPctOf(e.health, e.maxHealth) })))
        const deadline = new Date(last.at + (event.expireTime - last.status.time) * 1000)
        const p = project(points, { asOf, deadline, zeroIsLoss: false, frozen: false })!
        return { type: 'defense', planetIndex: c.planetIndex, pct: p.progressPct, rate: p.ratePctPerHour, outlook: p.outlook }
      }
      const ticks = own.map((s) => ({ t: new Date(s.at), ...s.status.planetStatus[c.planetIndex]! }))
      const l = liberation(ticks, maxHealthOf(c.planetIndex), { asOf, frozen: false })!
      return { type: 'liberation', planetIndex: c.planetIndex, pct: l.libPct, rate: l.ratePctPerHour, outlook: l.outlook }
    })
  }
}

const enemyLiberations = (fronts: Front[], status: WarStatus) => fronts.filter((f) => f.type === 'liberation' && status.planetStatus[f.planetIndex]!.owner !== 1)
const moves = (rate: number) => Math.abs(rate) > STALEMATE_RATE
const share = (xs: unknown[], n: number) => xs.length / n
/** The share of `xs` at or below `x`. */
const cdf = (xs: number[], x: number) => xs.filter((v) => v <= x).length / xs.length

describe('the simulated fronts move as the captured ones did', () => {
  test('over two weeks of three wars (the demo\'s seed and two others): liberation rates spread as in the captures, as many fronts moving, rising, falling and stalled', () => {
    const rates: number[] = []
    const defenseRates: number[] = []
    let bars = 0
    let atZero = 0
    for (const seed of [DEMO_SEED, 2, 3]) {
      // Read every 10 minutes (the captures were about 5 minutes apart), from the second day on.
      const world = new World({ seed, speed: 0 })
      const maxHealth = new Map(world.current().warInfo().planetInfos.map((p) => [p.index, p.maxHealth]))
      const reader = new Reader()
      for (let k = 0; k < 14 * 144; k++) {
        world.advance(600)
        const status = world.current().status()
        reader.add(k * 600_000, status)
        if (k < 144) continue
        const fronts = reader.fronts((i) => maxHealth.get(i)!)
        for (const f of enemyLiberations(fronts, status)) {
          bars++
          if (f.pct === 0) atZero++
          if (f.rate !== null) rates.push(f.rate)
        }
        for (const f of fronts) if (f.type === 'defense' && f.rate !== null) defenseRates.push(f.rate)
      }
    }
    expect(rates.length).toBeGreaterThan(20_000)
    // The rates' distribution: at the captured deciles and quartiles, within 10 points of the captured shares.
    for (const [q, x] of [[0.1, REAL.rate.p10], [0.25, REAL.rate.p25], [0.75, REAL.rate.p75], [0.9, REAL.rate.p90]] as const) {
      expect(Math.abs(cdf(rates, x) - q)).toBeLessThanOrEqual(0.1)
    }
    expect(Math.abs(share(rates.filter(moves), rates.length) - REAL.moving)).toBeLessThanOrEqual(0.1)
    expect(Math.abs(share(rates.filter((r) => r > STALEMATE_RATE), rates.length) - REAL.rising)).toBeLessThanOrEqual(0.1)
    expect(Math.abs(share(rates.filter((r) => r < -STALEMATE_RATE), rates.length) - REAL.falling)).toBeLessThanOrEqual(0.1)
    expect(Math.abs(atZero / bars - REAL.atZero)).toBeLessThanOrEqual(0.15)
    // Nearly all within the captured 1st..99th percentiles.
    expect(share(rates.filter((r) => r >= REAL.rate.p1 && r <= REAL.rate.p99), rates.length)).toBeGreaterThan(0.95)
    // The defenses: their median rate between the captured 10th and 90th percentiles.
    defenseRates.sort((a, b) => a - b)
    const median = defenseRates[defenseRates.length >> 1]!
    expect(median).toBeGreaterThan(REAL.defenseRate.p10)
    expect(median).toBeLessThan(REAL.defenseRate.p90)
  }, 60_000)

  test('the demo\'s first hour (seed 1, after its 30 days of history): fronts on the move, and every outlook', () => {
    const end = Date.parse('2025-06-01T12:34:56.789Z')
    const start = end - DEMO_HISTORY_DAYS * 86_400_000
    let wall = start
    // As seedDemoHistory builds it: going live at the end of the history.
    const world = new World({ seed: DEMO_SEED, speed: 1, now: () => wall, liveAfterS: (end - start) / 1000 })
    const maxHealth = new Map(world.current().warInfo().planetInfos.map((p) => [p.index, p.maxHealth]))
    const reader = new Reader()
    // The history's captures of its last hours (its cadence), then the demo's full-status
    // collection every minute for an hour; the fronts are read after each live capture.
    const history = historyTimes(start, end, DEMO_CADENCE).filter((t) => t.fullStatus && t.at > end - 2 * WINDOW).map((t) => t.at)
    const live = Array.from({ length: 60 }, (_, k) => (Math.floor(end / 60_000) + 1 + k) * 60_000)
    const hour: { status: WarStatus; fronts: Front[] }[] = []
    for (const at of [...history, ...live]) {
      wall = at
      const status = world.current().status()
      reader.add(at, status)
      if (at >= end) hour.push({ status, fronts: reader.fronts((i) => maxHealth.get(i)!) })
    }
    expect(hour).toHaveLength(61)

    const liberations = hour.flatMap((h) => enemyLiberations(h.fronts, h.status))
    const rates = liberations.map((f) => f.rate).filter((r): r is number => r !== null)
    expect(rates.length).toBeGreaterThan(0.9 * liberations.length)
    // Every rate within the captured 1st..99th percentiles; at least as many fronts moving
    // as at nine captures out of ten.
    for (const r of rates) {
      expect(r).toBeGreaterThanOrEqual(REAL.rate.p1)
      expect(r).toBeLessThanOrEqual(REAL.rate.p99)
    }
    expect(share(rates.filter(moves), rates.length)).toBeGreaterThanOrEqual(REAL.movingAtACaptureP10)

    // Every outlook: liberations winning, and losing or stalled; a defense winning and one losing.
    const outlooks = new Set(hour.flatMap((h) => h.fronts.map((f) => `${f.type}:${f.outlook}`)))
    expect(outlooks).toContain('liberation:winning')
    expect(outlooks.has('liberation:losing') || outlooks.has('liberation:stalemate')).toBe(true)
    expect(outlooks).toContain('defense:winning')
    expect(outlooks).toContain('defense:losing')
  }, 60_000)
})
