/**
 * Where the simulated players are: their total at a war time (a daily rhythm) and its
 * spread over the planets. The busiest crowd goes to one front an epoch, the rest by weight,
 * wide, so that some fronts draw a crowd and others are all but left, as in the captures
 * (src/sim/fronts.ts has how far a crowd moves a front).
 *
 * Determinism: every draw hashes (seed, epoch or time, salt), as in war.ts.
 */
import type { PlanetStatus } from '../feeds/upstream.ts'
import { CAPTURED, ownerBy, SIM_CROWD } from './fronts.ts'
import { gauss, hash32, pick, rand, smoothNoise } from './random.ts'

const DAY_S = 86_400
/** The spread is planned anew every epoch (and when the fronts change). */
const EPOCH_S = 6 * 3600
/**
 * Base weight of a planet in the rest of the spread: a defense, an order's target, a front,
 * behind the lines (where hardly anyone plays); each drawn around it per epoch, log-normal
 * with `spread`.
 */
const WEIGHT = { defense: 2, target: 4, front: 1, rear: 0.02, spread: 1 } as const
/** Chances that an epoch's busiest crowd goes to a defense, else to an order's target among the fronts, else to any front. */
const BUSIEST = { defense: 0.3, target: 0.6 } as const

// Salts keep independent draws apart (the values war.ts used before they moved here).
const S = { active: 1, fill: 2, busy: 3, share: 4, weight: 5, jitter: 6, total: 7 } as const

/**
 * Total players on all planets at a war time: a daily rhythm (SIM_CROWD.low at night to
 * SIM_CROWD.high at the evening peak, log-scale) with smooth noise. Pure, so tests can predict it.
 */
export function playersTotalAt(seed: number, time: number): number {
  const phase = (time % DAY_S) / DAY_S
  const rhythm = 0.5 - 0.5 * Math.cos(2 * Math.PI * (phase - 0.3))
  const noise = smoothNoise(seed, S.total, time, 1800)
  const base = Math.exp(Math.log(SIM_CROWD.low) + rhythm * (Math.log(SIM_CROWD.high) - Math.log(SIM_CROWD.low)))
  return Math.round(base * (1 + 0.08 * noise))
}

/** What the spread reads of the war. */
export interface Battlefield {
  /** Every planet by index; the spread writes their `players`. */
  planets: PlanetStatus[]
  /** Planets with a defense, then those with a campaign (a defended planet has both). */
  defended: readonly number[]
  campaigns: readonly number[]
  /** Planets the running orders name that the players do not hold. */
  targets: readonly number[]
  /** A front the busiest crowd rallies to, whatever the epoch's draws. */
  rally?: number
}

interface Plan {
  key: string
  epoch: number
  set: number[]
  busiest: number
  busiestShare: number
  superEarthShare: number
  others: number[]
  weights: number[]
}

export class Crowd {
  /** Players on all planets at the last spread. */
  total = 0
  /** The planets that held players at the last spread. */
  active: readonly number[] = []
  private plan?: Plan

  constructor(private readonly seed: number) {}

  /** Spreads the players of war time `t` over the planets (their sum is exactly the total). */
  spread(t: number, field: Battlefield): void {
    const { planets } = field
    for (const i of this.active) planets[i]!.players = 0
    const plan = this.planAt(t, field)
    const total = (this.total = playersTotalAt(this.seed, t))
    const weights = plan.others.map((i, k) => (plan.weights[k] ?? 0) * (1 + 0.1 * smoothNoise(this.seed, S.jitter * 1000 + i, t, 1800)))
    const weightSum = weights.reduce((a, b) => a + b, 0) || 1
    const spread = total * (1 - plan.busiestShare - plan.superEarthShare)
    let assigned = 0
    plan.others.forEach((i, k) => {
      const n = Math.floor((spread * (weights[k] ?? 0)) / weightSum)
      planets[i]!.players = n
      assigned += n
    })
    if (plan.busiest !== 0) {
      const se = Math.floor(total * plan.superEarthShare)
      planets[0]!.players = se
      assigned += se
    }
    // Rounding leftovers go to the busiest planet, so the sum is exactly the total.
    planets[plan.busiest]!.players = total - assigned
    this.active = plan.set
  }

