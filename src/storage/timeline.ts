/**
 * The event timeline (chart markers): owner changes between status ticks
 * (planet_owner_changes, kept by the full-status writes), defenses started (their spans),
 * won or lost (the outcome decided once, and its corrections: defense_outcomes, sql/0019),
 * campaigns started or ended (the spans the full-status writes keep, storage/fight.ts),
 * major orders issued, completed, failed or withdrawn (major_orders, same rules as their
 * derived state), dispatches and the start of a war. Read as one UNION ALL, newest first. With `lang`, order titles and
 * dispatch messages are the texts of that language (or of every one), as on their own routes.
 */
import { t, type Static } from 'elysia'
import type { Fragment, Queryable, Sql, Tx } from '../db/connect.ts'
import { Nullable, Timestamp } from './model.ts'
import { pageWithTotal, withinRange, type Slice, type PageOf, type TimeRange } from './query.ts'
import { localizedColumn, LocalizedText, type Lang } from './texts.ts'

export const EVENT_TYPES = [
  'planet_liberated', 'planet_lost', 'planet_owner_changed',
  'defense_started', 'defense_won', 'defense_lost', 'campaign_started', 'campaign_ended',
  'major_order_issued', 'major_order_completed', 'major_order_failed', 'major_order_withdrawn',
  'dispatch', 'war_started', 'event_corrected',
] as const
export type EventType = (typeof EVENT_TYPES)[number]

/** An outcome as said: its type and when it happened. */
const SaidOutcome = (description: string) =>
  t.Object({ type: t.String({ description: 'defense_won or defense_lost' }), at: t.String({ format: 'date-time', description: 'When it ended' }) }, { description })

/** What an `event_corrected` event corrects. */
export const Correction = t.Object(
  {
    corrects: Nullable(t.Integer(), 'The id of the pushed event (the event stream\'s id) that said the outcome corrected; null when it was never pushed (imported history)'),
    seq: t.Integer({ description: "The correction's number for its defense (1: the first)" }),
    was: SaidOutcome('The outcome said before'),
    now: SaidOutcome('The outcome the stored ticks now give'),
  },
  { description: 'A correction of a defense\'s outcome' },
)

export const TimelineEvent = t.Object(
  {
    at: Timestamp('When it happened (for owner changes: the first tick with the new owner)'),
    type: t.UnionEnum(EVENT_TYPES, {
      description:
        'planet_liberated: to the players; planet_lost: from the players; planet_owner_changed: between enemies; defense_*: a planet event (rules in docs/api.md "War intelligence"); campaign_*: a campaign first and no longer listed; event_corrected: a defense\'s outcome said before, corrected by data written since (at: when it was corrected)',
    }),
    warID: t.Integer({ description: 'War id' }),
    planetIndex: Nullable(t.Integer(), 'Planet events: the planet'),
    planetName: Nullable(t.String(), 'Planet events: its name'),
    fromOwner: Nullable(t.Integer(), 'Planet events: the owner before'),
    toOwner: Nullable(t.Integer(), 'Planet events: the owner after'),
    orderId32: Nullable(t.Integer(), 'Major-order events: the order'),
    title: LocalizedText('Major-order events: its title'),
    dispatchId: Nullable(t.Integer(), 'Dispatch events: the dispatch id'),
    message: LocalizedText('Dispatch events: the message'),
    eventId: Nullable(t.Integer(), "Defense events, corrections, and a defense's campaign events: the planet event"),
    campaignId: Nullable(t.Integer(), 'Defense and campaign events: the campaign'),
    race: Nullable(t.Integer(), 'Defense events: the attacking faction'),
    correction: t.Union([Correction, t.Null()], { description: 'event_corrected: what it corrects; null on other events' }),
  },
  { description: 'Timeline event' },
)
export type TimelineEvent = Static<typeof TimelineEvent>

/**
 * Events of a war of the given types in `range` (of one planet, when given), newest first; order states as of `asOf`.
 * With `lang` the page is chosen first and only its rows' texts are looked up.
 */
function events(sql: Sql, f: { warId: number; types: readonly EventType[]; range: TimeRange; asOf: Date; planetIndex?: number; lang?: Lang }, p: Slice): Promise<PageOf<TimelineEvent>> {
  const all = timelineRows(sql, f.warId, f.asOf)
  const planet = f.planetIndex === undefined ? sql`` : sql`AND e."planetIndex" = ${f.planetIndex}`
  const where = sql`WHERE e.type IN ${sql(f.types as EventType[])} ${withinRange(sql, 'at', f.range)} ${planet}`
  const page = sql`SELECT * FROM (${all}) e ${where} ORDER BY ${TIMELINE_ORDER(sql)} LIMIT ${p.limit} OFFSET ${p.offset}`
  const { lang } = f
  const rows = !lang ? page : sql`SELECT ${localizedTimelineColumns(sql, lang)} FROM (${page}) e ORDER BY ${TIMELINE_ORDER(sql)}`
  return pageWithTotal(sql<TimelineEvent[]>`${rows}`, sql<{ n: number }[]>`SELECT count(*)::int AS n FROM (${all}) e ${where}`)
}

