/**
 * `bun run bench`: generate a realistic war history in a fresh database, measure every read
 * route in process, computed (data versions moved before each request) and kept (with
 * raw-rows baselines and exact page totals, checked), HTTP throughput of every
 * read route against a bare-server ceiling while answers under load are checked exact,
 * writes (full-status and player-count ticks), cold start, and the service's memory; print
 * the report and write it into BENCHMARKS.md: a section titled with the commit (+dirty when
 * the tree has uncommitted changes), machine, edition and data size, that lists the targets
 * it missed at its top. Progress goes to stderr, the report to stdout.
 * Exit code 3 when an answer differs from its raw computation or a page total from count(*).
 *
 *   bun run bench [-- options]
 *     --quick                  smoke preset (~2.5 minutes): 18 days of counts, 2 days of ticks, 2 s / 1 s load runs
 *     --years N                years of 15 s player counts (default 2.74: the war's 1,000 days)
 *     --planet-days N          days of 5-minute full-status ticks, the real captures tiled (default 1000)
 *     --summary-days N         days of war-summary ticks (default 1000)
 *     --orders N --dispatches N  over the whole span (default 411 and 3830: the densities of the
 *                              2-year default before, one order every 2.4 days, 3.8 dispatches a day)
 *     --only-generate          generate the default (or given) scale, print its rows, seconds and
 *                              sizes, and stop: no measurement, nothing written
 *     --db timescaledb|embedded  own TimescaleDB instance (default; scripts/testdb.sh, TESTDB_NAME=bench-<pid>)
 *                                or an in-memory PGlite
 *     --db-url URL             any PostgreSQL/TimescaleDB server: a scratch database is created there and dropped
 *     --keep-database          with --db-url: the scratch database is kept (its URL on stderr), to work on the generated history
 *     --reps N                 timed requests per latency case (default 30)
 *     --duration S             seconds per load run of the throughput targets' routes: diver history,
 *                              planet history, /player-count, /war, /planets (default 15)
 *     --slices N               the target routes' load on each side is split into N alternating
 *                              runs of duration / N seconds; their ratio is the median pair's (default 3)
 *     --other-duration S       seconds per load run of the other read routes (default 5)
 *     --threads N --connections N   wrk's (default 2 and 32); wrk is installed with apt-get when missing and possible
 *     --ticks N                timed ticks of each collector, full-status and player-count (default 25)
 *     --import-captures N      captures of each generated import source, a git archive and an NDJSON
 *                              file (bench/import.ts; default 3000, quick 300; 0: no import case)
 *     --idle-wait S            seconds the idle service on the embedded database waits before its RSS is read (default 20)
 *     --out FILE               report file (default BENCHMARKS.md); --no-write to only print
 *   Every option also reads BENCH_<NAME> from the environment (BENCH_YEARS=1, BENCH_DB_URL=...).
 */
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { cleanUpOnSignals, printUsageAndExit, progressSince, scriptArgs } from './cli.ts'
import type { Subprocess } from 'bun'
import { COLLECTORS } from '../src/collect/index.ts'
import { CollectorRunner } from '../src/collect/runner.ts'
import { createStore } from '../src/storage/index.ts'
import { refreshRollups } from '../src/storage/rollups.ts'
import { silentLogger } from '../src/log.ts'
import { explainRequest, type Explained } from './explain.ts'
import { analyze, generate, type Scale } from './generate.ts'
import type { CheckSpec } from './check.ts'
import { measureImport, type ImportResult } from './import.ts'
import { measureIngest } from './ingest.ts'
import { measureThroughput, stopProcess, type LoadRoute, type ServiceSpec } from './load.ts'
import { measureColdStarts, measureIdleRss } from './startup.ts'
import { ensureWrk } from './wrk.ts'
import { dataFacts, measureLatency, ResultMismatch, type DataFacts, type LatencyCase } from './measure.ts'
import { dataMarkdown, renderMarkdown, writeSection, type RunResult } from './report.ts'
import { checkTotals, COMPUTED_HISTORY_P50_MS, evaluateTargets, IMPORT_BOUND } from './targets.ts'
import { commitOf, machine, sameCheckout } from './checkout.ts'
import { appDeps, openBenchDatabase, ROOT, simulatedFeeds, WAR_ID, type BenchDatabase, type DbKind } from './setup.ts'

