/**
 * The simulator's 2025 parts over time (src/sim/surfaces.ts and its parts): regions of the
 * fronts liberated one by one and now and then lost, the space station moving after its
 * election, tactical actions cycling, global events that expire, the fleet strength,
 * moving planets, effect definitions; each case within the demo's first minutes;
 * deterministic for a seed; served on the simulator's routes as upstream serves them.
 * Worlds run at speed 0 and are stepped by hand: nothing sleeps.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createUpstreamClient, parseWarInfo, parseWarStatus, type WarStatus } from '../../src/feeds/upstream.ts'
import { DEMOCRACY_SPACE_STATION, parseGalacticWarEffects, parseSpaceStation, TACTICAL_ACTION_STATUS as STATUS, type SpaceStation } from '../../src/feeds/upstream-2025.ts'
import { worldTables } from '../../src/lookups.ts'
import { EFFECTS_SAMPLE } from '../../src/sim/assets.ts'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'
import { planetOf, type War } from '../../src/sim/war.ts'
import { World } from '../../src/sim/world.ts'

const HUMANS = 1
const MINUTE_STEPS = 6
const DAY_MINUTES = 24 * 60

interface Sighting {
  status: WarStatus
  station: SpaceStation
}

/** The war's Status and station every war minute for `minutes`. */
function watch(war: War, minutes: number, language?: string): Sighting[] {
  const out: Sighting[] = []
  for (let k = 0; k < minutes; k++) {
    war.advanceTo(war.tick + MINUTE_STEPS)
    out.push({ status: parseWarStatus(war.status(language)).data, station: parseSpaceStation(war.spaceStation(DEMOCRACY_SPACE_STATION)).data })
  }
  return out
}

const regionKey = (r: { planetIndex: number; regionIndex: number }) => `${r.planetIndex}/${r.regionIndex}`

/** Owner changes of the regions between consecutive sightings. */
function regionFlips(seen: { status: WarStatus }[]) {
  const flips: { time: number; key: string; from: number; to: number; available: boolean; health: number }[] = []
  for (let k = 1; k < seen.length; k++) {
    const before = new Map(seen[k - 1]!.status.planetRegions!.map((r) => [regionKey(r), r]))
    for (const r of seen[k]!.status.planetRegions!) {
      const b = before.get(regionKey(r))
      if (b && b.owner !== r.owner) flips.push({ time: seen[k]!.status.time, key: regionKey(r), from: b.owner, to: r.owner, available: b.isAvailable!, health: r.health })
    }
  }
  return flips
}

/** Status transitions of the tactical actions between consecutive sightings. */
function actionTransitions(seen: { status: WarStatus; station: SpaceStation }[]) {
  const out: { time: number; id32: number; from: number; to: number; expiredAt: number; before: number }[] = []
  for (let k = 1; k < seen.length; k++) {
    seen[k]!.station.tacticalActions.forEach((a, i) => {
      const b = seen[k - 1]!.station.tacticalActions[i]!
      if (b.status !== a.status) out.push({ time: seen[k]!.status.time, id32: a.id32, from: b.status, to: a.status, expiredAt: b.statusExpireAtWarTimeSeconds, before: seen[k - 1]!.status.time })
    })
  }
  return out
}

