/**
 * What the game's API gained since 2025, as one part of a simulated war (war.ts): the
 * regions of the fronts (regions.ts), the space station (station.ts), the global events and
 * the fleet strength (global.ts), the moving planets and the effect definitions
 * (galaxy.ts). It reads the war (planets, fronts, players), never changes it: the fronts,
 * players, orders and dispatches move exactly as they would without it.
 */
import type { PlanetStatus } from '../feeds/upstream.ts'
import type { GalacticWarEffect, GlobalEvent, GlobalResource, PlanetRegionInfo, PlanetRegionStatus, SpaceStation, SpaceStationStatus } from '../feeds/upstream-2025.ts'
import { EFFECTS_SAMPLE, REGION_HASHES, STATUS_2025_SAMPLE, WAR_INFO_SAMPLE } from './assets.ts'
import { AUTOMATONS, HOUR_S, SURFACE_STEP_S } from './constants.ts'
import { effectDefinitions, movingPlanets, positionAt } from './galaxy.ts'
import { FleetStrength, GlobalEvents, type NewGlobalEvent } from './global.ts'
import { OPENING } from './opening.ts'
import { regionMap, Regions, type Front } from './regions.ts'
import { electedAmong, Station, STATION_EFFECT_IDS } from './station.ts'
import * as text from './texts.ts'

/** The map's layout version the 2025 capture carries (it moves with the supply lines, which the simulator keeps). */
const LAYOUT_VERSION = 44
/** How long a result (success, fail) stays listed. */
export const RESULT_S = 12 * HOUR_S
/** The fleet the simulated resource measures, when the 2025 capture has none. */
const FLEET = { id32: 175685818, maxValue: 40_000_000, currentValue: 18_566_252 } as const

/** Where each planet of the war info starts. */
const HOME = new Map(WAR_INFO_SAMPLE.planetInfos.map((p) => [p.index, p.position]))

/** What the surfaces read of the war. */
export interface SurfacedWar {
  readonly seed: number
  readonly warId: number
  readonly planets: readonly PlanetStatus[]
  /** The liberation fronts (enemy planets with a campaign and no defense). */
  fronts(): Front[]
  /** Every planet with a campaign (a station's election chooses among them). */
  campaignPlanets(): number[]
  /** Players on all planets. */
  playersTotal(): number
  /** Players fighting `race`: on its planets and on the planets it attacks. */
  fighting(race: number): number
  name(index: number): string
}

/** The state of the surfaces in short (the simulator's control state). */
export interface SurfacesView {
  spaceStation: { planetIndex: number; currentElectionEndWarTime: number; actions: ReturnType<Station['view']> }
  regionsInPlay: number
  globalEvents: number
  globalResource: { currentValue: number; maxValue: number }
}

export class Surfaces {
  private readonly events: GlobalEvents
  private readonly regions: Regions
  private readonly station: Station
  private readonly fleet: FleetStrength
  private readonly orbits: ReturnType<typeof movingPlanets>
  /** The global event announcing the running election (it expires when the station moves). */
  private electionEvent?: number

  constructor(
    private readonly war: SurfacedWar,
    t: number,
    events: { initial: readonly GlobalEvent[]; nextId: number },
  ) {
    const seed = war.seed
    this.events = new GlobalEvents(seed, events.initial, events.nextId)
    // The 2024 capture's events have no expiry: they go an hour apart.
    this.events.expireUnset((k) => t + (k + 1) * HOUR_S)
    this.regions = new Regions(seed, regionMap(seed, WAR_INFO_SAMPLE.planetInfos.map((p) => p.index), REGION_HASHES))
    this.station = new Station(seed, war.warId, war.campaignPlanets()[0] ?? 0, t)
    const captured = STATUS_2025_SAMPLE.globalResources?.[0] ?? FLEET
    this.fleet = new FleetStrength(captured.id32, captured.maxValue, captured.currentValue, AUTOMATONS)
    this.orbits = movingPlanets(seed, WAR_INFO_SAMPLE.planetInfos.map((p) => p.index))
    this.announceElection()
  }

