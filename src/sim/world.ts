/**
 * The simulated galaxy: the wars (801 resumed from real captures, later ones fresh), the
 * simulation clock and the pcstore counts. Time is (wall time since start) × speed plus
 * manual advances, so tests can run with speed 0 and move the clock themselves.
 */
import type { SurfacesView } from './surfaces.ts'
import { playersTotalAt, STEP_S, War, WAR_TIME_RATE } from './war.ts'
import { smoothNoise } from './random.ts'
import { PCSTORE_APP_IDS } from '../feeds/pcstore.ts'

export interface WorldOptions {
  seed: number
  /** Time acceleration; 0 = time moves only through advance(). */
  speed: number
  now?: () => number
  /**
   * Simulated seconds after the start at which the demo goes live after its history
   * (seedDemoHistory: the history's length): the war stages its live opening (OPENING.live)
   * shortly before. None: no live opening.
   */
  liveAfterS?: number
}

/** The 2025 parts in short (surfaces.ts): the station and its actions, regions listed, global events, the fleet strength. */
export interface SimState extends SurfacesView {
  seed: number
  speed: number
  currentWarId: number
  wars: { warId: number; time: number; frozen: boolean }[]
  /** What the next Status of the current war reports. */
  time: number
  tick: number
  frozen: boolean
  playersTotal: number
  planetsWithPlayers: number
  busiestPlanet: { index: number; name: string; players: number }
  impactMultiplier: number
  campaigns: number
  planetEvents: number
  lastDispatchId: number | null
  /** The oldest running order (null: none); `assignments` lists them all. */
  assignment: { id32: number; expiresIn: number; progress: number[] } | null
  assignments: { id32: number; expiresIn: number; progress: number[] }[]
  galaxy: ReturnType<War['summary']>['galaxy_stats']
  pcstore: { game1: number; game2: number }
}

const PC_SALT = 101

export class World {
  readonly seed: number
  readonly speed: number
  private readonly now: () => number
  private readonly startedAtMs: number
  private advancedS = 0
  private readonly wars = new Map<number, War>()
  private currentId: number

  constructor(opts: WorldOptions) {
    this.seed = opts.seed
    this.speed = opts.speed
    this.now = opts.now ?? Date.now
    this.startedAtMs = this.now()
    const liveAtTick = opts.liveAfterS === undefined ? undefined : Math.floor((opts.liveAfterS * WAR_TIME_RATE) / STEP_S + 1e-9)
    const first = new War({ seed: this.seed, warId: 801, from: 'samples', liveAtTick })
    this.wars.set(first.warId, first)
    this.currentId = first.warId
  }

  /** Clock ticks (10 s war-time steps) since the simulation started. */
  private clockTicks(): number {
    const elapsedS = ((this.now() - this.startedAtMs) / 1000) * this.speed + this.advancedS
    return Math.floor((elapsedS * WAR_TIME_RATE) / STEP_S + 1e-9)
  }

  /** Brings every running war up to the clock; call before reading any war. */
  sync(): void {
    const ticks = this.clockTicks()
    for (const war of this.wars.values()) war.advanceTo(ticks - war.tickBase)
  }

  /** Moves the simulated clock forward by `seconds` of real time (war time moves 99.5 % of it). */
  advance(seconds: number): void {
    this.advancedS += Math.max(0, seconds)
    this.sync()
  }

  war(warId: number): War | undefined {
    this.sync()
    return this.wars.get(warId)
  }

  get currentWarId(): number {
    return this.currentId
  }

  current(): War {
    const war = this.war(this.currentId)
    if (!war) throw new Error('no current war')
    return war
  }

  /** Stops the current war's clock: same time, same payloads, until unfreeze(). */
  freeze(): void {
    this.current().frozen = true
  }

  unfreeze(): void {
    const war = this.current()
    if (!war.frozen) return
    // Resume where it stopped: the lag to real time grows, as it did upstream.
    war.tickBase = this.clockTicks() - war.tick
    war.frozen = false
  }

  /** A new season starts; the old war keeps answering, frozen. */
  startNewWar(warId = this.currentId + 1): War {
    const old = this.current()
    if (warId === old.warId) return old
    old.frozen = true
    const war = new War({
      seed: this.seed + warId, warId, from: 'fresh', startDate: Math.floor(this.now() / 1000), firstDispatchId: old.nextDispatchId,
    })
    war.tickBase = this.clockTicks()
    this.wars.set(warId, war)
    this.currentId = warId
    return war
  }

  /** Store counts: game2 a share of all upstream players, game1 a few hundred. */
  pcstorePlayers(appId: number): number | undefined {
    const war = this.current()
    const t = war.time
    if (appId === PCSTORE_APP_IDS.game2) {
      const total = war.planetsView().reduce((sum, p) => sum + p.players, 0)
      return Math.round(total * (0.45 + 0.08 * smoothNoise(this.seed, PC_SALT, t, 3600)))
    }
    if (appId === PCSTORE_APP_IDS.game1) {
      const rhythm = playersTotalAt(this.seed, t) / 480_000
      return Math.round(180 + 300 * rhythm + 40 * smoothNoise(this.seed, PC_SALT + 1, t, 1800))
    }
    return undefined
  }

  state(): SimState {
    const war = this.current()
    const planets = war.planetsView()
    const busiest = planets.reduce((a, b) => (b.players > a.players ? b : a))
    const status = war.status()
    const news = war.newsfeed({ maxEntries: 1, withMessage: false })
    return {
      seed: this.seed,
      speed: this.speed,
      currentWarId: this.currentId,
      wars: [...this.wars.values()].map((w) => ({ warId: w.warId, time: w.time, frozen: w.frozen })),
      time: war.time,
      tick: war.tick,
      frozen: war.frozen,
      playersTotal: planets.reduce((sum, p) => sum + p.players, 0),
      planetsWithPlayers: planets.filter((p) => p.players > 0).length,
      busiestPlanet: { index: busiest.index, name: war.name(busiest.index), players: busiest.players },
      impactMultiplier: status.impactMultiplier ?? 1,
      campaigns: status.campaigns?.length ?? 0,
      planetEvents: status.planetEvents?.length ?? 0,
      lastDispatchId: news[0]?.id ?? null,
      assignment: war.ordersView()[0] ?? null,
      assignments: war.ordersView(),
      galaxy: war.summary().galaxy_stats,
      pcstore: {
        game1: this.pcstorePlayers(PCSTORE_APP_IDS.game1) ?? 0,
        game2: this.pcstorePlayers(PCSTORE_APP_IDS.game2) ?? 0,
      },
      ...war.surfacesView(),
    }
  }
}
