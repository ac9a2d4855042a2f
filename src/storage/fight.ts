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

export type CampaignRow = Static<typeof CampaignRow>
export type PlanetEventRow = Static<typeof PlanetEventRow>
export type AttackRow = Static<typeof AttackRow>

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

/**
 * The rows of one tick, each table in one statement, and the spans of its events and
 * campaigns (sql/0014_fight_spans.sql) moved to include it; a tick already stored adds
 * nothing. `warTime`: the tick's status war time.
 */
export async function insert(tx: Tx, at: Date, warId: number, f: FightInput, warTime: number | null = null) {
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
    spanEvents(tx, at, warId, f.events, warTime),
    spanCampaigns(tx, at, warId, f.campaigns),
  ])
  return {
    campaignHistory: campaigns?.count ?? 0,
    planetEvents: events?.count ?? 0,
    planetAttacks: attacks?.count ?? 0,
    jointOperations: jointOperations?.count ?? 0,
  }
}

/** The events' spans include tick `at`: first and last sighting, and the state at the last one (whichever order ticks come in). */
function spanEvents(tx: Tx, at: Date, warId: number, events: FightInput['events'], warTime: number | null) {
  if (!events.length) return null
  const rows = events.map((e) => ({
    war_id: warId, event_id: e.event_id, planet_index: e.planet_index, event_type: e.event_type, race: e.race, campaign_id: e.campaign_id,
    max_health: e.max_health, first_seen_at: at, last_seen_at: at, last_health: e.health, last_war_time: warTime,
    expire_war_time: e.expire_war_time, expires_at: e.expires_at, zero_at: e.health <= 0 ? at : null,
  }))
  // (The row helper needs the bare table name after INSERT INTO: no alias.)
  const s = tx`planet_event_spans`
  const latest = (column: string) => tx`${tx(column)} = CASE WHEN excluded.last_seen_at >= ${s}.last_seen_at THEN excluded.${tx(column)} ELSE ${s}.${tx(column)} END`
  return tx`
    INSERT INTO planet_event_spans ${tx(rows)}
    ON CONFLICT (war_id, event_id) DO UPDATE SET
      ${latest('last_health')}, ${latest('last_war_time')}, ${latest('expire_war_time')}, ${latest('expires_at')},
      ${latest('planet_index')}, ${latest('race')}, ${latest('campaign_id')}, ${latest('max_health')}, ${latest('event_type')},
      first_seen_at = least(${s}.first_seen_at, excluded.first_seen_at),
      last_seen_at = greatest(${s}.last_seen_at, excluded.last_seen_at),
      zero_at = least(${s}.zero_at, excluded.zero_at)`
}

function spanCampaigns(tx: Tx, at: Date, warId: number, campaigns: FightInput['campaigns']) {
  if (!campaigns.length) return null
  const rows = campaigns.map((c) => ({ war_id: warId, campaign_id: c.campaign_id, planet_index: c.planet_index, type: c.type, first_seen_at: at, last_seen_at: at }))
  return tx`
    INSERT INTO campaign_spans ${tx(rows)}
    ON CONFLICT (war_id, campaign_id) DO UPDATE SET
      first_seen_at = least(campaign_spans.first_seen_at, excluded.first_seen_at),
      last_seen_at = greatest(campaign_spans.last_seen_at, excluded.last_seen_at)`
}

/** A campaign at a tick, with the first tick that showed it. */
export interface CampaignAtTick extends CampaignRow {
  firstSeenAt: Date
}

/** The war's campaigns at tick `at`, each with the first tick that showed it. */
async function campaignsAt(sql: Sql, warId: number, at: Date): Promise<CampaignAtTick[]> {
  return [...(await sql<CampaignAtTick[]>`
    SELECT ${selectRow(sql, CampaignRow, { campaignId: sql`c.campaign_id`, planetIndex: sql`c.planet_index`, type: sql`c.type`, count: sql`c.count`, race: sql`c.race` })},
      (SELECT min(f.captured_at) FROM campaign_snapshots f WHERE f.war_id = c.war_id AND f.campaign_id = c.campaign_id) AS "firstSeenAt"
    FROM campaign_snapshots c
    WHERE c.war_id = ${warId} AND c.captured_at = ${at}
    ORDER BY c.campaign_id`)]
}

/** A tick of an event's health. */
export interface EventTick {
  t: Date
  health: number
  maxHealth: number
}

/** An event at a tick, with its ticks in a window (oldest first). */
export interface EventWindow extends PlanetEventRow {
  ticks: EventTick[]
}

