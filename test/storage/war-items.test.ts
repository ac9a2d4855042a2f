/**
 * The 2025 surfaces stored as what changed (sql/0027): for random tick sequences (regions
 * that change, stand still, leave the feed and come back; a resource that moves every
 * tick; ticks written late, replayed, frozen, live one by one or in import batches), every
 * read of the change rows equals the same read over the per-tick rows those ticks stand
 * for, worked out here from the ticks alone: the items at every tick, windows of ticks,
 * and the latest states. A 2024 tick (no surfaces) in the sequence says nothing about them.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import fc from 'fast-check'
import { fullStatus } from '../../src/collect/full-status.ts'
import { CollectorRunner } from '../../src/collect/runner.ts'
import { createFeeds } from '../../src/feeds/index.ts'
import type { WarStatus } from '../../src/feeds/upstream.ts'
import { silentLogger } from '../../src/log.ts'
import { createStore } from '../../src/storage/index.ts'
import * as warItems from '../../src/storage/war-items.ts'
import { statusTick } from '../support/collect.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { loadSample } from '../support/samples.ts'

const TEMPLATE = loadSample('arrowhead/warstatus_801_2024-03-08_sector-hq.json') as WarStatus
/** Regions: [planet, region]. */
const REGIONS = [[3, 0], [3, 1], [5, 2], [8, 0], [8, 1], [8, 2]] as const
const RESOURCE = 175685818
const T0 = Date.UTC(2026, 0, 5, 0, 2, 7)

interface Region {
  planetIndex: number
  regionIndex: number
  owner: number
  health: number
  regerPerSecond: number
  availabilityFactor: number
  isAvailable: boolean
  players: number
}
interface Tick {
  warTime: number
  at: Date
  /** null: a 2024 capture (no surfaces at all). */
  regions: Region[] | null
  resource: number
}

const step = fc.record({
  kind: fc.constantFrom('same', 'same', 'same', 'players', 'health', 'owner', 'gone'),
  owner: fc.constantFrom(1, 2, 3),
  health: fc.integer({ min: 0, max: 500_000 }),
  players: fc.integer({ min: 0, max: 5_000 }),
})
const history = fc.array(
  fc.record({ gap: fc.constantFrom(5, 5, 5, 5, 65), old: fc.constantFrom(false, false, false, false, false, true), steps: fc.array(step, { minLength: REGIONS.length, maxLength: REGIONS.length }) }),
  { minLength: 3, maxLength: 30 },
)

function ticksOf(h: { gap: number; old: boolean; steps: { kind: string; owner: number; health: number; players: number }[] }[]): Tick[] {
  let t = T0
  const state = new Map<number, Region | null>()
  return h.map(({ gap, old, steps }, k) => {
    t += gap * 60_000
    REGIONS.forEach(([p, r], i) => {
      const s = steps[i]!
      const key = warItems.regionKey(p, r)
      const was = state.get(key) ?? { planetIndex: p, regionIndex: r, owner: 2, health: 500_000, regerPerSecond: -11, availabilityFactor: 1, isAvailable: true, players: 0 }
      if (s.kind === 'gone') state.set(key, null)
      else if (s.kind === 'players') state.set(key, { ...was, players: s.players })
      else if (s.kind === 'health') state.set(key, { ...was, health: s.health })
      else if (s.kind === 'owner') state.set(key, { ...was, owner: s.owner, isAvailable: s.owner !== 1 })
      else state.set(key, state.get(key) === null ? null : was)
    })
    return { warTime: 10_000 + k * 300, at: new Date(t), regions: old ? null : [...state.values()].filter((r): r is Region => r !== null), resource: 40_000_000 - k * 1_000 }
  })
}

const arrival = (n: number) =>
  fc.record({
    order: fc.array(fc.nat({ max: 100 }), { minLength: n, maxLength: n }),
    late: fc.double({ min: 0, max: 0.3, noNaN: true }),
    replays: fc.array(fc.nat({ max: n - 1 }), { maxLength: 3 }),
    batch: fc.constantFrom(0, 0, 3, 8),
  })

function arrivalsOf(ticks: readonly Tick[], a: { order: number[]; late: number; replays: number[] }): { tick: Tick; at: Date }[] {
  const keyed = ticks.map((t, k) => ({ t, key: a.order[k]! / 100 < a.late ? k + 1 + (a.order[k]! % 5) : k }))
  const out = keyed.sort((x, y) => x.key - y.key).map(({ t }) => ({ tick: t, at: t.at }))
  for (const r of a.replays) out.push({ tick: ticks[r]!, at: ticks[r]!.at }, { tick: ticks[r]!, at: new Date(ticks.at(-1)!.at.getTime() + 60_000) })
  return out
}

