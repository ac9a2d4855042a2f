import { NotCurrentWarError } from './current-war.ts'
import { asJson, logged, runWritePhase, type CollectorDeps, type CollectorOptions, type CollectorSummary } from './run.ts'

/**
 * Per-planet cumulative statistics from the community API: one row for every planet
 * whose cumulative counters changed since that planet's previous row; unchanged planets
 * get none. Player count, success rate and accuracy are stored with the row but are not
 * counters, so they alone never cause one. The feed has no war id: the rows belong to the
 * upstream's current war, and with `deps.currentWar` another war id is refused (409) and
 * an unanswered check fails the run (503): nothing is stored under a war nobody checked.
 */
export function collectPlanetStats(deps: CollectorDeps, opts: CollectorOptions = {}): Promise<CollectorSummary> {
  return logged(deps.log, 'planet-stats', async () => {
    const t0 = performance.now()
    const warId = opts.warId ?? deps.config.warId
    const current = await deps.currentWar?.verify()
    if (current !== undefined && current !== warId) throw new NotCurrentWarError(warId, current)
    const planets = await deps.feeds.community.planets()
    const at = opts.now ?? planets.fetchedAt
    const rows = planets.data.map(({ index, statistics: s }) => ({
      planet_index: index,
      missions_won: s.missionsWon,
      missions_lost: s.missionsLost,
      mission_time: s.missionTime,
      bug_kills: s.terminidKills,
      automaton_kills: s.automatonKills,
      illuminate_kills: s.illuminateKills,
      bullets_fired: s.bulletsFired,
      bullets_hit: s.bulletsHit,
      time_played: s.timePlayed,
      deaths: s.deaths,
      revives: s.revives,
      friendlies: s.friendlies,
      mission_success_rate: s.missionSuccessRate,
      accuracy: s.accuracy,
      player_count: s.playerCount,
    }))

    return runWritePhase(deps, 'planet-stats', warId, t0, async (tx) => {
      const written = await tx`
        INSERT INTO planet_stats_snapshots (captured_at, war_id, planet_index, missions_won, missions_lost, mission_time,
          bug_kills, automaton_kills, illuminate_kills, bullets_fired, bullets_hit, time_played, deaths, revives, friendlies,
          mission_success_rate, accuracy, player_count)
        SELECT ${at}, ${warId}, n.planet_index, n.missions_won, n.missions_lost, n.mission_time, n.bug_kills,
               n.automaton_kills, n.illuminate_kills, n.bullets_fired, n.bullets_hit, n.time_played, n.deaths, n.revives,
               n.friendlies, n.mission_success_rate, n.accuracy, n.player_count
        FROM jsonb_to_recordset(${asJson(rows)}::text::jsonb) AS n(
          planet_index integer, missions_won bigint, missions_lost bigint, mission_time bigint, bug_kills bigint,
          automaton_kills bigint, illuminate_kills bigint, bullets_fired bigint, bullets_hit bigint, time_played bigint,
          deaths bigint, revives bigint, friendlies bigint, mission_success_rate double precision,
          accuracy double precision, player_count integer)
        WHERE NOT EXISTS (
          SELECT 1 FROM (
            SELECT * FROM planet_stats_snapshots p
            WHERE p.war_id = ${warId} AND p.planet_index = n.planet_index
            ORDER BY p.captured_at DESC LIMIT 1
          ) AS last
          WHERE (last.missions_won, last.missions_lost, last.mission_time, last.bug_kills, last.automaton_kills,
                 last.illuminate_kills, last.bullets_fired, last.bullets_hit, last.time_played, last.deaths,
                 last.revives, last.friendlies)
              = (n.missions_won, n.missions_lost, n.mission_time, n.bug_kills, n.automaton_kills,
                 n.illuminate_kills, n.bullets_fired, n.bullets_hit, n.time_played, n.deaths,
                 n.revives, n.friendlies))
        ON CONFLICT DO NOTHING`
      return { written: { planetStats: written.count }, unchanged: { planetStats: rows.length - written.count } }
    }, at)
  })
}
