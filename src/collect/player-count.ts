import { pcstoreCounts } from '../feeds/pcstore.ts'
import * as playerCounts from '../storage/player-counts.ts'
import { COLLECTOR_FETCH, defineCollector } from './collector.ts'

/**
 * Player counts, two series in `player_count_snapshots`:
 * - upstream: the sum of players over all planets of the upstream war status, a `Game 2`
 *   row per new war-status time (a frozen war writes nothing);
 * - pcstore: both games' PC store counts (console always 0: no public source) when the
 *   last pcstore row is ~10 minutes old.
 * The upstream feed failing fails the run; the pcstore feed failing only skips its rows
 * (they are retried at the next run; the live route shows them as unavailable).
 */
export const playerCount = defineCollector({
  name: 'player-count',
  summary: 'Run the player-count collector once: the upstream cross-platform total, and pcstore counts when due.',
  changes: { upstreamRows: 'player-counts', pcstoreRows: 'player-counts' },
  async fetch({ feeds, warId, now, peek }) {
    // Due-ness comes from the database when it answers at once; otherwise pcstore is
    // fetched anyway and the write applies the rule.
    const due = (await peek((store) => store.playerCounts.pcstoreDue(now ?? new Date()))) ?? true
    const [status, pcstore] = await Promise.all([
      feeds.upstream.status(warId, COLLECTOR_FETCH),
      due ? pcstoreCounts(feeds.pcstore, COLLECTOR_FETCH) : Promise.resolve(null),
    ])
    return { status, pcstore }
  },
  map({ status, pcstore }, { now }) {
    return {
      capturedAt: now ?? status.fetchedAt,
      rows: {
        warTime: status.data.time,
        total: status.data.planetStatus.reduce((sum, p) => sum + p.players, 0),
        /** Per game; null where the store gave no figure; the whole is null when not fetched. */
        pcstore: pcstore ? { Game: pcstore.game1, 'Game 2': pcstore.game2 } : null,
      },
    }
  },
  async write(tx, at, { warId, rows }) {
    const upstreamRows = await playerCounts.insertUpstream(tx, at, warId, rows.warTime, rows.total)
    const games = rows.pcstore ? playerCounts.GAME_NAMES.map((game) => [game, rows.pcstore![game]] as const) : []
    let pcstoreRows = 0
    for (const [game, count] of games) if (count !== null) pcstoreRows += await playerCounts.insertPcstore(tx, at, game, count)
    if (upstreamRows + pcstoreRows > 0) await playerCounts.invalidate(tx, at)
    const reported = games.filter(([, c]) => c !== null).length
    return {
      written: { upstreamRows, pcstoreRows },
      unchanged: {
        upstreamRows: 1 - upstreamRows,
        pcstoreRows: reported - pcstoreRows,
        pcstoreUnavailable: games.length - reported,
      },
    }
  },
})
