/**
 * The simulated war's statistics counters (the Summary payload's galaxy and planet rows):
 * kept as fractions while the war runs, rendered as the upstream serves them.
 */
import type { GalaxyStats, PlanetStats } from '../feeds/upstream.ts'

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
