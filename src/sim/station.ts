/**
 * The Democracy Space Station (2025+): it orbits one planet until its election ends, then
 * moves to the planet the election chose (a front; it stays when there is none), and a new
 * election begins. Its tactical actions cycle through their statuses:
 *   preparing (1)  donations fill the cost at a rate that follows the players on the planets;
 *   active (2)     once full, for the action's time; its effects are in force;
 *   cooldown (3)   for its time, the cost emptied; then preparing again.
 * `stage` sets every transition at given war times, so the demo shows each within minutes.
 *
 * Determinism: every draw hashes (seed, election number, salt), as in war.ts.
 */
import {
  DEMOCRACY_SPACE_STATION,
  TACTICAL_ACTION_STATUS as STATUS,
  type SpaceStation,
  type SpaceStationStatus,
} from '../feeds/upstream-2025.ts'
import { DAY_S, HOUR_S, SURFACE_STEP_S } from './constants.ts'
import { localize } from './languages.ts'
import { hash32, pick, rand } from './random.ts'

// Salts keep independent draws apart (war.ts S and the other parts' salts are below 40).
const S = { election: 51, move: 52, id: 53 } as const

/** An election lasts this long, drawn per election. */
const ELECTION_S = { least: 1.5 * DAY_S, most: 3 * DAY_S } as const
/** The effect of the station's presence (the shipped effects table: DEMOCRACY SPACE STATION). */
const STATION_EFFECT = 1217
/** Donations per player on the planets per second, all actions together (each takes its share). */
const DONATION_PER_PLAYER_S = 0.0015
/** The cost item the real payloads carry (an item mix id), the most a player gives per period. */
const COST_ITEM = { itemMixId: 3992382197, maxDonationAmount: 75, maxDonationPeriodSeconds: DAY_S } as const

interface ActionDef {
  id32: number
  name: string
  description: string
  strategicDescription: string
  /** Effects in force while active (ids of the shipped effects table). */
  effectIds: number[]
  targetValue: number
  activeS: number
  cooldownS: number
  /** Its share of the donations. */
  share: number
}

const ACTIONS: readonly ActionDef[] = [
  {
    id32: 1_812_504_201, name: 'EAGLE STORM',
    description: 'Eagles from the station strike the planet below at regular intervals.',
    strategicDescription: 'Calls down <i=1>Eagle Airstrikes</i> across the planet the station orbits.',
    effectIds: [1209, 1212], targetValue: 4_000_000, activeS: 6 * HOUR_S, cooldownS: 18 * HOUR_S, share: 0.4,
  },
  {
    id32: 2_205_912_777, name: 'ORBITAL BLOCKADE',
    description: 'The station blocks enemy reinforcements from reaching the planet below.',
    strategicDescription: 'Enemy <i=1>reinforcements</i> cannot reach the planet the station orbits.',
    effectIds: [1210, 1213], targetValue: 6_000_000, activeS: 8 * HOUR_S, cooldownS: DAY_S, share: 0.35,
  },
  {
    id32: 3_097_431_046, name: 'HEAVY ORDNANCE DISTRIBUTION',
    description: 'The station supplies heavy ordnance to every Helldiver deployed below.',
    strategicDescription: 'Adds the <i=1>Orbital Laser</i> to every loadout on the planet the station orbits.',
    effectIds: [1145], targetValue: 3_000_000, activeS: 4 * HOUR_S, cooldownS: 12 * HOUR_S, share: 0.25,
  },
]

/** Every effect id the station can put in force (war.ts lists their definitions). */
export const STATION_EFFECT_IDS: readonly number[] = [STATION_EFFECT, ...ACTIONS.flatMap((a) => a.effectIds)]

interface ActionState {
  status: number
  /** War time the status ends (0 while preparing: it ends when the cost is full). */
  expireAt: number
  currentValue: number
  deltaPerSecond: number
  /** Staged: full at this war time, whatever the donations. */
  fullAt?: number
}

/** When the staged transitions happen (war times). */
export interface StationStage {
  /** The election ends and the station moves. */
  moveAt: number
  /** The first action's cost is full: it becomes active. */
  fullAt: number
  /** The second action, active now, cools down. */
  cooldownAt: number
  /** The third action, cooling down now, is ready for donations again. */
  readyAt: number
}

export class Station {
  readonly id32 = DEMOCRACY_SPACE_STATION
  private planetIndex: number
  private election = 0
  private electionEnd: number
  private readonly actions: ActionState[]

  constructor(
    private readonly seed: number,
    private readonly warId: number,
    planetIndex: number,
    t: number,
  ) {
    this.planetIndex = planetIndex
    this.electionEnd = t + this.electionLength()
    this.actions = ACTIONS.map(() => ({ status: STATUS.preparing, expireAt: 0, currentValue: 0, deltaPerSecond: 0 }))
  }

  get orbiting(): number {
    return this.planetIndex
  }

  get electionEndsAt(): number {
    return this.electionEnd
  }

