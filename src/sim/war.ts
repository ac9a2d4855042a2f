/**
 * One simulated war season: the state behind the upstream Status, WarInfo, Summary,
 * Assignment and NewsFeed payloads, advanced in 10-second war-time steps.
 *
 * Determinism: every random draw hashes (seed, step or time, salt), so a war replayed
 * to the same step with the same seed is identical, whatever the wall clock did.
 */
import type {
  Assignment,
  Campaign,
  GalaxyStats,
  GlobalEvent,
  NewsItem,
  PlanetEvent,
  PlanetStatus,
  Task,
  WarInfo,
  WarStatus,
  WarSummary,
} from '../feeds/upstream.ts'
import { ASSIGNMENT_SAMPLE, NEWS_SAMPLE, STATUS_SAMPLE, SUMMARY_SAMPLE, WAR_INFO_SAMPLE, planetName } from './assets.ts'
import { countersFrom, PLACEHOLDER_ROWS, renderCounters, zeroCounters, type Counters } from './counters.ts'
import { Crowd, playersTotalAt } from './crowd.ts'
import { CAPTURED, defenseImpact, eventMaxHealth, liberationImpact, ownerBy, regenFor, withdrawn } from './fronts.ts'
import { localize } from './languages.ts'
import { gauss, hash32, pick, rand } from './random.ts'
import * as text from './texts.ts'

export const STEP_S = 10
/** War time runs slightly slower than real time (99.3–99.85 % measured). */
export const WAR_TIME_RATE = 0.995
/** War 801 resumes just after the newest real dispatch sample (published 2899330). */
export const START_WAR_TIME_801 = 2_899_400

const HUMANS = 1
const TERMINIDS = 2
const AUTOMATONS = 3
const HUMAN_REGEN = 1388.8889
const MEDALS_ID32 = 897894480
const DAY_S = 86_400
const HOUR_STEPS = 3600 / STEP_S
const MAX_CAMPAIGNS = 12

// Salts keep independent draws apart (1-7: the players' spread, crowd.ts).
const S = {
  impact: 8,
  newCampaign: 9, defense: 10, defensePick: 11, flavor: 12, order: 13, win: 14, effect: 15,
  supply: 16, showcase: 17, regen: 18, withdraw: 19, live: 20, retake: 21,
} as const

/** Task types (helldivers-2/json assignments/tasks/task/type.json). */
export const TASK_TYPES = {
  extract: 2, eradicate: 3, completeMissions: 7, completeOperations: 9, liberation: 11, defense: 12, control: 13, expand: 15,
} as const
/** Value types of a task's values (assignments/tasks/task/valueTypes.json). */
const VT = { race: 1, goal: 3, difficulty: 9, locationType: 11, locationIndex: 12 } as const
/** The ten value slots of an Eradicate task, as real payloads carry them. */
const ERADICATE_VALUE_TYPES = [1, 2, 3, 4, 6, 5, 8, 9, 11, 12]

/** A task's first value of `valueType`. */
function valueOf(task: Task, valueType: number): number | undefined {
  const k = task.valueTypes.indexOf(valueType)
  return k < 0 ? undefined : task.values[k]
}
/** Its goal (value type 3), 1 without one. */
export const goalOf = (task: Task): number => Math.max(1, valueOf(task, VT.goal) ?? 1)
/** The planet it names: location_index when location_type is 1 (planet). */
export const planetOf = (task: Task): number | undefined =>
  valueOf(task, VT.locationType) === 1 ? valueOf(task, VT.locationIndex) : undefined
/** Share of missions played at `difficulty` or higher (0: every mission). */
const difficultyShare = (difficulty: number) => (difficulty <= 1 ? 1 : Math.max(0.1, 1 - (difficulty - 1) / 10))
/** A squad of four shares one mission; the summary counts it once per player. */
const SQUAD = 4
/** Missions per operation. */
const MISSIONS_PER_OPERATION = 3
/** Missions that end with an extraction. */
const EXTRACTED = 0.85

/**
 * How the simulated war of 801 resumes, so that `npm run demo` (speed 1) shows every case
 * within its first minutes: the captured defense is in its last minutes (lost), a second
 * one is all but won, a third begins when one of them ends; a showcase order with a task
 * of every kind runs beside the captured order.
 */
