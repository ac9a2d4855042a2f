/**
 * The simulated war's major orders: issued, progressing by their own rules from the war's
 * state and counters, completed or failed, as the Assignment payload lists them.
 *
 * Determinism: every draw hashes (seed, order number, salt), as in war.ts.
 */
import type { Assignment, Campaign, PlanetStatus, Task } from '../feeds/upstream.ts'
import { AUTOMATONS, DAY_S, HUMANS, TERMINIDS } from './constants.ts'
import { playersTotalAt } from './crowd.ts'
import { localize } from './languages.ts'
import { hash32, pick, rand } from './random.ts'
import * as text from './texts.ts'

// Salts keep independent draws apart (war.ts S: 13 was its `order`).
const S = { order: 13 } as const
const MEDALS_ID32 = 897894480

/** Task types (helldivers-2/json assignments/tasks/task/type.json). */
export const TASK_TYPES = {
  extract: 2, eradicate: 3, completeMissions: 7, completeOperations: 9, liberation: 11, defense: 12, control: 13, expand: 15,
} as const
/** Value types of a task's values (assignments/tasks/task/valueTypes.json). */
export const VT = { race: 1, goal: 3, difficulty: 9, locationType: 11, locationIndex: 12 } as const
/** The ten value slots of an Eradicate task, as real payloads carry them. */
const ERADICATE_VALUE_TYPES = [1, 2, 3, 4, 6, 5, 8, 9, 11, 12]

/** A task's first value of `valueType`. */
export function valueOf(task: Task, valueType: number): number | undefined {
  const k = task.valueTypes.indexOf(valueType)
  return k < 0 ? undefined : task.values[k]
}
/** Its goal (value type 3), 1 without one. */
export const goalOf = (task: Task): number => Math.max(1, valueOf(task, VT.goal) ?? 1)
/** The planet it names: location_index when location_type is 1 (planet). */
export const planetOf = (task: Task): number | undefined =>
  valueOf(task, VT.locationType) === 1 ? valueOf(task, VT.locationIndex) : undefined
/** What an order's global event links to: the race its tasks name (0: any) and their planets. */
export function linksOf(order: Order): { race: number; planetIndices: number[] } {
  const race = order.tasks.map((task) => valueOf(task, VT.race) ?? 0).find((r) => r > 0) ?? 0
  const planetIndices = [...new Set(order.tasks.map(planetOf).filter((i): i is number => i !== undefined))]
  return { race, planetIndices }
}
/** Share of missions played at `difficulty` or higher (0: every mission). */
const difficultyShare = (difficulty: number) => (difficulty <= 1 ? 1 : Math.max(0.1, 1 - (difficulty - 1) / 10))
/** A squad of four shares one mission; the summary counts it once per player. */
const SQUAD = 4
/** Missions per operation. */
const MISSIONS_PER_OPERATION = 3
/** Missions that end with an extraction. */
const EXTRACTED = 0.85

/**
 * A major order. Progress per task type, from the war's own state:
 *   Eradicate             kills of its race (0: any) on its planet (if any), a share per task
 *   CompleteMissions      missions won against its race, at its difficulty or higher (squads of four)
 *   CompleteOperations    the same, three missions an operation
 *   Extract               the same, the missions that extracted
 *   Liberation, Control   1 while the players hold its planet, else 0
 *   Defense               defenses won against its race since the order began, capped at the goal
 *   Expand                planets liberated since the order began
 * An order is completed when every task reaches its goal (one with a Control task only at
 * its expiry: holding is judged then) and stays listed a while with its final progress; it
 * fails when it expires first.
 */
export interface Order {
  id32: number
  startTime?: number
  endTime: number
  brief: string
  tasks: Task[]
  progress: number[]
  /** Per task, the war's tally it counts from (defenses won, planets liberated) when the order began. */
  base: number[]
  reward: number
  flags: number
  /** Runs beside the regular orders, which come one at a time. */
  showcase?: boolean
  /** War time it was completed: it stays listed, its progress final, for ORDER_LINGER_S. */
  completedAt?: number
}

/** A counting task of an order, as `credit` reads it (OrderBook.creditRules). */
interface CreditRule {
  /** Its slot in the order's tasks and progress. */
  i: number
  type: number
  /** The race it counts (0: any) and the planet (undefined: any). */
  race: number
  at: number | undefined
  /** Of kills (Eradicate), else of the missions won (its difficulty's share). */
  share: number
}

/** How long a completed order stays listed, at its goals (longer than the collectors' 5-minute tick, so they see it done). */
const ORDER_LINGER_S = 1800

