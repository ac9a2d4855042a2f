/**
 * The timeline's pages, totals and the event log's recent rows (storage/timeline.ts) must be
 * exactly what one query over every event of the war gives (the query the timeline was read
 * with before it was paged per kind, kept below as the reference): same rows in the same
 * order, same total, for random types, ranges (open, inclusive, a bare end date's day),
 * planets, languages, moments and pages, on a history built to be awkward: events tied on
 * time across kinds and within one, campaigns ending at a tick after a gap, at a tick
 * without planets, between ticks, and at the last tick (running), two campaigns of a planet
 * starting together, defenses with their outcomes and corrections (two of one defense made
 * at one tick), orders in every state, and a second war whose events must never show.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import fc from 'fast-check'
import type { Fragment, Queryable, Sql } from '../../src/db/connect.ts'
import { EVENT_TYPES, localizedTimelineColumns, reads, RECENT_UNTIL, unloggedEvents, type Bounds, type EventType, type TimelineEvent } from '../../src/storage/timeline.ts'
import type { Lang } from '../../src/storage/texts.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'

const WAR = 801
const OTHER_WAR = 802
const T0 = Date.parse('2026-03-01T00:00:00Z')
const STEP = 300_000
const TICKS = 600
/** Ticks 300-339 were never written (an outage); every 37th tick stored no planets. */
const stored = (k: number) => k < 300 || k >= 340
const withPlanets = (k: number) => stored(k) && k % 37 !== 5
const at = (k: number) => new Date(T0 + k * STEP)
const LAST = TICKS - 1
/** Ticks where many events fall, so events tie on time across kinds. */
const BUSY = [12, 40, 41, 120, 299, 340, 341, 413, 500, 598, LAST]

/** A small deterministic generator (the history is the same on every run). */
function rng(seed: number) {
  let s = seed >>> 0
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32)
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)), pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]! }
}

/** A stored tick at or after k (or before it, at the end). */
function storedTick(k: number): number {
  for (let j = k; j < TICKS; j++) if (stored(j)) return j
  for (let j = k; j >= 0; j--) if (stored(j)) return j
  return 0
}