const started = performance.now()
const progress = progressSince(started)

// ------------------------------------------------------------------ options

const args = scriptArgs()
const { values: argv } = parseArgs({
  args,
  options: {
    quick: { type: 'boolean' },
    years: { type: 'string' },
    'planet-days': { type: 'string' },
    'summary-days': { type: 'string' },
    orders: { type: 'string' },
    dispatches: { type: 'string' },
    db: { type: 'string' },
    'db-url': { type: 'string' },
    reps: { type: 'string' },
    duration: { type: 'string' },
    'other-duration': { type: 'string' },
    slices: { type: 'string' },
    'idle-wait': { type: 'string' },
    threads: { type: 'string' },
    connections: { type: 'string' },
    ticks: { type: 'string' },
    'import-captures': { type: 'string' },
    out: { type: 'string' },
    'no-write': { type: 'boolean' },
    'only-generate': { type: 'boolean' },
    'keep-database': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
  strict: true,
})
if (argv.help) printUsageAndExit(import.meta.path)
const opt = (name: keyof typeof argv): string | undefined => {
  const v = argv[name]
  if (typeof v === 'string') return v
  const env = process.env[`BENCH_${name.toUpperCase().replace(/-/g, '_')}`]
  return env === undefined || env === '' ? undefined : env
}
const flag = (name: 'quick' | 'no-write' | 'only-generate' | 'keep-database') => argv[name] === true || ['1', 'true'].includes(process.env[`BENCH_${name.toUpperCase().replace(/-/g, '_')}`] ?? '')
const num = (name: keyof typeof argv, dflt: number, min = 0) => {
  const raw = opt(name)
  if (raw === undefined) return dflt
  const v = Number(raw)
  if (!Number.isFinite(v) || v < min) {
    process.stderr.write(`bench: --${name} must be a number ≥ ${min} (got '${raw}')\n`)
    process.exit(2)
  }
  return v
}

const quick = flag('quick')
const scale: Scale = {
  years: num('years', quick ? 0.05 : 2.74, 0.01),
  planetDays: num('planet-days', quick ? 2 : 1000, 0.1),
  summaryDays: num('summary-days', quick ? 14 : 1000, 0.1),
  orders: Math.round(num('orders', quick ? 20 : 411, 1)),
  dispatches: Math.round(num('dispatches', quick ? 500 : 3830, 1)),
}
const dbUrl = opt('db-url')
const dbOpt = opt('db') ?? (dbUrl ? 'url' : 'timescaledb')
if (!['timescaledb', 'embedded', 'url'].includes(dbOpt) || (dbOpt === 'url' && !dbUrl)) {
  process.stderr.write(`bench: --db must be timescaledb or embedded (or give --db-url URL); got '${dbOpt}'\n`)
  process.exit(2)
}
const dbKind = dbOpt as DbKind
const reps = Math.round(num('reps', 30, 1))
// wrk takes whole seconds.
const durationS = Math.round(num('duration', quick ? 2 : 15, 1))
const otherDurationS = Math.round(num('other-duration', quick ? 1 : 5, 1))
const slices = Math.round(num('slices', quick ? 1 : 3, 1))
// wrk takes whole seconds: slices that do not divide the duration would load for another one.
if (durationS % slices !== 0) {
  process.stderr.write(`bench: --duration (${durationS} s) must be a multiple of --slices (${slices}): each slice runs whole seconds\n`)
  process.exit(2)
}
const idleWaitS = num('idle-wait', 20, 0)
const threads = Math.round(num('threads', 2, 1))
const connections = Math.round(num('connections', 32, 1))
const ticks = Math.round(num('ticks', quick ? 20 : 25, 1))
const importCaptures = Math.round(num('import-captures', quick ? 300 : IMPORT_BOUND.captures, 0))
const outFile = opt('out') ?? join(ROOT, 'BENCHMARKS.md')
const isDefaultScale = !quick && ['years', 'planet-days', 'summary-days', 'orders', 'dispatches'].every((k) => opt(k as keyof typeof argv) === undefined)
const preset = quick ? 'quick' : isDefaultScale ? 'default' : 'custom'
const command = ['npm run bench', ...(args.length ? ['--', ...args.map((a) => (a.startsWith('postgres') ? '<URL>' : a))] : [])].join(' ')

// ------------------------------------------------------------------ cleanup

const children = new Set<Subprocess>()
let bench: BenchDatabase | undefined
let feeds: ReturnType<typeof simulatedFeeds> | undefined
let cleaning: Promise<void> | undefined
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const c of children) await stopProcess(c).catch(() => {})
    await feeds?.stop().catch(() => {})
    if (bench) {
      progress(`stopping the database (${bench.kind})`)
      await bench.close().catch((e) => progress(`database close failed: ${e}`))
    }
  })()
  return cleaning
}
cleanUpOnSignals(cleanup, progress)

