/**
 * The fight at each full-status tick, as history: campaigns, planet events (defenses and
 * any other event type), attack lines and joint operations (sql/0011_fight_history.sql).
 * Written in the full-status tick's transaction (collect/full-status.ts).
 */
import { t, type Static } from 'elysia'
import type { Sql, Tx } from '../db/connect.ts'
import { Int, Nullable, selectRow, Timestamp } from './model.ts'

export const CampaignRow = t.Object(
  {
    campaignId: Int('Campaign id'),
    planetIndex: Int('Planet index'),
    type: Int('Campaign type (0: liberation or defense; others: the campaign type table)'),
    count: Int('How many times this planet has been fought over (upstream `count`)'),
    race: Nullable(t.Integer(), 'Faction fought (absent in older payloads: null)'),
  },
  { description: 'A campaign at a tick' },
)

export const PlanetEventRow = t.Object(
  {
    eventId: Int('Event id'),
    planetIndex: Int('Planet index'),
    eventType: Int('Event type (1: defense)'),
    race: Int('Attacking faction'),
    health: Int("The event's health (0: the attack has won)"),
    maxHealth: Int("The event's maximum health"),
    startWarTime: Int('Start, in war seconds'),
    expireWarTime: Int('Deadline, in war seconds'),
    startsAt: Timestamp('Start, wall-clock'),
    expiresAt: Timestamp('Deadline, wall-clock'),
    campaignId: Int('The campaign the event belongs to'),
    jointOperationIds: t.Array(t.Integer(), { description: 'Joint operations of the event' }),
  },
  { description: 'A planet event at a tick' },
)

export const AttackRow = t.Object(
  {
    source: Int('Planet index the attack comes from'),
    target: Int('Planet index attacked'),
    lanes: Int('How many times the feed lists this line'),
  },
  { description: 'An attack line at a tick' },
)

export const JointOperationRow = t.Object(
  { operationId: Int('Joint operation id'), planetIndex: Int('Planet index'), hqNodeIndex: Int('Headquarters node') },
  { description: 'A joint operation at a tick' },
)

export type CampaignRow = Static<typeof CampaignRow>
export type PlanetEventRow = Static<typeof PlanetEventRow>
export type AttackRow = Static<typeof AttackRow>
export type JointOperationRow = Static<typeof JointOperationRow>

/** The fight of one tick, as the collector maps it (times as ISO strings: ticks are spooled as JSON). */
export interface FightInput {
  campaigns: { campaign_id: number; planet_index: number; type: number; count: number; race: number | null }[]
  events: {
    event_id: number
    planet_index: number
    event_type: number
    race: number
    health: number
    max_health: number
    start_war_time: number
    expire_war_time: number
    starts_at: string
    expires_at: string
    campaign_id: number
    joint_operation_ids: number[]
  }[]
  attacks: { source_index: number; target_index: number; lanes: number }[]
  jointOperations: { operation_id: number; planet_index: number; hq_node_index: number }[]
}

export const NO_FIGHT: FightInput = { campaigns: [], events: [], attacks: [], jointOperations: [] }

/** The rows of one tick, each table in one statement; a tick already stored adds nothing. */
export async function insert(tx: Tx, at: Date, warId: number, f: FightInput) {
  // One multi-row INSERT per table (postgres.js's row helper), each row stamped with the tick.
  const rowsOf = (table: string, rows: object[]) => {
    if (!rows.length) return null
    const stamped = rows.map((r) => ({ captured_at: at, war_id: warId, ...r })) as Record<string, number | string | number[] | Date | null>[]
    return tx`INSERT INTO ${tx(table)} ${tx(stamped)} ON CONFLICT DO NOTHING`
  }
  const [campaigns, events, attacks, jointOperations] = await Promise.all([
    rowsOf('campaign_snapshots', f.campaigns),
    rowsOf('planet_event_snapshots', f.events),
    rowsOf('planet_attack_snapshots', f.attacks),
    rowsOf('joint_operation_snapshots', f.jointOperations),
  ])
  return {
    campaignHistory: campaigns?.count ?? 0,
    planetEvents: events?.count ?? 0,
    planetAttacks: attacks?.count ?? 0,
    jointOperations: jointOperations?.count ?? 0,
  }
}

/** The fight at a war's latest full-status tick at or before `at` (null: the latest); `at` is that tick's time (null: no tick). */
async function atTick(sql: Sql, warId: number, at: Date | null) {
  const [tick] = await sql<{ t: Date | null }[]>`
    SELECT max(captured_at) AS t FROM full_status_ticks WHERE war_id = ${warId} AND planets_written > 0 ${at ? sql`AND captured_at <= ${at}` : sql``}`
  const t = tick?.t ?? null
  if (t === null) return { at: null, campaigns: [], events: [], attacks: [], jointOperations: [] }
  const where = sql`war_id = ${warId} AND captured_at = ${t}`
  const [campaigns, events, attacks, jointOperations] = await Promise.all([
    sql<CampaignRow[]>`SELECT ${selectRow(sql, CampaignRow)} FROM campaign_snapshots WHERE ${where} ORDER BY campaign_id`,
    sql<PlanetEventRow[]>`
      SELECT ${selectRow(sql, PlanetEventRow, { startWarTime: sql`start_war_time`, expireWarTime: sql`expire_war_time` })}
      FROM planet_event_snapshots WHERE ${where} ORDER BY event_id`,
    sql<AttackRow[]>`SELECT ${selectRow(sql, AttackRow, { source: sql`source_index`, target: sql`target_index` })} FROM planet_attack_snapshots WHERE ${where} ORDER BY source_index, target_index`,
    sql<JointOperationRow[]>`SELECT ${selectRow(sql, JointOperationRow)} FROM joint_operation_snapshots WHERE ${where} ORDER BY operation_id`,
  ])
  return { at: t, campaigns: [...campaigns], events: [...events], attacks: [...attacks], jointOperations: [...jointOperations] }
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { atTick }
