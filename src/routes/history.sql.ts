/**
 * SQL of the paged historical routes (routes/history.ts). Each function returns one page
 * of rows, already in the response's shape, and the total count of matching rows.
 * Order is always time DESC, then a key, so pages are stable.
 */
import type { Sql } from '../db/connect.ts'
import { rangeCondition, type TimeRange } from '../http/dates.ts'
import type { Page, PageResult } from '../http/paging.ts'

const iso = (d: Date) => d.toISOString()

async function pageOf<Raw, Row>(rows: Promise<Raw[]>, count: Promise<{ n: number }[]>, shape: (r: Raw) => Row): Promise<PageResult<Row>> {
  const [r, [c]] = await Promise.all([rows, count])
  return { rows: r.map(shape), total: c?.n ?? 0 }
}

// ------------------------------------------------------------ player counts

export type GameName = 'Game' | 'Game 2'

interface PlayerCountRaw {
  captured_at: Date
  game_name: GameName
  pcstore_player_count: number | null
  console_player_count: number | null
  total_player_count: number | null
  api_total_player_count: number | null
}

export function playerCountHistory(sql: Sql, f: { range: TimeRange; gameName?: GameName }, p: Page) {
  const where = sql`WHERE true ${rangeCondition(sql, 'captured_at', f.range)} ${f.gameName ? sql`AND game_name = ${f.gameName}` : sql``}`
  return pageOf(
    sql<PlayerCountRaw[]>`
      SELECT captured_at, game_name, pcstore_player_count, console_player_count, total_player_count, api_total_player_count
      FROM player_count_snapshots ${where}
      ORDER BY captured_at DESC, game_name, source
      LIMIT ${p.limit} OFFSET ${p.offset}`,
    sql<{ n: number }[]>`SELECT count(*) AS n FROM player_count_snapshots ${where}`,
    (r) => ({
      timestamp: iso(r.captured_at),
      gameName: r.game_name,
      pcstorePlayerCount: r.pcstore_player_count,
      consolePlayerCount: r.console_player_count,
      totalPlayerCount: r.total_player_count,
      apiTotalPlayerCount: r.api_total_player_count,
    }),
  )
}

// ------------------------------------------------------------ planet status

interface PlanetStatusRaw {
  captured_at: Date
  war_id: number
  planet_index: number
  owner: number
  health: number
  regen_per_second: number
  players: number
}

export function planetStatusHistory(sql: Sql, f: { warId: number; planetIndex: number; range: TimeRange }, p: Page) {
  const where = sql`WHERE war_id = ${f.warId} AND planet_index = ${f.planetIndex} ${rangeCondition(sql, 'captured_at', f.range)}`
  return pageOf(
    sql<PlanetStatusRaw[]>`
      SELECT captured_at, war_id, planet_index, owner, health, regen_per_second, players
      FROM planet_status_snapshots ${where}
      ORDER BY captured_at DESC
      LIMIT ${p.limit} OFFSET ${p.offset}`,
    sql<{ n: number }[]>`SELECT count(*) AS n FROM planet_status_snapshots ${where}`,
    (r) => ({
      warID: r.war_id,
      planetIndex: r.planet_index,
      owner: r.owner,
      health: r.health,
      regenPerSecond: r.regen_per_second,
      players: r.players,
      timestamp: iso(r.captured_at),
    }),
  )
}

// ------------------------------------------------------------ war summary

interface WarSummaryRaw {
  captured_at: Date
  war_id: number
  bug_kills: number
  automaton_kills: number
  illuminate_kills: number
  deaths: number
  missions_won: number
  missions_lost: number
  mission_time: number
  bullets_fired: number
  bullets_hit: number
  time_played: number
  revives: number
  friendlies: number
  mission_success_rate: number
  accuracy: number
}

export function warSummaryHistory(sql: Sql, f: { warId: number; range: TimeRange }, p: Page) {
  const where = sql`WHERE war_id = ${f.warId} ${rangeCondition(sql, 'captured_at', f.range)}`
  return pageOf(
    sql<WarSummaryRaw[]>`
      SELECT captured_at, war_id, bug_kills, automaton_kills, illuminate_kills, deaths, missions_won, missions_lost,
             mission_time, bullets_fired, bullets_hit, time_played, revives, friendlies, mission_success_rate, accuracy
      FROM war_summary_snapshots ${where}
      ORDER BY captured_at DESC
      LIMIT ${p.limit} OFFSET ${p.offset}`,
    sql<{ n: number }[]>`SELECT count(*) AS n FROM war_summary_snapshots ${where}`,
    (r) => ({
      warID: r.war_id,
      bugKills: r.bug_kills,
      automatonKills: r.automaton_kills,
      illuminateKills: r.illuminate_kills,
      deaths: r.deaths,
      missionsWon: r.missions_won,
      missionsLost: r.missions_lost,
      missionTime: r.mission_time,
      bulletsFired: r.bullets_fired,
      bulletsHit: r.bullets_hit,
      timePlayed: r.time_played,
      revives: r.revives,
      friendlies: r.friendlies,
      missionSuccessRate: r.mission_success_rate,
      accuracy: r.accuracy,
      timestamp: iso(r.captured_at),
    }),
  )
}