describe('regions', () => {
  test('the war info lists two or three regions on about half the planets, each named once from the shipped table', () => {
    const info = parseWarInfo(new World({ seed: 3, speed: 0 }).current().warInfo()).data
    const regions = info.planetRegions!
    const byPlanet = Map.groupBy(regions, (r) => r.planetIndex)
    expect(byPlanet.has(0)).toBe(false)
    expect(byPlanet.size / info.planetInfos.length).toBeGreaterThan(0.35)
    expect(byPlanet.size / info.planetInfos.length).toBeLessThan(0.65)
    for (const list of byPlanet.values()) {
      expect(list.map((r) => r.regionIndex)).toEqual(list.map((_, i) => i))
      expect(list.length === 2 || list.length === 3).toBe(true)
    }
    expect(new Set(regions.map((r) => r.settingsHash)).size).toBe(regions.length)
    for (const r of regions) {
      expect(worldTables().region(r.settingsHash).name).not.toBeNull()
      expect(r.maxHealth).toBe([100_000, 200_000, 400_000, 600_000][r.regionSize!])
    }
    const other = new World({ seed: 4, speed: 0 }).current().warInfo().planetRegions!
    expect(other.map(regionKey)).not.toEqual(regions.map(regionKey))
  })

  test('over two days: only the fronts\' regions are listed, liberated one by one while available, and now and then taken back', () => {
    const war = new World({ seed: 3, speed: 0 }).current()
    const maxHealth = new Map(war.warInfo().planetRegions!.map((r) => [regionKey(r), r.maxHealth!]))
    const seen = watch(war, 2 * DAY_MINUTES)
    for (const { status } of seen) {
      const defended = new Set(status.planetEvents!.map((e) => e.planetIndex))
      const fronts = new Set(status.campaigns.map((c) => c.planetIndex).filter((i) => !defended.has(i) && status.planetStatus[i]!.owner !== HUMANS))
      for (const [planetIndex, list] of Map.groupBy(status.planetRegions!, (r) => r.planetIndex)) {
        const planet = status.planetStatus[planetIndex]!
        expect(fronts.has(planetIndex)).toBe(true)
        expect(list.filter((r) => r.isAvailable).length).toBeLessThanOrEqual(2)
        expect(list.reduce((n, r) => n + r.players, 0)).toBeLessThanOrEqual(planet.players)
        for (const r of list) {
          expect([HUMANS, planet.owner]).toContain(r.owner)
          expect(r.health).toBeGreaterThanOrEqual(0)
          expect(r.health).toBeLessThanOrEqual(maxHealth.get(regionKey(r))!)
          if (!r.isAvailable) expect([r.players, r.regerPerSecond]).toEqual([0, 0])
          if (r.isAvailable) expect(r.owner).not.toBe(HUMANS)
        }
      }
    }
    const flips = regionFlips(seen)
    const liberated = flips.filter((f) => f.to === HUMANS)
    const lost = flips.filter((f) => f.from === HUMANS)
    expect(liberated.length).toBeGreaterThan(5)
    expect(lost.length).toBeGreaterThan(0)
    // Liberated from an available region, back at full health; taken back at part of it.
    expect(liberated.every((f) => f.available && f.health === maxHealth.get(f.key))).toBe(true)
    expect(lost.every((f) => f.health > 0 && f.health < maxHealth.get(f.key)!)).toBe(true)
  })
})