async function seedHistory(sql: Sql) {
  const r = rng(7)
  const tickOf = () => storedTick(r.next() < 0.4 ? r.pick(BUSY) : r.int(0, LAST))
  for (const war of [WAR, OTHER_WAR]) {
    await sql`INSERT INTO wars (war_id, start_date, first_seen_at) VALUES (${war}, ${war === WAR ? new Date(T0 - 86_400_000) : null}, ${at(3)})`
    const ticks = Array.from({ length: TICKS }, (_, k) => k).filter(stored)
    await sql`
      INSERT INTO full_status_ticks (war_id, upstream_war_time, captured_at, planets_written)
      SELECT ${war}, k * 300, to_timestamp((${T0}::bigint + k * ${STEP}::bigint) / 1000.0), CASE WHEN k % 37 = 5 THEN 0 ELSE 10 END
      FROM unnest(${ticks}::int[]) k`
  }
  // Names for planets 0-7 of the war; 8 and 9 have none.
  await sql`
    INSERT INTO planets (war_id, planet_index, name, position_x, position_y, max_health, initial_owner)
    SELECT ${WAR}, i, 'Planet ' || i, 0, 0, 1000000, 1 FROM generate_series(0, 7) i`

  const owners: { k: number; planet: number; from: number; to: number }[] = []
  for (let i = 0; i < 90; i++) {
    const from = r.int(1, 4)
    owners.push({ k: tickOf(), planet: r.int(0, 9), from, to: ((from + r.int(0, 2)) % 4) + 1 })
  }
  for (const o of owners) {
    await sql`INSERT INTO planet_owner_changes VALUES (${at(o.k)}, ${WAR}, ${o.planet}, ${o.from}, ${o.to}) ON CONFLICT DO NOTHING`
  }
  await sql`INSERT INTO planet_owner_changes VALUES (${at(40)}, ${OTHER_WAR}, 1, 1, 2)`

  // Campaigns: ending in every way a campaign can end.
  const campaigns: { id: number; planet: number; first: Date; last: Date }[] = []
  const lastSighting = () => {
    const way = r.int(0, 5)
    if (way === 0) return at(LAST) // running
    if (way === 1) return at(299) // ends after the outage
    if (way === 2) return at(r.pick([5, 42, 79, 116])) // a tick without planets: ends at the one after
    if (way === 3) return new Date(at(tickOf()).getTime() + 17_000) // between ticks
    return at(tickOf())
  }
  for (let i = 0; i < 70; i++) {
    const last = lastSighting()
    const firstK = storedTick(Math.min(r.int(0, LAST), Math.floor((last.getTime() - T0) / STEP)))
    campaigns.push({ id: 7000 + i, planet: r.int(0, 9), first: at(Math.min(firstK, r.next() < 0.3 ? r.pick(BUSY) : firstK)), last })
  }
  // Two campaigns of one planet starting at one tick, one of them a defense's.
  campaigns.push({ id: 7900, planet: 3, first: at(120), last: at(200) }, { id: 7901, planet: 3, first: at(120), last: at(200) })
  for (const c of campaigns) {
    const first = c.first <= c.last ? c.first : c.last
    await sql`INSERT INTO campaign_spans VALUES (${WAR}, ${c.id}, ${c.planet}, 0, ${first}, ${c.last})`
  }
  await sql`INSERT INTO campaign_spans VALUES (${OTHER_WAR}, 7000, 1, 0, ${at(10)}, ${at(20)})`

  // Defenses: each with a campaign; campaign 7901's, and one campaign with two.
  const defenses: { id: number; planet: number; campaign: number; first: number; last: number }[] = []
  for (let i = 0; i < 30; i++) {
    const a = tickOf()
    const b = storedTick(Math.min(LAST, a + r.int(0, 120)))
    defenses.push({ id: 1000 + i, planet: r.int(0, 9), campaign: i < 25 ? 7000 + i : 6000 + i, first: Math.min(a, b), last: Math.max(a, b) })
  }
  defenses.push({ id: 1100, planet: 3, campaign: 7901, first: 120, last: 200 }, { id: 1101, planet: 4, campaign: 7001, first: 413, last: 500 })
  for (const d of defenses) {
    await sql`
      INSERT INTO planet_event_spans (war_id, event_id, planet_index, event_type, race, campaign_id, max_health, first_seen_at, last_seen_at,
                                      last_health, last_war_time, expire_war_time, expires_at, zero_at)
      VALUES (${WAR}, ${d.id}, ${d.planet}, 1, ${2 + (d.id % 2)}, ${d.campaign}, 900000, ${at(d.first)}, ${at(d.last)}, 1000, NULL, 0, ${at(d.last + 50)}, NULL)`
  }
  // Outcomes (some tied on time with other events), and corrections: two of one defense made at one tick.
  for (const d of defenses.slice(0, 26)) {
    const end = r.next() < 0.5 ? storedTick(d.last + 1) : tickOf()
    await sql`INSERT INTO defense_outcomes (war_id, event_id, seq, outcome, ended_at, decided_at)
              VALUES (${WAR}, ${d.id}, 0, ${r.next() < 0.5 ? 'defense_won' : 'defense_lost'}, ${at(end)}, ${at(end)})`
  }
  const corrections: [number, number, number][] = [[1000, 1, 413], [1000, 2, 413], [1003, 1, 341], [1004, 1, 341], [1005, 1, 598], [1005, 2, LAST], [1100, 1, 500]]
  for (const [id, seq, k] of corrections) {
    await sql`INSERT INTO defense_outcomes (war_id, event_id, seq, outcome, ended_at, decided_at, was_outcome, was_ended_at, corrects)
              VALUES (${WAR}, ${id}, ${seq}, ${seq % 2 ? 'defense_lost' : 'defense_won'}, ${at(k - 3)}, ${at(k)}, ${seq % 2 ? 'defense_won' : 'defense_lost'}, ${at(k - 9)}, ${seq === 1 ? 40 + id : null})`
  }
  // An outcome whose event has no span: on no timeline.
  await sql`INSERT INTO defense_outcomes (war_id, event_id, seq, outcome, ended_at, decided_at) VALUES (${WAR}, 999, 0, 'defense_won', ${at(40)}, ${at(40)})`

  // Orders: completed, failed, withdrawn, running (each by the moment asked), some at busy ticks.
  for (let i = 0; i < 16; i++) {
    const first = tickOf()
    const last = storedTick(Math.min(LAST, first + r.int(0, 200)))
    const completed = i % 4 === 1 ? at(storedTick(Math.min(LAST, last + r.int(0, 5)))) : null
    await sql`
      INSERT INTO major_orders (order_id32, war_id, first_seen_at, last_seen_at, expires_in_last_seen, title, completed_at)
      VALUES (${500 + i}, ${i === 15 ? OTHER_WAR : WAR}, ${at(first)}, ${at(last)}, ${r.pick([0, 600, 3600, 86_400, -300])}, ${'Order ' + i}, ${completed})`
  }
  // Dispatches: most at ticks (ties), some between.
  for (let i = 0; i < 40; i++) {
    const t = r.next() < 0.7 ? at(tickOf()) : new Date(T0 + r.int(-3600, TICKS * 300) * 1000)
    await sql`INSERT INTO dispatches (war_id, dispatch_id, published_war_time, published_at, message, first_seen_at) VALUES (${WAR}, ${3000 + i}, ${i}, ${t}, ${'News ' + i}, ${t})`
  }
  await sql`INSERT INTO dispatches (war_id, dispatch_id, published_war_time, published_at, message, first_seen_at) VALUES (${OTHER_WAR}, 3000, 0, ${at(40)}, 'Elsewhere', ${at(40)})`
  // Texts in two languages (de-DE for some only).
  await sql`INSERT INTO dispatch_texts SELECT war_id, dispatch_id, 'en-US', 'EN ' || message, first_seen_at FROM dispatches`
  await sql`INSERT INTO dispatch_texts SELECT war_id, dispatch_id, 'de-DE', 'DE ' || message, first_seen_at FROM dispatches WHERE dispatch_id % 3 = 0`
  await sql`INSERT INTO major_order_texts (order_id32, lang, title, seen_at) SELECT order_id32, 'de-DE', 'DE ' || title, first_seen_at FROM major_orders WHERE order_id32 % 2 = 0`
}

