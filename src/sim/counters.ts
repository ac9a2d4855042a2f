/**
 * The simulated war's statistics counters (the Summary payload's galaxy and planet rows):
 * kept as fractions while the war runs, rendered as the upstream serves them.
 */
import type { GalaxyStats, PlanetEvent, PlanetStats, PlanetStatus, WarSummary } from '../feeds/upstream.ts'
import { AUTOMATONS, HUMANS, STEP_S, TERMINIDS } from './constants.ts'
import { rand } from './random.ts'

// Salts keep independent draws apart (14: war.ts's before the statistics moved here).
const S = { win: 14 } as const

export interface Counters {
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

export const zeroCounters = (): Counters => ({
  missionsWon: 0, missionsLost: 0, timePlayed: 0, bugKills: 0, automatonKills: 0, illuminateKills: 0,
  bulletsFired: 0, bulletsHit: 0, deaths: 0, friendlies: 0,
})

export function countersFrom(row: Pick<GalaxyStats, keyof Counters>): Counters {
  return {
    missionsWon: row.missionsWon, missionsLost: row.missionsLost, timePlayed: row.timePlayed,
    bugKills: row.bugKills, automatonKills: row.automatonKills, illuminateKills: row.illuminateKills,
    bulletsFired: row.bulletsFired, bulletsHit: row.bulletsHit, deaths: row.deaths, friendlies: row.friendlies,
  }
}

/** Upstream counter quirks: missionTime == timePlayed, accurracy clamped at 100 (hits exceed shots). */
export function renderCounters(c: Counters, revives: number): GalaxyStats {
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
export const PLACEHOLDER_ROWS: PlanetStats[] = [-1337, -420].map((planetIndex) => ({
  planetIndex, ...renderCounters({ ...zeroCounters(), missionsWon: 1, timePlayed: 600, bulletsFired: 10, bulletsHit: 12 }, 0),
}))

/** What a war's statistics start from: a captured summary (its counters), or nothing. */
type CountersSample = { galaxy_stats: Pick<GalaxyStats, keyof Counters>; planets_stats?: ({ planetIndex: number } & Pick<GalaxyStats, keyof Counters>)[] }

/** A war's counters, per planet and galaxy-wide, grown by each step's players. */
export class Statistics {
  private readonly rows = new Map<number, Counters>()
  private readonly galaxy: Counters
  private readonly winRates = new Map<number, number>()

  constructor(
    private readonly seed: number,
    sample?: CountersSample,
  ) {
    for (const row of sample?.planets_stats ?? []) this.rows.set(row.planetIndex, countersFrom(row))
    this.galaxy = sample ? countersFrom(sample.galaxy_stats) : zeroCounters()
  }

  /**
   * One step of the players on the `active` planets: time, missions, kills, shots; the
   * enemy is the defense's race on a defended planet, else the owner's (Terminids on the
   * players' own). `credit` hands each planet's kills and won missions to the orders.
   */
  step(planets: readonly PlanetStatus[], active: readonly number[], events: readonly PlanetEvent[], credit: (index: number, race: number, kills: number, missionsWon: number) => void): void {
    const raceOf = new Map(events.map((e) => [e.planetIndex, e.race]))
    for (const index of active) {
      const planet = planets[index]
      if (!planet) throw new Error(`no planet ${index}`)
      if (planet.players === 0) continue
      const seconds = planet.players * STEP_S
      const missions = seconds / 1800
      const winRate = this.winRateOf(index)
      const race = raceOf.get(index) ?? (planet.owner === HUMANS ? TERMINIDS : planet.owner)
      const kills = seconds * 0.05
      let row = this.rows.get(index)
      if (!row) this.rows.set(index, (row = zeroCounters()))
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
      credit(index, race, kills, missions * winRate)
    }
  }

  /** The Summary payload: a row per planet, the placeholder rows, the galaxy's (revives stuck at 2, as upstream). */
  summary(planets: readonly PlanetStatus[]): Required<WarSummary> {
    const rows = planets.map((p) => ({ planetIndex: p.index, ...this.planet(p.index) }))
    return { galaxy_stats: renderCounters(this.galaxy, 2), planets_stats: [...rows, ...PLACEHOLDER_ROWS.map((r) => ({ ...r }))] }
  }

  planet(index: number): GalaxyStats {
    return renderCounters(this.rows.get(index) ?? zeroCounters(), 0)
  }

  /** A planet's share of missions won (drawn once per planet). */
  private winRateOf(index: number): number {
    let rate = this.winRates.get(index)
    if (rate === undefined) this.winRates.set(index, (rate = 0.86 + 0.1 * rand(this.seed, S.win, index)))
    return rate
  }
}