// ------------------------------------------------------------------ the load routes

/**
 * Every read route of the spec, in the spec's order. The throughput targets' routes (diver
 * history, planet history, /player-count, /war, /planets) run `durationS` on each side in
 * `slices` alternating runs, the others `otherDurationS` in one; the history routes and two
 * kept pages (a fixed window the ingest writes into, and the default window ending now)
 * carry the exactness check.
 */
function loadRoutes(f: DataFacts): LoadRoute[] {
  const target = (path: string, check?: CheckSpec): LoadRoute => ({ path, durationS, slices, target: true, check })
  const other = (path: string, check?: CheckSpec): LoadRoute => ({ path, durationS: otherDurationS, slices: 1, target: false, check })
  const day = 86_400_000
  // Yesterday and today as bare dates (the whole of both days): the ingest's rows land in it.
  const today = new Date(Math.floor(f.now.getTime() / day) * day)
  const twoDays = { from: new Date(today.getTime() - day), toExclusive: new Date(today.getTime() + day) }
  const isoDay = (d: Date) => d.toISOString().slice(0, 10)
  const twoDaysQuery = new URLSearchParams({ startDate: isoDay(twoDays.from), endDate: isoDay(today) })
  return [
    target('/api/v1/player-count'),
    ...DIVER_RANGES.map((range) => target(`/api/v1/divers/history?range=${range}`, { kind: 'divers', range })),
    target('/api/v1/war'),
    other(`/api/v1/war/${WAR_ID}`),
    target('/api/v1/planets'),
    other('/api/v1/sectors'),
    other('/api/v1/factions'),
    other('/api/v1/war-stats'),
    other(`/api/v1/historical-player-count?${twoDaysQuery}`, { kind: 'page', series: { table: 'player_count_snapshots', ...twoDays } }),
    ...[24, 168, 720].map((hours) =>
      target(`/api/v1/planet/${f.planetIndex}/history?hours=${hours}`, { kind: 'planet', warId: WAR_ID, planetIndex: f.planetIndex, hours }),
    ),
    other(`/api/v1/historical-planet-status?planetId=${f.planetIndex}`, {
      kind: 'page',
      series: { table: 'planet_status_snapshots', warId: WAR_ID, planetIndex: f.planetIndex, spanMs: day },
    }),
    other('/api/v1/historical-war-summary'),
    other('/api/v1/historical-major-orders'),
    other(`/api/v1/historical-major-orders/${f.orderId32}/progress`),
    other('/api/v1/historical-dispatches'),
    other('/api/v1/health/throttle'),
  ]
}
const DIVER_RANGES = ['24h', '7d', '30d', '90d', 'all']

// ------------------------------------------------------------------ the run

