/**
 * The game's 2025 surfaces as the collectors keep them (issue 38): the 2025 samples mapped
 * and stored field by field (regions, positions, the station and its tactical actions,
 * global resources and events with their texts; the war info's regions and the effect
 * definitions), a 2024 capture written with none of it, malformed items left out without
 * failing the tick, and the whole path from the simulator's feeds.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { fullStatus } from '../../src/collect/full-status.ts'
import type { CollectorRunner } from '../../src/collect/runner.ts'
import { surfacesOf } from '../../src/collect/surfaces.ts'
import { effectsOf, regionInfosOf, warInfo } from '../../src/collect/war-info.ts'
import type { Fetched } from '../../src/feeds/throttle.ts'
import { parseWarInfo, parseWarStatus, type WarStatus } from '../../src/feeds/upstream.ts'
import { parseGalacticWarEffects, parseSpaceStation, type SpaceStation } from '../../src/feeds/upstream-2025.ts'
import { collect, statusTick, testRunner } from '../support/collect.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { loadSample } from '../support/samples.ts'
import { simulatedFeeds } from '../support/sim.ts'

const STATUS_2025 = parseWarStatus(loadSample('arrowhead/warstatus_801_2025-battle-for-super-earth_EXCERPT_mockserver.json')).data
const STATUS_2024 = parseWarStatus(loadSample('arrowhead/warstatus_801_2024-03-08_sector-hq.json')).data
const STATION = parseSpaceStation(loadSample('arrowhead/spacestation_801_749875195_HANDMADE.json')).data
const EFFECTS = parseGalacticWarEffects(loadSample('arrowhead/galacticwareffects_2025_EXCERPT_mockserver.json')).data
const INFO_2025 = loadSample('arrowhead/warinfo_801_2025_EXCERPT_mockserver.json') as Record<string, unknown>
const raw = STATUS_2025 as unknown as Record<string, any>
const stationsOf = (s: SpaceStation): Fetched<SpaceStation>[] => [{ data: s, fetchedAt: new Date(), fromCache: false, stale: false, drift: { missing: [], unknown: [] } } as never]

describe('the surfaces of a payload', () => {
  test('the 2025 status and station, field by field', () => {
    const { items, eventTexts } = surfacesOf(STATUS_2025, stationsOf(STATION), 'en-US')
    const r0 = raw.planetRegions[0]
    expect(items.region).toHaveLength(raw.planetRegions.length)
    expect(items.region![0]).toEqual({
      key: r0.planetIndex * 1000 + r0.regionIndex,
      state: { owner: r0.owner, health: r0.health, regen: r0.regerPerSecond, availability: r0.availabilityFactor, available: r0.isAvailable, players: r0.players },
    })
    // Every planet with a position (the 2025 status gives one to each).
    expect(items.position).toHaveLength(STATUS_2025.planetStatus.length)
    expect(items.position![1]).toEqual({ key: STATUS_2025.planetStatus[1]!.index, state: raw.planetStatus[1].position })
    expect(items.station).toEqual([]) // the excerpt lists no station
    expect(items.resource).toEqual(raw.globalResources.map((g: any) => ({ key: g.id32, state: { current: g.currentValue, max: g.maxValue, flags: g.flags } })))
    const e = raw.globalEvents[1]
    expect(items.global_event![1]).toEqual({
      key: e.eventId,
      state: {
        id32: e.id32, race: e.race, flag: e.flag, order: e.assignmentId32 || null, planets: e.planetIndices, effects: e.effectIds,
        expire: e.expireTime, portraitId32: e.portraitId32, titleId32: e.titleId32, messageId32: e.messageId32,
      },
    })
    // The event without words has no text.
    expect(eventTexts).toEqual(raw.globalEvents.filter((g: any) => g.title || g.message).map((g: any) => ({ event_id: g.eventId, lang: 'en-US', title: g.title || null, message: g.message || null })))
    const a = STATION.tacticalActions[0]!
    expect(items.tactical_action).toEqual([{
      key: a.id32,
      state: {
        station: STATION.id32, name: a.name, status: a.status, expire: a.statusExpireAtWarTimeSeconds,
        costs: [{ target: 86400, current: 12000, delta: 0.42 }], effects: [1, 2], activeEffects: [],
      },
    }])
  })

  test('a 2024 status lists only its global events (no expiry then); malformed items are left out, the rest kept', () => {
    const old = surfacesOf(STATUS_2024, [], 'en-US')
    expect(Object.keys(old.items)).toEqual(['global_event'])
    expect(old.items.global_event!.map((e) => e.state.expire)).toEqual((STATUS_2024 as any).globalEvents.map(() => null))
    const bad = { ...STATUS_2024, planetRegions: [{ ...raw.planetRegions[0], health: 'x' }, raw.planetRegions[1]], globalResources: 'oops', spaceStations: [{ id32: 1 }] } as unknown as WarStatus
    const { items } = surfacesOf(bad, [], 'en-US')
    expect(items.region).toHaveLength(1)
    expect(items.resource).toEqual([])
    expect(items.station).toEqual([])
  })

  test('the war info\'s regions with their scale, and the effect definitions', () => {
    const info = parseWarInfo({ ...INFO_2025, planetRegions: [
      { planetIndex: 7, regionIndex: 1, settingsHash: 324_613_052, maxHealth: 750_000, regionSize: 3, damageMultiplier: 1.5, flags: 0 },
      { planetIndex: 7, regionIndex: 2, settingsHash: 855_833_074, maxHealth: 'big' },
    ] }).data
    expect(regionInfosOf(info)).toEqual([
      { planet_index: 7, region_index: 1, settings_hash: 324_613_052, max_health: 750_000, region_size: 3, damage_multiplier: 1.5, flags: 0 },
      { planet_index: 7, region_index: 2, settings_hash: 855_833_074, max_health: null, region_size: null, damage_multiplier: null, flags: null },
    ])
    expect(effectsOf(EFFECTS)[0]).toEqual({ effect_id: EFFECTS[0]!.id, effect_type: EFFECTS[0]!.effectType, value_types: EFFECTS[0]!.valueTypes, values: EFFECTS[0]!.values, definition: EFFECTS[0] })
  })
})

describeOnEachDatabase('the 2025 surfaces stored by the collectors', (target) => {
  let db: TestDatabase
  let s: ReturnType<typeof simulatedFeeds>
  let runner: CollectorRunner
  beforeAll(async () => {
    db = await target.open()
    s = simulatedFeeds(11)
    runner = testRunner(db, s.feeds)
  }, 120_000)
  afterAll(async () => {
    s?.stop()
    await db?.dispose()
  })

  const rowsOf = async (warId: number) => [...await db.sql<{ kind: string; n: number }[]>`
    SELECT kind, count(*)::int AS n FROM war_item_changes WHERE war_id = ${warId} GROUP BY kind ORDER BY kind`]

  test('the 2025 sample stored field by field; written again, nothing changes', async () => {
    const at = new Date('2026-01-10T12:00:00Z')
    const tick = statusTick(STATUS_2025, at, 901)
    const payload = { status: { data: STATUS_2025, fetchedAt: at }, summary: null, assignments: null, news: null, languages: { fetched: [], stored: new Map() }, primary: 'en-US', stations: stationsOf(STATION) }
    tick.rows = fullStatus.map(payload as never, { warId: 901, now: at }).rows
    const result = await runner.write(fullStatus, tick)
    expect(result.written.warItems).toBeGreaterThan(0)
    expect(await rowsOf(901)).toEqual([
      { kind: 'global_event', n: raw.globalEvents.length },
      { kind: 'position', n: STATUS_2025.planetStatus.length },
      { kind: 'region', n: raw.planetRegions.length },
      { kind: 'resource', n: raw.globalResources.length },
      { kind: 'tactical_action', n: 1 },
    ])
    const [region] = await db.sql<{ state: unknown }[]>`
      SELECT state FROM war_item_changes WHERE war_id = 901 AND kind = 'region' AND item_key = ${raw.planetRegions[0].planetIndex * 1000 + raw.planetRegions[0].regionIndex}`
    expect(region!.state).toEqual({ owner: raw.planetRegions[0].owner, health: raw.planetRegions[0].health, regen: raw.planetRegions[0].regerPerSecond, availability: 1, available: true, players: 0 })
    const texts = await db.sql`SELECT event_id::float8 AS id, lang, title, message FROM global_event_texts WHERE war_id = 901 ORDER BY event_id`
    expect(texts).toEqual(raw.globalEvents.filter((g: any) => g.title || g.message).map((g: any) => ({ id: g.eventId, lang: 'en-US', title: g.title || null, message: g.message || null })))
    // The same state at a later tick writes no change row.
    const later = new Date(at.getTime() + 300_000)
    const again = { ...tick, id: 'again', capturedAt: later.toISOString(), rows: fullStatus.map({ ...payload, status: { data: { ...STATUS_2025, time: STATUS_2025.time + 300 }, fetchedAt: later } } as never, { warId: 901, now: later }).rows }
    expect((await runner.write(fullStatus, again)).written.warItems).toBe(0)
  })

  test('a 2024 capture is written with none of it but its global events', async () => {
    const result = await runner.write(fullStatus, statusTick(STATUS_2024, new Date('2026-01-10T12:00:00Z'), 902))
    expect(result.written.planetStatus).toBeGreaterThan(0)
    expect(await rowsOf(902)).toEqual([{ kind: 'global_event', n: (STATUS_2024 as any).globalEvents.length }])
    const ticks = await db.sql<{ kind: string }[]>`SELECT kind FROM war_item_ticks WHERE war_id = 902`
    expect(ticks.map((t) => t.kind)).toEqual(['global_event'])
  })

  test('from the feeds: the station asked at /SpaceStation, the regions\' scale and the effect definitions from the war info', async () => {
    expect((await collect(runner, 'war-info')).outcome).toBe('written')
    expect((await collect(runner, 'full-status')).outcome).toBe('written')
    const kinds = (await rowsOf(801)).map((r) => r.kind)
    expect(kinds).toEqual(expect.arrayContaining(['region', 'station', 'tactical_action', 'resource', 'global_event', 'position']))
    const [{ regions, effects }] = (await db.sql<{ regions: number; effects: number }[]>`
      SELECT (SELECT count(*)::int FROM planet_regions WHERE war_id = 801 AND max_health > 0) AS regions, (SELECT count(*)::int FROM galactic_war_effects) AS effects`) as unknown as [{ regions: number; effects: number }]
    expect(regions).toBeGreaterThan(0)
    expect(effects).toBeGreaterThan(0)
  })
})
