/**
 * The galaxy map: the supply lines and the attack lines along them; since 2025 a few
 * planets move (a Status's `planetStatus[].position`, where the war info keeps where they
 * started), and the galactic war effects have definitions (`GET /WarSeason/GalacticWarEffects`).
 *
 * Determinism: every draw hashes (seed, planet, salt); a position is a function of war time.
 */
import type { PlanetStatus } from '../feeds/upstream.ts'
import type { GalacticWarEffect } from '../feeds/upstream-2025.ts'
import { WAR_INFO_SAMPLE } from './assets.ts'
import { DAY_S, HUMANS } from './constants.ts'
import { hash32, pick, rand } from './random.ts'

// Salts keep independent draws apart (16: war.ts's before the lines moved here; the 2025 parts' from 71).
const S = { supply: 16, moving: 71, orbit: 72, effect: 73 } as const

/** Planets joined by a supply line (WarInfo waypoints, stored on one end only). */
export const NEIGHBOURS: ReadonlyMap<number, readonly number[]> = (() => {
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

/**
 * Attack lines are the players' supply lines into enemy fronts (in the captures every
 * source is a human planet and every target a liberation campaign): a line goes when its
 * source falls or its target is liberated; a front without one gets one, listed twice as
 * most captured lines are, from a human neighbour (else the nearest human planet).
 */
export function supplyLines(
  seed: number,
  attacks: readonly { source: number; target: number }[],
  fronts: ReadonlySet<number>,
  planets: readonly PlanetStatus[],
): { source: number; target: number }[] {
  const human = (i: number) => planets[i]?.owner === HUMANS
  const lines = attacks.filter((a) => human(a.source) && fronts.has(a.target))
  const supplied = new Set(lines.map((a) => a.target))
  for (const target of fronts) {
    if (supplied.has(target)) continue
    const source = supplySource(seed, target, human)
    if (source !== undefined) lines.push({ source, target }, { source, target })
  }
  return lines
}

function supplySource(seed: number, target: number, human: (i: number) => boolean): number | undefined {
  const near = (NEIGHBOURS.get(target) ?? []).filter(human)
  if (near.length > 0) return pick(near, rand(seed, S.supply, target))
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

/** Planets that move, each around where it started, in steps (so a position holds for a while, as upstream's do). */
const MOVING_PLANETS = 3
const POSITION_STEP_S = 300
const ORBIT = { radius: [0.02, 0.05], periodS: [DAY_S, 3 * DAY_S] } as const

interface Orbit {
  index: number
  radius: number
  periodS: number
  phase: number
}

type Position = { x: number; y: number }

/** The planets that move (never Super Earth), drawn from `indices` for the seed. */
export function movingPlanets(seed: number, indices: readonly number[]): Orbit[] {
  const candidates = indices.filter((i) => i !== 0).sort((a, b) => hash32(seed, S.moving, a) - hash32(seed, S.moving, b) || a - b)
  return candidates.slice(0, MOVING_PLANETS).map((index) => ({
    index,
    radius: ORBIT.radius[0] + (ORBIT.radius[1] - ORBIT.radius[0]) * rand(seed, S.orbit, index, 1),
    periodS: ORBIT.periodS[0] + (ORBIT.periodS[1] - ORBIT.periodS[0]) * rand(seed, S.orbit, index, 2),
    phase: 2 * Math.PI * rand(seed, S.orbit, index, 3),
  }))
}

/** Where an orbiting planet is at war time `t`, around `home` (held for POSITION_STEP_S). */
export function positionAt(orbit: Orbit, home: Position, t: number): Position {
  const angle = orbit.phase + (2 * Math.PI * (Math.floor(t / POSITION_STEP_S) * POSITION_STEP_S)) / orbit.periodS
  // As the feed's floats: eight significant digits.
  const round = (v: number) => Number(v.toPrecision(8))
  return { x: round(home.x + orbit.radius * Math.cos(angle)), y: round(home.y + orbit.radius * Math.sin(angle)) }
}

/**
 * The definitions of `ids`, by id: a captured definition where there is one (`known`), else
 * one made up for the id (the same for every seed: definitions are not per war).
 */
export function effectDefinitions(ids: Iterable<number>, known: readonly GalacticWarEffect[]): GalacticWarEffect[] {
  const byId = new Map(known.map((d) => [d.id, d]))
  return [...new Set([...byId.keys(), ...ids])].sort((a, b) => a - b).map((id) => {
    const captured = byId.get(id)
    if (captured) return { ...captured, valueTypes: [...captured.valueTypes], values: [...captured.values] }
    const h = (k: number) => hash32(0, S.effect, id, k)
    return {
      id, gameplayEffectId32: 0, effectType: 1 + (h(1) % 60), flags: 0, nameHash: h(2), descriptionFluffHash: 0,
      descriptionGamePlayLongHash: h(3), descriptionGamePlayShortHash: h(4), valueTypes: [1, 0], values: [1 + (h(5) % 100), 0],
    }
  })
}
