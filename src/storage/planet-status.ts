/**
 * Planet status, stored as what changed (sql/0021): a planet's row is written at a tick
 * only when its state differs from its state at the war's tick before, or when it leaves
 * the feed or comes back. Its state at any tick with planets is its latest row at or
 * before it (carried forward); the ticks are full_status_ticks. Every read here answers
 * what the rows of every planet at every tick would (the view planet_status_snapshots
 * is that reference): /historical-planet-status still has a row per planet per tick.
 * The hours of the long histories: planet_status_hours, kept by the writes for the
 * planet-hours in which something changed; any other hour carries the state over.
 */
import { t, type Static } from 'elysia'
import type { Sql, Tx } from '../db/connect.ts'
import { numbers, Timestamp } from './model.ts'
import type { PageOf, Slice, TimeRange } from './query.ts'
import { timePage } from './time-pages.ts'
import type { WindowEdges } from './time-pages.ts'

const Int = (description: string) => t.Integer({ description })

export const PlanetStatusRow = t.Object(
  {
    warID: Int('War id'),
    planetIndex: Int('Planet index'),
    owner: Int('Owning faction id'),
    health: Int('Planet health'),
    regenPerSecond: t.Number({ description: 'Health regeneration per second' }),
    players: Int('Players on the planet'),
    timestamp: Timestamp('Capture time of the full-status tick'),
  },
  { description: 'Historical planet status row' },
)
export type PlanetStatusRow = Static<typeof PlanetStatusRow>

/** A point of a planet's curve: a tick, or an hourly bucket (state at the end of the hour, players averaged). */
export interface PlanetPoint {
  t: Date
  owner: number
  health: number
  regenPerSecond: number
  players: number
}

/** A planet's state from one of its rows: null when the row says it left the feed. */
type State = Omit<PlanetPoint, 't'> | null

/** A change row as read: its time and the state it starts. */
interface Change {
  t: Date
  state: State
}

const HOUR_MS = 3_600_000
const hourOf = (t: Date) => Math.floor(t.getTime() / HOUR_MS) * HOUR_MS

/** Change rows as read by `changesOf` (owner null: out of the feed), as Change. */
function asChanges(rows: readonly { t: Date; owner: number | null; health: number | null; regenPerSecond: number | null; players: number | null }[]): Change[] {
  return rows.map((r) => ({ t: r.t, state: r.owner === null ? null : { owner: r.owner, health: r.health!, regenPerSecond: r.regenPerSecond!, players: r.players! } }))
}

/**
 * Each tick's state: the latest change at or before it (changes and ticks oldest first;
 * the first change may be older than every tick). Ticks where the planet is out of the
 * feed (or not yet in it) are left out.
 */
export function carried(ticks: readonly Date[], changes: readonly Change[]): PlanetPoint[] {
  const out: PlanetPoint[] = []
  let i = 0
  let state: State = null
  for (const t of ticks) {
    while (i < changes.length && changes[i]!.t <= t) state = changes[i++]!.state
    if (state) out.push({ t, ...state })
  }
  return out
}

/**
 * A planet's changes in [from, to] (to: inclusive), with the latest one before `from`
 * first: what the ticks of the window carry forward. One statement.
 */
const changesOf = (sql: Sql, warId: number, planetIndex: number, from: Date, to: Date) => sql<{ t: Date; owner: number | null; health: number | null; regenPerSecond: number | null; players: number | null }[]>`
  SELECT * FROM (
    SELECT captured_at AS t, owner, health, regen_per_second AS "regenPerSecond", players FROM planet_status_changes
    WHERE war_id = ${warId} AND planet_index = ${planetIndex} AND captured_at < ${from}
    ORDER BY captured_at DESC LIMIT 1) b
  UNION ALL
  SELECT * FROM (
    SELECT captured_at AS t, owner, health, regen_per_second AS "regenPerSecond", players FROM planet_status_changes
    WHERE war_id = ${warId} AND planet_index = ${planetIndex} AND captured_at >= ${from} AND captured_at <= ${to}
    ORDER BY captured_at) w`

