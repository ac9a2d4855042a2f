import type { Assignment, Reward } from '../upstream/schemas.ts'
import { asJson, COLLECTOR_FETCH, logged, runWritePhase, type CollectorDeps, type CollectorOptions, type CollectorSummary } from './run.ts'

/** Reward type 1 is medals. */
const MEDALS = 1

/**
 * The spec's rule: medals count only from a type-1 reward with amount >= 2; a reward of
 * exactly 1 is a unique item, worth 0 medals here.
 */
export function rewardMedals(rewards: Reward[]): number {
  return rewards.filter((r) => r.type === MEDALS && r.amount >= 2).reduce((sum, r) => sum + r.amount, 0)
}

/** `rewards` (newer payloads, may hold nulls) or else the single `reward`. */
export function rewardsOf(a: Assignment): Reward[] {
  const list = a.setting.rewards ?? (a.setting.reward ? [a.setting.reward] : [])
  return list.filter((r): r is Reward => r !== null)
}

/**
 * One archival tick, in one transaction: a status row per planet, one war-summary row
 * (cumulative counters), every major order upserted with a progress row, and the
 * dispatches not stored yet. The tick is keyed by the upstream war-status time: the
 * same tick twice (a cached or frozen status) writes nothing the second time.
 */
export function collectFullStatus(deps: CollectorDeps, opts: CollectorOptions = {}): Promise<CollectorSummary> {
  return logged(deps.log, 'full-status', async () => {
    const t0 = performance.now()
    const warId = opts.warId ?? deps.config.warId
    const up = deps.feeds.upstream
    const [status, summary, assignments, news] = await Promise.all([
      up.status(warId, COLLECTOR_FETCH),
      up.summary(warId, COLLECTOR_FETCH),
      up.assignments(warId, COLLECTOR_FETCH),
      up.newsfeed(warId, COLLECTOR_FETCH),
    ])
    const at = opts.now ?? status.fetchedAt
    const warTime = status.data.time
    const g = summary.data.galaxy_stats

    const planetRows = status.data.planetStatus.map((p) => ({
      planet_index: p.index, owner: p.owner, health: p.health, regen_per_second: p.regenPerSecond, players: p.players,
    }))
    const orderRows = assignments.data.map((a) => {
      const rewards = rewardsOf(a)
      return {
        order_id32: a.id32,
        expires_in: a.expiresIn,
        start_war_time: a.startTime ?? null,
        setting_type: a.setting.type,
        flags: a.setting.flags,
        title: a.setting.overrideTitle,
        briefing: a.setting.overrideBrief,
        task_description: a.setting.taskDescription,
        tasks: a.setting.tasks,
        rewards,
        reward_medals: rewardMedals(rewards),
        progress: a.progress,
      }
    })
    // War time runs slower than wall time and can stop: place each dispatch relative to
    // the status captured with it, never as startDate + war time.
    const dispatchRows = news.data.map((n) => ({
      dispatch_id: n.id,
      published_war_time: n.published,
      published_at: new Date(at.getTime() - (warTime - n.published) * 1000).toISOString(),
      type: n.type,
      message: n.message ?? null,
    }))

    return runWritePhase(deps, 'full-status', warId, t0, async (tx) => {
      const tick = await tx`
        INSERT INTO full_status_ticks (war_id, upstream_war_time, captured_at, planets_written)
        VALUES (${warId}, ${warTime}, ${at}, ${planetRows.length})
        ON CONFLICT DO NOTHING`
      if (tick.count === 0) {
        return {
          written: { planetStatus: 0, warSummary: 0, majorOrders: 0, majorOrderProgress: 0, dispatches: 0 },
          unchanged: { tick: 1 },
        }
      }
      const planets = await tx`
        INSERT INTO planet_status_snapshots (captured_at, war_id, planet_index, owner, health, regen_per_second, players)
        SELECT ${at}, ${warId}, r.planet_index, r.owner, r.health, r.regen_per_second, r.players
        FROM jsonb_to_recordset(${asJson(planetRows)}::text::jsonb) AS r(
          planet_index integer, owner smallint, health bigint, regen_per_second double precision, players integer)`
      const warSummary = await tx`
        INSERT INTO war_summary_snapshots (captured_at, war_id, upstream_war_time, bug_kills, automaton_kills, illuminate_kills,
          deaths, missions_won, missions_lost, mission_time, bullets_fired, bullets_hit, time_played, revives, friendlies,
          mission_success_rate, accuracy)
        VALUES (${at}, ${warId}, ${warTime}, ${g.bugKills}, ${g.automatonKills}, ${g.illuminateKills}, ${g.deaths},
          ${g.missionsWon}, ${g.missionsLost}, ${g.missionTime}, ${g.bulletsFired}, ${g.bulletsHit}, ${g.timePlayed},
          ${g.revives}, ${g.friendlies}, ${g.missionSuccessRate}, ${g.accurracy})`
      const orders = await tx`
        INSERT INTO major_orders (order_id32, war_id, first_seen_at, last_seen_at, expires_in_last_seen, start_war_time,
          setting_type, flags, title, briefing, task_description, tasks, rewards, reward_medals)
        SELECT r.order_id32, ${warId}, ${at}, ${at}, r.expires_in, r.start_war_time, r.setting_type, r.flags, r.title,
               r.briefing, r.task_description, r.tasks, r.rewards, r.reward_medals
        FROM jsonb_to_recordset(${asJson(orderRows)}::text::jsonb) AS r(
          order_id32 bigint, expires_in integer, start_war_time bigint, setting_type integer, flags integer, title text,
          briefing text, task_description text, tasks jsonb, rewards jsonb, reward_medals integer)
        ON CONFLICT (order_id32) DO UPDATE SET
          last_seen_at = excluded.last_seen_at, expires_in_last_seen = excluded.expires_in_last_seen,
          start_war_time = coalesce(excluded.start_war_time, major_orders.start_war_time), setting_type = excluded.setting_type,
          flags = excluded.flags, title = excluded.title, briefing = excluded.briefing,
          task_description = excluded.task_description, tasks = excluded.tasks, rewards = excluded.rewards,
          reward_medals = excluded.reward_medals`
      const progress = await tx`
        INSERT INTO major_order_progress (captured_at, order_id32, war_id, progress)
        SELECT ${at}, r.order_id32, ${warId}, r.progress
        FROM jsonb_to_recordset(${asJson(orderRows)}::text::jsonb) AS r(order_id32 bigint, progress jsonb)`
      const dispatches = await tx`
        INSERT INTO dispatches (war_id, dispatch_id, published_war_time, published_at, type, message, first_seen_at)
        SELECT ${warId}, r.dispatch_id, r.published_war_time, r.published_at, r.type, r.message, ${at}
        FROM jsonb_to_recordset(${asJson(dispatchRows)}::text::jsonb) AS r(
          dispatch_id bigint, published_war_time bigint, published_at timestamptz, type integer, message text)
        ON CONFLICT (war_id, dispatch_id) DO NOTHING`
      await tx`SELECT rollup_invalidate('planet_status_snapshots', ${at})`
      return {
        written: {
          planetStatus: planets.count,
          warSummary: warSummary.count,
          majorOrders: orders.count,
          majorOrderProgress: progress.count,
          dispatches: dispatches.count,
        },
        unchanged: { tick: 0, dispatches: dispatchRows.length - dispatches.count },
      }
    }, at)
  })
}