  /**
   * A war minute (SURFACE_STEP_S) to war time `t` with `players` on the planets; when the election ends the
   * station moves to `next(r)`'s planet (undefined: it stays), a draw `r` in [0, 1), and a
   * new election begins (true).
   */
  step(t: number, players: number, next: (r: number) => number | undefined): boolean {
    ACTIONS.forEach((def, k) => {
      const a = this.actions[k]!
      if (a.status === STATUS.preparing) {
        a.deltaPerSecond = a.fullAt !== undefined
          ? Math.max(0, def.targetValue - a.currentValue) / Math.max(SURFACE_STEP_S, a.fullAt - t + SURFACE_STEP_S)
          : Math.round(players * DONATION_PER_PLAYER_S * def.share * 100) / 100
        a.currentValue = Math.min(def.targetValue, a.currentValue + a.deltaPerSecond * SURFACE_STEP_S)
        if (a.currentValue >= def.targetValue || (a.fullAt !== undefined && t >= a.fullAt)) {
          Object.assign(a, { status: STATUS.active, expireAt: t + def.activeS, currentValue: def.targetValue, deltaPerSecond: 0, fullAt: undefined })
        }
      } else if (t >= a.expireAt) {
        if (a.status === STATUS.active) Object.assign(a, { status: STATUS.cooldown, expireAt: t + def.cooldownS, currentValue: 0 })
        else Object.assign(a, { status: STATUS.preparing, expireAt: 0 })
      }
    })
    if (t < this.electionEnd) return false
    this.planetIndex = next(rand(this.seed, S.move, this.election)) ?? this.planetIndex
    this.election++
    this.electionEnd = t + this.electionLength()
    return true
  }

  /** Sets the next move and one transition of each action at the stage's war times (the demo's opening). */
  stage(stage: StationStage): void {
    this.electionEnd = stage.moveAt
    const [filling, active, cooling] = this.actions
    const def = (k: number) => ACTIONS[k]!
    Object.assign(filling!, { status: STATUS.preparing, expireAt: 0, currentValue: Math.round(def(0).targetValue * 0.9), fullAt: stage.fullAt })
    Object.assign(active!, { status: STATUS.active, expireAt: stage.cooldownAt, currentValue: def(1).targetValue, deltaPerSecond: 0 })
    Object.assign(cooling!, { status: STATUS.cooldown, expireAt: stage.readyAt, currentValue: 0, deltaPerSecond: 0 })
  }

  /** The Status's `spaceStations` entry. */
  status(): SpaceStationStatus {
    return { id32: this.id32, planetIndex: this.planetIndex, currentElectionEndWarTime: this.electionEnd, flags: 1, activeEffectIds: this.activeEffects() }
  }

  /** `GET /SpaceStation/{war}/{id32}`, its texts in `language` (default en-US). */
  payload(language?: string): SpaceStation {
    return {
      id32: this.id32,
      planetIndex: this.planetIndex,
      lastElectionId: this.electionId(this.election - 1),
      currentElectionId: this.electionId(this.election),
      nextElectionId: this.electionId(this.election + 1),
      currentElectionEndWarTime: this.electionEnd,
      flags: 1,
      tacticalActions: ACTIONS.map((def, k) => {
        const a = this.actions[k]!
        return {
          id32: def.id32,
          mediaId32: hash32(this.seed, S.id, def.id32),
          name: localize(def.name, language),
          description: localize(def.description, language),
          strategicDescription: localize(def.strategicDescription, language),
          status: a.status,
          statusExpireAtWarTimeSeconds: a.expireAt,
          cost: [{
            id: `${def.id32}-requisition`, ...COST_ITEM, targetValue: def.targetValue,
            currentValue: Math.floor(a.currentValue), deltaPerSecond: Number(a.deltaPerSecond.toFixed(2)),
          }],
          effectIds: [...def.effectIds],
          activeEffectIds: a.status === STATUS.active ? [...def.effectIds] : [],
        }
      }),
    }
  }

  /** Each action's id and status (the simulator's control state). */
  view(): { id32: number; status: number; statusExpireAtWarTimeSeconds: number }[] {
    return ACTIONS.map((def, k) => ({ id32: def.id32, status: this.actions[k]!.status, statusExpireAtWarTimeSeconds: this.actions[k]!.expireAt }))
  }

  private activeEffects(): number[] {
    return [STATION_EFFECT, ...ACTIONS.flatMap((def, k) => (this.actions[k]!.status === STATUS.active ? def.effectIds : []))]
  }

  private electionLength(): number {
    const { least, most } = ELECTION_S
    return Math.round((least + (most - least) * rand(this.seed, S.election, this.election)) / SURFACE_STEP_S) * SURFACE_STEP_S
  }

  /** An election's id, a GUID as the real ones look, fixed for the seed, war and election number. */
  private electionId(n: number): string {
    const hex = (k: number) => hash32(this.seed, S.id, this.warId, n, k).toString(16).padStart(8, '0')
    const [a, b, c, d] = [hex(1), hex(2), hex(3), hex(4)]
    return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-8${c.slice(1, 4)}-${c.slice(4)}${d}`
  }
}

/** The planet an election chooses among `candidates` (not the current one), with a draw `r` in [0, 1). */
export const electedAmong = (candidates: readonly number[], current: number, r: number): number | undefined =>
  pick(candidates.filter((i) => i !== current), r)