async function main() {
  // The checkout as the run starts (this process has loaded its code; the service process loads it later: compared at the end).
  const commit = commitOf(progress)
  const m = machine()
  progress(`bench: ${dbKind} database, ${preset} scale ${JSON.stringify(scale)}; ${m.cpu}, ${m.cores} cores, load ${m.loadavg[0]!.toFixed(2)}`)
  if (!flag('only-generate')) await ensureWrk({ progress })
  bench = await openBenchDatabase(dbKind, dbUrl, flag('keep-database'))
  const { sql } = bench.db
  const info = bench.db.info
  progress(`database ready: edition ${info.edition}, TimescaleDB ${info.timescaledbVersion ?? '–'}, PostgreSQL ${info.serverVersion}`)
  feeds = simulatedFeeds(1, 5000)
  const deps = appDeps(bench, feeds.feeds)

  // Wars, planets, planet_war_info, sectors, factions: the real war-info collector against the simulator.
  let t = performance.now()
  const runner = new CollectorRunner({ db: bench.db, store: createStore(bench.db), feeds: feeds.feeds, log: silentLogger, config: { warId: WAR_ID } })
  const wi = await runner.runOnce(COLLECTORS['war-info'])
  const warInfoS = (performance.now() - t) / 1000
  progress(`war-info collector: ${JSON.stringify(wi.written)}`)

  // The history ends where the simulator's war stands, so live ticks continue its war clock.
  const warTimeAtNow = (await feeds.feeds.upstream.status(WAR_ID)).data.time
  const now = new Date()
  t = performance.now()
  const steps = await generate(sql, scale, { now, warId: WAR_ID, warTimeAtNow, progress })
  const genS = (performance.now() - t) / 1000
  const analyzeS = await analyze(sql)
  progress(`ANALYZE: ${analyzeS.toFixed(1)} s`)
  t = performance.now()
  const refreshed = await refreshRollups(sql, info.edition)
  const refreshS = (performance.now() - t) / 1000
  progress(`rollup refresh: ${refreshS.toFixed(1)} s ${JSON.stringify(refreshed)}`)
  if (Object.keys(refreshed).length) await sql`ANALYZE player_count_5m_store, player_count_1h_store, player_count_1d_store`
  if (flag('only-generate')) {
    const sizes = await dataSizes(sql, info.timescaledbVersion !== null, Object.keys(refreshed).length > 0)
    const database = { label: dbKind, edition: info.edition, timescaledbVersion: info.timescaledbVersion, serverVersion: info.serverVersion, notes: '' }
    process.stdout.write(`${dataMarkdown({ sizes, scale, database, generation: { steps, seconds: genS, warInfoS, analyzeS, refreshS, refreshed } }).join('\n')}\n`)
    return
  }

  // Read latency, baselines, equality.
  const facts = await dataFacts(sql, now)
  progress(`latency: planet ${facts.planetIndex} (${facts.planetName}), order ${facts.orderId32} (${facts.progressRows} progress rows)`)
  const { cases: latency, coverage } = await measureLatency(deps, facts, { reps, warmup: 3, baselineBudgetMs: 20_000, connections: bench.servicePoolMax, progress })

  // Plans (of a computed answer: explainRequest builds a fresh app, which keeps nothing yet):
  // the slowest whole-history page of every paged route, the worst diver and planet
  // history when a target of theirs is missed, and the slowest computed case overall.
  const toExplain = new Map<LatencyCase, string>()
  const worstOf = (cs: LatencyCase[]) => cs.reduce<LatencyCase | undefined>((a, c) => (!a || c.computed!.timing.p50 > a.computed!.timing.p50 ? c : a), undefined)
  const diverCases = latency.filter((c) => c.target === 'divers')
  if (diverCases.some((c) => c.computed!.timing.p50 > COMPUTED_HISTORY_P50_MS || c.kept!.timing.p50 > 1)) {
    toExplain.set(worstOf(diverCases)!, `slowest computed diver history (computed p50 ≤ ${COMPUTED_HISTORY_P50_MS} ms or kept p50 ≤ 1 ms missed)`)
  }
  const planetCases = latency.filter((c) => c.target === 'planet')
  if (planetCases.some((c) => c.computed!.timing.p50 > COMPUTED_HISTORY_P50_MS)) {
    toExplain.set(worstOf(planetCases)!, `slowest computed planet history (computed p50 ≤ ${COMPUTED_HISTORY_P50_MS} ms missed)`)
  }
  const pageCases = latency.filter((c) => c.target === 'page')
  for (const route of new Set(pageCases.map((c) => c.route!))) {
    const w = worstOf(pageCases.filter((c) => c.route === route))!
    if (!toExplain.has(w)) toExplain.set(w, `slowest whole-history page of ${route}, ${w.name.split(' page ')[1]}`)
  }
  const slowest = worstOf(latency)
  if (slowest && !toExplain.has(slowest)) toExplain.set(slowest, `slowest computed case of the run, ${slowest.name}`)
  const explains: Explained[] = []
  for (const [c, reason] of toExplain) {
    progress(`explain: ${c.name}`)
    explains.push({ ...(await explainRequest(deps, bench.url, c.path, bench.servicePoolMax === 1 ? 1 : 4)), reason })
  }

  // Writes: the real collectors through the runner (ticks at the current time, after the reads).
  // They run in this process, whose heap now holds what the reads' raw baselines left: a
  // full collection first, so the ticks do not pay for the bench's garbage (a 1 GB heap
  // made a tick 3-4 times slower, measured); the service's own heap is ~100 MB.
  const heapBeforeMb = process.memoryUsage().heapUsed / 2 ** 20
  Bun.gc(true)
  // The database's own background work at that moment (autovacuum after the generated rows) shares the cores.
  const [vacuum] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`
  const atStart = { heapMb: heapBeforeMb, heapAfterGcMb: process.memoryUsage().heapUsed / 2 ** 20, autovacuumWorkers: vacuum?.n ?? 0 }
  progress(`ingest: bench process heap ${atStart.heapMb.toFixed(0)} MB, ${atStart.heapAfterGcMb.toFixed(0)} MB after a full collection; ${atStart.autovacuumWorkers} autovacuum workers busy`)
  const ingest = {
    fullStatus: await measureIngest(bench.db, feeds.feeds, feeds.later, { collector: 'full-status', ticks, warmup: 2, progress }),
    playerCount: await measureIngest(bench.db, feeds.feeds, feeds.later, { collector: 'player-count', ticks, warmup: 2, progress }),
    atStart,
  }

  // The importer (npm run import) from a generated git archive and NDJSON file, each into a
  // scratch database of its own on the same server (none on the in-memory PGlite).
  let imports: ImportResult | null = null
  if (importCaptures > 0 && bench.serverUrl) {
    imports = await measureImport(bench.serverUrl, { captures: importCaptures, progress, track: (p) => children.add(p) })
  } else if (importCaptures > 0) {
    progress('import: not measured on the embedded database (a scratch database per source needs a server)')
  }

  // Throughput of every read route, and the service's peak memory; the history routes with
  // the exactness check under load (ingest POSTs + compared samples).
  const service: ServiceSpec = {
    databaseUrl: bench.url,
    poolMax: bench.servicePoolMax,
    feeds: { upstreamUrl: feeds.sim.upstreamUrl, communityUrl: feeds.sim.communityUrl, pcstoreUrl: feeds.sim.pcstoreUrl },
  }
  const sim = feeds.sim
  const throughput = await measureThroughput(
    loadRoutes(facts),
    service,
    { warmupS: quick ? 1 : 2, threads, connections, progress, checker: { sql, advanceWar: (s) => sim.control.advance(s) } },
    (p) => children.add(p),
  )
  const loadTotals = checkTotals(throughput.routes)

  // Cold start: a fresh service process on the same database per route; then the idle
  // memory of a service on the embedded default.
  const coldStarts = await measureColdStarts(['/api/v1/divers/history?range=all', '/api/v1/divers/history?range=90d'], service, (p) => children.add(p), progress)
  const idleRss = await measureIdleRss(service.feeds, idleWaitS, (p) => children.add(p), progress)

  // Data sizes (after everything was written).
  const sizes = await dataSizes(sql, info.timescaledbVersion !== null, Object.keys(refreshed).length > 0)

  const dbLabel = {
    timescaledb: 'own TimescaleDB instance (scripts/testdb.sh: PostgreSQL 17 + TimescaleDB from Debian 13 in a chroot; fsync/synchronous_commit off, throwaway)',
    embedded: 'embedded PGlite, in memory (WASM, single session, in the bench process; the service process reaches it over its loopback socket, pool of 1)',
    url: 'given server (--db-url), scratch database created and dropped by the run',
  }[dbKind]
  const result: RunResult = {
    key: `${dbKind}-${preset}`,
    commit: sameCheckout(commit, commitOf(progress)),
    preset,
    dbKind,
    label: `${{ timescaledb: 'TimescaleDB', embedded: 'Embedded PGlite', url: 'Given database' }[dbKind]} (${info.edition}), ${preset} scale${preset === 'quick' ? ' (--quick smoke run: small data, short load runs; not comparable with the default scale)' : ''}`,
    command,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    machine: m,
    database: { label: dbLabel, edition: info.edition, timescaledbVersion: info.timescaledbVersion, serverVersion: info.serverVersion, notes: '' },
    scale,
    generation: { steps, seconds: genS, warInfoS, analyzeS, refreshS, refreshed },
    sizes,
    latency,
    coverage,
    reps,
    explains,
    throughput,
    ingest,
    imports,
    coldStarts,
    idleRss,
    targets: [],
    totalS: 0,
  }
  result.targets = evaluateTargets(result)
  result.totalS = (performance.now() - started) / 1000
  const md = renderMarkdown(result)
  process.stdout.write(`${md}\n`)
  if (loadTotals.mismatched > 0) {
    const first = throughput.routes.find((x) => x.check?.firstMismatch)?.check?.firstMismatch
    throw new ResultMismatch(`${loadTotals.mismatched} answers under load differ from the raw answer (report printed above, not written): ${first}`)
  }
  if (!flag('no-write')) {
    writeSection(outFile, result.key, md)
    progress(`written to ${outFile} (section bench:${result.key})`)
  }
}

/** Rows and bytes of every table the run fills (hypertable_size for a hypertable: its chunks, indexes and TOAST). */
async function dataSizes(sql: BenchDatabase['db']['sql'], timescale: boolean, rollups: boolean): Promise<RunResult['sizes']> {
  const tables = [
    'player_count_snapshots', 'planet_status_changes', 'planet_status_hours', 'planet_status_latest', 'full_status_tick_hours', 'full_status_tick_days',
    'full_status_ticks', 'planet_owner_changes', 'campaign_snapshots', 'tick_sets', 'planet_event_snapshots', 'planet_event_spans', 'campaign_spans', 'campaigns', 'defense_outcomes',
    'war_summary_snapshots', 'major_orders', 'major_order_progress', 'dispatches', 'wars', 'planets', 'planet_war_info', 'sectors', 'factions',
    ...(rollups ? ['player_count_5m_store', 'player_count_1h_store', 'player_count_1d_store'] : []),
  ]
  const hyper = new Set(timescale ? (await sql<{ t: string }[]>`SELECT hypertable_name AS t FROM timescaledb_information.hypertables`).map((r) => r.t) : [])
  // Only base tables: a layout that made one a view leaves it out.
  const present = new Set((await sql<{ t: string }[]>`SELECT tablename AS t FROM pg_tables WHERE schemaname = current_schema()`).map((r) => r.t))
  const sizes: RunResult['sizes'] = []
  for (const table of tables.filter((t) => present.has(t))) {
    const [c] = await sql<{ n: number }[]>`SELECT count(*)::bigint AS n FROM ${sql(table)}`
    const [b] = hyper.has(table)
      ? await sql<{ b: number }[]>`SELECT hypertable_size(${table}::regclass)::bigint AS b`
      : await sql<{ b: number }[]>`SELECT pg_total_relation_size(${table}::regclass)::bigint AS b`
    sizes.push({ table: hyper.has(table) ? `${table} (hypertable)` : table, rows: Number(c!.n), bytes: b?.b === undefined || b.b === null ? null : Number(b.b) })
  }
  return sizes
}

let code = 0
try {
  await main()
} catch (err) {
  code = err instanceof ResultMismatch ? 3 : 1
  process.stderr.write(`\nbench FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
} finally {
  await cleanup()
  progress(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`)
}
process.exit(code)