export const OPENING = {
  /** War seconds left to the captured defense (17.5 min in the capture). */
  capturedDefenseLeftS: 210,
  /** Steps the near-won defense holds out at the players it starts with. */
  holdoutSteps: 12,
  /** War seconds after the start at which the third defense begins (when a slot is free). */
  nextDefenseAfterS: 150,
  /** How long the showcase order runs, and how long the crowd first rallies to its liberation target. */
  showcaseS: 2 * 86_400,
  showcaseRallyS: 86_400,
  /**
   * When the demo goes live after a day or more of history (WarOptions.liveAtTick), its
   * opening is staged `leadS` before, so that the service has ticks of it in its window: a
   * showcase order again, its liberation target the front the crowd can push hardest (the
   * lowest regeneration), where it rallies for `rallyS`; one defense set to be won in about
   * `winningS` at its players' pace, another with `losingTakenShare` of its health taken and
   * `losingLeftS` to go when the demo goes live, too far behind to be won. No other defense
   * begins the day before.
   */
  live: { leadS: 2 * 3600, rallyS: 3 * 3600, winningS: 6 * 3600, losingLeftS: 3 * 3600, losingTakenShare: 0.15 },
} as const

/** Planets joined by a supply line (WarInfo waypoints, stored on one end only). */
const NEIGHBOURS: ReadonlyMap<number, readonly number[]> = (() => {
  const map = new Map<number, number[]>()
  const link = (a: number, b: number) => {
    const list = map.get(a) ?? []
    if (!list.includes(b)) map.set(a, [...list, b])
  }
  for (const p of WAR_INFO_SAMPLE.planetInfos) {
    for (const w of p.waypoints) {
      link(p.index, w)
      link(w, p.index)
    }
  }
  return map
})()

/** Galactic effects a front carries (ids of the shipped effects table: gloom, enemy strains and surges, an exostorm). */
const FRONT_EFFECTS = [1186, 1243, 1285, 1355, 1360, 1373]

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
interface Order {
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

/** A counting task of an order, as `credit` reads it (War.creditRules). */
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

export { playersTotalAt }

/** Median ≈0.0023, mostly 0.0007–0.037, changing every 10 minutes. */
export function impactMultiplierAt(seed: number, time: number): number {
  const value = Math.exp(Math.log(0.0023) + 1.0 * gauss(seed, S.impact, Math.floor(time / 600)))
  return Number(Math.min(0.4, Math.max(0.0005, value)).toPrecision(8))
}

export interface WarOptions {
  seed: number
  warId: number
  /** Resume war 801 from the real captures, or start a new war from the initial map. */
  from: 'samples' | 'fresh'
  /** Unix seconds of war start for a fresh war (WarInfo startDate). */
  startDate?: number
  firstDispatchId?: number
  /** The step at which the demo goes live after its history (OPENING.live); none: no live opening. */
  liveAtTick?: number
}

export class War {
  readonly warId: number
  readonly startDate: number
  readonly startWarTime: number
  /** Steps taken since the simulation of this war began. */
  tick = 0
  frozen = false
  /** Clock tick at which this war's tick 0 happened (shifted by freezes). */
  tickBase = 0

  private readonly seed: number
  private readonly planets: PlanetStatus[]
  private campaigns: Campaign[]
  private events: PlanetEvent[]
  private jointOps: { id: number; planetIndex: number; hqNodeIndex: number }[]
  private attacks: { source: number; target: number }[]
  private globalEvents: GlobalEvent[]
  private readonly news: NewsItem[]
  private orders: Order[]
  private nextOrderAt: number
  private ordersCreated = 0
  private readonly counters = new Map<number, Counters>()
  private readonly galaxy: Counters
  private readonly crowd: Crowd
  private readonly ids: { campaign: number; event: number; dispatch: number; globalEvent: number }
  /** What order tasks count: defenses won per attacking race, planets liberated. */
  private readonly tally = { defensesWon: new Map<number, number>(), liberated: 0 }
  /** Planets the players liberated: when, and from whom (CAPTURED.retake). */
  private readonly liberated = new Map<number, { at: number; from: number }>()
  /** A defense that begins at `at` (or when a slot frees after it). */
  private plannedDefense?: { at: number; planetIndex: number; race: number }
  /** The step the live opening is staged at (OPENING.live), and the front the crowd rallies to until a war time. */
  private readonly liveStageTick?: number
  private rally?: { planetIndex: number; until: number }
  private readonly winRates = new Map<number, number>()
  private readonly credits = new WeakMap<Order, CreditRule[]>()

