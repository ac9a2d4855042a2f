/**
 * `npm run soak`: read load while the schedule collects. The real service process runs
 * with its schedule on against the feed simulator (real-time speed); a loopback load
 * generator cycles over the read routes for a bounded time. The report:
 * - throughput and latency percentiles of the reads, every non-2xx answer and failed request;
 * - per collector, the scheduled firings inside the load window against the runs that
 *   completed (a firing without a successful run is a lost tick);
 * - per dataset, the rows the runs said they wrote against the rows in the database
 *   (a difference would be a lost or doubled write).
 *
 *   npm run soak [-- options]
 *     --duration S            seconds of load (default 120)
 *     --connections N         concurrent keep-alive request loops (default 16)
 *     --full-status-cron P    the full-status cadence (default every 15 s instead of 5 min,
 *                             so that a short run writes many ticks)
 *     --db-url URL            a PostgreSQL/TimescaleDB server (a scratch database is created
 *                             and dropped); default: own TimescaleDB (scripts/testdb.sh)
 *     --out FILE              report file (default BENCHMARKS.md); --no-write to only print
 */
import { Cron } from 'croner'
import { cpus, loadavg } from 'node:os'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { cleanUpOnSignals, printUsageAndExit, progressSince, scriptArgs } from './cli.ts'
import { COLLECTOR_NAMES, type CollectorName } from '../src/collect/index.ts'
import { connect } from '../src/db/connect.ts'
import { SCHEDULE_PATTERNS } from '../src/collect/schedule.ts'
import { startSimulator } from '../src/sim/server.ts'
import { startService } from '../test/support/process.ts'
import { writeSection } from './report.ts'
import { openBenchDatabase, ROOT, WAR_ID } from './setup.ts'
import { ms, percentile } from './stats.ts'

/** The read routes under load: every kind of read the public site makes. */
export const SOAK_ROUTES = [
  '/api/v1/war',
  `/api/v1/war/${WAR_ID}`,
  '/api/v1/planets',
  '/api/v1/sectors',
  '/api/v1/factions',
  '/api/v1/player-count',
  '/api/v1/war-stats',
  '/api/v1/divers/history?range=24h',
  '/api/v1/divers/history?range=7d',
  '/api/v1/historical-war-summary',
  '/api/v1/historical-planet-status?planetId=0',
  '/api/v1/planet/0/history?hours=24',
  '/api/v1/historical-major-orders',
  '/api/v1/historical-dispatches',
  '/api/v1/health/throttle',
]

export interface SoakOptions {
  databaseUrl: string
  poolMax: number
  durationS: number
  connections: number
  fullStatusCron: string
  progress?: (line: string) => void
}

export interface CollectorTally {
  collector: CollectorName
  pattern: string
  /** Scheduled firings inside the load window. */
  firings: number
  /** Firings matched by a run that completed (written, unchanged or locked). */
  completed: number
  failed: number
  lost: number
  written: number
}

export interface RowTally {
  table: string
  /** Rows the runs' summaries say they wrote, over the service's whole life. */
  reported: number
  /** Rows the table gained over the same time. */
  stored: number
}

export interface SoakResult {
  durationS: number
  connections: number
  routes: string[]
  requests: number
  rps: number
  latencyMs: { p50: number; p90: number; p99: number; max: number }
  perRoute: { path: string; requests: number; p50: number; p99: number }[]
  /** Answers other than 2xx, by status. */
  non2xx: Record<string, number>
  /** Requests that got no HTTP answer at all. */
  networkErrors: number
  collectors: CollectorTally[]
  rows: RowTally[]
  /** `scheduled job failed` lines and the lines of failed runs (`collector run failed`, feed outages). */
  failureLines: string[]
  serviceExitCode: number
}

/** Which summary counters become rows of which table. */
export const ROWS_OF: { table: string; collector: CollectorName; keys: string[] }[] = [
  { table: 'player_count_snapshots', collector: 'player-count', keys: ['upstreamRows', 'pcstoreRows'] },
  { table: 'planet_status_snapshots', collector: 'full-status', keys: ['planetStatus'] },
  { table: 'war_summary_snapshots', collector: 'full-status', keys: ['warSummary'] },
  { table: 'major_order_progress', collector: 'full-status', keys: ['majorOrderProgress'] },
  { table: 'dispatches', collector: 'full-status', keys: ['dispatches'] },
  { table: 'planet_stats_snapshots', collector: 'planet-stats', keys: ['planetStats'] },
]