// ------------------------------------------------------------ major orders

interface MajorOrderRaw {
  order_id32: number
  war_id: number
  title: string | null
  briefing: string | null
  task_description: string | null
  first_seen_at: Date
  last_seen_at: Date
  expires_in_last_seen: number
  start_war_time: number | null
  flags: number | null
  tasks: unknown[] | null
  rewards: unknown[]
  reward_medals: number
}

export function majorOrders(sql: Sql, f: { warId?: number }, p: Page) {
  const where = f.warId === undefined ? sql`` : sql`WHERE war_id = ${f.warId}`
  return pageOf(
    sql<MajorOrderRaw[]>`
      SELECT order_id32, war_id, title, briefing, task_description, first_seen_at, last_seen_at, expires_in_last_seen,
             start_war_time, flags, tasks, rewards, reward_medals
      FROM major_orders ${where}
      ORDER BY last_seen_at DESC, order_id32 DESC
      LIMIT ${p.limit} OFFSET ${p.offset}`,
    sql<{ n: number }[]>`SELECT count(*) AS n FROM major_orders ${where}`,
    (r) => ({
      orderId32: r.order_id32,
      warID: r.war_id,
      title: r.title,
      briefing: r.briefing,
      description: r.task_description,
      firstSeenAt: iso(r.first_seen_at),
      lastSeenAt: iso(r.last_seen_at),
      expiresInLastSeen: r.expires_in_last_seen,
      startWarTime: r.start_war_time,
      flags: r.flags,
      tasks: r.tasks,
      rewards: r.rewards,
      rewardMedals: r.reward_medals,
    }),
  )
}

// ------------------------------------------------------------ major order progress

interface ProgressRaw {
  captured_at: Date
  order_id32: number
  progress: number[]
}

export function majorOrderProgress(sql: Sql, f: { orderId32: number; range: TimeRange }, p: Page) {
  const where = sql`WHERE order_id32 = ${f.orderId32} ${rangeCondition(sql, 'captured_at', f.range)}`
  return pageOf(
    sql<ProgressRaw[]>`
      SELECT captured_at, order_id32, progress
      FROM major_order_progress ${where}
      ORDER BY captured_at DESC
      LIMIT ${p.limit} OFFSET ${p.offset}`,
    sql<{ n: number }[]>`SELECT count(*) AS n FROM major_order_progress ${where}`,
    (r) => ({ orderId32: r.order_id32, progress: r.progress, timestamp: iso(r.captured_at) }),
  )
}

// ------------------------------------------------------------ dispatches

interface DispatchRaw {
  dispatch_id: number
  war_id: number
  published_at: Date
  published_war_time: number
  type: number
  message: string | null
}

/** `q` as a literal ILIKE pattern: `\`, `%` and `_` in the text match themselves. */
export const likeLiteral = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export function dispatches(sql: Sql, f: { warId: number; since?: number; q?: string }, p: Page) {
  const where = sql`
    WHERE war_id = ${f.warId}
    ${f.since === undefined ? sql`` : sql`AND published_war_time > ${f.since}`}
    ${f.q ? sql`AND message ILIKE ${likeLiteral(f.q)} ESCAPE '\\'` : sql``}`
  return pageOf(
    sql<DispatchRaw[]>`
      SELECT dispatch_id, war_id, published_at, published_war_time, type, message
      FROM dispatches ${where}
      ORDER BY published_at DESC, dispatch_id DESC
      LIMIT ${p.limit} OFFSET ${p.offset}`,
    sql<{ n: number }[]>`SELECT count(*) AS n FROM dispatches ${where}`,
    (r) => ({
      id: r.dispatch_id,
      warID: r.war_id,
      publishedAt: iso(r.published_at),
      publishedWarTime: r.published_war_time,
      type: r.type,
      message: r.message,
    }),
  )
}