/** What the orders read of the war, and what they tell it. */
export interface OrderWar {
  readonly seed: number
  time(): number
  /** Every planet by index (the war's own array). */
  readonly planets: readonly PlanetStatus[]
  campaigns(): readonly Campaign[]
  attacks(): readonly { source: number; target: number }[]
  /** What Defense and Expand tasks count: defenses won per attacking race, planets liberated. */
  readonly tally: { readonly defensesWon: ReadonlyMap<number, number>; readonly liberated: number }
  defenseCandidates(race: number, r1: number, r2: number): number[]
  orderIssued(order: Order): void
  orderEnded(order: Order, won: boolean): void
}

export class OrderBook {
  private readonly seed: number
  private ordersCreated = 0
  private readonly credits = new WeakMap<Order, CreditRule[]>()

  constructor(
    private readonly war: OrderWar,
    private orders: Order[],
    private nextOrderAt: number,
  ) {
    this.seed = war.seed
  }

  /** The planets the running orders name that the players do not hold. */
  targets(): number[] {
    return this.orders.flatMap((o) => o.tasks.map(planetOf)).filter((i): i is number => i !== undefined && this.war.planets[i]?.owner !== HUMANS)
  }

  /** The Defense tasks of the running orders not yet at their goal. */
  wantedDefenses(): Task[] {
    return this.orders.flatMap((o) => o.tasks.filter((task, i) => task.type === TASK_TYPES.defense && (o.progress[i] ?? 0) < goalOf(task)))
  }

  private planet(index: number): PlanetStatus {
    const planet = this.war.planets[index]
    if (!planet) throw new Error(`no planet ${index}`)
    return planet
  }

  /**
   * What each counting task of an order takes from a planet's step, read once from its
   * tasks (they never change): the race and planet it counts, and its share (of kills, or
   * of the missions won at its difficulty). The other task types count nothing here.
   */
  private creditRules(order: Order): CreditRule[] {
    let rules = this.credits.get(order)
    if (rules) return rules
    rules = []
    order.tasks.forEach((task, i) => {
      const type = task.type
      if (type !== TASK_TYPES.eradicate && type !== TASK_TYPES.completeMissions && type !== TASK_TYPES.completeOperations && type !== TASK_TYPES.extract) return
      rules!.push({
        i, type, race: valueOf(task, VT.race) ?? 0, at: planetOf(task),
        // A kill task counts only some kills (one weapon, one difficulty), so goals take days.
        share: type === TASK_TYPES.eradicate ? 0.05 + 0.1 * rand(this.seed, order.id32, i) : difficultyShare(valueOf(task, VT.difficulty) ?? 0),
      })
    })
    this.credits.set(order, rules)
    return rules
  }

  /** The counting tasks' share of a planet's step: its kills and the missions it won against `race`. */
  credit(planetIndex: number, race: number, kills: number, missionsWon: number): void {
    for (const order of this.orders) {
      if (order.completedAt !== undefined) continue
      for (const rule of this.creditRules(order)) {
        if ((rule.race !== 0 && rule.race !== race) || (rule.at !== undefined && rule.at !== planetIndex)) continue
        let add: number
        if (rule.type === TASK_TYPES.eradicate) add = kills * rule.share
        else {
          const missions = (missionsWon / SQUAD) * rule.share
          add = rule.type === TASK_TYPES.completeMissions ? missions : rule.type === TASK_TYPES.completeOperations ? missions / MISSIONS_PER_OPERATION : missions * EXTRACTED
        }
        if (add > 0) order.progress[rule.i] = (order.progress[rule.i] ?? 0) + add
      }
    }
  }

  /** The tally a Defense or Expand task counts from (0 for the other types). */
  private tallyFor(task: Task): number {
    if (task.type === TASK_TYPES.expand || (task.type === TASK_TYPES.liberation && planetOf(task) === undefined)) return this.war.tally.liberated
    if (task.type !== TASK_TYPES.defense) return 0
    const race = valueOf(task, VT.race) ?? 0
    if (race !== 0) return this.war.tally.defensesWon.get(race) ?? 0
    return [...this.war.tally.defensesWon.values()].reduce((a, b) => a + b, 0)
  }

  /** The progress of the tasks that follow the war's state rather than its counters. */
  private updateProgress(order: Order): void {
    order.tasks.forEach((task, i) => {
      const planet = planetOf(task)
      switch (task.type) {
        case TASK_TYPES.liberation:
        case TASK_TYPES.control:
          order.progress[i] = planet === undefined ? this.tallyFor(task) - (order.base[i] ?? 0) : this.war.planets[planet]?.owner === HUMANS ? 1 : 0
          break
        case TASK_TYPES.defense:
          order.progress[i] = Math.min(goalOf(task), this.tallyFor(task) - (order.base[i] ?? 0))
          break
        case TASK_TYPES.expand:
          order.progress[i] = this.tallyFor(task) - (order.base[i] ?? 0)
          break
      }
    })
  }

