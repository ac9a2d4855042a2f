/** Dispatch and briefing texts of the simulated war, in the upstream's HDML style. */

export const FLAVOR_DISPATCHES = [
  'Super Earth High Command reminds all Helldivers that democracy is not a spectator sport.\n\nReport to your Destroyer for deployment.',
  '<i=3>SEAF RESUPPLY</i>\nSupply lines to the front have been restored. Expect increased reinforcement budgets on active fronts.',
  'Intercepted transmissions suggest the enemy is massing forces near our supply lines. Stay vigilant, Helldivers.',
  'The Ministry of Truth reports record enlistment numbers this week. Every citizen is a soldier of Liberty.',
  '<i=1>ATTENTION HELLDIVERS</i>\nThe Ministry of Science has cleared new field upgrades for requisition.',
  'Citizens on the home front thank you for your service. Your sacrifice keeps Managed Democracy alive.',
] as const

export const ERADICATE_BRIEFS = [
  'Aid in the Ministry of Defense\'s Weapons Efficacy Review by killing the target number of enemies.',
  'The enemy is advancing faster than projected. Thin their numbers before they reach the colonies.',
] as const

export const LIBERATE_BRIEFS = [
  'Liberate the designated planets and restore Managed Democracy to their citizens.',
  'These worlds hold vital resources for the war effort. Reclaim them before it is too late.',
] as const

export const DEFEND_BRIEFS = [
  'The enemy is massing for an offensive against our colonies. Repel every invasion until the threat has passed.',
  'Intelligence reports invasion fleets approaching the front. Hold our worlds against the coming assault.',
] as const

export const EXPAND_BRIEFS = [
  'Push the front forward. Liberate new worlds and extend the reach of Managed Democracy.',
  'High Command has authorised an expansion of the front. Take back territory wherever the enemy is weakest.',
] as const

export const CONTROL_BRIEFS = [
  'These worlds supply every front in the sector. Hold them until the order expires and keep the enemy busy.',
  'Our supply lines run through these planets. Keep them in Super Earth hands and wear down the enemy nearby.',
] as const

export const MISSION_BRIEFS = [
  'The Ministry of Defense requires field data from every front. Complete the designated operations.',
  'Every completed mission brings victory closer. Deploy, complete your objectives and extract.',
] as const

/** The order the resumed war opens with, one task of every type. */
export const SHOWCASE_BRIEF =
  'The enemy is testing every front at once. Extract, eradicate, complete missions and operations, liberate, defend, hold and expand: Super Earth needs it all.'

export const liberatedText = (planet: string) =>
  `<i=3>${planet.toUpperCase()} LIBERATED</i>\nWell done, Helldivers. ${planet} has been returned to the care of Managed Democracy.`

export const defendedText = (planet: string) =>
  `<i=3>${planet.toUpperCase()} HELD</i>\nThe enemy assault on ${planet} has been repelled. Your efforts were essential.`

export const lostText = (planet: string) =>
  `<i=3>${planet.toUpperCase()} LOST</i>\nDespite valiant efforts, ${planet} has fallen to the enemy. We will return.`

export const defendText = (planet: string) =>
  `<i=3>DEFEND ${planet.toUpperCase()}</i>\nThe enemy has launched an invasion of ${planet}. Hold the line until SEAF reinforcements arrive.`

/** Global events (2025+): a title and a message each. */
export const defenseBriefing = (planet: string) => ({
  title: `DEFEND ${planet.toUpperCase()}`,
  message: `The enemy has launched an invasion of ${planet}. Hold the line until SEAF reinforcements arrive.`,
})

export const liberationResult = (planet: string) => ({
  title: 'SUCCESS',
  message: `${planet} has been returned to the care of Managed Democracy. Well done, Helldivers.`,
})

export const stationBriefing = (planet: string) => ({
  title: 'DEMOCRACY SPACE STATION',
  message: `The Democracy Space Station orbits ${planet}. Cast your vote for its next orbit before the election closes.`,
})

export const INTEL_BRIEFING = {
  title: 'SEAF INTELLIGENCE',
  message: 'Automaton fleet movements detected near the front. Stand by for new orders.',
}

export const fleetDepleted = {
  title: 'SUCCESS',
  message: 'The Automaton fleet has been broken. Its remnants withdraw to rebuild: press the advantage while it lasts.',
}

export const fleetRebuilt = {
  title: 'AUTOMATON FLEET REBUILT',
  message: 'The Automaton fleet is back at full strength. Every mission against it wears it down again.',
}

export const newOrderText = (brief: string) => `NEW MAJOR ORDER\n${brief}`

export const orderEndText = (won: boolean) =>
  won
    ? 'MAJOR ORDER COMPLETE\nHigh Command commends every Helldiver who answered the call.'
    : 'MAJOR ORDER FAILED\nThe objective was not met in time. The enemy will not wait for us to regroup.'