/** The war's ticks with planets in [from, to], oldest first (`latest`: only the newest so many). */
async function ticksIn(sql: Sql, warId: number, from: Date, to: Date, latest?: number): Promise<Date[]> {
  const rows = latest === undefined
    ? await sql<{ t: Date }[]>`
        SELECT captured_at AS t FROM full_status_ticks
        WHERE war_id = ${warId} AND planets_written > 0 AND captured_at >= ${from} AND captured_at <= ${to} ORDER BY captured_at`
    : await sql<{ t: Date }[]>`
        SELECT t FROM (
          SELECT captured_at AS t FROM full_status_ticks
          WHERE war_id = ${warId} AND planets_written > 0 AND captured_at >= ${from} AND captured_at <= ${to}
          ORDER BY captured_at DESC LIMIT ${latest}) x ORDER BY t`
  return rows.map((r) => r.t)
}

/** Every full-status tick of the planet in [from, to], oldest first (`latest`: only the newest so many). */
export async function ticks(sql: Sql, warId: number, planetIndex: number, from: Date, to: Date, latest?: number): Promise<PlanetPoint[]> {
  const times = await ticksIn(sql, warId, from, to, latest)
  if (!times.length) return []
  return carried(times, asChanges(await changesOf(sql, warId, planetIndex, times[0]!, times.at(-1)!)))
}

// ------------------------------------------------------------------ /historical-planet-status

/**
 * /historical-planet-status: one planet of one war, newest first. Its rows are the ticks
 * with planets while it is in the feed: the pages are found through the ticks' counts per
 * day and hour (time-pages.ts, over the spans the planet is in the feed), the page's
 * ticks then carry the planet's state forward.
 */
async function history(sql: Sql, f: { warId: number; planetIndex: number; range: TimeRange }, p: Slice): Promise<PageOf<PlanetStatusRow>> {
  const spans = await presence(sql, f.warId, f.planetIndex, f.range)
  const total = spans.reduce((n, s) => n + s.n, 0)
  if (p.offset >= total) return { rows: [], total }
  // Newest first: the span holding the page's first row, then older ones while the page has room.
  const times: Date[] = []
  let skip = p.offset
  for (const span of spans) {
    if (skip >= span.n) {
      skip -= span.n
      continue
    }
    const page = await timePage<{ t: Date }>(sql, TICK_SERIES(sql, f.warId), span.range, { offset: skip, limit: p.limit - times.length }, [sql`captured_at AS t`])
    times.push(...page.rows.map((r) => r.t))
    skip = 0
    if (times.length >= p.limit) break
  }
  const oldestFirst = times.reverse()
  const points = carried(oldestFirst, asChanges(await changesOf(sql, f.warId, f.planetIndex, oldestFirst[0]!, oldestFirst.at(-1)!)))
  const rows = points.reverse().map((pt) => ({ warID: f.warId, planetIndex: f.planetIndex, owner: pt.owner, health: pt.health, regenPerSecond: pt.regenPerSecond, players: pt.players, timestamp: pt.t }))
  return { rows, total }
}

/** The war's ticks with planets, counted per day and per hour (sql/0021). */
const TICK_SERIES = (sql: Sql, warId: number) => ({
  table: 'planet_ticks',
  where: sql`war_id = ${warId}`,
  levels: [{ view: 'full_status_tick_days', seconds: 86_400 }, { view: 'full_status_tick_hours', seconds: 3600 }],
})

/**
 * The spans in which the planet is in the feed, within `range`, newest first, each as a
 * range of its own with its rows counted (sql/0021 planet_status_presence, planet_status_count).
 */