describe('the space station', () => {
  const war = new World({ seed: 5, speed: 0 }).current()
  const seen = watch(war, 4 * DAY_MINUTES)

  test('moves when its election ends, to a planet with a campaign, and a new election begins', () => {
    const moves = []
    for (let k = 1; k < seen.length; k++) {
      const [before, now] = [seen[k - 1]!, seen[k]!]
      const end = before.station.currentElectionEndWarTime
      if (now.station.currentElectionId === before.station.currentElectionId) {
        expect(now.station.planetIndex).toBe(before.station.planetIndex)
        expect(now.status.time).toBeLessThan(end)
        continue
      }
      moves.push(now.station.planetIndex)
      expect(before.status.time).toBeLessThan(end)
      expect(now.status.time).toBeGreaterThanOrEqual(end)
      expect(now.station.lastElectionId).toBe(before.station.currentElectionId)
      expect(now.station.currentElectionEndWarTime - now.status.time).toBeGreaterThanOrEqual(1.5 * 86_400 - 60)
      expect(now.status.campaigns.map((c) => c.planetIndex)).toContain(now.station.planetIndex)
    }
    expect(moves.length).toBeGreaterThanOrEqual(1)
    // The Status's entry says the same.
    for (const { status, station } of seen) expect(status.spaceStations![0]).toMatchObject({ id32: DEMOCRACY_SPACE_STATION, planetIndex: station.planetIndex, currentElectionEndWarTime: station.currentElectionEndWarTime })
  })

  test('tactical actions fill with donations, become active, cool down and are ready again, each at its time', () => {
    const transitions = actionTransitions(seen)
    const cycle: number[][] = [[STATUS.preparing, STATUS.active], [STATUS.active, STATUS.cooldown], [STATUS.cooldown, STATUS.preparing]]
    for (const t of transitions) {
      expect(cycle).toContainEqual([t.from, t.to])
      // An active or cooling action changes when its status expires, not before.
      if (t.from !== STATUS.preparing) expect(t.expiredAt > t.before && t.expiredAt <= t.time).toBe(true)
    }
    for (const id32 of new Set(seen[0]!.station.tacticalActions.map((a) => a.id32))) {
      expect(new Set(transitions.filter((t) => t.id32 === id32).map((t) => `${t.from}>${t.to}`)).size).toBe(3)
    }
    for (let k = 1; k < seen.length; k++) {
      seen[k]!.station.tacticalActions.forEach((a, i) => {
        const [cost] = a.cost
        const b = seen[k - 1]!.station.tacticalActions[i]!
        expect(cost!.currentValue).toBeLessThanOrEqual(cost!.targetValue)
        if (a.status === STATUS.preparing && b.status === STATUS.preparing) expect(cost!.currentValue).toBeGreaterThanOrEqual(b.cost[0]!.currentValue)
        if (a.status === STATUS.active) {
          expect(a.activeEffectIds).toEqual(a.effectIds)
          for (const id of a.effectIds) expect(seen[k]!.status.spaceStations![0]!.activeEffectIds).toContain(id)
        } else expect(a.activeEffectIds).toEqual([])
      })
    }
  })
})