/** Per table: the rows the successful runs reported, and the rows the table gained between the two counts. */
export function rowTally(runs: RunLine[], before: Record<string, number>, after: Record<string, number>) {
  return ROWS_OF.map(({ table, collector, keys }) => ({
    table,
    reported: runs.filter((r) => r.collector === collector && r.ok).reduce((sum, r) => sum + keys.reduce((s, k) => s + (r.written[k] ?? 0), 0), 0),
    stored: after[table]! - before[table]!,
  }))
}

export interface RunLine {
  collector: CollectorName
  startMs: number
  ok: boolean
  outcome?: string
  written: Record<string, number>
}

/** Scheduled firings of a croner pattern in [fromMs, toMs]. */
export function firingsBetween(pattern: string, fromMs: number, toMs: number): number[] {
  const cron = new Cron(pattern, { timezone: 'UTC', paused: true })
  const out: number[] = []
  let next = cron.nextRun(new Date(fromMs - 1))
  while (next && next.getTime() <= toMs) {
    out.push(next.getTime())
    next = cron.nextRun(next)
  }
  cron.stop()
  return out
}

/** Each firing takes the first unmatched run of its collector that started just after it. */
/** The one line of a failed scheduled run: its own (debug), or the feed outage's first or summary line (collect/outages.ts). */
const isFailedRunLine = (l: Record<string, unknown>) =>
  l.msg === 'collector run failed' || ((l.event === 'feed_down' || l.event === 'feed_still_down') && l.job !== 'war-check')

export function tally(collector: CollectorName, pattern: string, runs: RunLine[], fromMs: number, toMs: number): CollectorTally {
  const firings = firingsBetween(pattern, fromMs, toMs)
  const mine = runs.filter((r) => r.collector === collector).sort((a, b) => a.startMs - b.startMs)
  const used = new Set<RunLine>()
  let completed = 0
  let failed = 0
  let written = 0
  for (const [i, f] of firings.entries()) {
    // A run starts within moments of its firing (after a war check for some): up to 3 s,
    // and never as late as the next firing, so a run cannot stand in for another one.
    const until = Math.min(f + 3000, firings[i + 1] ?? Infinity)
    const run = mine.find((r) => !used.has(r) && r.startMs >= f - 250 && r.startMs < until)
    if (!run) continue
    used.add(run)
    if (run.ok) completed++
    else failed++
    if (run.outcome === 'written') written++
  }
  return { collector, pattern, firings: firings.length, completed, failed, lost: firings.length - completed - failed, written }
}

export async function tableCounts(url: string): Promise<Record<string, number>> {
  const sql = connect({ url, max: 1 })
  try {
    const out: Record<string, number> = {}
    for (const { table } of ROWS_OF) out[table] = (await sql<{ n: number }[]>`SELECT count(*)::bigint AS n FROM ${sql(table)}`)[0]!.n
    return out
  } finally {
    await sql.end()
  }
}

/** `connections` keep-alive loops, each cycling over the routes from its own offset. */
export async function loadRoutes(base: string, routes: string[], durationS: number, connections: number) {
  const samples = routes.map(() => [] as number[])
  const non2xx: Record<string, number> = {}
  let networkErrors = 0
  const end = performance.now() + durationS * 1000
  await Promise.all(
    Array.from({ length: connections }, async (_, c) => {
      for (let i = c; performance.now() < end; i++) {
        const r = i % routes.length
        const t = performance.now()
        try {
          const res = await fetch(base + routes[r])
          await res.arrayBuffer()
          if (res.status < 200 || res.status > 299) non2xx[String(res.status)] = (non2xx[String(res.status)] ?? 0) + 1
          samples[r]!.push(performance.now() - t)
        } catch {
          networkErrors++
        }
      }
    }),
  )
  return { samples, non2xx, networkErrors }
}