async function presence(sql: Sql, warId: number, planetIndex: number, range: TimeRange): Promise<{ range: TimeRange; n: number }[]> {
  // [lo, hi) of the range: an inclusive end takes the rows at that very instant.
  const lo = range.from
  const hi = range.to === null ? null : range.toExclusive ? range.to : new Date(range.to.getTime() + 1)
  const rows = await sql<{ from: Date; until: Date | null; n: number }[]>`
    SELECT p.from_at AS from, p.until_at AS until,
           full_status_tick_count(${warId}, greatest(p.from_at, coalesce(${lo}::timestamptz, '-infinity')),
                                  least(coalesce(p.until_at, 'infinity'), coalesce(${hi}::timestamptz, 'infinity')))::int AS n
    FROM planet_status_presence(${warId}, ${planetIndex}) p
    WHERE p.from_at < coalesce(${hi}::timestamptz, 'infinity') AND coalesce(p.until_at, 'infinity') > coalesce(${lo}::timestamptz, '-infinity')
    ORDER BY p.from_at DESC`
  return rows.filter((r) => r.n > 0).map((r) => {
    const from = lo === null || r.from > lo ? r.from : lo
    // The span's end is exclusive; the range's own end keeps its kind.
    const spanEnds = r.until !== null && (hi === null || r.until < hi)
    return { n: r.n, range: spanEnds ? { from, to: r.until, toExclusive: true } : { from, to: range.to, toExclusive: range.toExclusive } }
  })
}

/** The planet's oldest and newest rows at or after `from` (null when none): how long a page of a window ending now holds. */
async function historyEdges(sql: Sql, f: { warId: number; planetIndex: number }, from: Date): Promise<WindowEdges> {
  const [row] = await sql<{ oldest: Date | null; newest: Date | null }[]>`
    SELECT
      (SELECT min(x.t) FROM planet_status_presence(${f.warId}, ${f.planetIndex}) p
       CROSS JOIN LATERAL (
         SELECT captured_at AS t FROM full_status_ticks
         WHERE war_id = ${f.warId} AND planets_written > 0 AND captured_at >= greatest(p.from_at, ${from}) AND captured_at < coalesce(p.until_at, 'infinity')
         ORDER BY captured_at LIMIT 1) x) AS oldest,
      (SELECT max(x.t) FROM planet_status_presence(${f.warId}, ${f.planetIndex}) p
       CROSS JOIN LATERAL (
         SELECT captured_at AS t FROM full_status_ticks
         WHERE war_id = ${f.warId} AND planets_written > 0 AND captured_at >= greatest(p.from_at, ${from}) AND captured_at < coalesce(p.until_at, 'infinity')
         ORDER BY captured_at DESC LIMIT 1) x) AS newest`
  return { oldest: row?.oldest ?? null, newest: row?.newest ?? null }
}

/**
 * A planet of a war as its history needs it: its maximum health (the planet lookup table)
 * and its first stored status tick (null: none yet); null when the planet is not known for
 * the war. One statement: the first tick is its first row (one end of its key).
 */
async function planetOf(sql: Sql, warId: number, planetIndex: number): Promise<{ maxHealth: number; since: Date | null } | null> {
  const [row] = await sql<{ maxHealth: number; since: Date | null }[]>`
    SELECT max_health AS "maxHealth",
           (SELECT captured_at FROM planet_status_changes
            WHERE war_id = ${warId} AND planet_index = ${planetIndex} AND owner IS NOT NULL ORDER BY captured_at ASC LIMIT 1) AS since
    FROM planets_of_war(${warId}) WHERE planet_index = ${planetIndex} AND max_health IS NOT NULL`
  return row ?? null
}

/**
 * Hourly buckets from `from` (on the hour) to `to`, oldest first: the state at the end of
 * each hour and the players averaged over its ticks, for the hours with ticks while the
 * planet is in the feed. The hours before the one of the war's latest tick come from
 * planet_status_hours where the planet changed in them, else carry its state over their
 * ticks; the hour of the latest tick is computed from its ticks.
 */