describe('global events, the fleet, moving planets, effect definitions', () => {
  const world = new World({ seed: 2, speed: 0 })
  const war = world.current()
  const orders = new Map<number, number[]>()
  const seen: Sighting[] = []
  for (let k = 0; k < 3 * DAY_MINUTES; k++) {
    seen.push(...watch(war, 1, 'de-DE'))
    for (const o of war.assignments()) orders.set(o.id32, o.setting.tasks.map(planetOf).filter((i): i is number => i !== undefined))
  }

  test('each event expires: listed until its expiry, gone at it (or pushed out by newer ones)', () => {
    let expired = 0
    for (let k = 1; k < seen.length; k++) {
      const now = seen[k]!.status
      for (const e of now.globalEvents!) expect(e.expireTime!).toBeGreaterThan(now.time)
      const listed = new Set(now.globalEvents!.map((e) => e.eventId))
      for (const e of seen[k - 1]!.status.globalEvents!) {
        if (listed.has(e.eventId)) continue
        if (e.expireTime! <= now.time) expired++
        else expect(now.globalEvents).toHaveLength(6)
      }
    }
    expect(expired).toBeGreaterThan(3)
  })

  test('texts in the request\'s language; an order\'s events link the order and its planets', () => {
    const events = seen.flatMap((s) => s.status.globalEvents!)
    expect(events.filter((e) => e.title).every((e) => e.title!.startsWith('[de-DE] '))).toBe(true)
    expect(events.filter((e) => e.message).every((e) => e.message!.startsWith('[de-DE] '))).toBe(true)
    expect(war.status().globalEvents!.some((e) => e.title?.startsWith('['))).toBe(false)
    const linked = events.filter((e) => e.assignmentId32 !== 0)
    expect(linked.length).toBeGreaterThan(0)
    for (const e of linked) expect(e.planetIndices).toEqual(orders.get(e.assignmentId32)!)
    expect(events.some((e) => e.flag === 1 && e.planetIndices.length === 1)).toBe(true)
  })

  test('the fleet strength drains and fills, within its bounds', () => {
    const values = seen.map((s) => s.status.globalResources![0]!)
    expect(values.every((v) => v.currentValue >= 0 && v.currentValue <= v.maxValue && v.maxValue === 40_000_000)).toBe(true)
    const steps = values.slice(1).map((v, k) => v.currentValue - values[k]!.currentValue)
    expect(steps.some((d) => d < 0)).toBe(true)
    expect(steps.some((d) => d > 0)).toBe(true)
  })

  test('three planets move around where the war info has them; the others stay', () => {
    const home = new Map(war.warInfo().planetInfos.map((p) => [p.index, p.position]))
    const moving = new Set<number>()
    const positions = new Map<number, Set<string>>()
    for (const { status } of seen) {
      for (const p of status.planetStatus) {
        const h = home.get(p.index)!
        if (p.position!.x === h.x && p.position!.y === h.y) continue
        moving.add(p.index)
        expect(Math.hypot(p.position!.x - h.x, p.position!.y - h.y)).toBeLessThan(0.051)
        positions.set(p.index, (positions.get(p.index) ?? new Set()).add(JSON.stringify(p.position)))
      }
    }
    expect(moving.size).toBe(3)
    expect(moving.has(0)).toBe(false)
    for (const set of positions.values()) expect(set.size).toBeGreaterThan(50)
  })

  test('every effect the war shows has a definition; the captured ones as captured', () => {
    const effects = parseGalacticWarEffects(war.galacticWarEffects()).data
    const defined = new Set(effects.map((e) => e.id))
    for (const { status, station } of seen) {
      for (const e of status.planetActiveEffects!) expect(defined.has(e.galacticEffectId)).toBe(true)
      for (const id of [...status.spaceStations![0]!.activeEffectIds!, ...station.tacticalActions.flatMap((a) => a.effectIds)]) expect(defined.has(id)).toBe(true)
    }
    for (const captured of EFFECTS_SAMPLE) expect(effects.find((e) => e.id === captured.id)).toEqual(captured)
  })
})

describe('determinism and the demo\'s first minutes', () => {
  test('the same seed gives the same parts; another seed other ones', () => {
    const [a, b, c] = [11, 11, 12].map((seed) => new World({ seed, speed: 0 }))
    for (const w of [a!, b!, c!]) w.advance(1.5 * 86_400)
    const parts = (w: World) => ({
      status: w.current().status('fr-FR'), station: w.current().spaceStation(DEMOCRACY_SPACE_STATION, 'fr-FR'),
      effects: w.current().galacticWarEffects(), info: w.current().warInfo(), state: w.state(),
    })
    expect(parts(a!)).toEqual(parts(b!))
    expect(parts(c!).info.planetRegions).not.toEqual(parts(a!).info.planetRegions)
  })

  /** What happened in the first five minutes of wall time at speed 1 (the demo), seen every 5 s. */
  function firstMinutes(seed: number, liveAfterS?: number): string[] {
    let wallMs = Date.parse('2026-01-01T00:00:00Z')
    const world = new World({ seed, speed: liveAfterS === undefined ? 1 : 0, now: () => wallMs, liveAfterS })
    const live = liveAfterS !== undefined
    if (live) world.advance(liveAfterS)
    const seen: Sighting[] = []
    for (let s = 0; s <= 300; s += 5) {
      if (live) world.advance(s === 0 ? 0 : 5)
      else wallMs = Date.parse('2026-01-01T00:00:00Z') + s * 1000
      const war = world.current()
      seen.push({ status: war.status(), station: war.spaceStation(DEMOCRACY_SPACE_STATION)! })
    }
    const cases = new Set<string>()
    for (const f of regionFlips(seen)) cases.add(f.to === HUMANS ? 'region liberated' : 'region lost')
    for (const t of actionTransitions(seen)) cases.add(`action ${t.from}>${t.to}`)
    for (let k = 1; k < seen.length; k++) {
      if (seen[k]!.station.planetIndex !== seen[k - 1]!.station.planetIndex) cases.add('station moved')
      const listed = new Set(seen[k]!.status.globalEvents!.map((e) => e.eventId))
      if (seen[k - 1]!.status.globalEvents!.some((e) => !listed.has(e.eventId))) cases.add('event expired')
      if (seen[k]!.status.planetStatus.some((p, i) => JSON.stringify(p.position) !== JSON.stringify(seen[k - 1]!.status.planetStatus[i]!.position))) cases.add('planet moved')
    }
    return [...cases].sort()
  }
  const EVERY_CASE = ['action 1>2', 'action 2>3', 'action 3>1', 'event expired', 'planet moved', 'region liberated', 'region lost', 'station moved']

  test.each([1, 2, 3, 4, 5])('seed %d: every case within five minutes of the opening', (seed) => {
    expect(firstMinutes(seed)).toEqual(EVERY_CASE)
  })

  test('and within five minutes of going live after the history (seed 1)', () => {
    expect(firstMinutes(1, 1.2 * 86_400)).toEqual(EVERY_CASE)
  })
})

