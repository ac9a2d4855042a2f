/**
 * `npm run bench:topology`: stateless API replicas, measured. One primary
 * TimescaleDB and one streaming read replica (scripts/testdb.sh start + replica), three
 * service processes with their schedules on (`DATABASE_URL` = the primary,
 * `DATABASE_READ_URL` = the replica, a spool each) behind HAProxy (Debian's package,
 * round robin, health-checked on /health/ready), the feed simulator at real-time speed,
 * and a Bun fetch load generator on the proxy for a bounded time. The report:
 * - throughput and latency through the proxy, every non-2xx answer and failed request;
 * - per collector, the scheduled firings in the window and how many no process completed
 *   (lost), and per dataset the rows the runs of all three processes said they wrote
 *   against the rows stored (a difference = a doubled or lost write);
 * - every 2 s, the same read asked of the three processes directly: identical at once, or
 *   within the freshness bound (1 s: a commit reaches the other processes by LISTEN), or not;
 * - where the reads ran: each process's replica and primary read counts (/health/ready).
 *
 *   npm run bench:topology [-- options]
 *     --duration S          seconds of load (default 60)
 *     --connections N       concurrent keep-alive request loops (default 16)
 *     --full-status-cron P  full-status cadence (default every 15 s)
 *     --no-write            print only (default: write the section into BENCHMARKS.md)
 */
import { cpus, loadavg } from 'node:os'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { COLLECTOR_NAMES, type CollectorName } from '../src/collect/index.ts'
import { SCHEDULE_PATTERNS } from '../src/collect/schedule.ts'
import { connect } from '../src/db/connect.ts'
import { migrate } from '../src/db/migrate.ts'
import { startSimulator } from '../src/sim/server.ts'
import { startService, type ServiceProcess } from '../test/support/process.ts'
import { cleanUpOnSignals, printUsageAndExit, progressSince, scriptArgs } from './cli.ts'
import { writeSection } from './report.ts'
import { ROOT, WAR_ID } from './setup.ts'
import { firingsBetween, loadRoutes, rowTally, SOAK_ROUTES, tableCounts, tally, type RunLine } from './soak.ts'
import { ms, percentile } from './stats.ts'

