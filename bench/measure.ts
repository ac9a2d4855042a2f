/**
 * Read latency through the app, in process: `buildApp(deps).handle(new Request(...))`,
 * one request at a time. Every case (every GET route under /api/v1) is timed twice:
 * - computed: `versions.bumpAll()` before each request, outside the timed interval, so no
 *   answer the service keeps for a data version can serve it (what a request pays after
 *   a data change);
 * - kept: the same request repeated with the versions unchanged.
 * Each request's database use is counted (a counting wrapper around the pool), so the
 * report shows that a computed answer did query and a kept one did not. History routes
 * are also answered from raw rows (bench/baseline.ts): the answers, computed and kept,
 * must be equal (the run fails loudly otherwise), and the raw latency is compared with the
 * computed one (what the rollups buy) and, beside it, with the kept one. Paged answers
 * carry totals that must equal a direct count(*) over the same filters.
 */
import { buildApp, type AppDeps } from '../src/app.ts'
import type { Sql } from '../src/db/connect.ts'
import { DataVersions } from '../src/storage/changes.ts'
import { diversFromRaw, firstDifference, planetFromRaw } from './baseline.ts'
import { WAR_ID } from './setup.ts'
import { repeat, type Timing } from './stats.ts'

/** One way of answering a request, timed. */
export interface ModeTiming {
  timing: Timing
  /** Timed requests (of timing.n) that queried the database. */
  queried: number
}