// ------------------------------------------------------------------ the reference: every event of the war in one query

/** Every timeline event of a war (unordered), as the timeline was read before it was paged per kind. */
function everyEvent(sql: Queryable, warId: number, asOf: Date): Fragment {
  const none = sql`NULL::int AS "planetIndex", NULL::text AS "planetName", NULL::int AS "fromOwner", NULL::int AS "toOwner"`
  const noOrder = sql`NULL::bigint AS "orderId32", NULL::text AS title`
  const noDispatch = sql`NULL::bigint AS "dispatchId", NULL::text AS message`
  const noFight = sql`NULL::bigint AS "eventId", NULL::bigint AS "campaignId", NULL::int AS race`
  const noOwners = sql`NULL::int AS "fromOwner", NULL::int AS "toOwner"`
  const noCorrection = sql`NULL::jsonb AS correction`
  const iso = (x: Fragment) => sql`to_char(${x} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
  const orders = (type: EventType, when: Fragment, where: Fragment) => sql`
    SELECT ${when} AS at, ${type}::text AS type, o.war_id AS "warID", ${none}, o.order_id32 AS "orderId32", o.title, ${noDispatch}, ${noFight}, ${noCorrection}
    FROM major_orders o CROSS JOIN LATERAL (SELECT o.last_seen_at + make_interval(secs => o.expires_in_last_seen) AS expires_at) x
    WHERE o.war_id = ${warId} AND ${where}`
  const campaignEvent = sql`LEFT JOIN LATERAL (
      SELECT d.event_id FROM planet_event_spans d WHERE d.war_id = c.war_id AND d.campaign_id = c.campaign_id
      ORDER BY d.first_seen_at DESC LIMIT 1) d ON true`
  return sql`
    SELECT e.at, e.type, e."warID", e."planetIndex", p.name AS "planetName", e."fromOwner", e."toOwner", e."orderId32", e.title,
           e."dispatchId", e.message, e."eventId", e."campaignId", e.race, e.correction
    FROM (
      SELECT c.captured_at AS at,
             CASE WHEN c.to_owner = 1 THEN 'planet_liberated' WHEN c.from_owner = 1 THEN 'planet_lost' ELSE 'planet_owner_changed' END AS type,
             c.war_id AS "warID", c.planet_index AS "planetIndex", NULL::text AS "planetName", c.from_owner::int AS "fromOwner", c.to_owner::int AS "toOwner",
             ${noOrder}, ${noDispatch}, ${noFight}, ${noCorrection}
      FROM planet_owner_changes c WHERE c.war_id = ${warId}
      UNION ALL
      SELECT e.first_seen_at, 'defense_started', e.war_id, e.planet_index, NULL, ${noOwners}, ${noOrder}, ${noDispatch}, e.event_id, e.campaign_id, e.race, ${noCorrection}
      FROM planet_event_spans e WHERE e.war_id = ${warId}
      UNION ALL
      SELECT o.ended_at, o.outcome, e.war_id, e.planet_index, NULL, ${noOwners}, ${noOrder}, ${noDispatch}, e.event_id, e.campaign_id, e.race, ${noCorrection}
      FROM defense_outcomes o JOIN planet_event_spans e ON e.war_id = o.war_id AND e.event_id = o.event_id
      WHERE o.war_id = ${warId} AND o.seq = 0
      UNION ALL
      SELECT o.decided_at, 'event_corrected', e.war_id, e.planet_index, NULL, ${noOwners}, ${noOrder}, ${noDispatch}, e.event_id, e.campaign_id, e.race,
             jsonb_build_object('corrects', o.corrects, 'seq', o.seq,
                                'was', jsonb_build_object('type', o.was_outcome, 'at', ${iso(sql`o.was_ended_at`)}),
                                'now', jsonb_build_object('type', o.outcome, 'at', ${iso(sql`o.ended_at`)}))
      FROM defense_outcomes o JOIN planet_event_spans e ON e.war_id = o.war_id AND e.event_id = o.event_id
      WHERE o.war_id = ${warId} AND o.seq > 0
      UNION ALL
      SELECT c.first_seen_at, 'campaign_started', c.war_id, c.planet_index, NULL, ${noOwners}, ${noOrder}, ${noDispatch}, d.event_id, c.campaign_id, NULL, ${noCorrection}
      FROM campaign_spans c ${campaignEvent} WHERE c.war_id = ${warId}
      UNION ALL
      SELECT nx.t, 'campaign_ended', c.war_id, c.planet_index, NULL, ${noOwners}, ${noOrder}, ${noDispatch}, d.event_id, c.campaign_id, NULL, ${noCorrection}
      FROM campaign_spans c
      CROSS JOIN LATERAL (
        SELECT f.captured_at AS t FROM full_status_ticks f
        WHERE f.war_id = c.war_id AND f.captured_at > c.last_seen_at AND f.planets_written > 0 ORDER BY f.captured_at LIMIT 1) nx
      ${campaignEvent}
      WHERE c.war_id = ${warId}
      UNION ALL ${orders('major_order_issued', sql`o.first_seen_at`, sql`true`)}
      UNION ALL ${orders('major_order_completed', sql`o.completed_at`, sql`o.completed_at IS NOT NULL`)}
      UNION ALL ${orders('major_order_failed', sql`x.expires_at`, sql`o.completed_at IS NULL AND x.expires_at <= ${asOf}`)}
      UNION ALL ${orders('major_order_withdrawn', sql`o.last_seen_at`, sql`o.completed_at IS NULL AND x.expires_at > ${asOf}
        AND o.last_seen_at < (SELECT max(captured_at) FROM full_status_ticks WHERE war_id = ${warId})`)}
      UNION ALL
      SELECT d.published_at, 'dispatch', d.war_id, ${none}, ${noOrder}, d.dispatch_id, d.message, ${noFight}, ${noCorrection}
      FROM dispatches d WHERE d.war_id = ${warId}
      UNION ALL
      SELECT coalesce(w.start_date, w.first_seen_at), 'war_started', w.war_id, ${none}, ${noOrder}, ${noDispatch}, ${noFight}, ${noCorrection}
      FROM wars w WHERE w.war_id = ${warId}
    ) e LEFT JOIN planets_of_war(${warId}) p ON p.planet_index = e."planetIndex"`
}

const ORDER = (sql: Queryable) =>
  sql`e.at DESC, e.type = 'event_corrected' DESC, e.type, coalesce(e."planetIndex", e."orderId32", e."dispatchId"), e."eventId", e."campaignId", (e.correction->>'seq')::int`

/** What an event is about, as the event log has always keyed it. */
const eventKey = (sql: Queryable) => sql`
  CASE WHEN e.type = 'event_corrected' THEN e."eventId"::text || '#' || (e.correction->>'seq')
       WHEN e.type LIKE 'campaign%' THEN e."campaignId"::text
       WHEN e."eventId" IS NOT NULL THEN e."eventId"::text
       WHEN e."orderId32" IS NOT NULL THEN e."orderId32"::text
       WHEN e."dispatchId" IS NOT NULL THEN e."dispatchId"::text
       WHEN e."planetIndex" IS NOT NULL THEN e."planetIndex"::text || '@' || (extract(epoch FROM e.at) * 1000)::bigint::text
       ELSE e."warID"::text END`

interface Filter {
  types: readonly EventType[]
  range: Bounds
  asOf: Date
  planetIndex?: number
  lang?: Lang
}

/** `column` within `b`, as the routes bound a time. */
const within = (sql: Queryable, b: Bounds) => sql`
  ${b.from ? (b.fromExclusive ? sql`AND e.at > ${b.from}` : sql`AND e.at >= ${b.from}`) : sql``}
  ${b.to ? (b.toExclusive ? sql`AND e.at < ${b.to}` : sql`AND e.at <= ${b.to}`) : sql``}`

async function reference(sql: Sql, f: Filter, limit: number, offset: number) {
  const where = sql`WHERE e.type IN ${sql(f.types as EventType[])} ${within(sql, f.range)} ${f.planetIndex === undefined ? sql`` : sql`AND e."planetIndex" = ${f.planetIndex}`}`
  const page = sql`SELECT * FROM (${everyEvent(sql, WAR, f.asOf)}) e ${where} ORDER BY ${ORDER(sql)} LIMIT ${limit} OFFSET ${offset}`
  const rows = await sql`SELECT ${f.lang ? localizedTimelineColumns(sql, f.lang) : sql`e.*`} FROM (${page}) e ORDER BY ${ORDER(sql)}`
  const [c] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM (${everyEvent(sql, WAR, f.asOf)}) e ${where}`
  return { rows: [...rows] as unknown as TimelineEvent[], total: c!.n }
}

