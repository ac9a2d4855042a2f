/**
 * Read latency through the app, in process: `buildApp(deps).handle(new Request(...))`,
 * one request at a time, each case repeated after a warm-up. History routes are also
 * answered from raw rows (bench/baseline.ts): the answers must be equal (the run fails
 * loudly otherwise) and the ratio of the two latencies is what the rollups buy. Paged
 * answers carry totals that must equal a direct count(*) over the same filters.
 */
import { buildApp, type AppDeps } from '../src/app.ts'
import type { Sql } from '../src/db/connect.ts'
import { DataVersions } from '../src/storage/changes.ts'
import { diversFromRaw, firstDifference, planetFromRaw } from './baseline.ts'
import { WAR_ID } from './setup.ts'
import { repeat, type Timing } from './stats.ts'

export interface LatencyCase {
  group: 'divers' | 'planet' | 'historical' | 'search' | 'derived'
  name: string
  path: string
  /**
   * Which target applies: 'divers' (issue 13: p50 <= 1 ms), 'page' (a page of a
   * historical-* route over its whole history: p50 <= 20 ms, exact totals), 'derived'
   * (issue 14: a route of the derived war view, p50 <= 20 ms).
   */
  target?: 'divers' | 'page' | 'derived'
  /** The paged route (historical-player-count, ...): the plans attach the slowest page of each. */
  route?: string
  timing?: Timing
  status?: number
  bytes?: number
  /** Raw-rows baseline of a history route. */
  baseline?: { timing: Timing; equal: boolean; points: number }
  /** Result rows: points of a history, items/totalResults of a page. */
  detail?: string
  /** A paged answer's totals against a direct count(*) over the same filters (checked equal). */
  totals?: { totalResults: number; totalPages: number; counted: number; limit: number }
}

export interface MeasureOptions {
  reps: number
  warmup: number
  /** Time budget (ms) of one raw baseline case: slow baselines stop after 5 runs past it. */
  baselineBudgetMs: number
  progress: (line: string) => void
}

export class ResultMismatch extends Error {
  override name = 'ResultMismatch'
}

/** Everything the cases need to know about the generated data. */
export interface DataFacts {
  now: Date
  /** The planet whose history is read. */
  planetIndex: number
  planetName: string
  /** Order with the most progress rows. */
  orderId32: number
  progressRows: number
  playerRows24h: number
  /** Oldest history row: the start of the "all history" windows. */
  firstAt: Date
  summaryFirstAt: Date
  planetFirstAt: Date
}

export async function dataFacts(sql: Sql, now: Date): Promise<DataFacts> {
  // The busiest planet over the last 30 days (a campaign planet: its curve moves).
  const [planet] = await sql<{ planet_index: number; name: string }[]>`
    SELECT s.planet_index, p.name FROM planet_status_snapshots s JOIN planets p USING (war_id, planet_index)
    WHERE s.war_id = ${WAR_ID} AND s.captured_at > ${now}::timestamptz - interval '30 days'
    GROUP BY 1, 2 ORDER BY sum(s.players) DESC, 1 LIMIT 1`
  const [order] = await sql<{ order_id32: number; n: number }[]>`
    SELECT order_id32, count(*)::int AS n FROM major_order_progress GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`
  const [bounds] = await sql<{ first: Date; summary: Date; planet: Date; n24: number }[]>`
    SELECT (SELECT min(captured_at) FROM player_count_snapshots) AS first,
           (SELECT min(captured_at) FROM war_summary_snapshots) AS summary,
           (SELECT min(captured_at) FROM planet_status_snapshots) AS planet,
           (SELECT count(*)::int FROM player_count_snapshots WHERE captured_at >= ${now}::timestamptz - interval '24 hours') AS n24`
  return {
    now,
    planetIndex: planet?.planet_index ?? 0,
    planetName: planet?.name ?? 'Super Earth',
    orderId32: order?.order_id32 ?? 0,
    progressRows: order?.n ?? 0,
    playerRows24h: bounds!.n24,
    firstAt: bounds!.first,
    summaryFirstAt: bounds!.summary,
    planetFirstAt: bounds!.planet,
  }
}

const q = (params: Record<string, string | number>) => new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()

/** A paged route's window: its base path, its default page size, and the direct count of the rows it pages through. */
export interface PagedBase {
  base: LatencyCase
  limit: number
  /** count(*) over the same filters, written from the spec (not from src/storage); null where the window is the route's moving default. */
  count: ((sql: Sql) => Promise<number>) | null
}

/**
 * The cases. Paged routes: the first, a middle and the last page (found with a first
 * request) of a realistic window and of the whole history of every historical-* route.
 */