/** The timeline's order: newest first (a correction before what it corrects at the same time), ties in a fixed order. */
const TIMELINE_ORDER = (sql: Sql) => sql`e.at DESC, e.type = 'event_corrected' DESC, e.type, coalesce(e."planetIndex", e."orderId32", e."dispatchId"), e."eventId", e."campaignId"`

/** A timeline row `e` with its order title and dispatch message in `lang` (as on their own routes). */
export const localizedTimelineColumns = (sql: Sql, lang: Lang) => sql`
  e.at, e.type, e."warID", e."planetIndex", e."planetName", e."fromOwner", e."toOwner", e."orderId32",
  CASE WHEN e."orderId32" IS NOT NULL THEN ${localizedColumn(sql, lang, 'major_order_texts', sql`t.order_id32 = e."orderId32"`, 'title')} END AS title,
  e."dispatchId",
  CASE WHEN e."dispatchId" IS NOT NULL THEN ${localizedColumn(sql, lang, 'dispatch_texts', sql`t.war_id = e."warID" AND t.dispatch_id = e."dispatchId"`, 'message')} END AS message,
  e."eventId", e."campaignId", e.race, e.correction`

/**
 * The upper bound of "recent" in the event log's appends: no time reaches it, but a range
 * with two bounds is what a plan made once for every value (the appends' plans are kept,
 * storage/events.ts) estimates as a small share of the rows, so it looks the recent rows up
 * by index; with the lower bound alone it assumes a third of them and scans them all.
 */
export const RECENT_UNTIL = new Date('9999-01-01T00:00:00Z')

/**
 * Every timeline event of a war as rows of TimelineEvent (unordered); order states as of
 * `asOf`. With `recentFrom` (the event log's appends, storage/events.ts), defenses and
 * campaigns last seen more than two days before it, and corrections made before it, are
 * left out before their bodies are built: their events are older than it, but for a gap
 * of days between two ticks.
 */
