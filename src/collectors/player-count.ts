import { isDatabaseUnavailable } from '../db/connect.ts'
import { pcstoreCounts } from '../upstream/pcstore.ts'
import { COLLECTOR_FETCH, logged, runWritePhase, type CollectorDeps, type CollectorOptions, type CollectorSummary } from './run.ts'

/** pcstore rows are written about every 10 minutes; the slack absorbs schedule jitter. */
export const PCSTORE_INTERVAL_MS = 10 * 60_000
const PCSTORE_DUE_AFTER = '9 minutes 30 seconds'

/**
 * Player counts, two series in `player_count_snapshots`:
 * - upstream: the sum of players over all planets of the upstream war status, a `Game 2`
 *   row per new war-status time (a frozen war writes nothing);
 * - pcstore: both games' PC store counts (console always 0: no public source) when the
 *   last pcstore row is ~10 minutes old.
 * The upstream feed failing fails the run; the pcstore feed failing only skips its rows
 * (they are retried at the next run, the live route shows them as unavailable).
 */
export function collectPlayerCount(deps: CollectorDeps, opts: CollectorOptions = {}): Promise<CollectorSummary> {
  return logged(deps.log, 'player-count', async () => {
    const t0 = performance.now()
    const warId = opts.warId ?? deps.config.warId
    // With the database down, fetch pcstore anyway: the tick may be kept for later, and
    // the write phase re-checks due-ness under the lock.
    const [due] = await deps.sql<{ due: boolean }[]>`
      SELECT coalesce(max(captured_at) <= coalesce(${opts.now ?? null}::timestamptz, now()) - ${PCSTORE_DUE_AFTER}::interval, true) AS due
      FROM player_count_snapshots
      WHERE game_name = 'Game 2' AND source = 'pcstore' AND captured_at > now() - interval '1 day'`.catch((err) => {
      if (isDatabaseUnavailable(err)) return [{ due: true }]
      throw err
    })
    const [status, pcstore] = await Promise.all([
      deps.feeds.upstream.status(warId, COLLECTOR_FETCH),
      due?.due ? pcstoreCounts(deps.feeds.pcstore, COLLECTOR_FETCH) : Promise.resolve(null),
    ])
    const total = status.data.planetStatus.reduce((sum, p) => sum + p.players, 0)
    const at = opts.now ?? status.fetchedAt

    return runWritePhase(deps, 'player-count', warId, t0, async (tx) => {
      const upstream = await tx`
        INSERT INTO player_count_snapshots (captured_at, game_name, source, api_total_player_count, war_id, upstream_war_time)
        SELECT ${at}, 'Game 2', 'upstream', ${total}, ${warId}, ${status.data.time}
        WHERE NOT EXISTS (
          SELECT 1 FROM (
            SELECT war_id, upstream_war_time FROM player_count_snapshots
            WHERE game_name = 'Game 2' AND source = 'upstream' ORDER BY captured_at DESC LIMIT 1
          ) AS last
          WHERE last.war_id = ${warId} AND last.upstream_war_time = ${status.data.time})
        ON CONFLICT DO NOTHING`
      let pcstoreRows = 0
      const games = pcstore ? ([['Game', pcstore.game1], ['Game 2', pcstore.game2]] as const) : []
      for (const [game, count] of games) {
        if (count === null) continue
        const r = await tx`
          INSERT INTO player_count_snapshots (captured_at, game_name, source, pcstore_player_count, console_player_count, total_player_count)
          SELECT ${at}, ${game}, 'pcstore', ${count}, 0, ${count}
          WHERE NOT EXISTS (
            SELECT 1 FROM player_count_snapshots
            WHERE game_name = ${game} AND source = 'pcstore' AND captured_at > ${at}::timestamptz - ${PCSTORE_DUE_AFTER}::interval)
          ON CONFLICT DO NOTHING`
        pcstoreRows += r.count
      }
      if (upstream.count + pcstoreRows > 0) await tx`SELECT rollup_invalidate('player_count_snapshots', ${at})`
      return {
        written: { upstreamRows: upstream.count, pcstoreRows },
        unchanged: {
          upstreamRows: 1 - upstream.count,
          pcstoreRows: pcstore ? games.filter(([, c]) => c !== null).length - pcstoreRows : 0,
          pcstoreUnavailable: pcstore ? games.filter(([, c]) => c === null).length : 0,
        },
      }
    }, at)
  })
}