  constructor(opts: WarOptions) {
    this.seed = opts.seed
    this.warId = opts.warId
    this.crowd = new Crowd(opts.seed)
    const fromSamples = opts.from === 'samples'
    this.startDate = fromSamples ? WAR_INFO_SAMPLE.startDate : (opts.startDate ?? Math.floor(Date.now() / 1000))
    this.startWarTime = fromSamples ? START_WAR_TIME_801 : 0

    if (fromSamples) {
      this.planets = STATUS_SAMPLE.planetStatus.map((p) => ({ ...p, players: 0 }))
      this.campaigns = (STATUS_SAMPLE.campaigns ?? []).map((c) => ({ ...c }))
      // The sample's defense is in its last minutes, as in the capture (OPENING).
      const expireTime = this.startWarTime + OPENING.capturedDefenseLeftS
      this.events = (STATUS_SAMPLE.planetEvents ?? []).map((e) => ({
        ...e, jointOperationIds: [...e.jointOperationIds], startTime: expireTime - DAY_S, expireTime,
      }))
      this.jointOps = (STATUS_SAMPLE.jointOperations ?? []).map((j) => ({ ...j }))
      this.attacks = (STATUS_SAMPLE.planetAttacks ?? []).map((a) => ({ ...a }))
      this.globalEvents = (STATUS_SAMPLE.globalEvents ?? []).map((g) => ({ ...g }))
      this.news = NEWS_SAMPLE.map((n) => ({ ...n }))
      for (const row of SUMMARY_SAMPLE.planets_stats ?? []) this.counters.set(row.planetIndex, countersFrom(row))
      this.galaxy = countersFrom(SUMMARY_SAMPLE.galaxy_stats)
      this.orders = ASSIGNMENT_SAMPLE.map((mo) => ({
        id32: mo.id32, endTime: this.startWarTime + mo.expiresIn, brief: mo.setting.overrideBrief,
        tasks: mo.setting.tasks, progress: [...mo.progress], base: mo.setting.tasks.map(() => 0),
        reward: mo.setting.reward?.amount ?? 50, flags: mo.setting.flags,
      }))
    } else {
      this.planets = WAR_INFO_SAMPLE.planetInfos.map((p) => ({
        index: p.index, owner: p.initialOwner, health: p.maxHealth,
        regenPerSecond: HUMAN_REGEN, players: 0,
      }))
      this.campaigns = []
      this.events = []
      this.jointOps = []
      this.attacks = []
      this.globalEvents = []
      this.news = []
      this.galaxy = zeroCounters()
      this.orders = []
    }
    // A resumed war keeps the captured regeneration until its owner's next level.
    if (!fromSamples) for (const p of this.planets) if (p.owner !== HUMANS) p.regenPerSecond = this.regenOf(p.index)
    this.nextOrderAt = this.startWarTime + 3600
    const stageAt = (opts.liveAtTick ?? 0) - OPENING.live.leadS / STEP_S
    if (stageAt >= DAY_S / STEP_S) this.liveStageTick = stageAt
    const maxId = (xs: { id: number }[], fallback: number) => Math.max(fallback, ...xs.map((x) => x.id))
    this.ids = {
      campaign: maxId(this.campaigns, 50_000) + 1,
      event: maxId(this.events, 4_311) + 1,
      dispatch: opts.firstDispatchId ?? maxId(this.news, 2_806) + 1,
      globalEvent: Math.max(1_499_086, ...this.globalEvents.map((g) => g.eventId)) + 1,
    }
    // A war always has fronts: top up to three liberation campaigns.
    while (this.campaigns.length < 3 && this.spawnCampaign(-this.campaigns.length - 1)) {}
    this.refreshAttacks()
    const holdout = fromSamples ? this.openWithShowcase() : undefined
    this.distributePlayers(this.time)
    // All but won: it holds out about OPENING.holdoutSteps steps at the players it starts with.
    if (holdout) holdout.health = Math.max(1, this.defenseDamage(holdout.planetIndex)) * OPENING.holdoutSteps
  }

  /**
   * The opening of the resumed war (OPENING): a defense against one race that is all but
   * won, the next one planned on another planet of that front, and a showcase order with
   * one task of every type beside the captured order. Returns the near-won defense.
   */
  private openWithShowcase(): PlanetEvent | undefined {
    const t = this.time
    const r = (k: number) => rand(this.seed, S.showcase, k)
    const race = r(1) < 0.5 ? TERMINIDS : AUTOMATONS
    const [first, second] = this.defenseCandidates(race, r(2), r(3))
    if (first === undefined || second === undefined) return undefined
    const holdout = this.spawnDefense(first, race, t - DAY_S + 4 * 3600, eventMaxHealth(r(4)))
    this.plannedDefense = { at: t + OPENING.nextDefenseAfterS, planetIndex: second, race }
    // Its liberation target: the enemy front closest to liberation.
    const front = this.campaigns
      .map((c) => this.planet(c.planetIndex))
      .filter((p) => p.owner !== HUMANS)
      .sort((a, b) => a.health - b.health || a.index - b.index)[0]
    this.issueShowcase(race, front?.index, second, hash32(this.seed, S.showcase) || 2, OPENING.showcaseRallyS, r)
    return holdout
  }

