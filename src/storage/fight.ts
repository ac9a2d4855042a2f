/**
 * The fight at each full-status tick, as history: campaigns, planet events (defenses and
 * any other event type), attack lines and joint operations (sql/0011_fight_history.sql).
 * Written in the full-status tick's transaction (collect/full-status.ts).
 */
import { t, type Static } from 'elysia'
import type { Sql, Tx } from '../db/connect.ts'
import { Int, Nullable, repeats, rowAffectedTwice, selectRow, Timestamp } from './model.ts'
import { ticks as planetTicks } from './planet-status.ts'
import * as tickSets from './tick-sets.ts'
import type { Item } from './tick-sets.ts'

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

/** The fight of one tick as written: its time and its status war time. */
export interface FightTick {
  at: Date
  warTime: number | null
  fight: FightInput
}

/** Rows written per table, as the full-status collector counts them. */
export interface FightCounts {
  campaignHistory: number
  planetEvents: number
  planetAttacks: number
  jointOperations: number
}

/** The rows of one tick and its spans (insertTicks). `warTime`: the tick's status war time. */
export async function insert(tx: Tx, at: Date, warId: number, f: FightInput, warTime: number | null = null, next: Date | null = null): Promise<FightCounts> {
  const [counts] = await insertTicks(tx, warId, [{ at, warTime, fight: f }], next)
  return counts!
}

/** A tick's campaigns, attack lines and joint operations as the sets of sql/0022 (storage/tick-sets.ts). */
export const setsOf = (f: FightInput): Record<'campaigns' | 'attacks' | 'joint_operations', Item[]> => ({
  campaigns: f.campaigns.map((c) => [c.campaign_id, c.planet_index, c.type, c.count, c.race]),
  attacks: f.attacks.map((a) => [a.source_index, a.target_index, a.lanes]),
  joint_operations: f.jointOperations.map((j) => [j.operation_id, j.planet_index, j.hq_node_index]),
})

/**
 * The fight of ticks of one war, oldest first, each later than the one before (`next`: the
 * stored tick after a tick written late, the only one then): the events' rows (a row
 * already stored adds nothing) in one statement with the spans of the events and campaigns
 * (sql/0014_fight_spans.sql) moved to include them, each span once with what the ticks, one
 * after the other, would have left: its first and last sighting, the state at its latest
 * one, its first at zero health; a campaign's planet and type as first inserted; then the
 * campaigns, attack lines and joint operations, sets kept where they change
 * (storage/tick-sets.ts). Returns the rows per tick (a set's: its items).
 */