async function hourly(sql: Sql, warId: number, planetIndex: number, from: Date, to: Date): Promise<PlanetPoint[]> {
  const [meta, counts, kept, before] = await Promise.all([
    sql<{ latest: Date | null }[]>`SELECT max(captured_at) AS latest FROM full_status_ticks WHERE war_id = ${warId} AND planets_written > 0`,
    sql<{ t: Date; n: number }[]>`
      SELECT bucket AS t, n FROM full_status_tick_hours WHERE war_id = ${warId} AND bucket >= ${from} AND bucket <= ${to} ORDER BY bucket`,
    sql<{ t: Date; n: number; playersSum: string; owner: number | null; health: number | null; regenPerSecond: number | null; players: number | null; absentAfter: boolean }[]>`
      SELECT bucket AS t, n, players_sum::text AS "playersSum", owner, health, regen_per_second AS "regenPerSecond", players, absent_after AS "absentAfter"
      FROM planet_status_hours WHERE war_id = ${warId} AND planet_index = ${planetIndex} AND bucket >= ${from} AND bucket <= ${to} ORDER BY bucket`,
    changesOf(sql, warId, planetIndex, from, from),
  ])
  const latest = meta[0]?.latest
  if (!latest || !counts.length) return []
  const open = hourOf(latest)
  const keptAt = new Map(kept.map((k) => [k.t.getTime(), k]))
  // The state at `from`: its latest change before it (a change at `from` itself opens an hour kept or open).
  let state: State = asChanges(before.filter((c) => c.t < from))[0]?.state ?? null
  const out: PlanetPoint[] = []
  for (const { t, n } of counts) {
    if (t.getTime() >= open) {
      // The open hour: its own ticks, from the state carried into it.
      const hourEnd = new Date(t.getTime() + HOUR_MS - 1)
      const [times, changes] = await Promise.all([ticksIn(sql, warId, t, hourEnd), changesOf(sql, warId, planetIndex, t, hourEnd)])
      const points = carried(times, asChanges(changes))
      if (points.length) {
        const last = points.at(-1)!
        const sum = points.reduce((s, pt) => s + pt.players, 0)
        out.push({ t, owner: last.owner, health: last.health, regenPerSecond: last.regenPerSecond, players: Math.round(sum / points.length) })
      }
      break
    }
    const k = keptAt.get(t.getTime())
    if (k) {
      if (k.n > 0) out.push({ t, owner: k.owner!, health: k.health!, regenPerSecond: k.regenPerSecond!, players: Math.round(Number(k.playersSum) / k.n) })
      state = k.absentAfter ? null : { owner: k.owner!, health: k.health!, regenPerSecond: k.regenPerSecond!, players: k.players! }
    } else if (state && n > 0) {
      out.push({ t, ...state })
    }
  }
  return out
}

// ------------------------------------------------------------------ the liberation view

/** A planet of the liberation view: its lookup data, its ticks in the window (oldest first), and its latest row when none is in the window. */
export interface PlanetWindow {
  planetIndex: number
  planetName: string
  sectorName: string | null
  maxHealth: number
  ticks: PlanetPoint[]
  /** The planet's latest row at or before the window's end when the window has none (a long freeze or outage); null otherwise or without any. */
  latest: PlanetPoint | null
}

/**
 * The planets asked for (or those in the war's current campaigns), each with its ticks in
 * (from, to], and, for a planet without one there, its latest row before; a planet unknown
 * for the war is left out.
 */