  /**
   * Which planets hold players and their base weights; changes every epoch or when the
   * fronts, the orders' targets or the rally change. The busiest crowd goes to a liberation
   * front (an order's target first), now and then to a defense, and stays there for the
   * epoch while that planet is still fought over; the defenses, the targets, then the fronts
   * draw more of the rest than the planets behind the lines.
   */
  private planAt(t: number, field: Battlefield): Plan {
    const { planets, targets, rally } = field
    const { least, most } = CAPTURED.busiestShare
    const epoch = Math.floor(t / EPOCH_S)
    const fronts = [...new Set([...field.defended, ...field.campaigns])]
    const focus = [...new Set([...field.defended, ...targets])].filter((i) => i !== 0)
    const key = `${epoch}:${fronts.join(',')}:${focus.join(',')}:${rally ?? ''}`
    if (this.plan?.key === key) return this.plan
    const defended = new Set(field.defended)
    const target = 20 + Math.floor(rand(this.seed, S.active, epoch) * 10)
    const set = [0, ...fronts.filter((i) => i !== 0)].slice(0, target)
    for (let k = 0; set.length < target && k < 500; k++) {
      const candidate = planets[hash32(this.seed, S.fill, epoch, k) % planets.length]
      if (candidate && !set.includes(candidate.index)) set.push(candidate.index)
    }
    const frontsInSet = set.filter((i) => i !== 0 && fronts.includes(i))
    const focusInSet = focus.filter((i) => set.includes(i))
    const liberating = frontsInSet.filter((i) => !defended.has(i))
    const defenses = frontsInSet.filter((i) => defended.has(i))
    const aimed = liberating.filter((i) => targets.includes(i))
    const r = rand(this.seed, S.busy, epoch, 1)
    const crowdAt =
      defenses.length && (r < BUSIEST.defense || !liberating.length) ? defenses
      : aimed.length && r < BUSIEST.defense + BUSIEST.target ? aimed
      : liberating.length ? liberating
      : focusInSet.length ? focusInSet
      : set
    const last = this.plan
    const stays = last?.epoch === epoch && (frontsInSet.includes(last.busiest) || focusInSet.includes(last.busiest))
    // Among liberation fronts, the enemy first, as the captured crowds chose it.
    const owner = crowdAt === liberating ? ownerBy(CAPTURED.busiestFrontShare, new Set(liberating.map((i) => planets[i]!.owner)), rand(this.seed, S.busy, epoch, 2)) : undefined
    const among = owner === undefined ? crowdAt : crowdAt.filter((i) => planets[i]!.owner === owner)
    const busiest = rally ?? (stays ? last!.busiest : (pick(among, rand(this.seed, S.busy, epoch)) ?? 0))
    const others = set.filter((i) => i !== busiest && i !== 0)
    const base = (i: number) =>
      defended.has(i) ? WEIGHT.defense
      : targets.includes(i) ? WEIGHT.target
      : fronts.includes(i) ? WEIGHT.front * (CAPTURED.frontPlayers[planets[i]!.owner] ?? 1)
      : WEIGHT.rear
    this.plan = {
      key, epoch, set, busiest, others,
      // Drawn per epoch between the captured bounds; a rally draws the most.
      busiestShare: least + (most - least) * (rally === undefined ? rand(this.seed, S.share, epoch) : 1),
      superEarthShare: busiest === 0 ? 0 : 0.004,
      weights: others.map((i) => base(i) * Math.exp(WEIGHT.spread * gauss(this.seed, S.weight, epoch, i))),
    }
    return this.plan
  }
}