export async function insertTicks(tx: Tx, warId: number, ticks: readonly FightTick[], next: Date | null = null): Promise<FightCounts[]> {
  if (!ticks.length) return []
  // Spans are upserted once per key here; a tick that lists an event or a campaign twice
  // fails as its own upsert would.
  if (ticks.some((t) => repeats(t.fight.events.map((e) => e.event_id)) || repeats(t.fight.campaigns.map((c) => c.campaign_id)))) throw rowAffectedTwice()
  const of = <R extends object>(rows: (t: FightTick) => R[]) => JSON.stringify(ticks.flatMap((t, k) => rows(t).map((r) => ({ k, at: t.at, war_time: t.warTime, ...r }))))
  // A campaign's span from the ticks: its planet and type as its first tick lists them, its first and last sighting.
  const spans = new Map<number, { campaign_id: number; planet_index: number; type: number; first_at: Date; last_at: Date }>()
  for (const t of ticks) {
    for (const c of t.fight.campaigns) {
      const span = spans.get(c.campaign_id)
      if (!span) spans.set(c.campaign_id, { campaign_id: c.campaign_id, planet_index: c.planet_index, type: c.type, first_at: t.at, last_at: t.at })
      else {
        if (t.at < span.first_at) span.first_at = t.at
        if (t.at > span.last_at) span.last_at = t.at
      }
    }
  }
  // The sets go out with the rows (one round trip): neither statement reads the other's tables.
  const [rows] = await Promise.all([tx<{ count: keyof FightCounts; k: number; n: number }[]>`
    WITH c AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify([...spans.values()])}::text::jsonb) AS c(
        campaign_id bigint, planet_index integer, type integer, first_at timestamptz, last_at timestamptz)
    ), e AS (
      SELECT * FROM jsonb_to_recordset(${of((t) => t.fight.events)}::text::jsonb) AS e(
        k integer, at timestamptz, war_time bigint, event_id bigint, planet_index integer, event_type integer, race integer, health bigint,
        max_health bigint, start_war_time bigint, expire_war_time bigint, starts_at timestamptz, expires_at timestamptz, campaign_id bigint,
        joint_operation_ids bigint[])
    ), event_rows AS (
      INSERT INTO planet_event_snapshots (captured_at, war_id, event_id, planet_index, event_type, race, health, max_health, start_war_time,
        expire_war_time, starts_at, expires_at, campaign_id, joint_operation_ids)
      SELECT at, ${warId}, event_id, planet_index, event_type, race, health, max_health, start_war_time, expire_war_time, starts_at, expires_at,
             campaign_id, joint_operation_ids FROM e
      ON CONFLICT DO NOTHING RETURNING captured_at
    ), event_spans AS (
      INSERT INTO planet_event_spans AS s (war_id, event_id, planet_index, event_type, race, campaign_id, max_health, first_seen_at, last_seen_at,
        last_health, last_war_time, expire_war_time, expires_at, zero_at)
      SELECT DISTINCT ON (event_id) ${warId}, event_id, planet_index, event_type, race, campaign_id, max_health,
             min(at) OVER w, max(at) OVER w, health, war_time, expire_war_time, expires_at, min(at) FILTER (WHERE health <= 0) OVER w
      FROM e WINDOW w AS (PARTITION BY event_id) ORDER BY event_id, k DESC
      ON CONFLICT (war_id, event_id) DO UPDATE SET
        last_health = CASE WHEN excluded.last_seen_at >= s.last_seen_at THEN excluded.last_health ELSE s.last_health END,
        last_war_time = CASE WHEN excluded.last_seen_at >= s.last_seen_at THEN excluded.last_war_time ELSE s.last_war_time END,
        expire_war_time = CASE WHEN excluded.last_seen_at >= s.last_seen_at THEN excluded.expire_war_time ELSE s.expire_war_time END,
        expires_at = CASE WHEN excluded.last_seen_at >= s.last_seen_at THEN excluded.expires_at ELSE s.expires_at END,
        planet_index = CASE WHEN excluded.last_seen_at >= s.last_seen_at THEN excluded.planet_index ELSE s.planet_index END,
        race = CASE WHEN excluded.last_seen_at >= s.last_seen_at THEN excluded.race ELSE s.race END,
        campaign_id = CASE WHEN excluded.last_seen_at >= s.last_seen_at THEN excluded.campaign_id ELSE s.campaign_id END,
        max_health = CASE WHEN excluded.last_seen_at >= s.last_seen_at THEN excluded.max_health ELSE s.max_health END,
        event_type = CASE WHEN excluded.last_seen_at >= s.last_seen_at THEN excluded.event_type ELSE s.event_type END,
        first_seen_at = least(s.first_seen_at, excluded.first_seen_at),
        last_seen_at = greatest(s.last_seen_at, excluded.last_seen_at),
        zero_at = least(s.zero_at, excluded.zero_at)
    ), campaign_spans AS (
      INSERT INTO campaign_spans AS s (war_id, campaign_id, planet_index, type, first_seen_at, last_seen_at)
      SELECT ${warId}, campaign_id, planet_index, type, first_at, last_at FROM c ORDER BY campaign_id
      ON CONFLICT (war_id, campaign_id) DO UPDATE SET
        first_seen_at = least(s.first_seen_at, excluded.first_seen_at),
        last_seen_at = greatest(s.last_seen_at, excluded.last_seen_at)
    )
    SELECT 'planetEvents' AS count, captured_at AS at, count(*)::int AS n FROM event_rows GROUP BY captured_at`,
    tickSets.writeTicks(tx, warId, ticks.map(({ at, fight }) => ({ at, sets: setsOf(fight) })), next),
  ])
  const out = ticks.map(({ fight }): FightCounts => ({
    campaignHistory: fight.campaigns.length, planetEvents: 0, planetAttacks: fight.attacks.length, jointOperations: fight.jointOperations.length,
  }))
  const byAt = new Map(ticks.map((t, k) => [t.at.getTime(), k]))
  for (const r of rows as unknown as { count: keyof FightCounts; at: Date; n: number }[]) out[byAt.get(r.at.getTime())!]![r.count] = r.n
  return out
}

/** A campaign at a tick, with the first tick that showed it. */
export interface CampaignAtTick extends CampaignRow {
  firstSeenAt: Date
}

/**
 * The war's campaigns at tick `at`, each with the first tick that showed it (its span's,
 * written with its rows: the least of their times).
 */