  /** Progress, completion and expiry at war time `t`; a new regular order when one is due. */
  run(t: number): void {
    for (const order of [...this.orders]) {
      if (order.completedAt !== undefined) {
        if (t >= order.completedAt + ORDER_LINGER_S || t >= order.endTime) this.orders = this.orders.filter((o) => o !== order)
        continue
      }
      this.updateProgress(order)
      const done = order.tasks.every((task, i) => (order.progress[i] ?? 0) >= goalOf(task))
      // Holding a planet is judged when the order expires.
      const judgedAtExpiry = order.tasks.some((task) => task.type === TASK_TYPES.control)
      if ((done && !judgedAtExpiry) || t >= order.endTime) {
        if (done && t < order.endTime) order.completedAt = t
        else this.orders = this.orders.filter((o) => o !== order)
        if (!order.showcase) this.nextOrderAt = t + 3600 * (2 + 8 * rand(this.seed, S.order, this.ordersCreated, 9))
        this.war.orderEnded(order, done)
      }
    }
    if (t >= this.nextOrderAt && !this.orders.some((o) => !o.showcase && o.completedAt === undefined)) this.createOrder(t)
  }

  /** A goal for a counting task that the war's average players reach in 0.5–1× of the order's time, rounded to two digits. */
  private countGoal(type: number, race: number, difficulty: number, from: number, to: number, r: number): number {
    let players = 0
    for (let k = 0; k < 48; k++) players += playersTotalAt(this.seed, from + k * 1800) / 48
    // Per player-second: kills (0.05, a kill task's share ~0.1) or won missions (1/1800 at ~91 %, squads of four).
    const missions = (0.91 / 1800 / SQUAD) * difficultyShare(difficulty)
    const perS =
      type === TASK_TYPES.eradicate ? 0.05 * 0.1
      : type === TASK_TYPES.completeOperations ? missions / MISSIONS_PER_OPERATION
      : type === TASK_TYPES.extract ? missions * EXTRACTED
      : missions
    const raw = players * (to - from) * perS * (race === 0 ? 1 : 0.5) * (0.5 + 0.5 * r)
    const unit = 10 ** Math.max(0, Math.floor(Math.log10(Math.max(1, raw))) - 1)
    return Math.max(1, Math.round(raw / unit) * unit)
  }

  private createOrder(t: number): void {
    const n = this.ordersCreated++
    const r = (k: number) => rand(this.seed, S.order, n, k)
    const id32 = hash32(this.seed, S.order, n) || 1
    const reward = 35 + 5 * Math.floor(r(1) * 6)
    const endTime = t + Math.round(DAY_S * (3 + 2 * r(2)))
    const enemyFronts = this.war.campaigns().filter((c) => this.planet(c.planetIndex).owner !== HUMANS)
    const race = r(6) < 0.5 ? TERMINIDS : AUTOMATONS
    const kind = r(3)
    const brief = (briefs: readonly string[]) => pick(briefs, r(5)) ?? briefs[0]!
    let tasks: Task[]
    let briefing: string
    if (kind < 0.3 && enemyFronts.length > 0) {
      const targets = enemyFronts.slice(0, 1 + Math.floor(r(4) * Math.min(3, enemyFronts.length)))
      briefing = brief(text.LIBERATE_BRIEFS)
      tasks = targets.map((c) => ({ type: TASK_TYPES.liberation, values: [1, 1, c.planetIndex], valueTypes: [3, 11, 12] }))
    } else if (kind < 0.5) {
      const count = 1 + Math.floor(r(7) * 3)
      const goal = (1 + Math.floor(r(8) * 5)) * 100_000_000
      briefing = brief(text.ERADICATE_BRIEFS)
      tasks = Array.from({ length: count }, () => ({
        type: TASK_TYPES.eradicate, values: [race, 0, goal, 0, 0, 0, 0, 0, 0, 0], valueTypes: [...ERADICATE_VALUE_TYPES],
      }))
    } else if (kind < 0.62) {
      briefing = brief(text.DEFEND_BRIEFS)
      tasks = [{ type: TASK_TYPES.defense, values: [race, 1 + Math.floor(r(7) * 3)], valueTypes: [VT.race, VT.goal] }]
    } else if (kind < 0.72) {
      briefing = brief(text.EXPAND_BRIEFS)
      tasks = [{ type: TASK_TYPES.expand, values: [1 + Math.floor(r(7) * 2)], valueTypes: [VT.goal] }]
    } else if (kind < 0.82) {
      // Hold the planets that supply the fronts against one race, and fight there.
      const sources = [...new Set(this.war.attacks().filter((a) => this.planet(a.target).owner === race).map((a) => a.source))]
      const held = sources.length > 0 ? sources : this.war.defenseCandidates(race, r(4), r(8))
      const hold = held.slice(0, 1 + Math.floor(r(4) * Math.min(2, held.length)))
      briefing = brief(text.CONTROL_BRIEFS)
      tasks = [
        ...hold.map((i) => ({ type: TASK_TYPES.control, values: [1, 1, i], valueTypes: [VT.goal, VT.locationType, VT.locationIndex] })),
        { type: TASK_TYPES.completeMissions, values: [race, this.countGoal(TASK_TYPES.completeMissions, race, 0, t, endTime, r(9))], valueTypes: [VT.race, VT.goal] },
      ]
    } else {
      const kinds = [TASK_TYPES.completeMissions, TASK_TYPES.completeOperations, TASK_TYPES.extract]
      const count = 1 + Math.floor(r(7) * 3)
      briefing = brief(text.MISSION_BRIEFS)
      tasks = Array.from({ length: count }, (_, k) => {
        const type = kinds[(Math.floor(r(8) * 3) + k) % 3]!
        const difficulty = 3 + Math.floor(r(10 + k) * 5)
        const byRace = r(20 + k) < 0.5
        const goal = this.countGoal(type, byRace ? race : 0, byRace ? 0 : difficulty, t, endTime, r(30 + k))
        return byRace
          ? { type, values: [race, goal], valueTypes: [VT.race, VT.goal] }
          : { type, values: [goal, difficulty], valueTypes: [VT.goal, VT.difficulty] }
      })
    }
    this.issueOrder({
      id32, startTime: t, endTime, brief: briefing, tasks, progress: tasks.map(() => 0),
      base: tasks.map((task) => this.tallyFor(task)), reward, flags: 1,
    })
  }

