/**
 * The event timeline (chart markers): owner changes, defenses started, won or lost (and
 * their corrections), campaigns started or ended, major orders issued, completed, failed or
 * withdrawn, dispatches and the start of a war, newest first (kinds of event: kindsOf).
 * Each kind is read by its own index, filtered and paged before anything is joined to its
 * rows. With `lang`, order titles and dispatch messages are the texts of that language (or
 * of every one), as on their own routes.
 */
import { t, type Static } from 'elysia'
import type { Fragment, Queryable, Sql, Tx } from '../db/connect.ts'
import { Nullable, Timestamp } from './model.ts'
import { pageWithTotal, type PageOf, type Slice, type TimeRange } from './query.ts'
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

/** Bounds on an event's time; a null bound is open. `from` is inclusive unless `fromExclusive`, `to` unless `toExclusive`. */
export interface Bounds extends TimeRange {
  fromExclusive?: boolean
}

/** Bounds as SQL (times, or statements giving one). */
interface Span {
  from: Fragment | null
  fromExclusive?: boolean
  to: Fragment | null
  toExclusive?: boolean
}

const spanOf = (sql: Queryable, b: Bounds): Span => ({
  from: b.from && sql`${b.from}::timestamptz`, fromExclusive: b.fromExclusive, to: b.to && sql`${b.to}::timestamptz`, toExclusive: b.toExclusive,
})

/** The events a read keeps: a war's, of `types`, within `range`, of one planet when given; order states as of `asOf`. */
interface TimelineFilter {
  warId: number
  asOf: Date
  types: readonly EventType[]
  range: Bounds
  planetIndex?: number
}

/**
 * Events of a war of the given types in `range` (of one planet when given), newest first;
 * order states as of `asOf`. The page is located on times read from the kinds' indexes
 * alone (`near`: a campaign's end by its last sighting), then only the events within it are
 * read whole:
 * - `newest` and `oldest`, the near times at the page's first and last places in the order
 *   of near times. No near time is later than its event's, so the page's last event is not
 *   older than `oldest`; a campaign last seen at or before `newest` ends at or before the
 *   tick after it, so every event later than that tick comes before the page;
 * - the events from `oldest` to the tick after `newest`, in order, after as many as are
 *   later than that tick.
 * The total is counted per kind, without the joins. With `lang` only the page's texts are
 * looked up.
 */
function events(sql: Sql, f: TimelineFilter & { lang?: Lang }, p: Slice): Promise<PageOf<TimelineEvent>> {
  const kinds = kindsOf(sql, f)
  if (!kinds.length) return Promise.resolve({ rows: [], total: 0 })
  const counted = (span?: Span) =>
    kinds.map((k) => sql`(SELECT count(*) FROM ${k.from} WHERE ${k.where} ${span ? k.within(span) : sql``})`).reduce((a, c) => sql`${a} + ${c}`)
  const near = kinds
    .map((k) => sql`(SELECT ${k.near} AS t FROM ${k.from} WHERE ${k.where} ORDER BY ${k.near} DESC LIMIT ${p.offset + p.limit})`)
    .reduce((a, b) => sql`${a} UNION ALL ${b}`)
  const page = sql`
    WITH located AS MATERIALIZED (
      SELECT max(t) AS newest, min(t) AS oldest FROM (SELECT t FROM (${near}) e ORDER BY t DESC OFFSET ${p.offset} LIMIT ${p.limit}) e),
    w AS MATERIALIZED (SELECT oldest AS lo, coalesce(${tick(sql, f.warId, '>', sql`newest`)}, 'infinity') AS hi FROM located)
    SELECT * FROM (${unionOf(sql, kinds, { span: { from: sql`(SELECT lo FROM w)`, to: sql`(SELECT hi FROM w)` } })}) e
    ORDER BY ${TIMELINE_ORDER(sql)}
    LIMIT ${p.limit} OFFSET ${p.offset} - (${counted({ from: sql`(SELECT hi FROM w)`, fromExclusive: true, to: null })})`
  const columns = f.lang ? localizedTimelineColumns(sql, f.lang) : sql`e.*`
  return pageWithTotal(
    sql<TimelineEvent[]>`SELECT ${columns} FROM (${named(sql, f.warId, page)}) e ORDER BY ${TIMELINE_ORDER(sql)}`,
    sql<{ n: number }[]>`SELECT (${counted()})::int AS n`,
  )
}

