/**
 * The history routes' answers computed straight from the raw rows, without any rollup:
 * time_bucket over player_count_snapshots / planet_status_snapshots with the same bucket
 * width and window. Written independently of src/routes (only the response shape is the
 * spec's), so that comparing the two checks the rollups AND measures what they buy.
 */
import type { Sql } from '../src/db/connect.ts'

// ------------------------------------------------------------------ /divers/history

const RANGE_S: Record<string, number> = { '24h': 86_400, '7d': 7 * 86_400, '30d': 30 * 86_400, '90d': 90 * 86_400 }
const DB_SOURCE = { api: 'upstream', pcstore: 'pcstore' } as const
type Source = keyof typeof DB_SOURCE

/** Spec rule: smallest multiple of 5 min giving at most 200 buckets; whole hours from 1 h, whole days from 1 d. */
export function bucketWidth(spanS: number): number {
  let w = Math.max(300, Math.ceil(spanS / 60_000) * 300)
  if (w >= 3600) w = Math.ceil(w / 3600) * 3600
  if (w >= 86_400) w = Math.ceil(w / 86_400) * 86_400
  return w
}

const value = (s: Source) => (s === 'api' ? 'api_total_player_count' : 'total_player_count')

/** The share of [from, to] from the series' first row on (0 without rows), 4 decimals. */
function coverageFrom(first: Date | null, from: Date, to: Date): number {
  const span = to.getTime() - from.getTime()
  return first === null || first > to ? 0 : span <= 0 ? 1 : Math.round(Math.min(1, (to.getTime() - Math.max(from.getTime(), first.getTime())) / span) * 10_000) / 10_000
}

export interface DiverAnswer {
  range: string
  source: Source
  bucketSeconds: number
  from: string
  to: string
  points: { t: string; v: number }[]
  stats: { current: number | null; peak: { value: number; at: string } | null; low: { value: number; at: string } | null; avg: number | null }
  coverage: number
}

