/**
 * How the simulated fronts move: the players' push against an enemy planet's regeneration
 * and against a defense's event, calibrated against real captures of the status feed, so
 * that fronts advance, stall, are won and lost at the rates the real war showed.
 *
 * The figures in CAPTURED come from the 1,000 consecutive captures of
 * `upstream-samples/arrowhead/series/DERIVED_warstatus_timeseries_2024-03_first1000_sector-hq.json`
 * (about 5 minutes apart, 1–8 March 2024; every planet's maxHealth 1,000,000 in the war info
 * of that month), as measured by the analysis the regression test
 * `test/sim/fronts.test.ts` describes.
 *
 * The simulated crowd is not the captured one: it swings from SIM_CROWD.low at night to
 * SIM_CROWD.high at the evening peak, a wider swing around a smaller median. A simulated
 * player therefore stands for as many captured ones as the two crowds' ratio at that hour
 * (`crowdScale`, log-linear between the two ranges), so that a front holding a share of the
 * crowd moves as a front holding that share of the captured crowd did.
 */
export const CAPTURED = {
  /**
   * Health a player takes off an enemy planet per second: the median over consecutive
   * captures of a liberation front (no event, the enemy's both times, health strictly
   * between 0 and maxHealth both times, 500 players or more) of
   * (regenPerSecond − Δhealth / Δwar time) / players.
   */
  liberationImpact: 1.31e-4,
  /** The same for a defense: the event's health taken per war second per player on its planet (median, 500 players or more). */
  defenseImpact: 9.7e-5,
  /** Players on all planets (the captures' total): 5th and 95th percentile. */
  crowd: { low: 140_000, high: 594_000 },
  /**
   * The enemy's regeneration on its liberation fronts (regenPerSecond × 3600 / maxHealth ×
   * 100, in %/h) over every capture of every front, per owner (2 Terminids, 3 Automatons;
   * 0 any other), grouped: [%/h, share of that owner's front captures]. One owner's planets
   * regenerate alike, and the level changed every few hours to days.
   */
  regenPctPerHour: {
    2: [[4, 0.21], [5, 0.71], [7, 0.08]],
    3: [[0, 0.5], [1.25, 0.33], [4, 0.05], [7.5, 0.12]],
    0: [[0, 0.22], [1.25, 0.14], [4, 0.13], [5, 0.42], [7.5, 0.09]],
  } as Record<number, readonly (readonly [number, number])[]>,
  /** Mean time between two defenses' starts (the defenses that began within the captures). */
  defenseEveryS: 40 * 3600,
  /**
   * Planets the enemy took back without a defense: the mean time between two such flips
   * over the captures; how long after its liberation a planet was taken back at the latest
   * (rounded up to days); the smallest and largest share of its health it had just after
   * (it stayed nearly liberated, and a front opened on it at once).
   */
  retake: { everyS: 15 * 3600, withinS: 5 * 86_400, healthShare: [0.014, 0.132] as const },
  /** Liberation fronts per enemy: its share of the fronts' captures (2 Terminids, 3 Automatons). */
  frontShare: { 2: 0.57, 3: 0.43 } as Record<number, number>,
  /** The busiest planet's share of all players: 10th and 90th percentile over the captures. */
  busiestShare: { least: 0.26, most: 0.58 },
  /** The enemy of the liberation front with the most players: its share of the captures. */
  busiestFrontShare: { 2: 0.87, 3: 0.13 } as Record<number, number>,
  /** Players on a liberation front against each enemy, relative: the medians of a front's share of all players, the largest 1. */
  frontPlayers: { 2: 1, 3: 0.33 } as Record<number, number>,
  /** How long one regeneration level of an owner holds (the captured levels' mean duration, rounded). */
  regenPeriodS: 12 * 3600,
  /** A defense's event health: the smallest and the largest of the captured events (in steps of 100,000). */
  eventMaxHealth: { min: 600_000, max: 1_200_000 },
  /** The share of its health a planet has when a lost defense hands it to the enemy (every lost defense in the captures). */
  lostDefenseHealth: 0.5,
  /** Liberation fronts open at a capture: the most frequent count (fewer are topped up). */
  typicalFronts: 7,
  /**
   * Mean time a liberation front stays at the enemy's full health before it is closed: the
   * fronts' hours at 0 % over the captures, divided by the fronts closed at 0 %.
   */
  stalledFrontS: 43 * 3600,
} as const

/** The simulated crowd's daily range (crowd.ts, playersTotalAt: night and evening peak). */
export const SIM_CROWD = { low: 40_000, high: 480_000 } as const

/** How the captured crowd grows with the simulated one (log-log slope between the two ranges). */
const CROWD_EXPONENT = Math.log(CAPTURED.crowd.high / CAPTURED.crowd.low) / Math.log(SIM_CROWD.high / SIM_CROWD.low)

/** Captured players one simulated player stands for, when `total` players are on the planets. */
export function crowdScale(total: number): number {
  if (total <= 0) return 1
  return (CAPTURED.crowd.low * (total / SIM_CROWD.low) ** CROWD_EXPONENT) / total
}

/** Health a simulated player takes off an enemy planet per second, with `total` players on the planets. */
export const liberationImpact = (total: number) => CAPTURED.liberationImpact * crowdScale(total)

/** Health a simulated player takes off a defense's event per second, with `total` players on the planets. */
export const defenseImpact = (total: number) => CAPTURED.defenseImpact * crowdScale(total)

/** The regeneration (health per second) of a planet of `owner`, drawn from the captured fronts' with `r` in [0, 1). */
export function regenFor(owner: number, r: number, maxHealth: number): number {
  let left = r
  const table = CAPTURED.regenPctPerHour[owner] ?? CAPTURED.regenPctPerHour[0]!
  const [pct] = table.find(([, share]) => (left -= share) < 0) ?? table[table.length - 1]!
  return Number((((pct / 100) * maxHealth) / 3600).toPrecision(8))
}

/** One of `owners` drawn with `r` in [0, 1) by their `shares` (evenly when none has a share). */
export function ownerBy(shares: Record<number, number>, owners: ReadonlySet<number>, r: number): number | undefined {
  const weighted = [...owners].sort((a, b) => a - b).map((o) => [o, shares[o] ?? 0] as const)
  const sum = weighted.reduce((a, [, w]) => a + w, 0)
  if (sum === 0) return weighted[Math.floor(r * weighted.length)]?.[0]
  let left = r * sum
  return (weighted.find(([, w]) => (left -= w) < 0) ?? weighted.at(-1))?.[0]
}

/** A defense's event health drawn with `r` in [0, 1), in steps of 100,000 between the captured ones. */
export function eventMaxHealth(r: number): number {
  const { min, max } = CAPTURED.eventMaxHealth
  return min + Math.floor(r * ((max - min) / 100_000 + 1)) * 100_000
}

/** Whether a front stalled at the enemy's full health is withdrawn after `seconds` more of it (a draw `r` in [0, 1)). */
export const withdrawn = (r: number, seconds: number) => r < seconds / CAPTURED.stalledFrontS
