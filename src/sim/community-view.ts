/** The community API's /api/v1/planets view of a simulated war (mapping per upstream-feeds.md §2.1). */
import type { GalaxyStats } from '../feeds/upstream.ts'
import { WAR_INFO_SAMPLE, factionName, planetName } from './assets.ts'
import type { War } from './war.ts'

function communityStatistics(stats: GalaxyStats, playerCount: number) {
  const { bugKills, accurracy, ...rest } = stats
  return { ...rest, terminidKills: bugKills, accuracy: accurracy, playerCount }
}

/**
 * Planets the static name table knows (others are dropped, as the community API does).
 * `allLocales` mirrors `Accept-Language: ivl-IV`, which turns names into locale objects.
 */
export function communityPlanets(war: War, opts: { allLocales: boolean }) {
  const infos = new Map(WAR_INFO_SAMPLE.planetInfos.map((p) => [p.index, p]))
  const events = new Map(war.eventsView().map((e) => [e.planetIndex, e]))
  // War time → date the way the community API maps it (relative to "now").
  const warTimeToIso = (t: number) => new Date(Date.now() + (t - war.time) * 1000).toISOString()
  return war.planetsView().flatMap((p) => {
    const name = planetName(p.index)
    const info = infos.get(p.index)
    if (!name || !info) return []
    const event = events.get(p.index)
    return [
      {
        index: p.index,
        name: opts.allLocales ? name.names : (name.names['en-US'] ?? name.name),
        sector: name.sector,
        biome: name.biome,
        hazards: [],
        hash: info.settingsHash,
        position: info.position,
        waypoints: info.waypoints,
        maxHealth: info.maxHealth,
        health: p.health,
        disabled: info.disabled,
        initialOwner: factionName(info.initialOwner),
        currentOwner: factionName(p.owner),
        regenPerSecond: p.regenPerSecond,
        event: event
          ? {
              id: event.id, eventType: event.eventType, faction: factionName(event.race), health: event.health,
              maxHealth: event.maxHealth, startTime: warTimeToIso(event.startTime), endTime: warTimeToIso(event.expireTime),
              campaignId: event.campaignId, jointOperationIds: [...event.jointOperationIds],
            }
          : null,
        statistics: communityStatistics(war.planetStats(p.index), p.players),
        attacking: war.attackersOf(p.index),
      },
    ]
  })
}