/** /divers/history?range= at time `to`, from raw rows only. */
export async function diversFromRaw(sql: Sql, range: string, to: Date): Promise<DiverAnswer> {
  const series = (s: Source) => sql`game_name = 'Game 2' AND source = ${DB_SOURCE[s]}`
  let source: Source | undefined
  let windowStart: Date
  if (range === 'all') {
    const [f] = await sql<{ api: Date | null; pc: Date | null }[]>`
      SELECT (SELECT min(captured_at) FROM player_count_snapshots WHERE ${series('api')}) AS api,
             (SELECT min(captured_at) FROM player_count_snapshots WHERE ${series('pcstore')}) AS pc`
    const api = f?.api ?? null
    const pc = f?.pc ?? null
    source = api && (!pc || api <= pc) ? 'api' : pc ? 'pcstore' : 'api'
    windowStart = (source === 'api' ? api : pc) ?? to
  } else windowStart = new Date(to.getTime() - RANGE_S[range]! * 1000)
  const width = bucketWidth(Math.max(0, (to.getTime() - windowStart.getTime()) / 1000))
  const [b] = await sql<{ from: Date }[]>`SELECT time_bucket(make_interval(secs => ${width}), ${windowStart}::timestamptz) AS from`
  const from = b!.from
  if (!source) {
    // Short ranges: api whenever it has a row in the window; long ranges: when it covers the first bucket.
    const short = range === '24h' || range === '7d'
    const [c] = await sql<{ api: boolean; pc: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM player_count_snapshots WHERE ${series('api')}
                     AND ${short ? sql`captured_at >= ${from} AND captured_at <= ${to}` : sql`captured_at <= ${new Date(from.getTime() + width * 1000)}`}) AS api,
             EXISTS (SELECT 1 FROM player_count_snapshots WHERE ${series('pcstore')} AND captured_at >= ${from} AND captured_at <= ${to}) AS pc`
    source = c!.api ? 'api' : c!.pc ? 'pcstore' : 'api'
  }
  const v = sql.unsafe(value(source))
  const [points, stats, current] = await Promise.all([
    sql<{ t: Date; v: number }[]>`
      SELECT time_bucket(make_interval(secs => ${width}), captured_at) AS t, round(avg(${v}))::int AS v
      FROM player_count_snapshots
      WHERE ${series(source)} AND captured_at >= ${from} AND captured_at <= ${to}
      GROUP BY 1 ORDER BY 1`,
    sql<{ mx: number | null; mn: number | null; av: number | null; mx_at: Date | null; mn_at: Date | null }[]>`
      WITH w AS (
        SELECT captured_at, ${v} AS v FROM player_count_snapshots
        WHERE ${series(source)} AND captured_at >= ${from} AND captured_at <= ${to}),
      a AS (SELECT max(v) AS mx, min(v) AS mn, round(avg(v))::int AS av FROM w)
      SELECT a.mx, a.mn, a.av,
             (SELECT min(captured_at) FROM w WHERE v = a.mx) AS mx_at,
             (SELECT min(captured_at) FROM w WHERE v = a.mn) AS mn_at
      FROM a`,
    sql<{ v: number }[]>`SELECT ${v} AS v FROM player_count_snapshots WHERE ${series(source)} ORDER BY captured_at DESC LIMIT 1`,
  ])
  const [firstRow] = await sql<{ at: Date | null }[]>`SELECT min(captured_at) AS at FROM player_count_snapshots WHERE ${series(source)}`
  const coverage = coverageFrom(firstRow?.at ?? null, from, to)
  const s = stats[0]!
  return {
    range,
    source,
    bucketSeconds: width,
    from: from.toISOString(),
    to: to.toISOString(),
    points: points.map((p) => ({ t: p.t.toISOString(), v: p.v })),
    stats: {
      current: current[0]?.v ?? null,
      peak: s.mx === null || !s.mx_at ? null : { value: s.mx, at: s.mx_at.toISOString() },
      low: s.mn === null || !s.mn_at ? null : { value: s.mn, at: s.mn_at.toISOString() },
      avg: s.av,
    },
    coverage,
  }
}

// ------------------------------------------------------------------ /planet/:id/history

const HOUR_MS = 3_600_000

export interface PlanetAnswer {
  warId: number
  planetIndex: number
  maxHealth: number
  from: string
  to: string
  since: string | null
  coverage: number
  points: { t: string; libPct: number; players: number; owner: number; health: number; regenPerSecond: number }[]
}

const lib = (owner: number, health: number, max: number) => {
  if (max <= 0) return 0
  const pct = owner === 1 ? (health / max) * 100 : ((max - health) / max) * 100
  return Math.round(pct * 10_000) / 10_000
}

/** /planet/:id/history?hours= at time `to`, from raw rows only (every tick up to 48 h, hourly buckets beyond). */
export async function planetFromRaw(sql: Sql, warId: number, planetIndex: number, hours: number, to: Date): Promise<PlanetAnswer> {
  const [p] = await sql<{ max_health: number; since: Date | null }[]>`
    SELECT max_health,
           (SELECT min(captured_at) FROM planet_status_snapshots WHERE war_id = ${warId} AND planet_index = ${planetIndex}) AS since
    FROM planets WHERE war_id = ${warId} AND planet_index = ${planetIndex}`
  const maxHealth = p!.max_health
  let from = new Date(to.getTime() - hours * HOUR_MS)
  let rows: { t: Date; owner: number; health: number; regen: number; players: number }[]
  if (hours <= 48) {
    rows = await sql`
      SELECT captured_at AS t, owner, health, regen_per_second AS regen, players
      FROM planet_status_snapshots
      WHERE war_id = ${warId} AND planet_index = ${planetIndex} AND captured_at >= ${from} AND captured_at <= ${to}
      ORDER BY captured_at`
  } else {
    from = new Date(Math.floor(from.getTime() / HOUR_MS) * HOUR_MS)
    rows = await sql`
      SELECT time_bucket(interval '1 hour', captured_at) AS t,
             (array_agg(owner ORDER BY captured_at DESC))[1] AS owner,
             (array_agg(health ORDER BY captured_at DESC))[1] AS health,
             (array_agg(regen_per_second ORDER BY captured_at DESC))[1] AS regen,
             round(avg(players))::int AS players
      FROM planet_status_snapshots
      WHERE war_id = ${warId} AND planet_index = ${planetIndex} AND captured_at >= ${from} AND captured_at <= ${to}
      GROUP BY 1 ORDER BY 1`
  }
  return {
    warId,
    planetIndex,
    maxHealth,
    from: from.toISOString(),
    to: to.toISOString(),
    since: p!.since?.toISOString() ?? null,
    coverage: coverageFrom(p!.since, from, to),
    points: rows.map((r) => ({
      t: r.t.toISOString(),
      libPct: lib(r.owner, r.health, maxHealth),
      players: r.players,
      owner: r.owner,
      health: r.health,
      regenPerSecond: r.regen,
    })),
  }
}

/**
 * A kept historical page's series: one planet's status over the default window ending at
 * the moment of the request, or the player counts of a fixed window (end exclusive).
 */
export type PageSeries =
  | { table: 'planet_status_snapshots'; warId: number; planetIndex: number; spanMs: number }
  | { table: 'player_count_snapshots'; from: Date; toExclusive: Date }

/** What a page is checked on: its total and the capture times of its rows, newest first (rows are never updated). */
export interface PageAnswer {
  totalResults: number
  timestamps: string[]
}

/** The first page of `limit` rows of the series, from the raw rows as stored at `at`: count(*) and ORDER BY ... LIMIT. */
export async function pageFromRaw(sql: Sql, s: PageSeries, at: Date, limit: number): Promise<PageAnswer> {
  const where =
    s.table === 'planet_status_snapshots'
      ? sql`war_id = ${s.warId} AND planet_index = ${s.planetIndex} AND captured_at >= ${new Date(at.getTime() - s.spanMs)} AND captured_at <= ${at}`
      : sql`captured_at >= ${s.from} AND captured_at < ${s.toExclusive}`
  const [[count], rows] = await Promise.all([
    sql<{ n: string }[]>`SELECT count(*) AS n FROM ${sql(s.table)} WHERE ${where}`,
    sql<{ t: Date }[]>`SELECT captured_at AS t FROM ${sql(s.table)} WHERE ${where} ORDER BY captured_at DESC LIMIT ${limit}`,
  ])
  return { totalResults: Number(count!.n), timestamps: rows.map((r) => r.t.toISOString()) }
}

/** First difference between two JSON values, as a path and both sides; null when equal. */
export function firstDifference(a: unknown, b: unknown, path = '$'): string | null {
  if (a === b) return null
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') {
    return `${path}: service ${JSON.stringify(a)} vs raw ${JSON.stringify(b)}`
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `${path}: array vs non-array`
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) {
      const extra = a.length > b.length ? `service extra ${JSON.stringify(a[b.length])}` : `raw extra ${JSON.stringify(b[a.length])}`
      for (let i = 0; i < Math.min(a.length, b.length); i++) {
        const d = firstDifference(a[i], b[i], `${path}[${i}]`)
        if (d) return `${path}: length ${a.length} vs ${b.length}; first difference ${d}`
      }
      return `${path}: length ${a.length} vs ${b.length} (${extra})`
    }
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`)
      if (d) return d
    }
    return null
  }
  const ao = a as Record<string, unknown>
  const bo = b as Record<string, unknown>
  for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)])) {
    const d = firstDifference(ao[k], bo[k], `${path}.${k}`)
    if (d) return d
  }
  return null
}