// ------------------------------------------------------------------ random filters

const MIN_T = T0 - 2 * 86_400_000
const MAX_T = T0 + (TICKS + 12) * STEP
/** A time on a tick (where events tie), or anywhere. */
const timeArb = fc.oneof(fc.integer({ min: -20, max: TICKS + 10 }).map((k) => T0 + k * STEP), fc.integer({ min: MIN_T, max: MAX_T }))
const rangeArb = fc
  .record({ from: fc.option(timeArb, { nil: null }), to: fc.option(timeArb, { nil: null }), toExclusive: fc.boolean(), fromExclusive: fc.boolean() })
  .map(({ from, to, toExclusive, fromExclusive }): Bounds => {
    const [a, b] = from !== null && to !== null && from > to ? [to, from] : [from, to]
    return { from: a === null ? null : new Date(a), to: b === null ? null : new Date(b), toExclusive: b !== null && toExclusive, fromExclusive }
  })
const typesArb = fc.oneof(fc.constant(EVENT_TYPES), fc.subarray([...EVENT_TYPES], { minLength: 1 }))
const filterArb = fc.record({
  types: typesArb,
  range: rangeArb,
  asOf: fc.oneof(fc.constant(new Date(T0 + (LAST + 1) * STEP)), fc.integer({ min: T0, max: MAX_T }).map((t) => new Date(t))),
  planetIndex: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
  lang: fc.option(fc.constantFrom<Lang>({ one: 'de-DE' }, { all: ['en-US', 'de-DE'] }), { nil: undefined }),
})
const pageArb = fc.record({ limit: fc.constantFrom(1, 2, 3, 7, 25, 100, 1000), page: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 400 })) })

