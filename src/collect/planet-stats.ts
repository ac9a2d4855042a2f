import { COMMUNITY_COUNTER_NAMES } from '../feeds/community.ts'
import { insertChanged } from '../storage/planet-stats.ts'
import { countersOf } from '../storage/war-summary.ts'
import { defineCollector } from './collector.ts'

/**
 * Per-planet cumulative statistics from the community API: one row for every planet
 * whose cumulative counters changed since that planet's previous row; unchanged planets
 * get none. Player count, success rate and accuracy are stored with the row but are not
 * counters, so they alone never cause one. The feed has no war id: its rows belong to the
 * upstream's current war (the runner refuses any other war a caller names).
 */
export const planetStats = defineCollector({
  name: 'planet-stats',
  summary: 'Run the per-planet statistics collector once: a row per planet whose counters changed.',
  changes: { planetStats: 'planet-stats' },
  currentWarOnly: true,
  async fetch({ feeds }) {
    return { planets: await feeds.community.planets() }
  },
  map({ planets }, { now }) {
    return {
      capturedAt: now ?? planets.fetchedAt,
      rows: planets.data.map((p) => ({
        planetIndex: p.index,
        counters: countersOf(p.statistics, COMMUNITY_COUNTER_NAMES),
        playerCount: p.statistics.playerCount,
      })),
    }
  },
  async write(tx, at, { warId, rows }) {
    const written = await insertChanged(tx, at, warId, rows)
    return { written: { planetStats: written }, unchanged: { planetStats: rows.length - written } }
  },
})