  private issueOrder(order: Order): void {
    this.orders.push(order)
    this.war.orderIssued(order)
  }

  /**
   * The showcase order (war.ts OPENING): a task of every type against `race`, liberating
   * `front` and holding `hold`, until `endTime`, beside the regular orders.
   */
  issueShowcase(race: number, front: number | undefined, hold: number, id32: number, endTime: number, r: (k: number) => number): void {
    const t = this.war.time()
    const counted = (type: number, valueTypes: number[], values: number[]) => ({ type, values, valueTypes })
    const tasks: Task[] = [
      counted(TASK_TYPES.extract, [VT.goal, VT.difficulty], [this.countGoal(TASK_TYPES.extract, 0, 7, t, endTime, r(5)), 7]),
      counted(TASK_TYPES.eradicate, ERADICATE_VALUE_TYPES, [race, 0, this.countGoal(TASK_TYPES.eradicate, race, 0, t, endTime, r(6)), 0, 0, 0, 0, 0, 0, 0]),
      counted(TASK_TYPES.completeMissions, [VT.race, VT.goal], [race, this.countGoal(TASK_TYPES.completeMissions, race, 0, t, endTime, r(7))]),
      counted(TASK_TYPES.completeOperations, [VT.goal, VT.difficulty], [this.countGoal(TASK_TYPES.completeOperations, 0, 4, t, endTime, r(8)), 4]),
      ...(front !== undefined ? [counted(TASK_TYPES.liberation, [VT.goal, VT.locationType, VT.locationIndex], [1, 1, front])] : []),
      counted(TASK_TYPES.defense, [VT.race, VT.goal], [race, 2]),
      counted(TASK_TYPES.control, [VT.goal, VT.locationType, VT.locationIndex], [1, 1, hold]),
      counted(TASK_TYPES.expand, [VT.goal], [1]),
    ]
    this.issueOrder({
      id32, startTime: t, endTime, brief: text.SHOWCASE_BRIEF, tasks,
      progress: tasks.map(() => 0), base: tasks.map((task) => this.tallyFor(task)), reward: 75, flags: 1, showcase: true,
    })
  }

  /** The running orders, oldest first, their texts in `language` (default en-US). */
  assignments(language?: string): Assignment[] {
    const now = this.war.time()
    return this.orders.map((order) => {
      const reward = { type: 1, id32: MEDALS_ID32, amount: order.reward }
      return {
        id32: order.id32,
        progress: order.progress.map(Math.floor),
        expiresIn: Math.max(0, order.endTime - now),
        ...(order.startTime === undefined ? {} : { startTime: order.startTime }),
        setting: {
          type: 4, overrideTitle: localize('MAJOR ORDER', language), overrideBrief: localize(order.brief, language), taskDescription: '',
          tasks: order.tasks.map((task) => ({ ...task, values: [...task.values], valueTypes: [...task.valueTypes] })),
          rewards: [{ ...reward }], reward, flags: order.flags,
        },
      }
    })
  }

  /** The running orders in short, oldest first. */
  view(): { id32: number; expiresIn: number; progress: number[] }[] {
    const now = this.war.time()
    return this.orders.map((o) => ({ id32: o.id32, expiresIn: Math.max(0, o.endTime - now), progress: o.progress.map(Math.floor) }))
  }
}
