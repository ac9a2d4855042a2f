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
  PlanetStats,
  PlanetStatus,
  Task,
  WarInfo,
  WarStatus,
  WarSummary,
} from '../feeds/upstream.ts'
import { ASSIGNMENT_SAMPLE, NEWS_SAMPLE, STATUS_SAMPLE, SUMMARY_SAMPLE, WAR_INFO_SAMPLE, planetName } from './assets.ts'
import { localize } from './languages.ts'
import { gauss, hash32, pick, rand, smoothNoise } from './random.ts'
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
const ENEMY_REGEN = 4.1666665
const MEDALS_ID32 = 897894480
const DAY_S = 86_400
const EPOCH_S = 6 * 3600
const MAX_CAMPAIGNS = 12

// Salts keep independent draws apart.
const S = {
  active: 1, fill: 2, busy: 3, share: 4, weight: 5, jitter: 6, total: 7, impact: 8,
  newCampaign: 9, defense: 10, defensePick: 11, flavor: 12, order: 13, win: 14,
} as const

interface Counters {
  missionsWon: number
  missionsLost: number
  timePlayed: number
  bugKills: number
  automatonKills: number
  illuminateKills: number
  bulletsFired: number
  bulletsHit: number
  deaths: number
  friendlies: number
}

interface Order {
  id32: number
  startTime?: number
  endTime: number
  brief: string
  kind: 'eradicate' | 'liberate'
  race: number
  tasks: Task[]
  progress: number[]
  reward: number
  flags: number
}

const zeroCounters = (): Counters => ({
  missionsWon: 0, missionsLost: 0, timePlayed: 0, bugKills: 0, automatonKills: 0, illuminateKills: 0,
  bulletsFired: 0, bulletsHit: 0, deaths: 0, friendlies: 0,
})

function countersFrom(row: Pick<GalaxyStats, keyof Counters>): Counters {
  return {
    missionsWon: row.missionsWon, missionsLost: row.missionsLost, timePlayed: row.timePlayed,
    bugKills: row.bugKills, automatonKills: row.automatonKills, illuminateKills: row.illuminateKills,
    bulletsFired: row.bulletsFired, bulletsHit: row.bulletsHit, deaths: row.deaths, friendlies: row.friendlies,
  }
}

/** Upstream counter quirks: missionTime == timePlayed, accurracy clamped at 100 (hits exceed shots). */
function renderCounters(c: Counters, revives: number): GalaxyStats {
  const won = Math.floor(c.missionsWon)
  const lost = Math.floor(c.missionsLost)
  const fired = Math.floor(c.bulletsFired)
  const hit = Math.floor(c.bulletsHit)
  const timePlayed = Math.floor(c.timePlayed)
  return {
    missionsWon: won,
    missionsLost: lost,
    missionTime: timePlayed,
    bugKills: Math.floor(c.bugKills),
    automatonKills: Math.floor(c.automatonKills),
    illuminateKills: Math.floor(c.illuminateKills),
    bulletsFired: fired,
    bulletsHit: hit,
    timePlayed,
    deaths: Math.floor(c.deaths),
    revives,
    friendlies: Math.floor(c.friendlies),
    missionSuccessRate: won + lost > 0 ? Math.round((100 * won) / (won + lost)) : 0,
    accurracy: fired > 0 ? Math.min(100, Math.round((100 * hit) / fired)) : 0,
  }
}

/** Placeholder rows with negative indices that real Summary payloads carry. */
const PLACEHOLDER_ROWS: PlanetStats[] = [-1337, -420].map((planetIndex) => ({
  planetIndex, ...renderCounters({ ...zeroCounters(), missionsWon: 1, timePlayed: 600, bulletsFired: 10, bulletsHit: 12 }, 0),
}))

/**
 * Total players on all planets at a war time: a daily rhythm (≈40k at night to ≈480k at
 * the evening peak, log-scale) with smooth noise. Pure, so tests can predict it.
 */
