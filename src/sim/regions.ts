/**
 * The planets' regions (2025+): the cities of a planet, each held and fought over on its own.
 * The war info lists every region of every planet (`regionMap`, fixed for a seed); a Status
 * lists the regions of the liberation fronts only, liberated one by one:
 *   - a front opens with all its regions the enemy's, at full health on their own scale;
 *   - the first AVAILABLE_AT_ONCE regions not yet liberated are available: they hold most of
 *     the planet's players, lose health to them and regain it at the planet's regeneration
 *     (as a share of their own maximum); the others wait, unavailable;
 *   - a region at 0 is liberated (the players' from then, full health, unavailable), and the
 *     next one opens; now and then the enemy takes a liberated region back on a planet it
 *     still holds (LOSS_EVERY_S), at part of its health;
 *   - the planet's own health moves as before (war.ts): its regions do not push it, so a
 *     planet can be liberated before all its regions are, which ends them with the front.
 * They move once a war minute (SURFACE_STEP_S).
 * `stage` sets a liberation and a loss at given war times, so the demo shows both at once.
 *
 * Determinism: every draw hashes (seed, step or planet, salt), as in war.ts.
 */
import type { PlanetStatus } from '../feeds/upstream.ts'
import type { PlanetRegionInfo, PlanetRegionStatus } from '../feeds/upstream-2025.ts'
import { HOUR_S, HUMANS, SURFACE_STEP_S } from './constants.ts'
import { hash32, rand } from './random.ts'

// Salts keep independent draws apart (war.ts S and the other parts' salts are below 40).
const S = { map: 41, size: 42, count: 43, deal: 44, loss: 45, lossPick: 46 } as const

/** Share of the planets (Super Earth aside) that have regions, and how many each has. */
const WITH_REGIONS = 0.5
const REGIONS_PER_PLANET = { least: 2, most: 3 } as const
/** A region's maximum health by size (0 settlement, 1 town, 2 city, 3 megacity). */
const REGION_HEALTH = [100_000, 200_000, 400_000, 600_000] as const
/** How fast a size is liberated, relative: a megacity holds out longest. */
const SIZE_PACE = [1.6, 1.2, 0.9, 0.7] as const
/** Share of a region's health per hour that REGION_PLAYERS players take (square-root in players: a crowd gains less per head). */
const PACE_PER_HOUR = 0.2
const REGION_PLAYERS = 10_000
const AVAILABLE_AT_ONCE = 2
/** Shares of the planet's players on its available regions (the rest are elsewhere on the planet). */
const PLAYER_SHARES = [[0.8], [0.5, 0.3]] as const
/** Mean time between the enemy's retakes of a liberated region, per front that has one; the health it retakes it at. */
const LOSS_EVERY_S = 8 * HOUR_S
const LOSS_HEALTH = { least: 0.4, most: 0.7 } as const

/** The regions of every planet that has some, by planet index, each name (settings hash) used once. */
export function regionMap(seed: number, planets: readonly number[], hashes: readonly number[]): Map<number, PlanetRegionInfo[]> {
  const deck = [...hashes].sort((a, b) => hash32(seed, S.deal, a) - hash32(seed, S.deal, b) || a - b)
  const out = new Map<number, PlanetRegionInfo[]>()
  for (const planetIndex of planets) {
    if (planetIndex === 0 || rand(seed, S.map, planetIndex) >= WITH_REGIONS) continue
    const count = REGIONS_PER_PLANET.least + Math.floor(rand(seed, S.count, planetIndex) * (REGIONS_PER_PLANET.most - REGIONS_PER_PLANET.least + 1))
    if (deck.length < count) break
    out.set(
      planetIndex,
      deck.splice(0, count).map((settingsHash, regionIndex) => {
        const regionSize = Math.floor(rand(seed, S.size, planetIndex, regionIndex) * REGION_HEALTH.length)
        return { planetIndex, regionIndex, settingsHash, maxHealth: REGION_HEALTH[regionSize]!, regionSize, damageMultiplier: 1, flags: 0 }
      }),
    )
  }
  return out
}