/**
 * The timeline's order: newest first (a correction before what it corrects at the same
 * time), ties in a fixed order (two corrections of a defense made at one tick by number).
 */
const TIMELINE_ORDER = (sql: Queryable) =>
  sql`e.at DESC, e.type = 'event_corrected' DESC, e.type, coalesce(e."planetIndex", e."orderId32", e."dispatchId"), e."eventId", e."campaignId", (e.correction->>'seq')::int`

/** A timeline row `e` with its order title and dispatch message in `lang` (as on their own routes). */
export const localizedTimelineColumns = (sql: Queryable, lang: Lang) => sql`
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
 * A war's events within `range` not in the event log yet (storage/events.ts), as rows of
 * TimelineEvent with their log key (`key`, unique per type and war: what the event is
 * about); order states as of `asOf`. Logged events are left out before anything is joined
 * to them.
 */
export const unloggedEvents = (sql: Queryable, warId: number, asOf: Date, range: Bounds) =>
  named(sql, warId, unionOf(sql, kindsOf(sql, { warId, asOf, types: EVENT_TYPES, range }), { unlogged: true }), sql`, e.key`)

/**
 * Rows of TimelineEvent (`e`, planetName null) with their planet's name (the war's own, or
 * the shipped catalog's for a war stored without war info), and the `more` columns of `e`.
 */
const named = (sql: Queryable, warId: number, rows: Fragment, more = sql``) => sql`
  SELECT e.at, e.type, e."warID", e."planetIndex", p.name AS "planetName", e."fromOwner", e."toOwner", e."orderId32", e.title,
         e."dispatchId", e.message, e."eventId", e."campaignId", e.race, e.correction ${more}
  FROM (${rows}) e LEFT JOIN planets_of_war(${warId}) p ON p.planet_index = e."planetIndex"`

/** The kinds' rows (planetName null): within `span` when given; with `unlogged`, those not in the event log, with their key. */
const unionOf = (sql: Queryable, kinds: readonly Kind[], o: { span?: Span; unlogged?: boolean } = {}) =>
  kinds
    .map((k) => {
      const unlogged = o.unlogged ? sql`AND NOT EXISTS (SELECT 1 FROM event_log l WHERE l.type = ${k.type} AND l.war_id = ${k.war} AND l.key = ${k.key})` : sql``
      return sql`(
        SELECT ${k.columns} ${o.unlogged ? sql`, ${k.key} AS key` : sql``} FROM ${k.from} ${k.joins}
        WHERE ${k.where} ${o.span ? k.within(o.span) : sql``} ${unlogged})`
    })
    .reduce((a, b) => sql`${a} UNION ALL ${b}`)

/** One kind of event with a read's filter applied: a table's rows (and what they need joined to be told apart). */
interface Kind {
  /** FROM …: the table (and what its filter needs). */
  from: Fragment
  /** The war's rows the filter keeps (types, planet, time). */
  where: Fragment
  /** Joined to the rows kept. */
  joins: Fragment
  /** A row as TimelineEvent's columns in order, planetName null. */
  columns: Fragment
  /** Its type, war and log key. */
  type: Fragment
  war: Fragment
  key: Fragment
  /** An indexed time that is its time, or (a campaign's end) not later than it and not before the tick before it. */
  near: Fragment
  /** Conditions (after `where`) that keep its rows whose time is within a span. */
  within: (s: Span) => Fragment
}

/** What a kind is, before a filter is applied. */
interface KindSpec {
  /** The types its rows can have, and its type (an expression when it has several). */
  types: readonly EventType[]
  type: Fragment
  /** Its planet column; null: its events name no planet. */
  planet: Fragment | null
  /** Its time; when that is not an indexed expression, `near` and `within` instead. */
  at: Fragment
  near?: Fragment
  within?: (s: Span) => Fragment
  from: Fragment
  where: Fragment
  joins?: Fragment
  /** Its rows' columns besides time and type (TimelineEvent's names); the others are null. */
  columns: Partial<Record<Column, Fragment>>
  /** What an event is about, unique per type and war (the event log's key). */
  key: Fragment
}

/** TimelineEvent's columns after at, type and planetName (which is joined to the rows kept). */
type Column = 'warID' | 'planetIndex' | 'fromOwner' | 'toOwner' | 'orderId32' | 'title' | 'dispatchId' | 'message' | 'eventId' | 'campaignId' | 'race' | 'correction'

/** A row as TimelineEvent's columns in order (planetName null): those given, the others null. One template: a read builds a row per kind. */
function columnsOf(sql: Queryable, at: Fragment, type: Fragment, c: Partial<Record<Column, Fragment>>, none: Fragment): Fragment {
  return sql`${at} AS at, ${type}::text AS type, ${c.warID ?? none}::int AS "warID", ${c.planetIndex ?? none}::int AS "planetIndex",
    NULL::text AS "planetName", ${c.fromOwner ?? none}::int AS "fromOwner", ${c.toOwner ?? none}::int AS "toOwner",
    ${c.orderId32 ?? none}::bigint AS "orderId32", ${c.title ?? none}::text AS title, ${c.dispatchId ?? none}::bigint AS "dispatchId",
    ${c.message ?? none}::text AS message, ${c.eventId ?? none}::bigint AS "eventId", ${c.campaignId ?? none}::bigint AS "campaignId",
    ${c.race ?? none}::int AS race, ${c.correction ?? none}::jsonb AS correction`
}

/** `at` within span `s`. */
function timeWithin(sql: Queryable, at: Fragment, s: Span): Fragment {
  const from = s.from === null ? null : s.fromExclusive ? sql`AND ${at} > ${s.from}` : sql`AND ${at} >= ${s.from}`
  const to = s.to === null ? null : s.toExclusive ? sql`AND ${at} < ${s.to}` : sql`AND ${at} <= ${s.to}`
  return from && to ? sql`${from} ${to}` : from ?? to ?? sql``
}

/** The war's nearest full-status tick with planets before (`<`, `<=`) or after (`>`) `x`; null: none. */
function tick(sql: Queryable, warId: Fragment | number, op: '<' | '<=' | '>', x: Fragment): Fragment {
  const ticks = sql`SELECT f.captured_at FROM full_status_ticks f WHERE f.war_id = ${warId} AND f.planets_written > 0`
  if (op === '>') return sql`(${ticks} AND f.captured_at > ${x} ORDER BY f.captured_at LIMIT 1)`
  return op === '<' ? sql`(${ticks} AND f.captured_at < ${x} ORDER BY f.captured_at DESC LIMIT 1)` : sql`(${ticks} AND f.captured_at <= ${x} ORDER BY f.captured_at DESC LIMIT 1)`
}

/**
 * The kinds of event `f` asks for, each with the filter applied. Owner changes are kept by
 * the full-status writes (planet_owner_changes); defenses started (their spans), won or
 * lost (the outcome decided once, and its corrections: defense_outcomes, sql/0019);
 * campaigns started or ended (the spans the full-status writes keep, storage/fight.ts);
 * major orders issued, completed, failed or withdrawn (major_orders, same rules as their
 * derived state); dispatches; the start of a war.
 */
function kindsOf(sql: Queryable, f: TimelineFilter): Kind[] {
  const war = f.warId
  const [empty, none] = [sql``, sql`NULL`]
  // A defense's events are about its planet event; each correction of its outcome by its number.
  const fight = (type: Fragment, at: Fragment, from: Fragment, where: Fragment, more: Partial<Record<Column, Fragment>> = {}) => ({
    type, at, from, where, planet: sql`e.planet_index`, key: sql`e.event_id::text`,
    columns: { warID: sql`e.war_id`, planetIndex: sql`e.planet_index`, eventId: sql`e.event_id`, campaignId: sql`e.campaign_id`, race: sql`e.race`, ...more },
  })
  // An outcome's event, looked up for each outcome (an outcome without one is on no timeline).
  const outcomes = sql`defense_outcomes o CROSS JOIN LATERAL (
    SELECT e.war_id, e.event_id, e.planet_index, e.campaign_id, e.race FROM planet_event_spans e
    WHERE e.war_id = o.war_id AND e.event_id = o.event_id LIMIT 1) e`
  // A campaign's events are about the campaign, and name its defense's event when one belongs to it.
  const campaign = (type: EventType, at: Fragment) => ({
    types: [type], type: sql`${type}::text`, at, planet: sql`c.planet_index`, from: sql`campaign_spans c`, key: sql`c.campaign_id::text`,
    columns: { warID: sql`c.war_id`, planetIndex: sql`c.planet_index`, eventId: sql`d.event_id`, campaignId: sql`c.campaign_id` },
  })
  const campaignEvent = sql`LEFT JOIN LATERAL (
    SELECT d.event_id FROM planet_event_spans d WHERE d.war_id = c.war_id AND d.campaign_id = c.campaign_id
    ORDER BY d.first_seen_at DESC LIMIT 1) d ON true`
  const order = (type: EventType, at: Fragment, where: Fragment): KindSpec => ({
    types: [type], type: sql`${type}::text`, at, planet: null, key: sql`o.order_id32::text`,
    from: sql`major_orders o CROSS JOIN LATERAL (SELECT major_order_expiry(o.last_seen_at, o.expires_in_last_seen) AS expires_at) x`,
    where: sql`o.war_id = ${war} AND ${where}`,
    columns: { warID: sql`o.war_id`, orderId32: sql`o.order_id32`, title: sql`o.title` },
  })
  const specs: KindSpec[] = [
    {
      types: ['planet_liberated', 'planet_lost', 'planet_owner_changed'],
      type: sql`CASE WHEN c.to_owner = 1 THEN 'planet_liberated' WHEN c.from_owner = 1 THEN 'planet_lost' ELSE 'planet_owner_changed' END`,
      at: sql`c.captured_at`, planet: sql`c.planet_index`, from: sql`planet_owner_changes c`, where: sql`c.war_id = ${war}`,
      columns: { warID: sql`c.war_id`, planetIndex: sql`c.planet_index`, fromOwner: sql`c.from_owner`, toOwner: sql`c.to_owner` },
      // A planet's owner change, by its planet and time.
      key: sql`c.planet_index::text || '@' || (extract(epoch FROM c.captured_at) * 1000)::bigint::text`,
    },
    { types: ['defense_started'], ...fight(sql`'defense_started'::text`, sql`e.first_seen_at`, sql`planet_event_spans e`, sql`e.war_id = ${war}`) },
    { types: ['defense_won', 'defense_lost'], ...fight(sql`o.outcome`, sql`o.ended_at`, outcomes, sql`o.war_id = ${war} AND o.seq = 0`) },
    {
      types: ['event_corrected'],
      ...fight(sql`'event_corrected'::text`, sql`o.decided_at`, outcomes, sql`o.war_id = ${war} AND o.seq > 0`, {
        correction: sql`jsonb_build_object('corrects', o.corrects, 'seq', o.seq,
          'was', jsonb_build_object('type', o.was_outcome, 'at', ${isoOf(sql, sql`o.was_ended_at`)}),
          'now', jsonb_build_object('type', o.outcome, 'at', ${isoOf(sql, sql`o.ended_at`)}))`,
      }),
      key: sql`e.event_id::text || '#' || o.seq::text`,
    },
    { ...campaign('campaign_started', sql`c.first_seen_at`), where: sql`c.war_id = ${war}`, joins: campaignEvent },
    {
      // It ends at the war's first tick with planets after its last sighting (it has ended
      // if there is one), so its end is within a span as its last sighting is within the
      // ticks' span: at or after x, if no tick falls after its last sighting and before x;
      // at or before x, if one falls after its last sighting and at or before x.
      ...campaign('campaign_ended', sql`nx.t`),
      near: sql`c.last_seen_at`,
      within: (s) => sql`
        ${s.from === null ? sql`` : sql`AND c.last_seen_at >= coalesce(${tick(sql, war, s.fromExclusive ? '<=' : '<', s.from)}, '-infinity')`}
        ${s.to === null ? sql`` : sql`AND c.last_seen_at < ${tick(sql, war, s.toExclusive ? '<' : '<=', s.to)}`}`,
      where: sql`c.war_id = ${war} AND c.last_seen_at < ${tick(sql, war, '<=', sql`'infinity'::timestamptz`)}`,
      joins: sql`CROSS JOIN LATERAL (SELECT ${tick(sql, sql`c.war_id`, '>', sql`c.last_seen_at`)} AS t) nx ${campaignEvent}`,
    },
    order('major_order_issued', sql`o.first_seen_at`, sql`true`),
    order('major_order_completed', sql`o.completed_at`, sql`o.completed_at IS NOT NULL`),
    order('major_order_failed', sql`x.expires_at`, sql`o.completed_at IS NULL AND x.expires_at <= ${f.asOf}::timestamptz`),
    order('major_order_withdrawn', sql`o.last_seen_at`, sql`o.completed_at IS NULL AND x.expires_at > ${f.asOf}::timestamptz
      AND o.last_seen_at < (SELECT max(captured_at) FROM full_status_ticks WHERE war_id = ${war})`),
    {
      types: ['dispatch'], type: sql`'dispatch'::text`, at: sql`d.published_at`, planet: null, from: sql`dispatches d`, where: sql`d.war_id = ${war}`,
      columns: { warID: sql`d.war_id`, dispatchId: sql`d.dispatch_id`, message: sql`d.message` }, key: sql`d.dispatch_id::text`,
    },
    {
      types: ['war_started'], type: sql`'war_started'::text`, at: sql`coalesce(w.start_date, w.first_seen_at)`, planet: null, from: sql`wars w`,
      where: sql`w.war_id = ${war}`, columns: { warID: sql`w.war_id` }, key: sql`w.war_id::text`,
    },
  ]
  const range = spanOf(sql, f.range)
  const warId = sql`${war}::int`
  return specs.flatMap((k): Kind[] => {
    const asked = k.types.filter((t) => f.types.includes(t))
    if (!asked.length || (f.planetIndex !== undefined && k.planet === null)) return []
    const within = k.within ?? ((s: Span) => timeWithin(sql, k.at, s))
    const types = asked.length < k.types.length ? sql`AND ${k.type} IN ${sql(asked)}` : null
    const planet = k.planet && f.planetIndex !== undefined ? sql`AND ${k.planet} = ${f.planetIndex}` : null
    const where = types || planet ? sql`${k.where} ${types ?? empty} ${planet ?? empty} ${within(range)}` : sql`${k.where} ${within(range)}`
    return [{ from: k.from, where, joins: k.joins ?? empty, columns: columnsOf(sql, k.at, k.type, k.columns, none), type: k.type, war: warId, key: k.key, near: k.near ?? k.at, within }]
  })
}

/** A time as the API writes it (ISO 8601, UTC, milliseconds), for times inside JSON built in SQL. */
const isoOf = (sql: Queryable, at: Fragment) => sql`to_char(${at} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

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