export interface LatencyCase {
  /** 'current': the live, war-state and lookup routes and /health/throttle. */
  group: 'divers' | 'planet' | 'historical' | 'search' | 'derived' | 'current' | 'surfaces'
  name: string
  path: string
  /**
   * Which target applies: 'divers' (kept p50 <= 1 ms; computed p50 <= 10 ms), 'planet'
   * (computed p50 <= 10 ms), 'page' (a page of a historical-* route over its whole
   * history: computed p50 <= 20 ms, exact totals), 'derived' (a route of the derived war
   * view, p50 <= 20 ms; /campaigns and /major-orders computed p50 <= 5 ms).
   */
  target?: 'divers' | 'planet' | 'page' | 'derived'
  /** The paged route (historical-player-count, ...): the plans attach the slowest page of each. */
  route?: string
  /** No kept answer could serve it: the data versions were moved before each request. */
  computed?: ModeTiming
  /** The same request repeated with the data versions unchanged. */
  kept?: ModeTiming
  status?: number
  bytes?: number
  /** Raw-rows baseline of a history route; `equal`: the computed and the kept answer both equal the raw one. */
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
  /**
   * Connections of the pool the app reads through: a computed case first warms each of them
   * (CONNECTION_WARMUP requests per connection), as a running service's are.
   */
  connections: number
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
  /** The campaign listed longest among the latest tick's (its history is read). */
  campaignId: number
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
    SELECT h.planet_index, p.name FROM planet_status_hours h JOIN planets p USING (war_id, planet_index)
    WHERE h.war_id = ${WAR_ID} AND h.bucket > ${now}::timestamptz - interval '30 days'
    GROUP BY 1, 2 ORDER BY sum(h.players_sum) DESC, 1 LIMIT 1`
  const [campaign] = await sql<{ campaign_id: number }[]>`
    SELECT campaign_id FROM campaign_spans WHERE war_id = ${WAR_ID} ORDER BY last_seen_at DESC, first_seen_at, campaign_id LIMIT 1`
  const [order] = await sql<{ order_id32: number; n: number }[]>`
    SELECT order_id32, count(*)::int AS n FROM major_order_progress GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`
  const [bounds] = await sql<{ first: Date; summary: Date; planet: Date; n24: number }[]>`
    SELECT (SELECT min(captured_at) FROM player_count_snapshots) AS first,
           (SELECT min(captured_at) FROM war_summary_snapshots) AS summary,
           (SELECT min(captured_at) FROM planet_status_changes) AS planet,
           (SELECT count(*)::int FROM player_count_snapshots WHERE captured_at >= ${now}::timestamptz - interval '24 hours') AS n24`
  return {
    now,
    planetIndex: planet?.planet_index ?? 0,
    planetName: planet?.name ?? 'Super Earth',
    campaignId: campaign?.campaign_id ?? 0,
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
    cases.push({ group: 'planet', name: `planet/${f.planetIndex}/history hours=${hours}`, path: `/api/v1/planet/${f.planetIndex}/history?hours=${hours}`, target: 'planet' })
  }
  // The live, war-state and lookup routes, and the throttle state.
  for (const [name, path] of [
    ['player-count', '/api/v1/player-count'],
    ['war-stats', '/api/v1/war-stats'],
    ['war', '/api/v1/war'],
    [`war/${WAR_ID}`, `/api/v1/war/${WAR_ID}`],
    [`war/${WAR_ID} planetId=${f.planetIndex}`, `/api/v1/war/${WAR_ID}?${q({ planetId: f.planetIndex })}`],
    ['planets', '/api/v1/planets'],
    ['sectors', '/api/v1/sectors'],
    ['factions', '/api/v1/factions'],
    ['health/throttle', '/api/v1/health/throttle'],
  ] as const) cases.push({ group: 'current', name, path })
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
  // The derived war view.
  for (const [name, path] of [
    ['campaigns', '/api/v1/campaigns'],
    [`campaigns/${f.campaignId}/history`, `/api/v1/campaigns/${f.campaignId}/history`],
    ['major-orders', '/api/v1/major-orders'],
    ['planets/liberation (campaign planets)', '/api/v1/planets/liberation'],
    [`planets/liberation planetId=${f.planetIndex} window=24`, `/api/v1/planets/liberation?${q({ planetId: f.planetIndex, window: 24 })}`],
    ['war/trends', '/api/v1/war/trends'],
    ['timeline page 1', '/api/v1/timeline'],
    ['timeline planet events, last 30 days', `/api/v1/timeline?${q({ type: 'planet_liberated,planet_lost,planet_owner_changed', from: iso(new Date(f.now.getTime() - 30 * day)) })}`],
  ] as const) cases.push({ group: 'derived', name, path, target: 'derived' })
  // Issue 38's surfaces: the generated history has none yet, so these answer empty lists (their reads still run).
  for (const [name, path] of [
    ['regions (none generated)', '/api/v1/regions'],
    ['space-stations (none generated)', '/api/v1/space-stations'],
    ['global-resources (none generated)', '/api/v1/global-resources'],
    ['global-events (none generated)', '/api/v1/global-events'],
  ] as const) cases.push({ group: 'surfaces', name, path })
  return { cases, paged }
}

/**
 * `sql` that calls `onQuery` whenever a query is built on it (a tagged-template call,
 * fragments included, or unsafe/begin/reserve/file): a request during which it was never
 * called touched no database. Everything else passes through unchanged.
 */
export function countingSql(sql: Sql, onQuery: () => void): Sql {
  const counted = new Set(['unsafe', 'begin', 'reserve', 'file'])
  return new Proxy(sql, {
    apply(target, thisArg, args: unknown[]) {
      const first = args[0]
      if (Array.isArray(first) && 'raw' in first) onQuery()
      return Reflect.apply(target as unknown as (...a: unknown[]) => unknown, thisArg, args)
    },
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop, target)
      if (typeof prop === 'string' && counted.has(prop) && typeof v === 'function') {
        return (...a: unknown[]) => {
          onQuery()
          return (v as (...a: unknown[]) => unknown).apply(target, a)
        }
      }
      return v
    },
  })
}

/**
 * The GET routes under /api/v1 (as the app lists them, e.g. `/api/v1/war/:warId`) that no
 * case path requests: a `:param` matches one path segment, a `*` the rest.
 */
export function untimedRoutes(routes: readonly { method: string; path: string }[], paths: readonly string[]): string[] {
  const pathnames = paths.map((p) => new URL(p, 'http://x').pathname)
  return readRoutes(routes).filter((route) => {
    const pattern = new RegExp(
      `^${route
        .split('/')
        .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/')}$`,
    )
    return !pathnames.some((p) => pattern.test(p))
  })
}

/**
 * GET routes under /api/v1 that are not reads of the data: the event stream (an open
 * connection, measured by `npm run bench:stream`) and the webhook subscriptions (behind the
 * secret, no data).
 */
const NOT_READS = new Set(['/api/v1/events/stream', '/api/v1/webhooks', '/api/v1/webhooks/:id'])

/**
 * Read routes with no case until the generated history holds their data: a resource's
 * history answers 404 for a resource never stored (issue 38's surfaces are not generated yet).
 */
export const NOT_GENERATED = new Set(['/api/v1/global-resources/:id32/history'])

/** The app's GET routes under /api/v1 that read the data, each once, in the app's order. */
export const readRoutes = (routes: readonly { method: string; path: string }[]) =>
  [...new Set(routes.filter((r) => r.method === 'GET' && r.path.startsWith('/api/v1/') && !NOT_READS.has(r.path)).map((r) => r.path))]

/** Which read routes the app has, and which of them no case timed (empty when every one was). */
export interface RouteCoverage {
  routes: string[]
  untimed: string[]
}

export interface LatencyResult {
  cases: LatencyCase[]
  coverage: RouteCoverage
}

/**
 * Requests per pool connection before a computed case is timed. The pool takes its
 * connections in turn, and a statement's first runs on each connection cost more than a
 * running service pays after a write: its first is parsed, and PostgreSQL makes a plan for
 * the values at each of the first five before it may keep one. Those costs are the cold
 * start's (measured apart, bench/startup.ts).
 */