async function campaignsAt(sql: Sql, warId: number, at: Date): Promise<CampaignAtTick[]> {
  const items = (await tickSets.setAt(sql, warId, 'campaigns', at)) as [number, number, number, number, number | null][]
  if (!items.length) return []
  const spans = await sql<{ campaignId: number; firstSeenAt: Date }[]>`
    SELECT campaign_id AS "campaignId", first_seen_at AS "firstSeenAt" FROM campaign_spans
    WHERE war_id = ${warId} AND campaign_id = ANY(${items.map((i) => i[0])}::bigint[])`
  const first = new Map(spans.map((s) => [Number(s.campaignId), s.firstSeenAt]))
  return items
    .filter(([campaignId]) => first.has(campaignId))
    .map(([campaignId, planetIndex, type, count, race]) => ({ campaignId, planetIndex, type, count, race, firstSeenAt: first.get(campaignId)! }))
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
  const rows = await sql<(PlanetEventRow & { ts: Date[] | null; hs: number[] | null; mhs: number[] | null })[]>`
    SELECT ${selectRow(sql, PlanetEventRow, {
      eventId: sql`e.event_id`, planetIndex: sql`e.planet_index`, eventType: sql`e.event_type`, race: sql`e.race`, health: sql`e.health`, maxHealth: sql`e.max_health`,
      startWarTime: sql`e.start_war_time`, expireWarTime: sql`e.expire_war_time`, startsAt: sql`e.starts_at`, expiresAt: sql`e.expires_at`, campaignId: sql`e.campaign_id`,
      jointOperationIds: sql`e.joint_operation_ids`,
    })}, w.ts, w.hs, w.mhs
    FROM planet_event_snapshots e
    CROSS JOIN LATERAL (
      SELECT array_agg(x.captured_at ORDER BY x.captured_at) AS ts, array_agg(x.health ORDER BY x.captured_at) AS hs, array_agg(x.max_health ORDER BY x.captured_at) AS mhs
      FROM planet_event_snapshots x
      WHERE x.war_id = e.war_id AND x.event_id = e.event_id AND x.captured_at > ${f.from} AND x.captured_at <= ${f.to}) w
    WHERE e.war_id = ${f.warId} AND e.captured_at = ${f.at} ${f.planetIndexes ? sql`AND e.planet_index = ANY(${[...f.planetIndexes]}::int[])` : sql``}
    ORDER BY e.event_id`
  return rows.map(({ ts, hs, mhs, ...e }) => ({ ...e, ticks: (ts ?? []).map((t, i) => ({ t, health: hs![i]!, maxHealth: mhs![i]! })) }))
}

/** The war's attack lines at tick `at`. */
async function attacksAt(sql: Sql, warId: number, at: Date): Promise<AttackRow[]> {
  const items = (await tickSets.setAt(sql, warId, 'attacks', at)) as [number, number, number][]
  return items.map(([source, target, lanes]) => ({ source, target, lanes }))
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
  const [row] = await sql<{ planetIndex: number; type: number; firstSeenAt: Date; lastSeenAt: Date; eventId: number | null; eventFirst: Date | null; eventLast: Date | null }[]>`
    SELECT c.planet_index AS "planetIndex", c.type, c.first_seen_at AS "firstSeenAt", c.last_seen_at AS "lastSeenAt",
           e.event_id AS "eventId", e.first_seen_at AS "eventFirst", e.last_seen_at AS "eventLast"
    FROM campaign_spans c
    LEFT JOIN LATERAL (
      SELECT e.event_id, e.first_seen_at, e.last_seen_at FROM planet_event_spans e
      WHERE e.war_id = c.war_id AND e.campaign_id = c.campaign_id ORDER BY e.first_seen_at DESC LIMIT 1) e ON true
    WHERE c.war_id = ${f.warId} AND c.campaign_id = ${f.campaignId}`
  if (!row) return null
  const { eventFirst, eventLast, ...span } = row
  // The span's bounds as constants: the planner reads only the chunks of the span, and
  // the event's own rows from one end of its key. The planet's states are carried forward
  // from its changes (storage/planet-status.ts).
  if (span.eventId === null) {
    const [planet] = await sql<{ maxHealth: number }[]>`SELECT max_health AS "maxHealth" FROM planets_of_war(${f.warId}) WHERE planet_index = ${span.planetIndex}`
    if (!planet) return { ...span, ticks: [] }
    const points = await planetTicks(sql, f.warId, span.planetIndex, span.firstSeenAt, span.lastSeenAt, f.limit)
    return { ...span, ticks: points.map((p): CampaignTick => ({ t: p.t, owner: p.owner, health: p.health, maxHealth: planet.maxHealth, players: p.players })) }
  }
  const events = [...(await sql<{ t: Date; health: number; maxHealth: number }[]>`
    SELECT * FROM (
      SELECT e.captured_at AS t, e.health, e.max_health AS "maxHealth"
      FROM planet_event_snapshots e
      WHERE e.war_id = ${f.warId} AND e.event_id = ${span.eventId} AND e.captured_at BETWEEN ${eventFirst} AND ${eventLast}
      ORDER BY e.captured_at DESC LIMIT ${f.limit}) x ORDER BY t`)]
  const players = new Map(
    events.length ? (await planetTicks(sql, f.warId, span.planetIndex, events[0]!.t, events.at(-1)!.t)).map((p) => [p.t.getTime(), p.players]) : [],
  )
  return { ...span, ticks: events.map((e): CampaignTick => ({ t: e.t, owner: null, health: e.health, maxHealth: e.maxHealth, players: players.get(e.t.getTime()) ?? null })) }
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { campaignsAt, eventWindows, attacksAt, campaignHistory }