export function latencyCases(f: DataFacts): { cases: LatencyCase[]; paged: PagedBase[] } {
  const cases: LatencyCase[] = []
  for (const range of ['24h', '7d', '30d', '90d', 'all']) {
    cases.push({ group: 'divers', name: `divers/history range=${range}`, path: `/api/v1/divers/history?range=${range}`, target: 'divers' })
  }
  for (const hours of [24, 168, 720]) {
    cases.push({ group: 'planet', name: `planet/${f.planetIndex}/history hours=${hours}`, path: `/api/v1/planet/${f.planetIndex}/history?hours=${hours}` })
  }
  const iso = (d: Date) => d.toISOString()
  const day = 86_400_000
  const from24 = new Date(f.now.getTime() - day)
  const paged: PagedBase[] = []
  const page = (route: string, name: string, path: string, limit: number, whole: boolean, count: PagedBase['count']) => {
    paged.push({ base: { group: 'historical', route, name, path, target: whole ? 'page' : undefined }, limit, count })
  }
  const n = async (rows: Promise<{ n: number }[]>) => Number((await rows)[0]!.n)
  page(
    'historical-player-count', 'historical-player-count (last 24 h)',
    `/api/v1/historical-player-count?${q({ startDate: iso(from24), endDate: iso(f.now) })}`, 50, false,
    (sql) => n(sql`SELECT count(*)::bigint AS n FROM player_count_snapshots WHERE captured_at >= ${from24} AND captured_at <= ${f.now}`),
  )
  page(
    'historical-player-count', 'historical-player-count (whole history)',
    `/api/v1/historical-player-count?${q({ startDate: iso(f.firstAt), endDate: iso(f.now) })}`, 50, true,
    (sql) => n(sql`SELECT count(*)::bigint AS n FROM player_count_snapshots WHERE captured_at >= ${f.firstAt} AND captured_at <= ${f.now}`),
  )
  page('historical-planet-status', 'historical-planet-status (default 24 h)', `/api/v1/historical-planet-status?${q({ planetId: f.planetIndex })}`, 100, false, null)
  page(
    'historical-planet-status', 'historical-planet-status (whole history)',
    `/api/v1/historical-planet-status?${q({ planetId: f.planetIndex, startDate: iso(f.planetFirstAt), endDate: iso(f.now) })}`, 100, true,
    (sql) => n(sql`
      SELECT count(*)::bigint AS n FROM planet_status_snapshots
      WHERE war_id = ${WAR_ID} AND planet_index = ${f.planetIndex} AND captured_at >= ${f.planetFirstAt} AND captured_at <= ${f.now}`),
  )
  page('historical-war-summary', 'historical-war-summary (default 7 d)', `/api/v1/historical-war-summary`, 100, false, null)
  page(
    'historical-war-summary', 'historical-war-summary (whole history)',
    `/api/v1/historical-war-summary?${q({ startDate: iso(f.summaryFirstAt), endDate: iso(f.now) })}`, 100, true,
    (sql) => n(sql`
      SELECT count(*)::bigint AS n FROM war_summary_snapshots WHERE war_id = ${WAR_ID} AND captured_at >= ${f.summaryFirstAt} AND captured_at <= ${f.now}`),
  )
  // No window: these three page through everything they have.
  page('historical-major-orders', 'historical-major-orders (every war)', `/api/v1/historical-major-orders`, 50, true, (sql) => n(sql`SELECT count(*)::bigint AS n FROM major_orders`))
  page(
    'historical-major-orders/:id/progress', `historical-major-orders/:id/progress (order with ${f.progressRows} rows)`,
    `/api/v1/historical-major-orders/${f.orderId32}/progress`, 200, true,
    (sql) => n(sql`SELECT count(*)::bigint AS n FROM major_order_progress WHERE order_id32 = ${f.orderId32}`),
  )
  page(
    'historical-dispatches', 'historical-dispatches', `/api/v1/historical-dispatches`, 50, true,
    (sql) => n(sql`SELECT count(*)::bigint AS n FROM dispatches WHERE war_id = ${WAR_ID}`),
  )
  cases.push({ group: 'search', name: 'historical-dispatches q=liberated', path: `/api/v1/historical-dispatches?${q({ q: 'liberated' })}` })
  cases.push({ group: 'search', name: `historical-dispatches q=${f.planetName}`, path: `/api/v1/historical-dispatches?${q({ q: f.planetName })}` })
  // The derived war view (issue 14).
  for (const [name, path] of [
    ['major-orders', '/api/v1/major-orders'],
    ['planets/liberation (campaign planets)', '/api/v1/planets/liberation'],
    [`planets/liberation planetId=${f.planetIndex} window=24`, `/api/v1/planets/liberation?${q({ planetId: f.planetIndex, window: 24 })}`],
    ['war/trends', '/api/v1/war/trends'],
    ['timeline page 1', '/api/v1/timeline'],
    ['timeline planet events, last 30 days', `/api/v1/timeline?${q({ type: 'planet_liberated,planet_lost,planet_owner_changed', from: iso(new Date(f.now.getTime() - 30 * day)) })}`],
  ] as const) cases.push({ group: 'derived', name, path, target: 'derived' })
  return { cases, paged }
}