  /** One war step to war time `t`: events expire; the rest moves once a war minute (SURFACE_STEP_S). */
  step(t: number, tick: number): void {
    this.events.expire(t)
    if (t % SURFACE_STEP_S !== 0) return
    this.regions.step(t, tick, this.war.fronts())
    const before = this.station.orbiting
    if (this.station.step(t, this.war.playersTotal(), (r) => electedAmong(this.war.campaignPlanets(), before, r))) this.announceElection()
    const turn = this.fleet.step(this.war.fighting(this.fleet.race))
    if (turn) {
      const { title, message } = turn === 'depleted' ? text.fleetDepleted : text.fleetRebuilt
      this.events.add({ title, message, flag: turn === 'depleted' ? 2 : 1, race: this.fleet.race, expireTime: t + RESULT_S })
    }
  }

  /**
   * The opening of the 2025 parts (OPENING.surfaces) from `from`, the war time the demo is
   * seen from: an event that expires, a region liberated and one taken back, a tactical
   * action in each transition, the station's move. Staged at `t` (the players spread).
   */
  stage(t: number, from: number): void {
    const s = OPENING.surfaces
    // On the parts' minute grid, where they move.
    const at = (afterS: number) => Math.ceil((from + afterS) / SURFACE_STEP_S) * SURFACE_STEP_S
    this.events.add({ ...text.INTEL_BRIEFING, flag: 1, race: this.fleet.race, expireTime: from + s.eventExpiresS })
    this.regions.stage(t, this.war.fronts(), at(s.regionLiberatedS), at(s.regionLostS))
    this.station.stage({ moveAt: at(s.stationMovesS), fullAt: at(s.actionFullS), cooldownAt: at(s.actionCooldownS), readyAt: at(s.actionReadyS) })
    if (this.electionEvent !== undefined) this.events.retime(this.electionEvent, at(s.stationMovesS))
  }

  /** A result or briefing of the war (orders, defenses, liberations). */
  announce(e: NewGlobalEvent): void {
    this.events.add(e)
  }

  position(index: number, t: number): { x: number; y: number } | undefined {
    const home = HOME.get(index)
    const orbit = home && this.orbits.find((o) => o.index === index)
    return orbit ? positionAt(orbit, home, t) : home && { ...home }
  }

  /** The Status's 2025 keys (after planetActiveEffects, in upstream's order). */
  status(language?: string): {
    planetRegions: PlanetRegionStatus[]
    globalEvents: GlobalEvent[]
    spaceStations: SpaceStationStatus[]
    globalResources: GlobalResource[]
    layoutVersion: number
  } {
    return {
      planetRegions: this.regions.status(this.war.fronts()),
      globalEvents: this.events.status(language),
      spaceStations: [this.station.status()],
      globalResources: [this.fleet.status()],
      layoutVersion: LAYOUT_VERSION,
    }
  }

  /** The war info's 2025 keys. */
  warInfo(): { layoutVersion: number; capitalInfos: unknown[]; planetPermanentEffects: unknown[]; planetRegions: PlanetRegionInfo[] } {
    return { layoutVersion: LAYOUT_VERSION, capitalInfos: [], planetPermanentEffects: [], planetRegions: this.regions.info() }
  }

  /** `GET /SpaceStation/{war}/{id32}`: undefined for a station the war does not have. */
  spaceStation(id32: number, language?: string): SpaceStation | undefined {
    return id32 === this.station.id32 ? this.station.payload(language) : undefined
  }

  /** `GET /WarSeason/GalacticWarEffects`: the definitions of every effect the war can show, `ids` (the fronts') among them. */
  effects(ids: readonly number[]): GalacticWarEffect[] {
    return effectDefinitions([...ids, ...STATION_EFFECT_IDS], EFFECTS_SAMPLE)
  }

  view(): SurfacesView {
    const s = this.station.status()
    return {
      spaceStation: { planetIndex: s.planetIndex, currentElectionEndWarTime: s.currentElectionEndWarTime ?? 0, actions: this.station.view() },
      regionsInPlay: this.regions.status(this.war.fronts()).length,
      globalEvents: this.events.count,
      globalResource: { currentValue: this.fleet.status().currentValue, maxValue: this.fleet.maxValue },
    }
  }

  /** A briefing for the election that begins: where the station is, until the election ends. */
  private announceElection(): void {
    const planet = this.station.orbiting
    this.electionEvent = this.events.add({
      ...text.stationBriefing(this.war.name(planet)), flag: 1, planetIndices: [planet], expireTime: this.station.electionEndsAt,
    })
  }
}