interface RegionState {
  readonly info: PlanetRegionInfo
  owner: number
  health: number
  regen: number
  players: number
  available: boolean
  /** Staged: the region is liberated at this war time, its health falling evenly from `from` at `since`. */
  staged?: { at: number; since: number; from: number }
}

/** What the regions read of a front. */
export interface Front {
  planet: Readonly<PlanetStatus>
  maxHealth: number
}

export class Regions {
  /** The regions of the fronts, by planet index (created when a planet becomes a front, dropped when it stops being one). */
  private readonly fronts = new Map<number, RegionState[]>()
  /** Staged retakes: the planet whose last liberated region the enemy takes back at a war time. */
  private readonly losses = new Map<number, number>()

  constructor(
    private readonly seed: number,
    private readonly map: ReadonlyMap<number, readonly PlanetRegionInfo[]>,
  ) {}

  /** The war info's `planetRegions`: every region of every planet. */
  info(): PlanetRegionInfo[] {
    return [...this.map.values()].flat().map((r) => ({ ...r }))
  }

  /** A war minute (SURFACE_STEP_S) to war time `t` (war step number `tick`) over the liberation fronts. */
  step(t: number, tick: number, fronts: readonly Front[]): void {
    this.follow(fronts)
    for (const { planet, maxHealth } of fronts) {
      const regions = this.fronts.get(planet.index)
      if (!regions) continue
      this.spread(regions, planet.players)
      // The enemy's regeneration as a share of maximum health per second.
      const regenShare = Math.max(0, planet.regenPerSecond) / maxHealth
      let liberated = false
      for (const r of regions) {
        const max = r.info.maxHealth ?? REGION_HEALTH[0]
        r.regen = r.available ? regenShare * max : 0
        if (!r.available) continue
        if (r.staged) r.health = Math.max(0, Math.round(r.staged.from * (1 - (t - r.staged.since) / Math.max(SURFACE_STEP_S, r.staged.at - r.staged.since))))
        else {
          const pace = (PACE_PER_HOUR * SIZE_PACE[r.info.regionSize ?? 0]! * Math.sqrt(r.players / REGION_PLAYERS)) / HOUR_S
          r.health = Math.min(max, Math.max(0, Math.round(r.health + (r.regen - pace * max) * SURFACE_STEP_S)))
        }
        if (r.health === 0) {
          this.liberate(r)
          liberated = true
        }
      }
      if (liberated) this.open(regions)
      const lossAt = this.losses.get(planet.index)
      if (lossAt === undefined ? rand(this.seed, S.loss, tick, planet.index) < SURFACE_STEP_S / LOSS_EVERY_S : t >= lossAt) {
        this.losses.delete(planet.index)
        this.retake(regions, planet.owner, rand(this.seed, S.lossPick, tick, planet.index))
      }
    }
  }

  /**
   * Stages a liberation at war time `liberateAt` and a loss at `loseAt`, on two fronts that
   * have regions (one when only one has): the liberation on the busiest front with a region
   * still the enemy's (or, when every region is liberated, on the busiest front, whose last
   * liberated region the enemy takes back now), the available region with the most players,
   * its health falling evenly from now; the loss on another front, whose first region is
   * liberated now if none is. Nothing when no front has regions.
   */
  stage(t: number, fronts: readonly Front[], liberateAt: number, loseAt: number): void {
    this.follow(fronts)
    const staged = fronts
      .filter((f) => this.fronts.has(f.planet.index))
      .sort((a, b) => b.planet.players - a.planet.players || a.planet.index - b.planet.index)
    const regionsOf = (f: Front) => this.fronts.get(f.planet.index)!
    const liberating = staged.find((f) => regionsOf(f).some((r) => r.owner !== HUMANS)) ?? staged[0]
    if (!liberating) return
    const losing =
      staged.find((f) => f !== liberating && regionsOf(f).some((r) => r.owner === HUMANS)) ?? staged.find((f) => f !== liberating) ?? liberating
    const lost = regionsOf(losing)
    if (!lost.some((r) => r.owner === HUMANS)) this.liberate(lost[0]!)
    this.open(lost)
    this.losses.set(losing.planet.index, loseAt)
    const regions = regionsOf(liberating)
    if (!regions.some((r) => r.owner !== HUMANS)) this.retake(regions, liberating.planet.owner, 0)
    this.spread(regions, liberating.planet.players)
    const target = regions.filter((r) => r.available).sort((a, b) => b.players - a.players)[0]
    if (target) target.staged = { at: liberateAt, since: t, from: target.health }
  }