const statusOf = (t: Tick, warId: number): WarStatus => {
  const status: Record<string, unknown> = { ...TEMPLATE, warId, time: t.warTime, planetEvents: [] }
  if (t.regions) {
    status.planetRegions = t.regions
    status.globalResources = [{ id32: RESOURCE, currentValue: t.resource, maxValue: 40_000_000, flags: 0 }]
  }
  return status as unknown as WarStatus
}

/** The reference: each region's state at a tick, as the read gives it (the latest tick listing regions at or before it). */
function denseAt(ticks: readonly Tick[], at: Date): warItems.Item[] {
  const listed = [...ticks].filter((t) => t.regions && t.at <= at).sort((a, b) => +a.at - +b.at).at(-1)
  return (listed?.regions ?? [])
    .map((r) => ({
      key: warItems.regionKey(r.planetIndex, r.regionIndex),
      state: { owner: r.owner, health: r.health, regen: r.regerPerSecond, availability: r.availabilityFactor, available: r.isAvailable, players: r.players },
    }))
    .sort((a, b) => a.key - b.key)
}

describeOnEachDatabase('the 2025 surfaces as changes', (target) => {
  let db: TestDatabase
  let runner: CollectorRunner
  let war = 5000
  beforeAll(async () => {
    db = await target.open()
    const feeds = createFeeds({
      upstreamUrl: 'http://127.0.0.1:9/u', communityApiUrl: 'http://127.0.0.1:9/c', pcstoreApiUrl: 'http://127.0.0.1:9/p',
      feedTimeoutMs: 1000, clientName: 'test', clientContact: 'test@example.invalid', feedLanguages: ['en-US'],
    })
    runner = new CollectorRunner({ db, store: createStore(db), feeds, log: silentLogger, config: { warId: 801 } })
  }, 120_000)
  afterAll(async () => {
    await db?.dispose()
  })

  test('region reads over the change rows equal the same reads over the per-tick rows', async () => {
    await fc.assert(
      fc.asyncProperty(history.chain((h) => fc.tuple(fc.constant(h), arrival(h.length), fc.nat(), fc.nat())), async ([h, a, i, j]) => {
        const warId = ++war
        const ticks = ticksOf(h)
        const arrivals = arrivalsOf(ticks, a)
        if (a.batch) {
          for (let k = 0; k < arrivals.length; k += a.batch) {
            const batch = arrivals.slice(k, k + a.batch).map(({ tick, at }) => ({ at, tick: statusTick(statusOf(tick, warId), at, warId) }))
            await db.sql.begin((tx) => fullStatus.writeBatch!(tx, batch))
          }
        } else {
          for (const { tick, at } of arrivals) await runner.write(fullStatus, statusTick(statusOf(tick, warId), at, warId))
        }
        const sorted = [...ticks].sort((x, y) => +x.at - +y.at)
        for (const t of sorted) expect(await warItems.at(db.sql, warId, 'region', t.at)).toEqual(denseAt(ticks, t.at))
        // Every region's curve over the window's ticks that listed regions, carried forward from before it.
        const from = sorted[i % sorted.length]!.at
        const to = sorted[Math.max(i % sorted.length, j % sorted.length)]!.at
        const got = warItems.carriedItems(await warItems.window(db.sql, warId, 'region', from, to))
        const want = new Map<number, { t: Date; state: warItems.ItemState }[]>()
        for (const t of sorted.filter((x) => x.regions && x.at >= from && x.at <= to)) {
          for (const { key, state } of denseAt(ticks, t.at)) want.set(key, [...(want.get(key) ?? []), { t: t.at, state }])
        }
        expect(new Map([...got].sort((x, y) => x[0] - y[0]))).toEqual(new Map([...want].sort((x, y) => x[0] - y[0])))
        // The latest states: those of the war's latest tick that listed regions.
        expect(await warItems.latest(db.sql, warId, 'region')).toEqual(denseAt(ticks, sorted.at(-1)!.at))
        // A row is a change: never the same state as the item's row before it.
        const [{ n }] = (await db.sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM (
            SELECT state IS NOT DISTINCT FROM lag(state) OVER w AS same FROM war_item_changes WHERE war_id = ${warId}
            WINDOW w AS (PARTITION BY kind, item_key ORDER BY captured_at)) x WHERE same`) as unknown as [{ n: number }]
        expect(n).toBe(0)
        // The resource moves every tick that has it: a row per such tick.
        const resourceRows = await warItems.window(db.sql, warId, 'resource', sorted[0]!.at, sorted.at(-1)!.at)
        const listing = sorted.filter((t) => t.regions)
        expect(warItems.carriedItems(resourceRows).get(RESOURCE)?.filter((p) => listing.some((t) => +t.at === +p.t)).map((p) => p.state.current))
          .toEqual(listing.length ? listing.map((t) => t.resource) : undefined)
      }),
      { numRuns: 25 },
    )
  }, 300_000)
})
