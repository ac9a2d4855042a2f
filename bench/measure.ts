/**
 * Read latency through the app, in process: `buildApp(deps).handle(new Request(...))`,
 * one request at a time, each case repeated after a warm-up. History routes are also
 * answered from raw rows (bench/baseline.ts): the answers must be equal (the run fails
 * loudly otherwise) and the ratio of the two latencies is what the rollups buy.
 */
import { buildApp, type AppDeps } from '../src/app.ts'
import type { Sql } from '../src/db/connect.ts'
import { diversFromRaw, firstDifference, planetFromRaw } from './baseline.ts'
import { WAR_ID } from './setup.ts'
import { repeat, type Timing } from './stats.ts'

export interface LatencyCase {
  group: 'divers' | 'planet' | 'historical' | 'search'
  name: string
  path: string
  /** Which target applies: 'divers' (p50 <= 10 ms, >= 50x raw), 'planet720' (<= 20 ms), 'first' (<= 5 ms). */
  target?: 'divers' | 'planet720' | 'first'
  timing?: Timing
  status?: number
  bytes?: number
  /** Raw-rows baseline of a history route. */
  baseline?: { timing: Timing; equal: boolean; points: number }
  /** Result rows: points of a history, items/totalResults of a page. */
  detail?: string
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

/**
 * The cases. Paged routes: the first page, page 50 where it exists, and the last page
 * (found with a first request) of a realistic window, plus a whole-history window for the
 * big series.
 */
export function latencyCases(f: DataFacts): { cases: LatencyCase[]; paged: { base: LatencyCase; limit: number }[] } {
  const cases: LatencyCase[] = []
  for (const range of ['24h', '7d', '30d', '90d', 'all']) {
    cases.push({ group: 'divers', name: `divers/history range=${range}`, path: `/api/v1/divers/history?range=${range}`, target: 'divers' })
  }
  for (const hours of [24, 168, 720]) {
    cases.push({
      group: 'planet',
      name: `planet/${f.planetIndex}/history hours=${hours}`,
      path: `/api/v1/planet/${f.planetIndex}/history?hours=${hours}`,
      target: hours === 720 ? 'planet720' : undefined,
    })
  }
  const iso = (d: Date) => d.toISOString()
  const day = 86_400_000
  const from24 = new Date(f.now.getTime() - day)
  const paged: { base: LatencyCase; limit: number }[] = [] // limit: the route's default page size
  const page = (name: string, path: string, limit: number, first = true) => {
    const base: LatencyCase = { group: 'historical', name, path, target: first ? 'first' : undefined }
    paged.push({ base, limit })
  }
  page('historical-player-count (last 24 h)', `/api/v1/historical-player-count?${q({ startDate: iso(from24), endDate: iso(f.now) })}`, 50)
  page(
    'historical-player-count (all history)',
    `/api/v1/historical-player-count?${q({ startDate: iso(f.firstAt), endDate: iso(f.now) })}`,
    50,
    false,
  )
  page('historical-planet-status (default 24 h)', `/api/v1/historical-planet-status?${q({ planetId: f.planetIndex })}`, 100)
  page(
    'historical-planet-status (all history)',
    `/api/v1/historical-planet-status?${q({ planetId: f.planetIndex, startDate: iso(f.planetFirstAt), endDate: iso(f.now) })}`,
    100,
    false,
  )
  page('historical-war-summary (default 7 d)', `/api/v1/historical-war-summary`, 100)
  page(
    'historical-war-summary (all history)',
    `/api/v1/historical-war-summary?${q({ startDate: iso(f.summaryFirstAt), endDate: iso(f.now) })}`,
    100,
    false,
  )
  page('historical-major-orders', `/api/v1/historical-major-orders`, 50)
  page(`historical-major-orders/:id/progress (${f.progressRows} rows)`, `/api/v1/historical-major-orders/${f.orderId32}/progress`, 200)
  page('historical-dispatches', `/api/v1/historical-dispatches`, 50)
  cases.push({ group: 'search', name: 'historical-dispatches q=liberated', path: `/api/v1/historical-dispatches?${q({ q: 'liberated' })}` })
  cases.push({ group: 'search', name: `historical-dispatches q=${f.planetName}`, path: `/api/v1/historical-dispatches?${q({ q: f.planetName })}` })
  return { cases, paged }
}

export async function measureLatency(deps: AppDeps, f: DataFacts, o: MeasureOptions): Promise<LatencyCase[]> {
  const app = buildApp(deps)
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
  // Paged routes: ask page 1 to learn the page count, then add page 50 and the last page.
  for (const { base } of paged) {
    const first = await json(base.path)
    const pages = Number(first.totalPages)
    const sep = base.path.includes('?') ? '&' : '?'
    cases.push({ ...base, name: `${base.name} page 1/${pages}`, path: base.path })
    if (pages > 50) cases.push({ ...base, target: undefined, name: `${base.name} page 50/${pages}`, path: `${base.path}${sep}page=50` })
    if (pages > 1) cases.push({ ...base, target: undefined, name: `${base.name} page ${pages}/${pages}`, path: `${base.path}${sep}page=${pages}` })
  }

  for (const [i, c] of cases.entries()) {
    let last = { status: 0, text: '' }
    c.timing = await repeat(async () => (last = await get(c.path)), { warmup: o.warmup, reps: o.reps })
    c.status = last.status
    c.bytes = Buffer.byteLength(last.text)
    if (last.status !== 200) throw new Error(`GET ${c.path} answered ${last.status}: ${last.text.slice(0, 300)}`)
    const body = JSON.parse(last.text) as Record<string, unknown>
    if (Array.isArray(body.points)) c.detail = `${body.points.length} points`
    else if (Array.isArray(body.items)) c.detail = `${body.items.length} of ${body.totalResults} rows`

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