export async function runLoadWhileCollecting(o: SoakOptions): Promise<SoakResult> {
  const progress = o.progress ?? (() => {})
  const sim = startSimulator({ port: 0, hostname: '127.0.0.1', seed: 5, speed: 1 })
  const secret = 'soak-secret'
  const before = await tableCounts(o.databaseUrl)
  progress('starting the service (schedule on)')
  const service = await startService({
    DATABASE_URL: o.databaseUrl,
    DB_POOL_MAX: String(o.poolMax),
    SCHEDULE_ENABLED: 'true',
    FULL_STATUS_CRON: o.fullStatusCron,
    WAR_ID: String(WAR_ID),
    COLLECTOR_SECRET: secret,
    UPSTREAM_URL: sim.upstreamUrl,
    COMMUNITY_API_URL: sim.communityUrl,
    PCSTORE_API_URL: sim.pcstoreUrl,
    // A failed scheduled run has its own line at debug level only (the first and the
    // 5-minute summary of a feed outage are warnings): every run is tallied.
    LOG_LEVEL: 'debug',
  })
  let exitCode: number | undefined
  try {
    // The war and its planets exist before the first read (war-info runs once a minute).
    const seeded = await fetch(`${service.baseUrl}/api/v1/collect/war-info`, { method: 'POST', headers: { 'x-collector-secret': secret } })
    if (seeded.status !== 200) throw new Error(`war-info seed: ${seeded.status} ${await seeded.text()}`)

    progress(`load: ${o.connections} connections over ${SOAK_ROUTES.length} routes for ${o.durationS} s`)
    const fromMs = Date.now()
    const load = await loadRoutes(service.baseUrl, SOAK_ROUTES, o.durationS, o.connections)
    const toMs = Date.now()
    // Let the runs fired at the end of the window finish before the service stops.
    await Bun.sleep(3000)
    exitCode = await service.stop('SIGTERM')
    const after = await tableCounts(o.databaseUrl)

    const runs: RunLine[] = service.lines
      .filter((l) => l.msg === 'collector run' || isFailedRunLine(l))
      .map((l) => ({
        collector: (l.collector ?? l.job) as CollectorName,
        startMs: Date.parse(String(l.time)) - Number(l.durationMs ?? 0),
        ok: l.msg === 'collector run',
        outcome: l.outcome as string | undefined,
        written: (l.written ?? {}) as Record<string, number>,
      }))
    const patterns: Record<CollectorName, string> = { ...SCHEDULE_PATTERNS, 'full-status': o.fullStatusCron }
    const collectors = COLLECTOR_NAMES.map((c) => tally(c, patterns[c], runs, fromMs, toMs))
    const rows = rowTally(runs, before, after)
    const all = load.samples.flat().sort((a, b) => a - b)
    const requests = all.length + load.networkErrors
    return {
      durationS: (toMs - fromMs) / 1000,
      connections: o.connections,
      routes: SOAK_ROUTES,
      requests,
      rps: requests / ((toMs - fromMs) / 1000),
      latencyMs: { p50: percentile(all, 50), p90: percentile(all, 90), p99: percentile(all, 99), max: all[all.length - 1] ?? NaN },
      perRoute: SOAK_ROUTES.map((path, i) => {
        const s = load.samples[i]!.sort((a, b) => a - b)
        return { path, requests: s.length, p50: percentile(s, 50), p99: percentile(s, 99) }
      }),
      non2xx: load.non2xx,
      networkErrors: load.networkErrors,
      collectors,
      rows,
      failureLines: service.lines.filter((l) => l.msg === 'scheduled job failed' || isFailedRunLine(l)).map((l) => JSON.stringify(l)),
      serviceExitCode: exitCode,
    }
  } finally {
    if (exitCode === undefined) await service.stop('SIGKILL')
    await sim.stop()
  }
}