async function windows(sql: Sql, f: { warId: number; planetIndexes?: readonly number[]; from: Date; to: Date }): Promise<PlanetWindow[]> {
  // The planets, the window's ticks and each planet's changes (with the one before the window) in one statement.
  const [rows, times] = await Promise.all([
    sql<(Omit<PlanetWindow, 'ticks' | 'latest'> & { changes: [string, number | null, number | null, number | null, number | null][] | null })[]>`
      SELECT p.planet_index AS "planetIndex", p.name AS "planetName", p.sector_name AS "sectorName", p.max_health AS "maxHealth",
             (SELECT json_agg(json_build_array(c.captured_at, c.owner, c.health, c.regen_per_second, c.players) ORDER BY c.captured_at) FROM (
                SELECT * FROM (SELECT * FROM planet_status_changes b WHERE b.war_id = p.war_id AND b.planet_index = p.planet_index AND b.captured_at <= ${f.from}
                               ORDER BY b.captured_at DESC LIMIT 1) b
                UNION ALL
                SELECT * FROM planet_status_changes w WHERE w.war_id = p.war_id AND w.planet_index = p.planet_index AND w.captured_at > ${f.from} AND w.captured_at <= ${f.to}
              ) c) AS changes
      FROM planets_of_war(${f.warId}) p
      WHERE p.max_health IS NOT NULL AND ${f.planetIndexes === undefined
        ? sql`p.planet_index IN (SELECT planet_index FROM campaigns WHERE war_id = ${f.warId})`
        : sql`p.planet_index = ANY(${[...f.planetIndexes]}::int[])`}
      ORDER BY p.planet_index`,
    sql<{ t: Date }[]>`
      SELECT captured_at AS t FROM full_status_ticks
      WHERE war_id = ${f.warId} AND planets_written > 0 AND captured_at > ${f.from} AND captured_at <= ${f.to} ORDER BY captured_at`,
  ])
  if (!rows.length) return []
  const tickTimes = times.map((r) => r.t)
  const out = rows.map(({ changes, ...planet }) => {
    const list = asChanges((changes ?? []).map(([t, owner, health, regenPerSecond, players]) => ({ t: new Date(t), owner, health, regenPerSecond, players })))
    return { ...planet, ticks: carried(tickTimes, list), latest: null as PlanetPoint | null }
  })
  const empty = out.filter((p) => !p.ticks.length).map((p) => p.planetIndex)
  if (empty.length) {
    // Its state at the latest tick at or before `to` while it was in the feed.
    const latest = await sql<(PlanetPoint & { planetIndex: number })[]>`
      SELECT i.planet_index AS "planetIndex", x.t, c.owner, c.health, c.regen_per_second AS "regenPerSecond", c.players
      FROM unnest(${empty}::int[]) AS i(planet_index)
      CROSS JOIN LATERAL (
        SELECT * FROM planet_status_changes WHERE war_id = ${f.warId} AND planet_index = i.planet_index AND captured_at <= ${f.to} AND owner IS NOT NULL
        ORDER BY captured_at DESC LIMIT 1) c
      CROSS JOIN LATERAL (
        SELECT captured_at AS t FROM full_status_ticks
        WHERE war_id = ${f.warId} AND planets_written > 0 AND captured_at >= c.captured_at AND captured_at <= ${f.to}
          AND captured_at < coalesce((SELECT min(a.captured_at) FROM planet_status_changes a
                                      WHERE a.war_id = ${f.warId} AND a.planet_index = i.planet_index AND a.captured_at > c.captured_at), 'infinity')
        ORDER BY captured_at DESC LIMIT 1) x`
    for (const { planetIndex, ...row } of latest) out.find((p) => p.planetIndex === planetIndex)!.latest = row
  }
  return out
}

/** The war's latest status tick time; null before the first. */
async function latestTickAt(sql: Sql, warId: number): Promise<Date | null> {
  const [row] = await sql<{ t: Date | null }[]>`SELECT max(captured_at) AS t FROM full_status_ticks WHERE war_id = ${warId}`
  return row?.t ?? null
}

// ------------------------------------------------------------------ writes (full-status collector)

export interface PlanetStatusInput {
  planet_index: number
  owner: number
  health: number
  regen_per_second: number
  players: number
}

/** The planets of one tick. */
export interface PlanetTick {
  at: Date
  planets: PlanetStatusInput[]
}

/** The war's ticks with planet rows just before and after the ticks written (null: none). */
export interface Neighbours {
  before: Date | null
  next: Date | null
}

/**
 * Every planet's status at one tick, and its owner changes; the tick's neighbours are
 * looked up in the ticks table. (The full-status collector writes through insertTicks,
 * with the neighbours its claim found.)
 */
export async function insert(tx: Tx, at: Date, warId: number, planets: PlanetStatusInput[]): Promise<number> {
  const [before, next] = planets.length ? await Promise.all([tickBefore(tx, at, warId), tickAfter(tx, at, warId)]) : [null, null]
  const [n] = await insertTicks(tx, warId, [{ at, planets }], { before, next })
  return n!
}

/** A planet's state as planet_status_latest keeps it (owner null: out of the feed), with its last owner in the feed. */
export interface LatestState {
  owner: number | null
  health: number | null
  regenPerSecond: number | null
  players: number | null
  lastOwner: number | null
}