describe('the simulator\'s routes', () => {
  let sim: Simulator
  beforeAll(() => {
    sim = startSimulator({ port: 0, seed: 8, speed: 0 })
  })
  afterAll(() => sim.stop())

  test('station and effects through the upstream client; unknown war or station 404; paths in any case', async () => {
    const client = createUpstreamClient({ baseUrl: sim.upstreamUrl, timeoutMs: 2000, userAgent: 't', languages: ['de-DE'] })
    const station = (await client.spaceStation(801, DEMOCRACY_SPACE_STATION)).data
    expect(station.tacticalActions.map((a) => a.name)).toEqual(['[de-DE] EAGLE STORM', '[de-DE] ORBITAL BLOCKADE', '[de-DE] HEAVY ORDNANCE DISTRIBUTION'])
    expect((await client.status(801)).data.spaceStations![0]!.planetIndex).toBe(station.planetIndex)
    expect((await client.galacticWarEffects()).data.map((e) => e.id)).toContain(1217)
    expect((await fetch(`${sim.upstreamUrl}/SpaceStation/801/1`)).status).toBe(404)
    expect((await fetch(`${sim.upstreamUrl}/SpaceStation/999/${DEMOCRACY_SPACE_STATION}`)).status).toBe(404)
    expect((await fetch(`${sim.upstreamUrl}/spacestation/801/${DEMOCRACY_SPACE_STATION}`)).status).toBe(200)
    expect((await fetch(`${sim.upstreamUrl}/warseason/galacticwareffects`)).status).toBe(200)
    const status = await (await fetch(`${sim.upstreamUrl}/WarSeason/801/Status`, { headers: { 'accept-language': 'it-IT' } })).json()
    expect(parseWarStatus(status).data.globalEvents!.every((e) => !e.title || e.title.startsWith('[it-IT] '))).toBe(true)
    expect(sim.control.requests()).toMatchObject({ 'upstream:spacestation': 4, 'upstream:galacticwareffects': 2 })
    const state = sim.control.state()
    expect(state.spaceStation.planetIndex).toBe(station.planetIndex)
    expect(state.spaceStation.actions).toHaveLength(3)
    expect(state.regionsInPlay).toBeGreaterThan(0)
    expect(state.globalResource.maxValue).toBe(40_000_000)
  })

  test('faults reach the new endpoints', async () => {
    sim.control.addFault({ kind: 'server_error', endpoint: 'spacestation', count: 1 })
    expect((await fetch(`${sim.upstreamUrl}/SpaceStation/801/${DEMOCRACY_SPACE_STATION}`)).status).toBe(500)
    expect((await fetch(`${sim.upstreamUrl}/SpaceStation/801/${DEMOCRACY_SPACE_STATION}`)).status).toBe(200)
  })
})