/** The BENCHMARKS.md section of a soak run. */
export function renderSoak(r: SoakResult, facts: { command: string; date: string; machine: string; database: string }): string {
  const lostTicks = r.collectors.reduce((s, c) => s + c.lost + c.failed, 0)
  const rowGaps = r.rows.filter((x) => x.reported !== x.stored)
  const errors = r.networkErrors + Object.values(r.non2xx).reduce((a, b) => a + b, 0)
  const lines = [
    '## Read load while the schedule collects',
    '',
    `\`${facts.command}\`, ${facts.date}. ${facts.machine}. Database: ${facts.database}.`,
    `The service process with its schedule on (full-status every \`${r.collectors.find((c) => c.collector === 'full-status')?.pattern}\`),`,
    `the feed simulator at real-time speed, and a Bun fetch load generator (${r.connections} keep-alive loops over ${r.routes.length} read routes, in turn) on the same 2 cores.`,
    '',
    `**${errors === 0 ? 'Zero' : errors} errors, ${lostTicks === 0 ? 'zero' : lostTicks} lost ticks, ${rowGaps.length === 0 ? 'every reported row stored once' : `${rowGaps.length} tables whose rows differ from what the runs reported`}.**`,
    '',
    '| Requests | Duration | Throughput | p50 | p90 | p99 | max | non-2xx | no answer |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| ${r.requests.toLocaleString('en')} | ${r.durationS.toFixed(0)} s | ${Math.round(r.rps).toLocaleString('en')} req/s | ${ms(r.latencyMs.p50)} ms | ${ms(r.latencyMs.p90)} ms | ${ms(r.latencyMs.p99)} ms | ${ms(r.latencyMs.max)} ms | ${JSON.stringify(r.non2xx) === '{}' ? 0 : JSON.stringify(r.non2xx)} | ${r.networkErrors} |`,
    '',
    '| Route | Requests | p50 | p99 |',
    '|---|---:|---:|---:|',
    ...r.perRoute.map((p) => `| \`${p.path}\` | ${p.requests.toLocaleString('en')} | ${ms(p.p50)} ms | ${ms(p.p99)} ms |`),
    '',
    '| Collector | Schedule | Firings in the window | Completed | Wrote | Failed | Lost |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...r.collectors.map((c) => `| ${c.collector} | \`${c.pattern}\` | ${c.firings} | ${c.completed} | ${c.written} | ${c.failed} | ${c.lost} |`),
    '',
    '| Table | Rows the runs reported | Rows stored |',
    '|---|---:|---:|',
    ...r.rows.map((x) => `| ${x.table} | ${x.reported.toLocaleString('en')} | ${x.stored.toLocaleString('en')} |`),
  ]
  if (r.failureLines.length) lines.push('', 'Failures logged by the service:', '', ...r.failureLines.map((l) => `    ${l}`))
  return lines.join('\n')
}

// ------------------------------------------------------------------ CLI

if (import.meta.main) {
  const args = scriptArgs()
  const { values: argv } = parseArgs({
    args,
    options: {
      duration: { type: 'string', default: '120' },
      connections: { type: 'string', default: '16' },
      'full-status-cron': { type: 'string', default: '*/15 * * * * *' },
      'db-url': { type: 'string' },
      out: { type: 'string' },
      'no-write': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (argv.help) printUsageAndExit(import.meta.path)
  const started = performance.now()
  const progress = progressSince(started)
  const durationS = Number(argv.duration)
  const connections = Number(argv.connections)
  if (!(durationS >= 1) || !(connections >= 1)) {
    process.stderr.write('soak: --duration and --connections must be numbers >= 1\n')
    process.exit(2)
  }
  const bench = await openBenchDatabase(argv['db-url'] ? 'url' : 'timescaledb', argv['db-url'])
  // Interrupted: still stop the database this run started (the service is its child).
  cleanUpOnSignals(() => bench.close(), progress)
  let code = 0
  try {
    const info = bench.db.info
    const result = await runLoadWhileCollecting({
      databaseUrl: bench.url, poolMax: bench.servicePoolMax, durationS, connections, fullStatusCron: argv['full-status-cron']!, progress,
    })
    const cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? 'unknown CPU'
    const md = renderSoak(result, {
      command: ['npm run soak', ...(args.length ? ['--', ...args.map((a) => (a.startsWith('postgres') ? '<URL>' : a))] : [])].join(' '),
      date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      machine: `${cpu}, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)} at the start`,
      database: `${argv['db-url'] ? 'given server' : 'own TimescaleDB instance (scripts/testdb.sh)'}, ${info.edition}, TimescaleDB ${info.timescaledbVersion ?? '–'}, PostgreSQL ${info.serverVersion}; empty at the start (the rows are what the run collected)`,
    })
    process.stdout.write(`${md}\n`)
    if (!argv['no-write']) {
      const out = argv.out ?? join(ROOT, 'BENCHMARKS.md')
      writeSection(out, 'soak', md)
      progress(`written to ${out} (section bench:soak)`)
    }
    const bad = result.networkErrors + Object.keys(result.non2xx).length + result.collectors.reduce((s, c) => s + c.lost + c.failed, 0) + result.rows.filter((x) => x.reported !== x.stored).length
    code = bad === 0 ? 0 : 1
  } catch (err) {
    process.stderr.write(`soak FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    code = 1
  } finally {
    await bench.close()
  }
  process.exit(code)
}