export async function measureLatency(deps: AppDeps, f: DataFacts, o: MeasureOptions): Promise<LatencyCase[]> {
  const versions = deps.versions ?? new DataVersions()
  const app = buildApp({ ...deps, versions })
  const get = async (path: string) => {
    const res = await app.handle(new Request(`http://localhost${path}`))
    const text = await res.text()
    return { status: res.status, text }
  }
  const json = async (path: string) => {
    const r = await get(path)
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text.slice(0, 300)}`)
    return JSON.parse(r.text) as Record<string, unknown>
  }

  const { cases, paged } = latencyCases(f)
  // Paged routes: ask page 1 to learn the page count, then add the middle and the last page.
  const counts = new Map<LatencyCase, { limit: number; counted: number | null }>()
  for (const { base, limit, count } of paged) {
    const first = await json(base.path)
    const pages = Number(first.totalPages)
    const sep = base.path.includes('?') ? '&' : '?'
    const counted = count ? await count(deps.db.sql) : null
    const middle = Math.ceil(pages / 2)
    const numbers = [1, ...(pages >= 3 ? [middle] : []), ...(pages >= 2 ? [pages] : [])]
    for (const p of numbers) {
      const c: LatencyCase = { ...base, name: `${base.name} page ${p}/${pages}`, path: p === 1 ? base.path : `${base.path}${sep}page=${p}` }
      counts.set(c, { limit, counted })
      cases.push(c)
    }
  }

  for (const [i, c] of cases.entries()) {
    let last = { status: 0, text: '' }
    // Pages (and searches) with fixed filters are kept per data version: moving the
    // versions before each request times the page's computation, not the kept answer
    // (which the throughput table measures).
    const computeEach = c.group === 'historical' || c.group === 'search'
    c.timing = await repeat(
      async () => {
        if (computeEach) versions.bumpAll()
        return (last = await get(c.path))
      },
      { warmup: o.warmup, reps: o.reps },
    )
    c.status = last.status
    c.bytes = Buffer.byteLength(last.text)
    if (last.status !== 200) throw new Error(`GET ${c.path} answered ${last.status}: ${last.text.slice(0, 300)}`)
    const body = JSON.parse(last.text) as Record<string, unknown>
    if (Array.isArray(body.points)) c.detail = `${body.points.length} points`
    else if (Array.isArray(body.items)) c.detail = `${body.items.length} of ${body.totalResults} rows`

    // Exact totals: totalResults is the direct count(*), totalPages = ceil(count / limit).
    const expected = counts.get(c)
    if (expected && expected.counted !== null) {
      const totals = { totalResults: Number(body.totalResults), totalPages: Number(body.totalPages), counted: expected.counted, limit: Number(body.limit) }
      const pages = Math.ceil(totals.counted / expected.limit)
      if (totals.totalResults !== totals.counted || totals.totalPages !== pages || totals.limit !== expected.limit) {
        throw new ResultMismatch(
          `${c.name}: totalResults ${totals.totalResults}, totalPages ${totals.totalPages}, limit ${totals.limit}; ` +
            `a direct count(*) over the same filters gives ${totals.counted} rows, ${pages} pages of ${expected.limit}`,
        )
      }
      c.totals = totals
    }

    // Raw baseline of the history routes, and the equality check.
    if (c.group === 'divers' || c.group === 'planet') {
      const check = async () => {
        const svc = await json(c.path)
        const to = new Date(String(svc.to))
        const raw =
          c.group === 'divers'
            ? await diversFromRaw(deps.db.sql, new URL(c.path, 'http://x').searchParams.get('range')!, to)
            : await planetFromRaw(deps.db.sql, WAR_ID, f.planetIndex, Number(new URL(c.path, 'http://x').searchParams.get('hours')), to)
        const diff = firstDifference(svc, raw)
        if (diff) throw new ResultMismatch(`${c.name}: the service's answer differs from the raw-rows answer: ${diff}`)
        return raw.points.length
      }
      const points = await check()
      const range = new URL(c.path, 'http://x').searchParams
      const to = () => new Date()
      const timing = await repeat(
        () =>
          c.group === 'divers'
            ? diversFromRaw(deps.db.sql, range.get('range')!, to())
            : planetFromRaw(deps.db.sql, WAR_ID, f.planetIndex, Number(range.get('hours')), to()),
        { warmup: 1, reps: o.reps, budgetMs: o.baselineBudgetMs, minReps: 5 },
      )
      c.baseline = { timing, equal: true, points }
    }
    o.progress(
      `latency ${i + 1}/${cases.length} ${c.name}: p50 ${c.timing.p50.toFixed(2)} ms, p95 ${c.timing.p95.toFixed(2)} ms` +
        (c.baseline ? `; raw p50 ${c.baseline.timing.p50.toFixed(1)} ms (n=${c.baseline.timing.n}), equal` : ''),
    )
  }
  return cases
}
