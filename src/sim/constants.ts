/** What every part of the simulated war counts in: its step, the day, the factions (upstream ids). */

export const STEP_S = 10
/**
 * The 2025+ parts (surfaces.ts: regions, station, fleet) move once a war minute, on war
 * times that are multiples of it: the demo fast-forwards 30 days of steps, and none of
 * them needs a finer grain.
 */
export const SURFACE_STEP_S = 60
export const DAY_S = 86_400
export const HOUR_S = 3600

export const HUMANS = 1
export const TERMINIDS = 2
export const AUTOMATONS = 3