const CONNECTION_WARMUP = 6

export async function measureLatency(deps: AppDeps, f: DataFacts, o: MeasureOptions): Promise<LatencyResult> {
  const versions = deps.versions ?? new DataVersions()
  let queries = 0
  const app = buildApp({ ...deps, versions, db: { ...deps.db, sql: countingSql(deps.db.sql, () => queries++) } })
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
  const coverage = { routes: readRoutes(app.routes), untimed: untimedRoutes(app.routes, cases.map((c) => c.path)).filter((r) => !NOT_GENERATED.has(r)) }
  const { untimed } = coverage
  if (untimed.length) o.progress(`latency: no case for ${untimed.join(', ')}`)

  /** Warm-up then timed requests; `computed`: every version moved before each (untimed). */
  const time = async (path: string, computed: boolean) => {
    const touched: boolean[] = []
    let last = { status: 0, text: '' }
    const timing = await repeat(
      async () => {
        const before = queries
        last = await get(path)
        touched.push(queries > before)
      },
      { warmup: computed ? o.warmup + CONNECTION_WARMUP * o.connections : o.warmup, reps: o.reps, before: computed ? () => versions.bumpAll() : undefined },
    )
    if (last.status !== 200) throw new Error(`GET ${path} (${computed ? 'computed' : 'kept'}) answered ${last.status}: ${last.text.slice(0, 300)}`)
    return { mode: { timing, queried: touched.slice(-timing.n).filter(Boolean).length }, body: JSON.parse(last.text) as Record<string, unknown>, bytes: Buffer.byteLength(last.text) }
  }

  for (const [i, c] of cases.entries()) {
    const computed = await time(c.path, true)
    const kept = await time(c.path, false)
    c.computed = computed.mode
    c.kept = kept.mode
    c.status = 200
    c.bytes = kept.bytes
    const body = kept.body
    if (Array.isArray(body.points)) c.detail = `${body.points.length} points`
    else if (Array.isArray(body.items)) c.detail = body.totalResults === undefined ? `${body.items.length} items` : `${body.items.length} of ${body.totalResults} rows`

    // Exact totals, of the computed and of the kept answer: totalResults is the direct count(*), totalPages = ceil(count / limit).
    const expected = counts.get(c)
    if (expected && expected.counted !== null) {
      for (const [mode, b] of [['computed', computed.body], ['kept', kept.body]] as const) {
        const totals = { totalResults: Number(b.totalResults), totalPages: Number(b.totalPages), counted: expected.counted, limit: Number(b.limit) }
        const pages = Math.ceil(totals.counted / expected.limit)
        if (totals.totalResults !== totals.counted || totals.totalPages !== pages || totals.limit !== expected.limit) {
          throw new ResultMismatch(
            `${c.name} (${mode}): totalResults ${totals.totalResults}, totalPages ${totals.totalPages}, limit ${totals.limit}; ` +
              `a direct count(*) over the same filters gives ${totals.counted} rows, ${pages} pages of ${expected.limit}`,
          )
        }
        c.totals = totals
      }
    }

    // Raw baseline of the history routes, and the equality check of a computed and of a kept answer.
    if (c.group === 'divers' || c.group === 'planet') {
      const check = async (mode: 'computed' | 'kept') => {
        if (mode === 'computed') versions.bumpAll()
        const svc = await json(c.path)
        const to = new Date(String(svc.to))
        const raw =
          c.group === 'divers'
            ? await diversFromRaw(deps.db.sql, new URL(c.path, 'http://x').searchParams.get('range')!, to)
            : await planetFromRaw(deps.db.sql, WAR_ID, f.planetIndex, Number(new URL(c.path, 'http://x').searchParams.get('hours')), to)
        const diff = firstDifference(svc, raw)
        if (diff) throw new ResultMismatch(`${c.name}: the service's ${mode} answer differs from the raw-rows answer: ${diff}`)
        return raw.points.length
      }
      const points = await check('computed')
      await check('kept')
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
    const ct = c.computed.timing
    const kt = c.kept.timing
    o.progress(
      `latency ${i + 1}/${cases.length} ${c.name}: computed p50 ${ct.p50.toFixed(3)} ms, p95 ${ct.p95.toFixed(3)} ms (${c.computed.queried}/${ct.n} queried); ` +
        `kept p50 ${(kt.p50 * 1000).toFixed(1)} µs, p95 ${(kt.p95 * 1000).toFixed(1)} µs (${c.kept.queried}/${kt.n} queried)` +
        (c.baseline ? `; raw p50 ${c.baseline.timing.p50.toFixed(1)} ms (n=${c.baseline.timing.n}), equal` : ''),
    )
  }
  return { cases, coverage }
}