export function timelineRows(sql: Queryable, warId: number, asOf: Date, recentFrom?: Date) {
  const f = { warId, asOf }
  const recentSpan = (alias: string) =>
    recentFrom ? sql`AND ${sql(alias)}.last_seen_at > ${recentFrom}::timestamptz - interval '2 days' AND ${sql(alias)}.last_seen_at < ${RECENT_UNTIL}::timestamptz` : sql``
  const none = sql`NULL::int AS "planetIndex", NULL::text AS "planetName", NULL::int AS "fromOwner", NULL::int AS "toOwner"`
  const noOrder = sql`NULL::bigint AS "orderId32", NULL::text AS title`
  const noDispatch = sql`NULL::bigint AS "dispatchId", NULL::text AS message`
  const noFight = sql`NULL::bigint AS "eventId", NULL::bigint AS "campaignId", NULL::int AS race`
  const noOwners = sql`NULL::int AS "fromOwner", NULL::int AS "toOwner"`
  const noCorrection = sql`NULL::jsonb AS correction`
  // Planet names: the war's own, or the shipped catalog's for a war stored without war info.
  const known = sql`planets_of_war(${f.warId})`
  const orders = (type: EventType, at: ReturnType<Sql>, where: ReturnType<Sql>) => sql`
    SELECT ${at} AS at, ${type}::text AS type, o.war_id AS "warID", ${none}, o.order_id32 AS "orderId32", o.title, ${noDispatch}, ${noFight}, ${noCorrection}
    FROM major_orders o CROSS JOIN LATERAL (SELECT o.last_seen_at + make_interval(secs => o.expires_in_last_seen) AS expires_at) x
    WHERE o.war_id = ${f.warId} AND ${where}`
  // A campaign's events name its defense's event, when one belongs to it.
  const campaignEvent = sql`LEFT JOIN LATERAL (
      SELECT d.event_id FROM planet_event_spans d WHERE d.war_id = c.war_id AND d.campaign_id = c.campaign_id
      ORDER BY d.first_seen_at DESC LIMIT 1) d ON true`
  const all = sql`
    SELECT c.captured_at AS at,
           CASE WHEN c.to_owner = 1 THEN 'planet_liberated' WHEN c.from_owner = 1 THEN 'planet_lost' ELSE 'planet_owner_changed' END AS type,
           c.war_id AS "warID", c.planet_index AS "planetIndex", NULL::text AS "planetName", c.from_owner::int AS "fromOwner", c.to_owner::int AS "toOwner",
           ${noOrder}, ${noDispatch}, ${noFight}, ${noCorrection}
    FROM planet_owner_changes c
    WHERE c.war_id = ${f.warId}
    UNION ALL
    SELECT e.first_seen_at, 'defense_started', e.war_id, e.planet_index, NULL, ${noOwners}, ${noOrder}, ${noDispatch}, e.event_id, e.campaign_id, e.race, ${noCorrection}
    FROM planet_event_spans e
    WHERE e.war_id = ${f.warId} ${recentSpan('e')}
    UNION ALL
    SELECT o.ended_at, o.outcome, e.war_id, e.planet_index, NULL, ${noOwners}, ${noOrder}, ${noDispatch}, e.event_id, e.campaign_id, e.race, ${noCorrection}
    FROM defense_outcomes o
    JOIN planet_event_spans e ON e.war_id = o.war_id AND e.event_id = o.event_id
    WHERE o.war_id = ${f.warId} AND o.seq = 0 ${recentSpan('e')}
    UNION ALL
    SELECT o.decided_at, 'event_corrected', e.war_id, e.planet_index, NULL, ${noOwners}, ${noOrder}, ${noDispatch}, e.event_id, e.campaign_id, e.race,
           jsonb_build_object('corrects', o.corrects, 'seq', o.seq,
                              'was', jsonb_build_object('type', o.was_outcome, 'at', ${isoOf(sql, sql`o.was_ended_at`)}),
                              'now', jsonb_build_object('type', o.outcome, 'at', ${isoOf(sql, sql`o.ended_at`)}))
    FROM defense_outcomes o
    JOIN planet_event_spans e ON e.war_id = o.war_id AND e.event_id = o.event_id
    WHERE o.war_id = ${f.warId} AND o.seq > 0 ${recentFrom ? sql`AND o.decided_at > ${recentFrom} AND o.decided_at < ${RECENT_UNTIL}::timestamptz` : sql``}
    UNION ALL
    SELECT c.first_seen_at, 'campaign_started', c.war_id, c.planet_index, NULL, ${noOwners}, ${noOrder}, ${noDispatch}, d.event_id, c.campaign_id, NULL, ${noCorrection}
    FROM campaign_spans c ${campaignEvent}
    WHERE c.war_id = ${f.warId} ${recentSpan('c')}
    UNION ALL
    SELECT nx.t, 'campaign_ended', c.war_id, c.planet_index, NULL, ${noOwners}, ${noOrder}, ${noDispatch}, d.event_id, c.campaign_id, NULL, ${noCorrection}
    FROM campaign_spans c
    CROSS JOIN LATERAL (${nextTick(sql, sql`c.war_id`, sql`c.last_seen_at`)}) nx
    ${campaignEvent}
    WHERE c.war_id = ${f.warId} ${recentSpan('c')}
    UNION ALL ${orders('major_order_issued', sql`o.first_seen_at`, sql`true`)}
    UNION ALL ${orders('major_order_completed', sql`o.completed_at`, sql`o.completed_at IS NOT NULL`)}
    UNION ALL ${orders('major_order_failed', sql`x.expires_at`, sql`o.completed_at IS NULL AND x.expires_at <= ${f.asOf}`)}
    UNION ALL ${orders('major_order_withdrawn', sql`o.last_seen_at`, sql`o.completed_at IS NULL AND x.expires_at > ${f.asOf}
      AND o.last_seen_at < (SELECT max(captured_at) FROM full_status_ticks WHERE war_id = ${f.warId})`)}
    UNION ALL
    SELECT d.published_at, 'dispatch', d.war_id, ${none}, ${noOrder}, d.dispatch_id, d.message, ${noFight}, ${noCorrection}
    FROM dispatches d WHERE d.war_id = ${f.warId}
    UNION ALL
    SELECT coalesce(w.start_date, w.first_seen_at), 'war_started', w.war_id, ${none}, ${noOrder}, ${noDispatch}, ${noFight}, ${noCorrection}
    FROM wars w WHERE w.war_id = ${f.warId}`
  // Planet names joined once, to the events the caller keeps (the filters on e go below the join).
  return sql`
    SELECT e.at, e.type, e."warID", e."planetIndex", p.name AS "planetName", e."fromOwner", e."toOwner", e."orderId32", e.title,
           e."dispatchId", e.message, e."eventId", e."campaignId", e.race, e.correction
    FROM (${all}) e LEFT JOIN ${known} p ON p.planet_index = e."planetIndex"`
}

/** A time as the API writes it (ISO 8601, UTC, milliseconds), for times inside JSON built in SQL. */
const isoOf = (sql: Queryable, at: Fragment) => sql`to_char(${at} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/** The war's first full-status tick (with planets) after `after`: its time `t` and war time. */
const nextTick = (sql: Queryable, warId: Fragment, after: Fragment) => sql`
  SELECT f.captured_at AS t, f.upstream_war_time AS war_time FROM full_status_ticks f
  WHERE f.war_id = ${warId} AND f.captured_at > ${after} AND f.planets_written > 0
  ORDER BY f.captured_at LIMIT 1`

/**
 * After a write of a war's full-status ticks, in its transaction: the defenses the rules
 * now end are decided (once), and an outcome the rules now give otherwise is corrected
 * (sql/0019 defense_decide). `since`: the stored tick before the earliest one written
 * (null: none); only events seen from it on can have changed. `inOrder`: every tick
 * written is later than every stored one, so only undecided events are looked at (sql/0026).
 */
export async function decideDefenses(tx: Tx, warId: number, since: Date | null, inOrder = false): Promise<number> {
  const [row] = await tx<{ n: number }[]>`SELECT defense_decide(${warId}, ${since}::timestamptz, ${inOrder}) AS n`
  return row?.n ?? 0
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { events }