describeOnEachDatabase('timeline pages read per kind', (target) => {
  let db: TestDatabase

  beforeAll(async () => {
    db = await target.open()
    await seedHistory(db.sql)
  }, 120_000)
  afterAll(async () => {
    await db?.dispose()
  })

  test('the history has what it is built for', async () => {
    const all = await reference(db.sql, { types: EVENT_TYPES, range: { from: null, to: null, toExclusive: false }, asOf: new Date(T0 + TICKS * STEP) }, 100_000, 0)
    const count = (type: string) => all.rows.filter((e) => e.type === type).length
    for (const type of EVENT_TYPES) expect({ type, n: count(type) > 0 }).toEqual({ type, n: true })
    // Ties on time across kinds, corrections of one defense at one time, campaigns still running.
    const times = all.rows.map((e) => (e.at as Date).getTime())
    expect(new Set(times).size).toBeLessThan(times.length - 50)
    expect(all.rows.filter((e) => e.type === 'event_corrected' && e.eventId === 1000).map((e) => (e.at as Date).getTime())).toEqual([at(413).getTime(), at(413).getTime()])
    expect(count('campaign_ended')).toBeLessThan(count('campaign_started'))
    expect(all.rows.some((e) => e.warID !== WAR)).toBe(false)
  })

  test('every page, total, filter and language is the reference\'s', async () => {
    await fc.assert(
      fc.asyncProperty(filterArb, pageArb, async (f, { limit, page }) => {
        const offset = (page - 1) * limit
        const range = { from: f.range.from, to: f.range.to, toExclusive: f.range.toExclusive }
        const got = await reads.events(db.sql, { warId: WAR, ...f, range }, { limit, offset })
        const want = await reference(db.sql, { ...f, range }, limit, offset)
        expect(got.total).toBe(want.total)
        expect(got.rows).toEqual(want.rows)
      }),
      { numRuns: target.label === 'embedded' ? 80 : 250, seed: 42 },
    )
  }, 300_000)

  test('pages picked near the end and in the middle of the whole war', async () => {
    const all = { types: EVENT_TYPES, range: { from: null, to: null, toExclusive: false }, asOf: new Date(T0 + (LAST + 1) * STEP) }
    const { total } = await reference(db.sql, all, 1, 0)
    for (const [limit, offset] of [[10, 0], [10, Math.floor(total / 2)], [10, total - 10], [10, total - 3], [10, total], [7, total - 1], [1000, 0]] as const) {
      const got = await reads.events(db.sql, { warId: WAR, ...all }, { limit, offset })
      expect(got).toEqual(await reference(db.sql, all, limit, offset))
    }
  })

  test("the event log's recent rows are the war's events after a moment not logged yet, as the reference has them, with their keys", async () => {
    // Some events logged already (by the key the log had before it was taken per kind).
    const asOfLast = new Date(T0 + (LAST + 1) * STEP)
    await db.sql`
      INSERT INTO event_log (type, war_id, key, at, data)
      SELECT e.type, e."warID", ${eventKey(db.sql)}, e.at, '{}'::jsonb
      FROM (${everyEvent(db.sql, WAR, asOfLast)}) e WHERE (extract(epoch FROM e.at)::bigint / 60) % 3 = 0
      ON CONFLICT DO NOTHING`
    await fc.assert(
      fc.asyncProperty(timeArb, fc.integer({ min: 0, max: TICKS + 10 }), async (since, k) => {
        const asOf = new Date(T0 + k * STEP)
        const range = { from: new Date(since), fromExclusive: true, to: RECENT_UNTIL, toExclusive: true }
        const order = (sql: Queryable) => sql`e.at, e.type, coalesce(e."planetIndex", e."orderId32", e."dispatchId"), e."eventId", e."campaignId", (e.correction->>'seq')::int`
        const got = await db.sql`SELECT e.* FROM (${unloggedEvents(db.sql, WAR, asOf, range)}) e ORDER BY ${order(db.sql)}`
        const want = await db.sql`
          SELECT e.*, ${eventKey(db.sql)} AS key FROM (${everyEvent(db.sql, WAR, asOf)}) e
          WHERE NOT EXISTS (SELECT 1 FROM event_log l WHERE l.type = e.type AND l.war_id = e."warID" AND l.key = ${eventKey(db.sql)}) ${within(db.sql, range)}
          ORDER BY ${order(db.sql)}`
        expect(want.length).toBeLessThan(1000)
        expect([...got]).toEqual([...want])
      }),
      { numRuns: target.label === 'embedded' ? 40 : 120, seed: 43 },
    )
  }, 300_000)
})