/** Each planet's LatestState in a war, by planet index. */
export type LatestStates = Map<number, LatestState>

/** The planets' latest states of these wars (planet_status_latest), by war: what an in-order batch compares its ticks with (insertTicks). */
export async function latestStates(tx: Tx, warIds: readonly number[]): Promise<Map<number, LatestStates>> {
  const out = new Map<number, LatestStates>(warIds.map((w) => [w, new Map()]))
  if (!warIds.length) return out
  const rows = await tx<(LatestState & { warId: number; planetIndex: number })[]>`
    SELECT war_id AS "warId", planet_index AS "planetIndex", owner, health, regen_per_second AS "regenPerSecond", players, last_owner AS "lastOwner"
    FROM planet_status_latest WHERE war_id = ANY (${numbers(warIds)}::int[])`
  for (const { warId, planetIndex, ...state } of rows) out.get(warId)!.set(planetIndex, state)
  return out
}

/**
 * The planet rows of ticks of one war, oldest first: the rows where a planet changed, its
 * owner changes, the hours (sql/0021, 0023 and 0024, one call). Either every tick is later
 * than every stored one (`next` null: the usual case, live or an import in order), or
 * there is one tick, written late (`next`: the stored tick after it:
 * planet_status_write_late, which also restates at `next` what changed). In order, with
 * `latest` (the war's latest states, as the ticks written before these left them; updated
 * here) the ticks are compared with them here and only their changes sent
 * (planet_status_write_changes); without it, the database compares every planet of every
 * tick (planet_status_write). Returns the planet rows each tick stands for (one per planet
 * it lists).
 */
export async function insertTicks(tx: Tx, warId: number, ticks: readonly PlanetTick[], around: Neighbours, latest?: LatestStates): Promise<number[]> {
  if (!ticks.length) return []
  if (latest && around.next === null) {
    await insertChanges(tx, warId, ticks, around.before, latest)
    return ticks.map((t) => t.planets.length)
  }
  // One array per column (the server reads arrays faster than the same rows as JSON).
  const column = (value: (p: PlanetStatusInput) => number) => numbers(ticks.flatMap((t) => t.planets.map(value)))
  const planets = column((p) => p.planet_index)
  const values = tx`${planets}::int[], ${column((p) => p.owner)}::smallint[], ${column((p) => p.health)}::bigint[], ${column((p) => p.regen_per_second)}::float8[], ${column((p) => p.players)}::int[]`
  if (around.next !== null) {
    if (ticks.length > 1) throw new Error('planet status: ticks written before a stored one go one at a time')
    await tx`SELECT planet_status_write_late(${warId}, ${ticks[0]!.at}, ${around.next}, ${values})`
  } else {
    // Where each tick's rows start in the arrays, and where the last one's end.
    const starts = [1]
    for (const t of ticks) starts.push(starts.at(-1)! + t.planets.length)
    await tx`SELECT planet_status_write(${warId}, ${around.before}::timestamptz, ${ticks.map((t) => t.at.toISOString())}::timestamptz[], ${numbers(starts)}::int[], ${values})`
  }
  return ticks.map((t) => t.planets.length)
}

/** A planet's hour as planet_status_hours keeps it, summed tick by tick (insertChanges). */
interface HourSum {
  n: number
  playersSum: number
  playersMax: number | null
  /** Its state at its last tick in the feed this hour, and that tick. */
  last: LatestState | null
  lastAt: string | null
  absentAfter: boolean
}

/**
 * In-order ticks compared with `latest` as planet_status_write compares them in the
 * database: a planet listed whose state differs from its latest one (or that was not known)
 * gets a row; a planet known in the feed that a tick with planets does not list gets a row
 * saying it left. Each tick is compared with the states before it (a planet listed twice
 * is compared twice, and fails at the insert as it does there), then `latest` moves to it.
 * The hours the ticks complete after the hour of `before` are summed here as
 * planet_status_hours_rebuild sums them: for each planet that changed in the hour, its
 * state at each of the hour's ticks from its first row on (before its first change in the
 * hour, the state it had since an earlier hour).
 */
