import { pcstoreCounts, type PcstoreCounts } from '../feeds/pcstore.ts'
import type { Fetched } from '../feeds/throttle.ts'
import type { WarStatus } from '../feeds/upstream.ts'
import * as playerCounts from '../storage/player-counts.ts'
import type { Tx } from '../db/connect.ts'
import { COLLECTOR_FETCH, defineCollector, fetchAll, type Tick, type WriteResult } from './collector.ts'

/** A tick's rows: the upstream total at the status's war time, and the pcstore counts. */
function rowsOf(status: Fetched<WarStatus>, pcstore: PcstoreCounts | null) {
  return {
    warTime: status.data.time,
    total: status.data.planetStatus.reduce((sum, p) => sum + p.players, 0),
    /** Per game; null where the store gave no figure; the whole is null when not fetched. */
    pcstore: pcstore ? { Game: pcstore.game1, 'Game 2': pcstore.game2 } : null,
  }
}

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
    const [status, pcstore] = await fetchAll([
      feeds.upstream.status(warId, COLLECTOR_FETCH),
      due ? pcstoreCounts(feeds.pcstore, COLLECTOR_FETCH) : Promise.resolve(null),
    ])
    return { status, pcstore }
  },
  map({ status, pcstore }, { now }) {
    return { capturedAt: now ?? status.fetchedAt, rows: rowsOf(status, pcstore) }
  },
  async write(tx, at, tick) {
    const [result] = await writeTicks(tx, [{ at, tick }])
    return result!
  },
  writeBatch: writeTicks,
})

type PlayerCountTick = Tick<ReturnType<typeof rowsOf>>

/**
 * Ticks in order: the upstream rows (storage/player-counts.ts), each tick's pcstore rows
 * (their statements sent at once, in order: each reads the rows of those before it), then
 * the rollups invalidated once from the earliest tick that wrote a row.
 */
async function writeTicks(tx: Tx, ticks: readonly { at: Date; tick: PlayerCountTick }[]): Promise<WriteResult[]> {
  const gamesOf = ({ rows }: PlayerCountTick) => (rows.pcstore ? playerCounts.GAME_NAMES.map((game) => [game, rows.pcstore![game]] as const) : [])
  const [upstream, pcstore] = await Promise.all([
    playerCounts.insertUpstreamOfTicks(tx, ticks.map(({ at, tick: { warId, rows } }) => ({ at, warId, warTime: rows.warTime, total: rows.total }))),
    Promise.all(ticks.map(({ at, tick }) => Promise.all(gamesOf(tick).map(([game, count]) => (count === null ? 0 : playerCounts.insertPcstore(tx, at, game, count)))))),
  ])
  const results = ticks.map(({ at, tick }, k) => {
    const games = gamesOf(tick)
    const upstreamRows = upstream[k]!
    const pcstoreRows = pcstore[k]!.reduce((a, b) => a + b, 0)
    const reported = games.filter(([, c]) => c !== null).length
    return {
      at,
      wrote: upstreamRows + pcstoreRows > 0,
      result: {
        written: { upstreamRows, pcstoreRows },
        unchanged: { upstreamRows: 1 - upstreamRows, pcstoreRows: reported - pcstoreRows, pcstoreUnavailable: games.length - reported },
      },
    }
  })
  const wrote = results.filter((r) => r.wrote).map((r) => r.at.getTime())
  if (wrote.length) await playerCounts.invalidate(tx, new Date(Math.min(...wrote)))
  return results.map((r) => r.result)
}