const { values: argv } = parseArgs({
  args: scriptArgs(),
  options: {
    duration: { type: 'string', default: '60' },
    connections: { type: 'string', default: '16' },
    'full-status-cron': { type: 'string', default: '*/15 * * * * *' },
    'no-write': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
  strict: true,
})
if (argv.help) printUsageAndExit(import.meta.path)
const durationS = Number(argv.duration)
const connections = Number(argv.connections)
const fullStatusCron = argv['full-status-cron']!
const started = performance.now()
const progress = progressSince(started)

const instance = `topology-${process.pid}`
const testdb = async (cmd: string) => {
  const p = Bun.spawn(['bash', `${ROOT}/scripts/testdb.sh`, cmd], {
    env: { ...process.env, TESTDB_NAME: instance, TESTDB_OWNER_PID: String(process.pid) }, stdout: 'pipe', stderr: 'pipe',
  })
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  if (code !== 0) throw new Error(`testdb.sh ${cmd}: ${err.trim().split('\n').pop()}`)
  return out.trim()
}

/** A free loopback port (bind, read, release). */
const freePort = () => {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = s.port
  s.stop(true)
  return port
}

const services: ServiceProcess[] = []
let proxy: ReturnType<typeof Bun.spawn> | undefined
let sim: ReturnType<typeof startSimulator> | undefined
const proxyDir = mkdtempSync(join(tmpdir(), 'gws-haproxy-'))
const cleanup = async () => {
  for (const s of services) await s.stop('SIGKILL').catch(() => {})
  proxy?.kill('SIGTERM')
  await sim?.stop()
  await testdb('stop').catch((e) => progress(`testdb stop failed: ${e}`))
  rmSync(proxyDir, { recursive: true, force: true })
}
cleanUpOnSignals(cleanup, progress)

try {
  if (!Bun.which('haproxy')) throw new Error('haproxy is not installed (apt-get install -y haproxy)')
  progress(`primary: TESTDB_NAME=${instance} scripts/testdb.sh start`)
  const primaryUrl = await testdb('start')
  const setup = connect({ url: primaryUrl, max: 1 })
  await migrate(setup)
  await setup.end()
  progress('replica: scripts/testdb.sh replica (pg_basebackup, streaming)')
  const replicaUrl = await testdb('replica')
  sim = startSimulator({ port: 0, hostname: '127.0.0.1', seed: 5, speed: 1 })
  const secret = 'topology-secret'
  const before = await tableCounts(primaryUrl)
  for (let i = 0; i < 3; i++) {
    services.push(await startService({
      DATABASE_URL: primaryUrl,
      DATABASE_READ_URL: replicaUrl,
      DB_POOL_MAX: '5',
      SCHEDULE_ENABLED: 'true',
      FULL_STATUS_CRON: fullStatusCron,
      WAR_ID: String(WAR_ID),
      COLLECTOR_SECRET: secret,
      UPSTREAM_URL: sim.upstreamUrl,
      COMMUNITY_API_URL: sim.communityUrl,
      PCSTORE_API_URL: sim.pcstoreUrl,
    }))
    progress(`service ${i + 1}: ${services[i]!.baseUrl}`)
  }
  const seeded = await fetch(`${services[0]!.baseUrl}/api/v1/collect/war-info`, { method: 'POST', headers: { 'x-collector-secret': secret } })
  if (seeded.status !== 200) throw new Error(`war-info seed: ${seeded.status}`)

  const proxyPort = freePort()
  const cfg = join(proxyDir, 'haproxy.cfg')
  writeFileSync(cfg, [
    'global', '  maxconn 4096',
    'defaults', '  mode http', '  timeout connect 2s', '  timeout client 30s', '  timeout server 30s', '  retries 2', '  option redispatch', '  option http-keep-alive',
    'frontend api', `  bind 127.0.0.1:${proxyPort}`, '  default_backend services',
    'backend services', '  balance roundrobin', '  option httpchk GET /health/ready', '  http-check expect status 200',
    ...services.map((s, i) => `  server s${i + 1} ${new URL(s.baseUrl).host} check inter 1s`),
    '',
  ].join('\n'))
  proxy = Bun.spawn(['haproxy', '-f', cfg, '-db'], { stdout: 'ignore', stderr: 'pipe' })
  const base = `http://127.0.0.1:${proxyPort}`
  for (let i = 0; ; i++) {
    const ok = await fetch(`${base}/health/ready`).then((r) => r.status === 200, () => false)
    if (ok) break
    if (i > 100) throw new Error('haproxy did not answer')
    await Bun.sleep(100)
  }
  progress(`haproxy on ${base}; load: ${connections} connections over ${SOAK_ROUTES.length} routes for ${durationS} s`)

  // Same read from the three processes directly, every 2 s during the load.
  const SAME = ['/api/v1/divers/history?range=24h', `/api/v1/war/${WAR_ID}`, '/api/v1/historical-war-summary?limit=5', '/api/v1/historical-planet-status?planetId=0&limit=5']
  const BOUND_MS = 1000
  const agreement = { samples: 0, atOnce: 0, withinBound: 0, beyond: 0, maxConvergeMs: 0 }
  const body = async (svc: ServiceProcess, path: string) => {
    const res = await fetch(svc.baseUrl + path)
    const json = (await res.json()) as Record<string, unknown>
    delete json.to // the clock of the request, not data
    return `${res.status} ${JSON.stringify(json)}`
  }
  let sampling = true
  const sampler = (async () => {
    for (let i = 0; sampling; i++) {
      await Bun.sleep(2000)
      const path = SAME[i % SAME.length]!
      const t0 = performance.now()
      let first = true
      for (;;) {
        const answers = await Promise.all(services.map((s) => body(s, path)))
        if (answers.every((a) => a === answers[0])) {
          agreement.samples++
          if (first) agreement.atOnce++
          else agreement.withinBound++
          agreement.maxConvergeMs = Math.max(agreement.maxConvergeMs, first ? 0 : performance.now() - t0)
          break
        }
        first = false
        if (performance.now() - t0 > BOUND_MS) {
          agreement.samples++
          agreement.beyond++
          progress(`answers differ past ${BOUND_MS} ms: ${path}`)
          break
        }
        await Bun.sleep(50)
      }
    }
  })()
  const fromMs = Date.now()
  const load = await loadRoutes(base, SOAK_ROUTES, durationS, connections)
  const toMs = Date.now()
  sampling = false
  await sampler
  const health = await Promise.all(services.map(async (s) => (await (await fetch(`${s.baseUrl}/health/ready`)).json()) as any))
  await Bun.sleep(3000) // runs fired at the end of the window finish
  for (const s of services) await s.stop('SIGTERM')
  const after = await tableCounts(primaryUrl)

  const runsOf = (svc: ServiceProcess): RunLine[] => svc.lines
    .filter((l) => l.msg === 'collector run' || l.msg === 'collector run failed')
    .map((l) => ({
      collector: l.collector as CollectorName,
      startMs: Date.parse(String(l.time)) - Number(l.durationMs ?? 0),
      ok: l.msg === 'collector run',
      outcome: l.outcome as string | undefined,
      written: (l.written ?? {}) as Record<string, number>,
    }))
  const perService = services.map(runsOf)
  const runs = perService.flat()
  const patterns: Record<CollectorName, string> = { ...SCHEDULE_PATTERNS, 'full-status': fullStatusCron }
  // A firing is completed when any of the three processes completed it (the others find the tick stored, or the lock held).
  const collectors = COLLECTOR_NAMES.map((c) => {
    const perProcess = perService.map((mine) => tally(c, patterns[c], mine, fromMs, toMs))
    const firings = perProcess[0]!.firings
    return {
      collector: c, pattern: patterns[c], firings,
      completedByAll: Math.min(...perProcess.map((p) => p.completed)),
      wrote: perProcess.reduce((s, p) => s + p.written, 0),
      failed: perProcess.reduce((s, p) => s + p.failed, 0),
      // Firings no process completed: no successful run of any process from the firing to the next one (3 s at most).
      lostEverywhere: firingsBetween(patterns[c], fromMs, toMs).filter((f, i, all) =>
        !runs.some((r) => r.collector === c && r.ok && r.startMs >= f - 250 && r.startMs < Math.min(f + 3000, all[i + 1] ?? Infinity))).length,
    }
  })
  const rows = rowTally(runs, before, after)
  const all = load.samples.flat().sort((a, b) => a - b)
  const requests = all.length + load.networkErrors
  const errors = load.networkErrors + Object.values(load.non2xx).reduce((a, b) => a + b, 0)
  const lost = collectors.reduce((s, c) => s + c.lostEverywhere, 0)
  const rowGaps = rows.filter((r) => r.reported !== r.stored)
  const spanS = (toMs - fromMs) / 1000
  const L = [
    '## Three service processes behind a proxy, one primary and one read replica',
    '',
    `\`npm run bench:topology -- --duration ${durationS} --connections ${connections}\`, ${new Date().toISOString().slice(0, 16)} UTC. ` +
      `${cpus()[0]?.model ?? 'cpu'}, ${cpus().length} cores, load average at the end ${loadavg()[0]!.toFixed(2)}. ` +
      'Everything on these cores: the primary and the replica (scripts/testdb.sh: PostgreSQL 17 + TimescaleDB Apache, streaming replication), ' +
      `three \`bun src/main.ts\` (schedules on, full-status \`${fullStatusCron}\`, \`DATABASE_READ_URL\` = the replica, \`DB_POOL_MAX=5\`), ` +
      `HAProxy ${Bun.spawnSync(['haproxy', '-v']).stdout.toString().split(' ')[2] ?? ''} (round robin, health check on /health/ready), the simulator, and the Bun fetch load generator (${connections} keep-alive loops over ${SOAK_ROUTES.length} read routes through the proxy).`,
    '',
    `**${errors === 0 ? 'No failed request' : `${errors} failed requests`}; ${lost === 0 ? 'no tick lost' : `${lost} ticks lost`}; ` +
      `${rowGaps.length === 0 ? 'every row the runs reported stored once' : `${rowGaps.length} tables whose rows differ from what the runs reported`}; ` +
      `answers identical across the three processes in ${agreement.atOnce + agreement.withinBound} of ${agreement.samples} samples (${agreement.atOnce} at once, ${agreement.withinBound} within ${BOUND_MS} ms, longest ${Math.round(agreement.maxConvergeMs)} ms), ${agreement.beyond} beyond.**`,
    '',
    '| Requests | Duration | Throughput | p50 | p90 | p99 | max | non-2xx | no answer |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| ${requests.toLocaleString('en')} | ${spanS.toFixed(0)} s | ${Math.round(requests / spanS).toLocaleString('en')} req/s | ${ms(percentile(all, 50))} ms | ${ms(percentile(all, 90))} ms | ${ms(percentile(all, 99))} ms | ${ms(all.at(-1) ?? NaN)} ms | ${JSON.stringify(load.non2xx) === '{}' ? 0 : JSON.stringify(load.non2xx)} | ${load.networkErrors} |`,
    '',
    '| Collector | Schedule | Firings in the window | Completed by every process | Runs that wrote (all processes) | Failed runs | Lost (no process completed it) |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...collectors.map((c) => `| ${c.collector} | \`${c.pattern}\` | ${c.firings} | ${c.completedByAll} | ${c.wrote} | ${c.failed} | ${c.lostEverywhere} |`),
    '',
    '| Table | Rows the runs reported (3 processes) | Rows stored |',
    '|---|---:|---:|',
    ...rows.map((x) => `| ${x.table} | ${x.reported.toLocaleString('en')} | ${x.stored.toLocaleString('en')} |`),
    '',
    '| Process | Reads on the replica | Reads on the primary | Replica lag at the end |',
    '|---|---:|---:|---:|',
    ...health.map((h, i) => `| ${i + 1} | ${(h.readReplicas?.replicas?.[0]?.reads ?? 0).toLocaleString('en')} | ${(h.readReplicas?.primaryReads ?? 0).toLocaleString('en')} | ${h.readReplicas?.replicas?.[0]?.lagMs ?? '–'} ms |`),
    '',
    'Reads on the primary are the reads made right after a commit the process had heard of, before the replica had replayed it (README "Read replicas"), and the statements of the three processes\' collectors are not counted here (they are always on the primary).',
  ]
  const md = L.join('\n')
  process.stdout.write(`${md}\n`)
  if (!argv['no-write']) writeSection(`${ROOT}/BENCHMARKS.md`, 'topology', md)
  await cleanup()
  process.exit(errors === 0 && lost === 0 && rowGaps.length === 0 && agreement.beyond === 0 ? 0 : 3)
} catch (err) {
  progress(`failed: ${err instanceof Error ? err.stack : err}`)
  await cleanup()
  process.exit(1)
}