async function insertChanges(tx: Tx, warId: number, ticks: readonly PlanetTick[], before: Date | null, latest: LatestStates): Promise<void> {
  const listed = ticks.filter((t) => t.planets.length)
  if (!listed.length) return
  const at: string[] = []
  const tick: number[] = []
  const planet: number[] = []
  const owner: (number | null)[] = []
  const health: (number | null)[] = []
  const regen: (number | null)[] = []
  const players: (number | null)[] = []
  const lastOwner: (number | null)[] = []
  // The hours summed here: from the one after the hour of `before` (its earlier ticks are stored) up to the last tick's (still open).
  const firstHour = before === null ? -Infinity : hourOf(before) + HOUR_MS
  const openHour = hourOf(listed.at(-1)!.at)
  const hours: object[] = []
  const sums = new Map<number, HourSum>()
  const add = (sum: HourSum, s: LatestState, times: number, lastAt: string) => {
    sum.absentAfter = s.owner === null
    if (s.owner === null) return
    sum.n += times
    sum.playersSum += s.players! * times
    sum.playersMax = sum.playersMax === null ? s.players! : Math.max(sum.playersMax, s.players!)
    sum.last = s
    sum.lastAt = lastAt
  }
  let hour = NaN
  let hourTicks = 0
  const close = () => {
    for (const [index, h] of sums) {
      hours.push({
        planet_index: index, bucket: new Date(hour).toISOString(), n: h.n, players_sum: h.playersSum, players_max: h.playersMax,
        owner: h.last?.owner ?? null, health: h.last?.health ?? null, regen_per_second: h.last?.regenPerSecond ?? null, players: h.last?.players ?? null,
        last_at: h.lastAt, absent_after: h.absentAfter,
      })
    }
    sums.clear()
  }
  // The tick each planet was last listed at, and how many known planets are in the feed.
  const listedAt = new Map<number, number>()
  let inFeed = 0
  for (const l of latest.values()) if (l.owner !== null) inFeed++
  const changed: [number, LatestState][] = []
  for (const t of listed) {
    const k = at.push(t.at.toISOString())
    changed.length = 0
    let listedInFeed = 0
    for (const p of t.planets) {
      const again = listedAt.get(p.planet_index) === k
      listedAt.set(p.planet_index, k)
      const l = latest.get(p.planet_index)
      if (!again && l !== undefined && l.owner !== null) listedInFeed++
      if (l && l.owner === p.owner && l.health === p.health && l.regenPerSecond === p.regen_per_second && l.players === p.players) continue
      changed.push([p.planet_index, { owner: p.owner, health: p.health, regenPerSecond: p.regen_per_second, players: p.players, lastOwner: l?.lastOwner ?? null }])
    }
    if (listedInFeed < inFeed) {
      for (const [index, l] of latest) {
        if (l.owner !== null && listedAt.get(index) !== k) changed.push([index, { owner: null, health: null, regenPerSecond: null, players: null, lastOwner: l.lastOwner }])
      }
    }
    const h = hourOf(t.at)
    if (h !== hour) {
      close()
      hour = h
      hourTicks = 0
    }
    const summed = h >= firstHour && h < openHour
    for (const [index, c] of changed) {
      tick.push(k)
      planet.push(index)
      owner.push(c.owner)
      health.push(c.health)
      regen.push(c.regenPerSecond)
      players.push(c.players)
      lastOwner.push(c.lastOwner)
      const was = latest.get(index)
      if (summed && !sums.has(index)) {
        // The hour's ticks before this one, at the state it had (none before its first row).
        const sum: HourSum = { n: 0, playersSum: 0, playersMax: null, last: null, lastAt: null, absentAfter: false }
        if (was && hourTicks) add(sum, was, hourTicks, at[k - 2]!)
        sums.set(index, sum)
      }
      inFeed += (c.owner !== null ? 1 : 0) - (was && was.owner !== null ? 1 : 0)
      latest.set(index, { ...c, lastOwner: c.owner ?? c.lastOwner })
    }
    if (summed) for (const [index, sum] of sums) add(sum, latest.get(index)!, 1, at[k - 1]!)
    hourTicks++
  }
  close()
  await tx`
    SELECT planet_status_write_changes(${warId}, ${before}::timestamptz, ${at}::timestamptz[], ${numbers(tick)}::int[], ${numbers(planet)}::int[],
      ${numbers(owner)}::smallint[], ${numbers(health)}::bigint[], ${numbers(regen)}::float8[], ${numbers(players)}::int[], ${numbers(lastOwner)}::smallint[],
      ${JSON.stringify(hours)}::text::jsonb)`
}

