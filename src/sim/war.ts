/**
 * One simulated war season: the state behind the upstream Status, WarInfo, Summary,
 * Assignment and NewsFeed payloads, advanced in 10-second war-time steps.
 *
 * Determinism: every random draw hashes (seed, step or time, salt), so a war replayed
 * to the same step with the same seed is identical, whatever the wall clock did.
 */
import type { Assignment, Campaign, GalaxyStats, NewsItem, PlanetEvent, PlanetStatus, WarInfo, WarStatus, WarSummary } from '../feeds/upstream.ts'
import type { GalacticWarEffect, SpaceStation } from '../feeds/upstream-2025.ts'
import { ASSIGNMENT_SAMPLE, NEWS_SAMPLE, STATUS_SAMPLE, SUMMARY_SAMPLE, WAR_INFO_SAMPLE, planetName } from './assets.ts'
import { Statistics } from './counters.ts'
import { Crowd, playersTotalAt } from './crowd.ts'
import { CAPTURED, defenseImpact, eventMaxHealth, liberationImpact, ownerBy, regenFor, withdrawn } from './fronts.ts'
import { AUTOMATONS, DAY_S, HUMANS, STEP_S, TERMINIDS } from './constants.ts'
import { NEIGHBOURS, supplyLines } from './galaxy.ts'
import { localize } from './languages.ts'
import { OPENING } from './opening.ts'
import { linksOf, OrderBook, valueOf, VT, type Order, type OrderWar } from './orders.ts'
import { gauss, hash32, pick, rand } from './random.ts'
import { RESULT_S, Surfaces, type SurfacedWar, type SurfacesView } from './surfaces.ts'
import * as text from './texts.ts'

export { OPENING, STEP_S }
export { goalOf, planetOf, TASK_TYPES } from './orders.ts'
/** War time runs slightly slower than real time (99.3–99.85 % measured). */
export const WAR_TIME_RATE = 0.995
/** War 801 resumes just after the newest real dispatch sample (published 2899330). */
export const START_WAR_TIME_801 = 2_899_400

const HUMAN_REGEN = 1388.8889
const HOUR_STEPS = 3600 / STEP_S
const MAX_CAMPAIGNS = 12

// Salts keep independent draws apart (1-7: the players' spread, crowd.ts; 13: the orders, orders.ts; 14: the win rates, counters.ts; 16: the supply lines, galaxy.ts).
const S = {
  impact: 8,
  newCampaign: 9, defense: 10, defensePick: 11, flavor: 12, effect: 15,
  showcase: 17, regen: 18, withdraw: 19, live: 20, retake: 21,
} as const

