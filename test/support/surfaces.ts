/**
 * A war's 2025 surfaces written as the collectors write them, for the route tests of
 * /regions, /space-stations, /global-resources and /global-events: six 5-minute ticks of
 * the 2025 status sample with a region being liberated, the station and one tactical
 * action filling, a resource draining, and the sample's global events; the war info's
 * regions with their max health. `rows` holds what was written, for the tests' own
 * computations.
 */
import { fullStatus } from '../../src/collect/full-status.ts'
import { CollectorRunner } from '../../src/collect/runner.ts'
import type { Feeds } from '../../src/feeds/index.ts'
import { DEMOCRACY_SPACE_STATION, parseSpaceStation, type SpaceStation } from '../../src/feeds/upstream-2025.ts'
import { parseWarStatus, type WarStatus } from '../../src/feeds/upstream.ts'
import { silentLogger } from '../../src/log.ts'
import { createStore } from '../../src/storage/index.ts'
import { writeRegionInfos } from '../../src/storage/surfaces.ts'
import { afterAll, beforeAll } from 'bun:test'
import { openHarness, type Harness } from '../routes/helpers.ts'
import type { describeOnEachDatabase } from './editions.ts'
import { statusTick } from './collect.ts'
import { loadSample } from './samples.ts'

export const STATUS_2025 = parseWarStatus(loadSample('arrowhead/warstatus_801_2025-battle-for-super-earth_EXCERPT_mockserver.json')).data
const STATION = parseSpaceStation(loadSample('arrowhead/spacestation_801_749875195_HANDMADE.json')).data
export const T0 = new Date('2026-03-01T10:00:00.000Z')
export const TICKS = 6
export const STEP_MS = 300_000
/** The request's moment: a minute after the last tick. */
export const NOW = new Date(T0.getTime() + (TICKS - 1) * STEP_MS + 60_000)
export const WAR_TIME_0 = 40_000_000
export const REGION = { planetIndex: 5, regionIndex: 1, maxHealth: 500_000, hash: 324_613_052, size: 3 }
export const OTHER_REGION = { planetIndex: 7, regionIndex: 0, maxHealth: 200_000, hash: 855_833_074, size: 1 }
export const RESOURCE = 175_685_818
export const ELECTION_END = WAR_TIME_0 + 7_200

/** The written rows of tick k. */
export const rows = {
  at: (k: number) => new Date(T0.getTime() + k * STEP_MS),
  warTime: (k: number) => WAR_TIME_0 + k * 300,
  regionHealth: (k: number) => 400_000 - k * 10_000 - (k % 2) * 1_500,
  otherHealth: (k: number) => 150_000,
  donated: (k: number) => 12_000 + k * 1_000 + (k === 3 ? 250 : 0),
  resource: (k: number) => 18_000_000 - k * 60_000,
}

function statusAt(k: number): WarStatus {
  const raw = STATUS_2025 as unknown as Record<string, unknown>
  return {
    ...STATUS_2025,
    time: rows.warTime(k),
    planetRegions: [
      { planetIndex: REGION.planetIndex, regionIndex: REGION.regionIndex, owner: 3, health: rows.regionHealth(k), regerPerSecond: 2.5, availabilityFactor: 1, isAvailable: true, players: 1200 + k },
      { planetIndex: OTHER_REGION.planetIndex, regionIndex: OTHER_REGION.regionIndex, owner: 1, health: rows.otherHealth(k), regerPerSecond: 0, availabilityFactor: 0.5, isAvailable: false, players: 0 },
    ],
    spaceStations: [{ id32: DEMOCRACY_SPACE_STATION, planetIndex: REGION.planetIndex, currentElectionEndWarTime: ELECTION_END, flags: 1, activeEffectIds: [1] }],
    globalResources: [{ id32: RESOURCE, currentValue: rows.resource(k), maxValue: 40_000_000, flags: 0 }],
    globalEvents: [
      ...(raw.globalEvents as unknown[]),
      { eventId: 77, id32: 5, portraitId32: 0, title: 'HOLD THE LINE', titleId32: 1, message: 'Defend Fenrir III.', messageId32: 2, race: 3, flag: 1, assignmentId32: 1234, effectIds: [], planetIndices: [REGION.planetIndex], expireTime: WAR_TIME_0 + 86_400 },
    ],
  } as unknown as WarStatus
}

function stationAt(k: number): SpaceStation {
  const [a] = STATION.tacticalActions
  return { ...STATION, tacticalActions: [{ ...a!, name: 'Orbital Blockade', status: 1, statusExpireAtWarTimeSeconds: WAR_TIME_0 + 3_600, cost: [{ ...a!.cost[0]!, currentValue: rows.donated(k), targetValue: 86_400 }] }] }
}

/** The six ticks and the war info's regions, written through the collector's write on the harness's database. */
export async function seedSurfaces(h: Harness, warId = 801): Promise<void> {
  const db = { sql: h.deps.db.sql, gate: h.deps.db.gate }
  const runner = new CollectorRunner({ db, store: createStore(db), feeds: {} as Feeds, log: silentLogger, config: { warId }, versions: h.deps.versions })
  await h.db.sql.begin((tx) => writeRegionInfos(tx, T0, warId, [REGION, OTHER_REGION].map((r) => ({
    planet_index: r.planetIndex, region_index: r.regionIndex, settings_hash: r.hash, max_health: r.maxHealth, region_size: r.size, damage_multiplier: 1, flags: 0,
  }))))
  for (let k = 0; k < TICKS; k++) {
    const at = rows.at(k)
    const tick = statusTick(statusAt(k), at, warId)
    const payload = { status: { data: statusAt(k), fetchedAt: at }, summary: null, assignments: null, news: null, languages: { fetched: [], stored: new Map() }, primary: 'en-US', stations: [{ data: stationAt(k), fetchedAt: at }] }
    tick.rows = fullStatus.map(payload as never, { warId, now: at }).rows
    await runner.write(fullStatus, tick)
  }
}

/** Least-squares slope of (hours since the first point, value): the tests' own. */
export function slopePerHour(points: readonly { t: Date; v: number }[]): number {
  const xs = points.map((p) => (p.t.getTime() - points[0]!.t.getTime()) / 3_600_000)
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length
  const my = points.reduce((a, p) => a + p.v, 0) / points.length
  let sxy = 0
  let sxx = 0
  xs.forEach((x, i) => ((sxy += (x - mx) * (points[i]!.v - my)), (sxx += (x - mx) ** 2)))
  return sxy / sxx
}

/**
 * A describe block's harness at NOW with the surfaces seeded (and `more`, when given),
 * opened before its tests and closed after them: `s.h` in the tests.
 */
export function withSurfaces(target: Parameters<Parameters<typeof describeOnEachDatabase>[1]>[0], more?: (h: Harness) => Promise<unknown>): { readonly h: Harness } {
  let h: Harness | undefined
  beforeAll(async () => {
    h = await openHarness({ db: await target.open(), now: () => NOW })
    await seedSurfaces(h)
    await more?.(h)
  }, 120_000)
  afterAll(async () => {
    await h?.close()
  })
  return { get h() { return h! } }
}