/**
 * The war's planet events at tick `at` (those on `planetIndexes` when given), each with
 * its own ticks in (from, to].
 */
async function eventWindows(sql: Sql, f: { warId: number; at: Date; planetIndexes?: readonly number[]; from: Date; to: Date }): Promise<EventWindow[]> {
  const events = await sql<PlanetEventRow[]>`
    SELECT ${selectRow(sql, PlanetEventRow, { startWarTime: sql`start_war_time`, expireWarTime: sql`expire_war_time` })}
    FROM planet_event_snapshots
    WHERE war_id = ${f.warId} AND captured_at = ${f.at} ${f.planetIndexes ? sql`AND planet_index = ANY(${[...f.planetIndexes]}::int[])` : sql``}
    ORDER BY event_id`
  if (!events.length) return []
  const ticks = await sql<(EventTick & { eventId: number })[]>`
    SELECT event_id AS "eventId", captured_at AS t, health, max_health AS "maxHealth"
    FROM planet_event_snapshots
    WHERE war_id = ${f.warId} AND event_id IN ${sql(events.map((e) => e.eventId))} AND captured_at > ${f.from} AND captured_at <= ${f.to}
    ORDER BY event_id, captured_at`
  const byEvent = new Map<number, EventTick[]>(events.map((e) => [e.eventId, []]))
  for (const { eventId, ...tick } of ticks) byEvent.get(eventId)!.push(tick)
  return events.map((e) => ({ ...e, ticks: byEvent.get(e.eventId)! }))
}

/** The war's attack lines at tick `at`. */
async function attacksAt(sql: Sql, warId: number, at: Date): Promise<AttackRow[]> {
  return [...(await sql<AttackRow[]>`
    SELECT ${selectRow(sql, AttackRow, { source: sql`source_index`, target: sql`target_index` })}
    FROM planet_attack_snapshots WHERE war_id = ${warId} AND captured_at = ${at} ORDER BY source_index, target_index`)]
}

/** A tick of a campaign's life: its event's health (a defense; `owner` null), else its planet's status. */
export interface CampaignTick {
  t: Date
  owner: number | null
  health: number
  maxHealth: number
  players: number | null
}

/**
 * A campaign's span and its ticks from its first to its last (the latest `limit`, oldest
 * first): its planet event's own health when one belongs to it (a defense), else its
 * planet's status. Null for a campaign never stored.
 */
async function campaignHistory(sql: Sql, f: { warId: number; campaignId: number; limit: number }) {
  const [span] = await sql<{ planetIndex: number; type: number; firstSeenAt: Date; lastSeenAt: Date; eventId: number | null }[]>`
    SELECT c.planet_index AS "planetIndex", c.type, c.first_seen_at AS "firstSeenAt", c.last_seen_at AS "lastSeenAt",
           (SELECT e.event_id FROM planet_event_spans e WHERE e.war_id = c.war_id AND e.campaign_id = c.campaign_id ORDER BY e.first_seen_at DESC LIMIT 1) AS "eventId"
    FROM campaign_spans c WHERE c.war_id = ${f.warId} AND c.campaign_id = ${f.campaignId}`
  if (!span) return null
  const ticks = span.eventId !== null
    ? await sql<CampaignTick[]>`
        SELECT * FROM (
          SELECT e.captured_at AS t, NULL::int AS owner, e.health, e.max_health AS "maxHealth", s.players
          FROM planet_event_snapshots e
          LEFT JOIN planet_status_snapshots s ON s.war_id = e.war_id AND s.planet_index = e.planet_index AND s.captured_at = e.captured_at
          WHERE e.war_id = ${f.warId} AND e.event_id = ${span.eventId}
          ORDER BY e.captured_at DESC LIMIT ${f.limit}) x ORDER BY t`
    : await sql<CampaignTick[]>`
        SELECT * FROM (
          SELECT s.captured_at AS t, s.owner, s.health, p.max_health AS "maxHealth", s.players
          FROM planet_status_snapshots s JOIN planets p ON p.war_id = s.war_id AND p.planet_index = s.planet_index
          WHERE s.war_id = ${f.warId} AND s.planet_index = ${span.planetIndex} AND s.captured_at BETWEEN ${span.firstSeenAt} AND ${span.lastSeenAt}
          ORDER BY s.captured_at DESC LIMIT ${f.limit}) x ORDER BY t`
  return { ...span, ticks: [...ticks] }
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { campaignsAt, eventWindows, attacksAt, campaignHistory }