/** Galactic effects a front carries (ids of the shipped effects table: gloom, enemy strains and surges, an exostorm). */
const FRONT_EFFECTS = [1186, 1243, 1285, 1355, 1360, 1373]

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
  /** Regions, the space station, global events and resources, moving planets (surfaces.ts). */
  private readonly surfaces: Surfaces
  private readonly news: NewsItem[]
  private readonly orders: OrderBook
  private readonly statistics: Statistics
  private readonly crowd: Crowd
  private readonly ids: { campaign: number; event: number; dispatch: number }
  /** What order tasks count: defenses won per attacking race, planets liberated. */
  private readonly tally = { defensesWon: new Map<number, number>(), liberated: 0 }
  /** Planets the players liberated: when, and from whom (CAPTURED.retake). */
  private readonly liberated = new Map<number, { at: number; from: number }>()
  /** A defense that begins at `at` (or when a slot frees after it). */
  private plannedDefense?: { at: number; planetIndex: number; race: number }
  /** The step the live opening is staged at (OPENING.live), and the front the crowd rallies to until a war time. */
  private readonly liveStageTick?: number
  private rally?: { planetIndex: number; until: number }

  constructor(opts: WarOptions) {
    this.seed = opts.seed
    this.warId = opts.warId
    this.crowd = new Crowd(opts.seed)
    const fromSamples = opts.from === 'samples'
    this.statistics = new Statistics(opts.seed, fromSamples ? SUMMARY_SAMPLE : undefined)
    let orders: Order[] = []
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
      this.news = NEWS_SAMPLE.map((n) => ({ ...n }))
      orders = ASSIGNMENT_SAMPLE.map((mo) => ({
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
      this.news = []
    }
    // A resumed war keeps the captured regeneration until its owner's next level.
    if (!fromSamples) for (const p of this.planets) if (p.owner !== HUMANS) p.regenPerSecond = this.regenOf(p.index)
    this.orders = new OrderBook(this.orderWar(), orders, this.startWarTime + 3600)
    const stageAt = (opts.liveAtTick ?? 0) - OPENING.live.leadS / STEP_S
    if (stageAt >= DAY_S / STEP_S) this.liveStageTick = stageAt
    const maxId = (xs: { id: number }[], fallback: number) => Math.max(fallback, ...xs.map((x) => x.id))
    this.ids = {
      campaign: maxId(this.campaigns, 50_000) + 1,
      event: maxId(this.events, 4_311) + 1,
      dispatch: opts.firstDispatchId ?? maxId(this.news, 2_806) + 1,
    }
    // A war always has fronts: top up to three liberation campaigns.
    while (this.campaigns.length < 3 && this.spawnCampaign(-this.campaigns.length - 1)) {}
    this.refreshAttacks()
    const captured = fromSamples ? (STATUS_SAMPLE.globalEvents ?? []) : []
    this.surfaces = new Surfaces(this.surfacedWar(), this.time, { initial: captured, nextId: Math.max(1_499_086, ...captured.map((g) => g.eventId)) + 1 })
    const holdout = fromSamples ? this.openWithShowcase() : undefined
    this.distributePlayers(this.time)
    // All but won: it holds out about OPENING.holdoutSteps steps at the players it starts with.
    if (holdout) holdout.health = Math.max(1, this.defenseDamage(holdout.planetIndex)) * OPENING.holdoutSteps
    if (fromSamples) this.surfaces.stage(this.time, this.time)
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
   * The showcase order (OPENING, orders.ts): a task of every type against `race`,
   * liberating `front` and holding `hold`; the crowd rallies to its front for `rallyS`.
   */
  private issueShowcase(race: number, front: number | undefined, hold: number, id32: number, rallyS: number, r: (k: number) => number): void {
    const t = this.time
    if (front !== undefined) this.rally = { planetIndex: front, until: t + rallyS }
    this.orders.issueShowcase(race, front, hold, id32, t + OPENING.showcaseS, r)
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
    this.statistics.step(this.planets, this.crowd.active, this.events, (index, race, kills, won) => this.orders.credit(index, race, kills, won))
    this.orders.run(t)
    this.randomEvents(t)
    this.surfaces.step(t, this.tick)
    if (this.tick === this.liveStageTick) {
      this.stageLive()
      this.surfaces.stage(t, t + OPENING.live.leadS)
    }
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
      targets: this.orders.targets(),
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
        this.surfaces.announce({ ...text.liberationResult(this.name(planet.index)), flag: 2, race: planet.owner, planetIndices: [planet.index], expireTime: t + RESULT_S })
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

  /** The attack lines after the fronts moved (galaxy.ts `supplyLines`). */
  private refreshAttacks(): void {
    const fronts = new Set(this.campaigns.map((c) => c.planetIndex).filter((i) => this.planet(i).owner !== HUMANS))
    this.attacks = supplyLines(this.seed, this.attacks, fronts, this.planets)
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
    if (announce) {
      this.dispatch(text.defendText(this.name(planetIndex)))
      this.surfaces.announce({ ...text.defenseBriefing(this.name(planetIndex)), flag: 1, race, planetIndices: [planetIndex], expireTime: event.expireTime })
    }
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
    const wanted = this.orders.wantedDefenses()
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

  // ------------------------------------------------------------------ helpers

  /** What the orders read of the war, and how they announce themselves (orders.ts). */
  private orderWar(): OrderWar {
    return {
      seed: this.seed,
      time: () => this.time,
      planets: this.planets,
      campaigns: () => this.campaigns,
      attacks: () => this.attacks,
      tally: this.tally,
      defenseCandidates: (race, r1, r2) => this.defenseCandidates(race, r1, r2),
      // The MO text sits entirely in the title with an empty message, as upstream does.
      orderIssued: (order) => {
        this.surfaces.announce({ title: text.newOrderText(order.brief), message: '', flag: 0, assignmentId32: order.id32, ...linksOf(order), expireTime: order.endTime })
        this.dispatch(text.newOrderText(order.brief))
      },
      orderEnded: (order, won) => {
        this.surfaces.announce({ title: text.orderEndText(won), message: '', flag: won ? 2 : 3, assignmentId32: order.id32, ...linksOf(order), expireTime: this.time + RESULT_S })
        this.dispatch(text.orderEndText(won))
      },
    }
  }

  /** What the 2025 parts read of the war (surfaces.ts). */
  private surfacedWar(): SurfacedWar {
    return {
      seed: this.seed,
      warId: this.warId,
      planets: this.planets,
      fronts: () => {
        const defended = new Set(this.events.map((e) => e.planetIndex))
        return this.campaigns
          .filter((c) => !defended.has(c.planetIndex) && this.planet(c.planetIndex).owner !== HUMANS)
          .map((c) => ({ planet: this.planet(c.planetIndex), maxHealth: this.maxHealth(c.planetIndex) }))
      },
      campaignPlanets: () => this.campaigns.map((c) => c.planetIndex),
      playersTotal: () => this.crowd.total,
      fighting: (race) => {
        let n = 0
        for (const i of this.crowd.active) {
          const p = this.planet(i)
          if (p.owner === race || this.events.some((e) => e.planetIndex === i && e.race === race)) n += p.players
        }
        return n
      },
      name: (index) => this.name(index),
    }
  }

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

  // ------------------------------------------------------------------ payloads (fresh copies)

  /** The Status; its global events' texts in `language` (default en-US). */
  status(language?: string): WarStatus {
    const { planetRegions, globalEvents, spaceStations, globalResources, layoutVersion } = this.surfaces.status(language)
    return {
      warId: this.warId,
      time: this.time,
      impactMultiplier: impactMultiplierAt(this.seed, this.time),
      storyBeatId32: 0,
      planetStatus: this.planets.map((p) => {
        const position = this.surfaces.position(p.index, this.time)
        return position ? { ...p, position } : { ...p }
      }),
      planetAttacks: this.attacks.map((a) => ({ ...a })),
      campaigns: this.campaigns.map((c) => ({ ...c })),
      communityTargets: [],
      jointOperations: this.jointOps.map((j) => ({ ...j })),
      planetEvents: this.events.map((e) => ({ ...e, jointOperationIds: [...e.jointOperationIds] })),
      // One effect per front, picked by its campaign: effects come and go with the fronts.
      planetActiveEffects: this.campaigns.map((c) => ({
        index: c.planetIndex, galacticEffectId: FRONT_EFFECTS[hash32(this.seed, S.effect, c.id) % FRONT_EFFECTS.length]!,
      })),
      planetRegions,
      activeElectionPolicyEffects: [],
      globalEvents,
      superEarthWarResults: [],
      spaceStations,
      globalResources,
      layoutVersion,
    }
  }

  warInfo(): WarInfo {
    return { ...structuredClone(WAR_INFO_SAMPLE), warId: this.warId, startDate: this.startDate, ...this.surfaces.warInfo() }
  }

  /** `GET /SpaceStation/{war}/{id32}` (undefined: no such station), texts in `language`. */
  spaceStation(id32: number, language?: string): SpaceStation | undefined {
    return this.surfaces.spaceStation(id32, language)
  }

  /** `GET /WarSeason/GalacticWarEffects`: every effect the war shows, defined. */
  galacticWarEffects(): GalacticWarEffect[] {
    return this.surfaces.effects(FRONT_EFFECTS)
  }

  /** The 2025 parts in short (control state). */
  surfacesView(): SurfacesView {
    return this.surfaces.view()
  }

  summary(): Required<WarSummary> {
    return this.statistics.summary(this.planets)
  }

  /** The running orders, oldest first, their texts in `language` (default en-US). */
  assignments(language?: string): Assignment[] {
    return this.orders.assignments(language)
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
    return this.statistics.planet(index)
  }

  /** The running orders in short, oldest first. */
  ordersView(): { id32: number; expiresIn: number; progress: number[] }[] {
    return this.orders.view()
  }
}