  /**
   * The showcase order (OPENING): a task of every type against `race`, liberating `front`
   * and holding `hold`, beside the regular orders; the crowd rallies to its front for `rallyS`.
   */
  private issueShowcase(race: number, front: number | undefined, hold: number, id32: number, rallyS: number, r: (k: number) => number): void {
    const t = this.time
    if (front !== undefined) this.rally = { planetIndex: front, until: t + rallyS }
    const endTime = t + OPENING.showcaseS
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

  get time(): number {
    return this.startWarTime + this.tick * STEP_S
  }

  get nextDispatchId(): number {
    return this.ids.dispatch
  }

  /** Steps until `tick` is reached; a frozen war does not move. */
  advanceTo(tick: number): void {
    if (this.frozen) return
    while (this.tick < tick) this.step()
  }

  step(): void {
    this.tick++
    const t = this.time
    this.distributePlayers(t)
    this.fight(t)
    this.accumulate()
    this.runOrders(t)
    this.randomEvents(t)
    if (this.tick === this.liveStageTick) this.stageLive()
  }

  /** The live opening (OPENING.live): a showcase order and a rally to its front, a defense on track and one too far behind. */
  private stageLive(): void {
    const t = this.time
    const { leadS, rallyS, winningS, losingLeftS, losingTakenShare } = OPENING.live
    // The rally's front: against the enemy that regenerates least (opened if there is none), the furthest from liberation.
    const enemy = this.planets.filter((p) => p.owner !== HUMANS).sort((a, b) => a.regenPerSecond - b.regenPerSecond || a.index - b.index)
    const weakest = enemy[0]?.owner
    const defended = new Set(this.events.map((e) => e.planetIndex))
    const onFront = (c: Campaign) => this.planet(c.planetIndex).owner === weakest && !defended.has(c.planetIndex)
    if (weakest !== undefined && !this.campaigns.some(onFront)) this.spawnCampaign(this.tick, weakest)
    const [front] = this.campaigns.filter(onFront).sort((a, b) => this.planet(b.planetIndex).health - this.planet(a.planetIndex).health)
    const r = (k: number) => rand(this.seed, S.live, k)
    const race = r(1) < 0.5 ? TERMINIDS : AUTOMATONS
    const [ahead, behind] = this.defenseCandidates(race, r(2), r(3))
    if (ahead === undefined || behind === undefined) return
    this.issueShowcase(race, front?.planetIndex, ahead, hash32(this.seed, S.live) || 3, rallyS, (k) => r(10 + k))
    const winning = this.spawnDefense(ahead, race, t - leadS, eventMaxHealth(r(4)), true)
    const losing = this.spawnDefense(behind, race, t + leadS + losingLeftS - DAY_S, eventMaxHealth(r(5)), true)
    losing.health = Math.round(losing.maxHealth * (1 - losingTakenShare))
    this.distributePlayers(t)
    winning.health = Math.min(winning.maxHealth, Math.max(1, this.defenseDamage(ahead)) * (winningS / STEP_S))
  }

  // ------------------------------------------------------------------ players

  private distributePlayers(t: number): void {
    const rally = this.rally && t < this.rally.until && this.planet(this.rally.planetIndex).owner !== HUMANS ? this.rally.planetIndex : undefined
    this.crowd.spread(t, {
      planets: this.planets, defended: this.events.map((e) => e.planetIndex), campaigns: this.campaigns.map((c) => c.planetIndex), rally,
      targets: this.orders.flatMap((o) => o.tasks.map(planetOf)).filter((i): i is number => i !== undefined && this.planets[i]?.owner !== HUMANS),
    })
  }

  // ------------------------------------------------------------------ fronts

  /** An enemy planet's regeneration at this step: its owner's level of the period. */
  private regenOf(index: number): number {
    const planet = this.planet(index)
    return regenFor(planet.owner, rand(this.seed, S.regen, planet.owner, Math.floor(this.time / CAPTURED.regenPeriodS)), this.maxHealth(index))
  }

  private fight(t: number): void {
    // Each owner's regeneration changes by period, on all its planets at once.
    if (t % CAPTURED.regenPeriodS < STEP_S) for (const p of this.planets) if (p.owner !== HUMANS) p.regenPerSecond = this.regenOf(p.index)
    // Now and then the enemy takes a planet back without a defense, nearly liberated: a front at once.
    if (rand(this.seed, S.retake, this.tick) < STEP_S / CAPTURED.retake.everyS) this.retake(t)
    for (const event of [...this.events]) {
      const planet = this.planet(event.planetIndex)
      event.health = Math.max(0, event.health - this.defenseDamage(planet.index))
      if (event.health === 0) {
        this.endEvent(event, true)
        this.tally.defensesWon.set(event.race, (this.tally.defensesWon.get(event.race) ?? 0) + 1)
        this.dispatch(text.defendedText(this.name(planet.index)))
      } else if (t >= event.expireTime) {
        this.endEvent(event, false)
        planet.owner = event.race
        planet.health = Math.round(this.maxHealth(planet.index) * CAPTURED.lostDefenseHealth)
        planet.regenPerSecond = this.regenOf(planet.index)
        this.dispatch(text.lostText(this.name(planet.index)))
      }
    }
    const defended = new Set(this.events.map((e) => e.planetIndex))
    const push = liberationImpact(this.crowd.total)
    for (const campaign of [...this.campaigns]) {
      if (defended.has(campaign.planetIndex)) continue
      const planet = this.planet(campaign.planetIndex)
      if (planet.owner === HUMANS) {
        this.campaigns = this.campaigns.filter((c) => c !== campaign)
        continue
      }
      const maxHealth = this.maxHealth(planet.index)
      const net = planet.regenPerSecond - planet.players * push
      planet.health = Math.min(maxHealth, Math.max(0, Math.round(planet.health + net * STEP_S)))
      // A front left at the enemy's full health is closed in time (drawn hourly).
      if (planet.health === maxHealth && this.tick % HOUR_STEPS === 0 && withdrawn(rand(this.seed, S.withdraw, this.tick, campaign.id), 3600)) {
        this.campaigns = this.campaigns.filter((c) => c !== campaign)
        continue
      }
      if (planet.health === 0) {
        this.liberated.set(planet.index, { at: t, from: planet.owner })
        planet.owner = HUMANS
        planet.health = this.maxHealth(planet.index)
        planet.regenPerSecond = HUMAN_REGEN
        this.campaigns = this.campaigns.filter((c) => c !== campaign)
        this.tally.liberated++
        this.dispatch(text.liberatedText(this.name(planet.index)))
        this.spawnCampaign(this.tick)
      }
    }
    // As many fronts open as usual: new ones where fronts closed.
    const open = () => this.campaigns.filter((c) => !defended.has(c.planetIndex)).length
    while (open() < CAPTURED.typicalFronts && this.spawnCampaign(this.tick + 0.5)) {}
    this.refreshAttacks()
  }

  /** What a defended planet's players take off the event's health in a step (at least 1 while anyone fights). */
  private defenseDamage(index: number): number {
    const players = this.planet(index).players
    return players > 0 ? Math.max(1, Math.round(players * defenseImpact(this.crowd.total) * STEP_S)) : 0
  }

  /**
   * Attack lines are the players' supply lines into enemy fronts (in the captures every
   * source is a human planet and every target a liberation campaign): a line goes when its
   * source falls or its target is liberated; a front without one gets one, listed twice as
   * most captured lines are, from a human neighbour (else the nearest human planet).
   */
  private refreshAttacks(): void {
    const fronts = new Set(this.campaigns.map((c) => c.planetIndex).filter((i) => this.planet(i).owner !== HUMANS))
    const kept = this.attacks.filter((a) => this.planet(a.source).owner === HUMANS && fronts.has(a.target))
    if (kept.length !== this.attacks.length) this.attacks = kept
    const supplied = new Set(this.attacks.map((a) => a.target))
    for (const target of fronts) {
      if (supplied.has(target)) continue
      const source = this.supplySource(target)
      if (source !== undefined) this.attacks.push({ source, target }, { source, target })
    }
  }

  private supplySource(target: number): number | undefined {
    const human = (i: number) => this.planets[i]?.owner === HUMANS
    const near = (NEIGHBOURS.get(target) ?? []).filter(human)
    if (near.length > 0) return pick(near, rand(this.seed, S.supply, target))
    const at = WAR_INFO_SAMPLE.planetInfos[target]?.position
    if (!at) return undefined
    let best: number | undefined
    let bestD = Infinity
    for (const p of WAR_INFO_SAMPLE.planetInfos) {
      if (!human(p.index) || p.index === target) continue
      const d = (p.position.x - at.x) ** 2 + (p.position.y - at.y) ** 2
      if (d < bestD) {
        best = p.index
        bestD = d
      }
    }
    return best
  }

  /**
   * Two human planets (not Super Earth, no campaign) for a defense against `race`, drawn
   * with `r1` and `r2`: next to its territory when it borders any, else anywhere;
   * `prefer` first when it still qualifies.
   */
  private defenseCandidates(race: number, r1: number, r2: number, prefer?: number): number[] {
    const busy = new Set(this.campaigns.map((c) => c.planetIndex))
    const free = this.planets.filter((p) => p.owner === HUMANS && p.index !== 0 && !busy.has(p.index)).map((p) => p.index)
    const border = free.filter((i) => (NEIGHBOURS.get(i) ?? []).some((n) => this.planets[n]?.owner === race))
    const pool = border.length >= 2 ? border : free
    if (prefer !== undefined && free.includes(prefer)) return [prefer]
    const first = pick(pool, r1)
    const second = pick(pool.filter((i) => i !== first), r2)
    return [first, second].filter((i): i is number => i !== undefined)
  }

  /** A defense of `planetIndex` against `race` from `startTime`, 24 h long, with its campaign and joint operation. */
  private spawnDefense(planetIndex: number, race: number, startTime: number, maxHealth: number, announce = false): PlanetEvent {
    const id = this.ids.event++
    const campaignId = this.ids.campaign++
    this.campaigns.push({ id: campaignId, planetIndex, type: 0, count: 1 + (hash32(this.seed, id) % 4) })
    this.jointOps.push({ id, planetIndex, hqNodeIndex: 1 })
    const event: PlanetEvent = {
      id, planetIndex, eventType: 1, race, health: maxHealth, maxHealth,
      startTime, expireTime: startTime + DAY_S, campaignId, jointOperationIds: [id],
    }
    this.events.push(event)
    if (announce) this.dispatch(text.defendText(this.name(planetIndex)))
    return event
  }

  private endEvent(event: PlanetEvent, defended: boolean): void {
    this.events = this.events.filter((e) => e !== event)
    this.jointOps = this.jointOps.filter((j) => !event.jointOperationIds.includes(j.id))
    // A lost defense becomes a liberation front, unless there are already as many fronts as 2024 ever had.
    if (defended || this.campaigns.length > MAX_CAMPAIGNS) this.campaigns = this.campaigns.filter((c) => c.id !== event.campaignId)
    else for (const c of this.campaigns) if (c.id === event.campaignId) c.count++
  }

  /** A new liberation campaign on an enemy planet without one; false when none is left. */
  private spawnCampaign(salt: number, against?: number): boolean {
    const busy = new Set(this.campaigns.map((c) => c.planetIndex))
    const free = this.planets.filter((p) => p.owner !== HUMANS && !busy.has(p.index))
    // The fronts split between the enemies as in the captures, however many planets each holds.
    const owner = against ?? ownerBy(CAPTURED.frontShare, new Set(free.map((p) => p.owner)), rand(this.seed, S.newCampaign, salt, 1))
    const planet = pick(free.filter((p) => p.owner === owner), rand(this.seed, S.newCampaign, salt))
    if (!planet) return false
    this.campaigns.push({ id: this.ids.campaign++, planetIndex: planet.index, type: 0, count: 1 + (hash32(this.seed, salt) % 5) })
    return true
  }

  /** A planet the players liberated lately falls back to its enemy, nearly liberated, and is a front at once (CAPTURED.retake). */
  private retake(t: number): void {
    const r = (k: number) => rand(this.seed, S.retake, this.tick, k)
    const busy = new Set([...this.campaigns.map((c) => c.planetIndex), ...this.events.map((e) => e.planetIndex)])
    for (const [i, l] of this.liberated) if (t - l.at > CAPTURED.retake.withinS || this.planet(i).owner !== HUMANS) this.liberated.delete(i)
    const lately = [...this.liberated].filter(([i]) => !busy.has(i))
    const [index, { from }] = pick(lately, r(1)) ?? [undefined, { from: 0 }]
    if (index === undefined || this.campaigns.length > MAX_CAMPAIGNS) return
    this.liberated.delete(index)
    const planet = this.planet(index)
    const [least, most] = CAPTURED.retake.healthShare
    planet.owner = from
    planet.health = Math.round(this.maxHealth(index) * (least + (most - least) * r(3)))
    planet.regenPerSecond = this.regenOf(index)
    this.campaigns.push({ id: this.ids.campaign++, planetIndex: index, type: 0, count: 1 + (hash32(this.seed, S.retake, this.tick) % 5) })
    this.dispatch(text.lostText(this.name(index)))
  }

  private randomEvents(t: number): void {
    const maxHealth = () => eventMaxHealth(rand(this.seed, S.defense, this.tick, 1))
    const planned = this.plannedDefense
    if (planned && t >= planned.at && this.events.length < 2) {
      this.plannedDefense = undefined
      const [planetIndex] = this.defenseCandidates(planned.race, rand(this.seed, S.defensePick, this.tick), 0, planned.planetIndex)
      if (planetIndex !== undefined) this.spawnDefense(planetIndex, planned.race, t, maxHealth(), true)
    }
    // A new defense as often as in the captures (every 6 h while an order asks for defenses),
    // at most two at a time, on a planet next to the attacker's territory.
    const wanted = this.orders.flatMap((o) => o.tasks.filter((task, i) => task.type === TASK_TYPES.defense && (o.progress[i] ?? 0) < goalOf(task)))
    const rate = STEP_S / (wanted.length > 0 ? 21_600 : CAPTURED.defenseEveryS)
    const beforeLive = this.liveStageTick !== undefined && this.tick >= this.liveStageTick - DAY_S / STEP_S && this.tick < this.liveStageTick
    if (this.events.length < 2 && !beforeLive && rand(this.seed, S.defense, this.tick) < rate) {
      const asked = wanted.map((task) => valueOf(task, VT.race) ?? 0).find((race) => race > 0)
      const race = asked ?? (rand(this.seed, S.defense, this.tick, 2) < 0.5 ? TERMINIDS : AUTOMATONS)
      const [planetIndex] = this.defenseCandidates(race, rand(this.seed, S.defensePick, this.tick), 0)
      if (planetIndex !== undefined) this.spawnDefense(planetIndex, race, t, maxHealth(), true)
    }
    // A flavour dispatch about every 10 h.
    if (rand(this.seed, S.flavor, this.tick) < STEP_S / 36_000) {
      this.dispatch(pick(text.FLAVOR_DISPATCHES, rand(this.seed, S.flavor, this.tick, 1)) ?? text.FLAVOR_DISPATCHES[0])
    }
  }

  // ------------------------------------------------------------------ statistics

  private accumulate(): void {
    const raceOf = new Map(this.events.map((e) => [e.planetIndex, e.race]))
    for (const index of this.crowd.active) {
      const planet = this.planet(index)
      if (planet.players === 0) continue
      const seconds = planet.players * STEP_S
      const missions = seconds / 1800
      const winRate = this.winRateOf(index)
      const race = raceOf.get(index) ?? (planet.owner === HUMANS ? TERMINIDS : planet.owner)
      const kills = seconds * 0.05
      let row = this.counters.get(index)
      if (!row) this.counters.set(index, (row = zeroCounters()))
      for (const c of [row, this.galaxy]) {
        c.timePlayed += seconds
        c.missionsWon += missions * winRate
        c.missionsLost += missions * (1 - winRate)
        if (race === TERMINIDS) c.bugKills += kills
        else if (race === AUTOMATONS) c.automatonKills += kills
        else c.illuminateKills += kills
        // Hits outnumber shots, as in the real galaxy counters.
        c.bulletsFired += seconds * 0.8
        c.bulletsHit += seconds * 0.9
        c.deaths += seconds / 600
        c.friendlies += (seconds / 600) * 0.11
      }
      this.credit(index, race, kills, missions * winRate)
    }
  }

  // ------------------------------------------------------------------ major orders

  /** A planet's share of missions won (drawn once per planet). */
  private winRateOf(index: number): number {
    let rate = this.winRates.get(index)
    if (rate === undefined) this.winRates.set(index, (rate = 0.86 + 0.1 * rand(this.seed, S.win, index)))
    return rate
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
  private credit(planetIndex: number, race: number, kills: number, missionsWon: number): void {
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
    if (task.type === TASK_TYPES.expand || (task.type === TASK_TYPES.liberation && planetOf(task) === undefined)) return this.tally.liberated
    if (task.type !== TASK_TYPES.defense) return 0
    const race = valueOf(task, VT.race) ?? 0
    if (race !== 0) return this.tally.defensesWon.get(race) ?? 0
    return [...this.tally.defensesWon.values()].reduce((a, b) => a + b, 0)
  }

  /** The progress of the tasks that follow the war's state rather than its counters. */
  private updateProgress(order: Order): void {
    order.tasks.forEach((task, i) => {
      const planet = planetOf(task)
      switch (task.type) {
        case TASK_TYPES.liberation:
        case TASK_TYPES.control:
          order.progress[i] = planet === undefined ? this.tallyFor(task) - (order.base[i] ?? 0) : this.planets[planet]?.owner === HUMANS ? 1 : 0
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

  private runOrders(t: number): void {
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
        this.globalEvent(text.orderEndText(done), '', done ? 2 : 3, 0)
        this.dispatch(text.orderEndText(done))
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
    const enemyFronts = this.campaigns.filter((c) => this.planet(c.planetIndex).owner !== HUMANS)
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
      const sources = [...new Set(this.attacks.filter((a) => this.planet(a.target).owner === race).map((a) => a.source))]
      const held = sources.length > 0 ? sources : this.defenseCandidates(race, r(4), r(8))
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
    // The MO text sits entirely in the title with an empty message, as upstream does.
    this.globalEvent(text.newOrderText(order.brief), '', 0, order.id32)
    this.dispatch(text.newOrderText(order.brief))
  }

  // ------------------------------------------------------------------ helpers

  private planet(index: number): PlanetStatus {
    const planet = this.planets[index]
    if (!planet) throw new Error(`no planet ${index}`)
    return planet
  }

  private maxHealth(index: number): number {
    return WAR_INFO_SAMPLE.planetInfos[index]?.maxHealth ?? 1_000_000
  }

  name(index: number): string {
    return planetName(index)?.name ?? `Planet ${index}`
  }

  private dispatch(message: string): void {
    this.news.push({ id: this.ids.dispatch++, published: this.time, type: 0, tagIds: [], message })
  }

  private globalEvent(title: string, message: string, flag: number, assignmentId32: number): void {
    this.globalEvents = [
      ...this.globalEvents.slice(-2),
      {
        eventId: this.ids.globalEvent++, id32: 0, portraitId32: 0, title, titleId32: hash32(this.seed, this.ids.globalEvent),
        message, messageId32: 0, race: 0, flag, assignmentId32, effectIds: [], planetIndices: [],
      },
    ]
  }

  // ------------------------------------------------------------------ payloads (fresh copies)

  status(): WarStatus {
    return {
      warId: this.warId,
      time: this.time,
      impactMultiplier: impactMultiplierAt(this.seed, this.time),
      storyBeatId32: 0,
      planetStatus: this.planets.map((p) => ({ ...p })),
      planetAttacks: this.attacks.map((a) => ({ ...a })),
      campaigns: this.campaigns.map((c) => ({ ...c })),
      communityTargets: [],
      jointOperations: this.jointOps.map((j) => ({ ...j })),
      planetEvents: this.events.map((e) => ({ ...e, jointOperationIds: [...e.jointOperationIds] })),
      // One effect per front, picked by its campaign: effects come and go with the fronts.
      planetActiveEffects: this.campaigns.map((c) => ({
        index: c.planetIndex, galacticEffectId: FRONT_EFFECTS[hash32(this.seed, S.effect, c.id) % FRONT_EFFECTS.length]!,
      })),
      activeElectionPolicyEffects: [],
      globalEvents: this.globalEvents.map((g) => ({ ...g, effectIds: [...g.effectIds], planetIndices: [...g.planetIndices] })),
      superEarthWarResults: [],
    }
  }

  warInfo(): WarInfo {
    return { ...structuredClone(WAR_INFO_SAMPLE), warId: this.warId, startDate: this.startDate }
  }

  summary(): Required<WarSummary> {
    const rows = this.planets.map((p) => ({ planetIndex: p.index, ...renderCounters(this.counters.get(p.index) ?? zeroCounters(), 0) }))
    return {
      // Galaxy revives are stuck at 2 upstream.
      galaxy_stats: renderCounters(this.galaxy, 2),
      planets_stats: [...rows, ...PLACEHOLDER_ROWS.map((r) => ({ ...r }))],
    }
  }

  /** The running orders, oldest first, their texts in `language` (default en-US). */
  assignments(language?: string): Assignment[] {
    return this.orders.map((order) => {
      const reward = { type: 1, id32: MEDALS_ID32, amount: order.reward }
      return {
        id32: order.id32,
        progress: order.progress.map(Math.floor),
        expiresIn: Math.max(0, order.endTime - this.time),
        ...(order.startTime === undefined ? {} : { startTime: order.startTime }),
        setting: {
          type: 4, overrideTitle: localize('MAJOR ORDER', language), overrideBrief: localize(order.brief, language), taskDescription: '',
          tasks: order.tasks.map((task) => ({ ...task, values: [...task.values], valueTypes: [...task.valueTypes] })),
          rewards: [{ ...reward }], reward, flags: order.flags,
        },
      }
    })
  }

  /**
   * Items published after `fromTimestamp` (war time), newest `maxEntries` (default 10,
   * cap 1024) in id order, messages in `language` (default en-US); without a language the
   * upstream leaves `message` out.
   */
  newsfeed(opts: { fromTimestamp?: number; maxEntries?: number; withMessage: boolean; language?: string }): NewsItem[] {
    const max = Math.min(1024, Math.max(1, opts.maxEntries ?? 10))
    const from = opts.fromTimestamp ?? 0
    return this.news
      .filter((n) => n.published > from)
      .slice(-max)
      .map(({ message, ...item }) => ({
        ...item, tagIds: [], ...(opts.withMessage && message !== undefined ? { message: localize(message, opts.language) } : {}),
      }))
  }

  /** Live view for control.state() and the community payload. */
  planetsView(): readonly Readonly<PlanetStatus>[] {
    return this.planets
  }

  eventsView(): readonly Readonly<PlanetEvent>[] {
    return this.events
  }

  attackersOf(index: number): number[] {
    return this.attacks.filter((a) => a.source === index).map((a) => a.target)
  }

  planetStats(index: number): GalaxyStats {
    return renderCounters(this.counters.get(index) ?? zeroCounters(), 0)
  }

  /** The running orders in short, oldest first. */
  ordersView(): { id32: number; expiresIn: number; progress: number[] }[] {
    return this.orders.map((o) => ({ id32: o.id32, expiresIn: Math.max(0, o.endTime - this.time), progress: o.progress.map(Math.floor) }))
  }
}