/*
 * The tick's neighbours come from the small ticks table, as values. Ticks without planet
 * rows are skipped.
 */
async function tickBefore(tx: Tx, at: Date, warId: number): Promise<Date | null> {
  const [row] = await tx<{ t: Date | null }[]>`
    SELECT max(captured_at) AS t FROM full_status_ticks WHERE war_id = ${warId} AND captured_at < ${at} AND planets_written > 0`
  return row?.t ?? null
}

async function tickAfter(tx: Tx, at: Date, warId: number): Promise<Date | null> {
  const [row] = await tx<{ t: Date | null }[]>`
    SELECT min(captured_at) AS t FROM full_status_ticks WHERE war_id = ${warId} AND captured_at > ${at} AND planets_written > 0`
  return row?.t ?? null
}

export interface CampaignInput {
  campaign_id: number
  planet_index: number
  type: number
  count: number
}

/** The campaigns of the war at a tick, replacing those of an older tick (replaceCampaignsOfTicks). */
export async function replaceCampaigns(tx: Tx, at: Date, warId: number, campaigns: CampaignInput[]): Promise<number> {
  const [n] = await replaceCampaignsOfTicks(tx, warId, [{ at, campaigns }])
  return n!
}

/**
 * The campaigns of the war at ticks of one war, oldest first, each later than the one
 * before: as if each tick replaced those of an older tick in turn (a tick older than the
 * stored campaigns changes nothing), in one statement: the latest tick's campaigns
 * upserted (a campaign listed twice: its first), the war's others deleted. Returns the
 * campaigns each tick wrote.
 */
export async function replaceCampaignsOfTicks(tx: Tx, warId: number, ticks: readonly { at: Date; campaigns: CampaignInput[] }[]): Promise<number[]> {
  if (!ticks.length) return []
  const last = ticks[ticks.length - 1]!
  const json = JSON.stringify(last.campaigns.map((c, i) => ({ i, campaign_id: c.campaign_id, planet_index: c.planet_index, type: c.type, count: c.count })))
  const [row] = await tx<{ stored: Date | null }[]>`
    WITH r AS (
      SELECT DISTINCT ON (campaign_id) * FROM jsonb_to_recordset(${json}::text::jsonb) AS r(i integer, campaign_id bigint, planet_index integer, type integer, count integer)
      ORDER BY campaign_id, i
    ), stored AS (
      SELECT max(updated_at) AS at FROM campaigns WHERE war_id = ${warId}
    ), newer AS (
      SELECT coalesce((SELECT at FROM stored) > ${last.at}, false) AS found
    ), gone AS (
      DELETE FROM campaigns
      WHERE war_id = ${warId} AND NOT (SELECT found FROM newer) AND campaign_id NOT IN (SELECT campaign_id FROM r)
    ), up AS (
      INSERT INTO campaigns (war_id, campaign_id, planet_index, type, count, updated_at)
      SELECT ${warId}, campaign_id, planet_index, type, count, ${last.at} FROM r WHERE NOT (SELECT found FROM newer)
      ON CONFLICT (war_id, campaign_id) DO UPDATE
        SET planet_index = excluded.planet_index, type = excluded.type, count = excluded.count, updated_at = excluded.updated_at
    )
    SELECT at AS stored FROM stored`
  // A tick replaces the war's campaigns unless they are newer than it; once one has, every later one does.
  const stored = row?.stored?.getTime() ?? null
  return ticks.map(({ at, campaigns }) => (stored === null || stored <= at.getTime() ? new Set(campaigns.map((c) => c.campaign_id)).size : 0))
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { history, historyEdges, planetOf, ticks, hourly, windows, latestTickAt }