export function playersTotalAt(seed: number, time: number): number {
  const phase = (time % DAY_S) / DAY_S
  const rhythm = 0.5 - 0.5 * Math.cos(2 * Math.PI * (phase - 0.3))
  const noise = smoothNoise(seed, S.total, time, 1800)
  const base = Math.exp(Math.log(40_000) + rhythm * (Math.log(480_000) - Math.log(40_000)))
  return Math.round(base * (1 + 0.08 * noise))
}

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
  private readonly attacks: { source: number; target: number }[]
  private globalEvents: GlobalEvent[]
  private readonly news: NewsItem[]
  private order: Order | null
  private nextOrderAt: number
  private ordersCreated = 0
  private readonly counters = new Map<number, Counters>()
  private readonly galaxy: Counters
  private active: number[] = []
  private readonly ids: { campaign: number; event: number; dispatch: number; globalEvent: number }

  constructor(opts: WarOptions) {
    this.seed = opts.seed
    this.warId = opts.warId
    const fromSamples = opts.from === 'samples'
    this.startDate = fromSamples ? WAR_INFO_SAMPLE.startDate : (opts.startDate ?? Math.floor(Date.now() / 1000))
    this.startWarTime = fromSamples ? START_WAR_TIME_801 : 0

    if (fromSamples) {
      this.planets = STATUS_SAMPLE.planetStatus.map((p) => ({ ...p, players: 0 }))
      this.campaigns = (STATUS_SAMPLE.campaigns ?? []).map((c) => ({ ...c }))
      // Shift the sample's defense so it is still running when the simulation starts.
      this.events = (STATUS_SAMPLE.planetEvents ?? []).map((e) => ({
        ...e, jointOperationIds: [...e.jointOperationIds],
        startTime: this.startWarTime - 20_000, expireTime: this.startWarTime - 20_000 + DAY_S,
      }))
      this.jointOps = (STATUS_SAMPLE.jointOperations ?? []).map((j) => ({ ...j }))
      this.attacks = (STATUS_SAMPLE.planetAttacks ?? []).map((a) => ({ ...a }))
      this.globalEvents = (STATUS_SAMPLE.globalEvents ?? []).map((g) => ({ ...g }))
      this.news = NEWS_SAMPLE.map((n) => ({ ...n }))
      for (const row of SUMMARY_SAMPLE.planets_stats ?? []) this.counters.set(row.planetIndex, countersFrom(row))
      this.galaxy = countersFrom(SUMMARY_SAMPLE.galaxy_stats)
      const mo = ASSIGNMENT_SAMPLE[0]
      this.order = mo
        ? {
            id32: mo.id32, endTime: this.startWarTime + mo.expiresIn, brief: mo.setting.overrideBrief, kind: 'eradicate',
            race: mo.setting.tasks[0]?.values[0] ?? TERMINIDS, tasks: mo.setting.tasks, progress: [...mo.progress],
            reward: mo.setting.reward?.amount ?? 50, flags: mo.setting.flags,
          }
        : null
    } else {
      this.planets = WAR_INFO_SAMPLE.planetInfos.map((p) => ({
        index: p.index, owner: p.initialOwner, health: p.maxHealth,
        regenPerSecond: p.initialOwner === HUMANS ? HUMAN_REGEN : ENEMY_REGEN, players: 0,
      }))
      this.campaigns = []
      this.events = []
      this.jointOps = []
      this.attacks = []
      this.globalEvents = []
      this.news = []
      this.galaxy = zeroCounters()
      this.order = null
    }
    this.nextOrderAt = this.startWarTime + 3600
    const maxId = (xs: { id: number }[], fallback: number) => Math.max(fallback, ...xs.map((x) => x.id))
    this.ids = {
      campaign: maxId(this.campaigns, 50_000) + 1,
      event: maxId(this.events, 4_311) + 1,
      dispatch: opts.firstDispatchId ?? maxId(this.news, 2_806) + 1,
      globalEvent: Math.max(1_499_086, ...this.globalEvents.map((g) => g.eventId)) + 1,
    }
    // A war always has fronts: top up to three liberation campaigns.
    while (this.campaigns.length < 3 && this.spawnCampaign(-this.campaigns.length - 1)) {}
    this.distributePlayers(this.time)
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
  }

  // ------------------------------------------------------------------ players

  private distributePlayers(t: number): void {
    for (const i of this.active) this.planet(i).players = 0
    const plan = this.playerPlan(t)
    const total = playersTotalAt(this.seed, t)
    const weights = plan.others.map((i, k) => (plan.weights[k] ?? 0) * (1 + 0.1 * smoothNoise(this.seed, S.jitter * 1000 + i, t, 1800)))
    const weightSum = weights.reduce((a, b) => a + b, 0) || 1
    const spread = total * (1 - plan.busiestShare - plan.superEarthShare)
    let assigned = 0
    plan.others.forEach((i, k) => {
      const n = Math.floor((spread * (weights[k] ?? 0)) / weightSum)
      this.planet(i).players = n
      assigned += n
    })
    if (plan.busiest !== 0) {
      const se = Math.floor(total * plan.superEarthShare)
      this.planet(0).players = se
      assigned += se
    }
    // Rounding leftovers go to the busiest planet, so the sum is exactly the total.
    this.planet(plan.busiest).players = total - assigned
    this.active = plan.set
  }

  private plan?: { key: string; set: number[]; busiest: number; busiestShare: number; superEarthShare: number; others: number[]; weights: number[] }

  /** Which planets hold players and their base weights; changes every 6 h or when the fronts change. */
  private playerPlan(t: number) {
    const epoch = Math.floor(t / EPOCH_S)
    const fronts = [...new Set([...this.events.map((e) => e.planetIndex), ...this.campaigns.map((c) => c.planetIndex)])]
    const key = `${epoch}:${fronts.join(',')}`
    if (this.plan?.key === key) return this.plan
    const target = 20 + Math.floor(rand(this.seed, S.active, epoch) * 10)
    const set = [0, ...fronts.filter((i) => i !== 0)].slice(0, target)
    for (let k = 0; set.length < target && k < 500; k++) {
      const candidate = this.planets[hash32(this.seed, S.fill, epoch, k) % this.planets.length]
      if (candidate && !set.includes(candidate.index)) set.push(candidate.index)
    }
    const frontsInSet = set.filter((i) => i !== 0 && fronts.includes(i))
    const busiest = pick(frontsInSet.length ? frontsInSet : set, rand(this.seed, S.busy, epoch)) ?? 0
    const others = set.filter((i) => i !== busiest && i !== 0)
    this.plan = {
      key, set, busiest, others,
      busiestShare: 0.35 + 0.25 * rand(this.seed, S.share, epoch),
      superEarthShare: busiest === 0 ? 0 : 0.004,
      weights: others.map((i) => 0.2 + rand(this.seed, S.weight, epoch, i)),
    }
    return this.plan
  }

  // ------------------------------------------------------------------ fronts

  private fight(t: number): void {
    for (const event of [...this.events]) {
      const planet = this.planet(event.planetIndex)
      event.health = Math.max(0, event.health - Math.round(planet.players * 1.5e-4 * STEP_S))
      if (event.health === 0) {
        this.endEvent(event, true)
        this.dispatch(text.defendedText(this.name(planet.index)))
      } else if (t >= event.expireTime) {
        this.endEvent(event, false)
        planet.owner = event.race
        planet.health = this.maxHealth(planet.index)
        planet.regenPerSecond = ENEMY_REGEN
        this.dispatch(text.lostText(this.name(planet.index)))
      }
    }
    const defended = new Set(this.events.map((e) => e.planetIndex))
    for (const campaign of [...this.campaigns]) {
      if (defended.has(campaign.planetIndex)) continue
      const planet = this.planet(campaign.planetIndex)
      if (planet.owner === HUMANS) {
        this.campaigns = this.campaigns.filter((c) => c !== campaign)
        continue
      }
      const net = planet.regenPerSecond - planet.players * 1.2e-4
      planet.health = Math.min(this.maxHealth(planet.index), Math.max(0, Math.round(planet.health + net * STEP_S)))
      if (planet.health === 0) {
        planet.owner = HUMANS
        planet.health = this.maxHealth(planet.index)
        planet.regenPerSecond = HUMAN_REGEN
        this.campaigns = this.campaigns.filter((c) => c !== campaign)
        this.dispatch(text.liberatedText(this.name(planet.index)))
        this.spawnCampaign(this.tick)
      }
    }
  }

  private endEvent(event: PlanetEvent, defended: boolean): void {
    this.events = this.events.filter((e) => e !== event)
    this.jointOps = this.jointOps.filter((j) => !event.jointOperationIds.includes(j.id))
    // A lost defense becomes a liberation front, unless there are already as many fronts as 2024 ever had.
    if (defended || this.campaigns.length > MAX_CAMPAIGNS) this.campaigns = this.campaigns.filter((c) => c.id !== event.campaignId)
    else for (const c of this.campaigns) if (c.id === event.campaignId) c.count++
  }

  /** A new liberation campaign on an enemy planet without one; false when none is left. */
  private spawnCampaign(salt: number): boolean {
    const busy = new Set(this.campaigns.map((c) => c.planetIndex))
    const candidates = this.planets.filter((p) => p.owner !== HUMANS && !busy.has(p.index))
    const planet = pick(candidates, rand(this.seed, S.newCampaign, salt))
    if (!planet) return false
    this.campaigns.push({ id: this.ids.campaign++, planetIndex: planet.index, type: 0, count: 1 + (hash32(this.seed, salt) % 5) })
    return true
  }

  private randomEvents(t: number): void {
    // About one new defense every 16 h, at most two at a time.
    if (this.events.length < 2 && rand(this.seed, S.defense, this.tick) < STEP_S / 57_600) {
      const busy = new Set(this.campaigns.map((c) => c.planetIndex))
      const candidates = this.planets.filter((p) => p.owner === HUMANS && p.index !== 0 && !busy.has(p.index))
      const planet = pick(candidates, rand(this.seed, S.defensePick, this.tick))
      if (planet) {
        const id = this.ids.event++
        const campaignId = this.ids.campaign++
        const maxHealth = 400_000 + Math.floor(rand(this.seed, S.defense, this.tick, 1) * 15) * 100_000
        const race = rand(this.seed, S.defense, this.tick, 2) < 0.5 ? TERMINIDS : AUTOMATONS
        this.campaigns.push({ id: campaignId, planetIndex: planet.index, type: 0, count: 1 + (hash32(this.seed, id) % 4) })
        this.jointOps.push({ id, planetIndex: planet.index, hqNodeIndex: 1 })
        this.events.push({
          id, planetIndex: planet.index, eventType: 1, race, health: maxHealth, maxHealth,
          startTime: t, expireTime: t + DAY_S, campaignId, jointOperationIds: [id],
        })
        this.dispatch(text.defendText(this.name(planet.index)))
      }
    }
    // A flavour dispatch about every 10 h.
    if (rand(this.seed, S.flavor, this.tick) < STEP_S / 36_000) {
      this.dispatch(pick(text.FLAVOR_DISPATCHES, rand(this.seed, S.flavor, this.tick, 1)) ?? text.FLAVOR_DISPATCHES[0])
    }
  }

  // ------------------------------------------------------------------ statistics

  private accumulate(): void {
    const raceOf = new Map(this.events.map((e) => [e.planetIndex, e.race]))
    for (const index of this.active) {
      const planet = this.planet(index)
      if (planet.players === 0) continue
      const seconds = planet.players * STEP_S
      const missions = seconds / 1800
      const winRate = 0.86 + 0.1 * rand(this.seed, S.win, index)
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
      if (this.order?.kind === 'eradicate' && race === this.order.race) this.addOrderKills(kills)
    }
  }

  // ------------------------------------------------------------------ major orders

  private addOrderKills(kills: number): void {
    const order = this.order
    if (!order) return
    // A task counts only some kills (one weapon, one difficulty), so goals take days.
    order.progress = order.progress.map((p, i) => p + kills * (0.05 + 0.1 * rand(this.seed, order.id32, i)))
  }

  private runOrders(t: number): void {
    const order = this.order
    if (order) {
      if (order.kind === 'liberate') {
        order.progress = order.tasks.map((task) => (this.planet(task.values[2] ?? 0).owner === HUMANS ? 1 : 0))
      }
      const goals = order.tasks.map((task) => (order.kind === 'eradicate' ? (task.values[2] ?? 1) : 1))
      const done = order.progress.every((p, i) => p >= (goals[i] ?? 1))
      if (done || t >= order.endTime) {
        this.order = null
        this.nextOrderAt = t + 3600 * (2 + 8 * rand(this.seed, S.order, this.ordersCreated, 9))
        this.globalEvent(text.orderEndText(done), '', done ? 2 : 3, 0)
        this.dispatch(text.orderEndText(done))
      }
      return
    }
    if (t >= this.nextOrderAt) this.createOrder(t)
  }

  private createOrder(t: number): void {
    const n = this.ordersCreated++
    const r = (k: number) => rand(this.seed, S.order, n, k)
    const id32 = hash32(this.seed, S.order, n) || 1
    const reward = 35 + 5 * Math.floor(r(1) * 6)
    const endTime = t + Math.round(DAY_S * (3 + 2 * r(2)))
    const enemyFronts = this.campaigns.filter((c) => this.planet(c.planetIndex).owner !== HUMANS)
    let order: Order
    if (r(3) < 0.5 && enemyFronts.length > 0) {
      const targets = enemyFronts.slice(0, 1 + Math.floor(r(4) * Math.min(3, enemyFronts.length)))
      order = {
        id32, startTime: t, endTime, kind: 'liberate', race: 0, reward, flags: 1,
        brief: pick(text.LIBERATE_BRIEFS, r(5)) ?? text.LIBERATE_BRIEFS[0],
        tasks: targets.map((c) => ({ type: 11, values: [1, 1, c.planetIndex], valueTypes: [3, 11, 12] })),
        progress: targets.map(() => 0),
      }
    } else {
      const race = r(6) < 0.5 ? TERMINIDS : AUTOMATONS
      const count = 1 + Math.floor(r(7) * 3)
      const goal = (1 + Math.floor(r(8) * 5)) * 100_000_000
      order = {
        id32, startTime: t, endTime, kind: 'eradicate', race, reward, flags: 1,
        brief: pick(text.ERADICATE_BRIEFS, r(5)) ?? text.ERADICATE_BRIEFS[0],
        tasks: Array.from({ length: count }, () => ({
          type: 3, values: [race, 0, goal, 0, 0, 0, 0, 0, 0, 0], valueTypes: [1, 2, 3, 4, 6, 5, 8, 9, 11, 12],
        })),
        progress: Array.from({ length: count }, () => 0),
      }
    }
    this.order = order
    // The MO text sits entirely in the title with an empty message, as upstream does.
    this.globalEvent(text.newOrderText(order.brief), '', 0, id32)
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
      planetActiveEffects: [],
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

  /** The current order, its texts in `language` (default en-US). */
  assignments(language?: string): Assignment[] {
    const order = this.order
    if (!order) return []
    const reward = { type: 1, id32: MEDALS_ID32, amount: order.reward }
    return [
      {
        id32: order.id32,
        progress: order.progress.map(Math.floor),
        expiresIn: Math.max(0, order.endTime - this.time),
        ...(order.startTime === undefined ? {} : { startTime: order.startTime }),
        setting: {
          type: 4, overrideTitle: localize('MAJOR ORDER', language), overrideBrief: localize(order.brief, language), taskDescription: '',
          tasks: order.tasks.map((task) => ({ ...task, values: [...task.values], valueTypes: [...task.valueTypes] })),
          rewards: [{ ...reward }], reward, flags: order.flags,
        },
      },
    ]
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

  orderView(): { id32: number; expiresIn: number; progress: number[] } | null {
    return this.order ? { id32: this.order.id32, expiresIn: Math.max(0, this.order.endTime - this.time), progress: this.order.progress.map(Math.floor) } : null
  }
}