  /**
   * The Status's `planetRegions`: the regions of the `fronts` now, by planet then region,
   * their players the planet's now (the regions move once a minute, the fronts and players
   * at every step). A front newer than the last region step is listed from the next.
   */
  status(fronts: readonly Front[]): PlanetRegionStatus[] {
    const listed = fronts.filter((f) => this.fronts.has(f.planet.index)).sort((a, b) => a.planet.index - b.planet.index)
    for (const f of listed) this.spread(this.fronts.get(f.planet.index)!, f.planet.players)
    return listed.flatMap((f) => this.fronts.get(f.planet.index)!).map((r) => ({
      planetIndex: r.info.planetIndex,
      regionIndex: r.info.regionIndex,
      owner: r.owner,
      health: r.health,
      regerPerSecond: Number(r.regen.toPrecision(8)),
      availabilityFactor: 1,
      isAvailable: r.available,
      players: r.players,
    }))
  }

  /** Keeps a state per front with regions: new fronts start as the enemy's, fronts gone (liberated, closed) are dropped. */
  private follow(fronts: readonly Front[]): void {
    const current = new Set(fronts.map((f) => f.planet.index))
    for (const index of this.fronts.keys()) {
      if (!current.has(index)) {
        this.fronts.delete(index)
        this.losses.delete(index)
      }
    }
    for (const { planet } of fronts) {
      if (this.fronts.has(planet.index)) continue
      const infos = this.map.get(planet.index)
      if (!infos) continue
      const regions = infos.map((info) => ({ info, owner: planet.owner, health: info.maxHealth ?? REGION_HEALTH[0], regen: 0, players: 0, available: false }))
      this.open(regions)
      this.fronts.set(planet.index, regions)
    }
  }

  /** The first AVAILABLE_AT_ONCE regions not liberated are available; the others are not, and nobody fights there. */
  private open(regions: RegionState[]): void {
    let left = AVAILABLE_AT_ONCE
    for (const r of regions) {
      r.available = r.owner !== HUMANS && left-- > 0
      if (!r.available) {
        r.players = 0
        r.regen = 0
      }
    }
  }

  /** The planet's players over its available regions. */
  private spread(regions: RegionState[], players: number): void {
    const available = regions.filter((r) => r.available)
    const shares = PLAYER_SHARES[Math.min(available.length, AVAILABLE_AT_ONCE) - 1] ?? []
    for (const r of regions) r.players = 0
    available.forEach((r, k) => (r.players = Math.floor(players * (shares[k] ?? 0))))
  }

  private liberate(r: RegionState): void {
    r.owner = HUMANS
    r.health = r.info.maxHealth ?? REGION_HEALTH[0]
    r.players = 0
    r.regen = 0
    r.available = false
    r.staged = undefined
  }

  /** The enemy (`owner`) takes back the last liberated region, if any, at part of its health. */
  private retake(regions: RegionState[], owner: number, r: number): void {
    const region = regions.findLast((x) => x.owner === HUMANS)
    if (!region) return
    const max = region.info.maxHealth ?? REGION_HEALTH[0]
    region.owner = owner
    region.health = Math.round(max * (LOSS_HEALTH.least + (LOSS_HEALTH.most - LOSS_HEALTH.least) * r))
    this.open(regions)
  }
}
