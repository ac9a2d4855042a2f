/**
 * `npm run bench:fair-use`: fair use under a flood, measured. Its own
 * TimescaleDB instance (scripts/testdb.sh) with a scratch database, migrated; the feed
 * simulator; one service process (`bun src/main.ts`, RATE_LIMIT=on with the documented
 * budgets unless options change them, SCHEDULE_ENABLED=false, no TRUSTED_PROXIES); a
 * little data collected through the collector routes. Three clients, each from a loopback
 * address of its own: the service tells them apart by the socket's peer, as it tells
 * machines apart on the internet (no forwarding header involved; Linux routes the whole
 * 127.0.0.0/8 to the loopback interface):
 * - polite, 127.0.0.2: one keep-alive connection (node:http), a steady R requests a
 *   second cycling over /war, /divers/history (24h, 7d) and /campaigns, planned within its
 *   budget; every latency (request sent → last byte) and status recorded;
 * - flooder, 127.0.0.1: wrk (C connections, T threads) on one computed route, its script
 *   (bench/fair-use-flood.lua) counting the answers by status and checking every 429's
 *   headers (Retry-After, RateLimit-Policy, RateLimit) and body;
 * - writer, 127.0.0.3: the run's collector POSTs, every 15 s of each phase (player-count
 *   and full-status in turn, as a schedule would), so some polite reads are computed.
 * Two phases of S seconds, 5 s apart: the polite client alone, then the same with the
 * flood. The report: the polite client's p50 / p99 / max and statuses in each phase and
 * their ratios (one run), the flood's requests/s and share of 429, and one 429 checked.
 * Exit code 3 when a polite request was refused or failed, the flood got no 429 (or fewer
 * than half of its answers), or a 429 missed a promised header.
 *
 *   npm run bench:fair-use [-- options]
 *     --seconds S        length of each phase (default 40)
 *     --rate R           the polite client's requests a second (default 4)
 *     --connections C    the flooder's wrk connections (default 32)
 *     --threads T        the flooder's wrk threads (default 2)
 *     --flood-path P     what the flooder asks (default /api/v1/war/trends: computed at each request)
 *     --quota Q          RATE_LIMIT_QUOTA of the service (default: the service's own, 600)
 *     --window W         RATE_LIMIT_WINDOW_SECONDS (default: 60)
 *     --compute-cost K   RATE_LIMIT_COMPUTE_COST (default: 10)
 *     --no-write         print only (default: write the section `fair-use` into BENCHMARKS.md)
 */
import http from 'node:http'
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import type { Subprocess } from 'bun'
import { loadConfig } from '../src/config.ts'
import type { Simulator } from '../src/sim/server.ts'
import { storageFigures } from '../src/storage/policies.ts'
import { startService, type ServiceProcess } from '../test/support/process.ts'
import { commitOf, machine, sameCheckout } from './checkout.ts'
import { cleanUpOnSignals, printUsageAndExit, progressSince, scriptArgs } from './cli.ts'
import { cpuSeconds } from './load.ts'
import { commitMeasured, sectionTitle, writeSection, type Commit, type Machine } from './report.ts'
import { ROOT, serviceBench, type BenchDatabase } from './setup.ts'
import { ms, percentile } from './stats.ts'
import { ensureWrk } from './wrk.ts'

export const ADDRESSES = { polite: '127.0.0.2', flooder: '127.0.0.1', writer: '127.0.0.3' } as const

/** One request of the polite client's cycle; `computed`: the route keeps no answer (every request reaches the database). */
export interface PoliteRequest {
  path: string
  computed: boolean
}

const WAR: PoliteRequest = { path: '/api/v1/war', computed: false }
const DIVERS_24H: PoliteRequest = { path: '/api/v1/divers/history?range=24h', computed: false }
const DIVERS_7D: PoliteRequest = { path: '/api/v1/divers/history?range=7d', computed: false }
const CAMPAIGNS: PoliteRequest = { path: '/api/v1/campaigns', computed: true }

/** What the polite client asks, in turn: a dashboard's reads, the war state most often, the campaigns (computed at each request) least. */
export const POLITE_CYCLE: readonly PoliteRequest[] = [
  WAR, DIVERS_24H, WAR, DIVERS_7D,
  WAR, DIVERS_24H, WAR, DIVERS_7D,
  WAR, DIVERS_24H, WAR, DIVERS_7D,
  WAR, DIVERS_24H, WAR, CAMPAIGNS,
]

/** Seconds between two writes of a phase: the player-count collector's cadence. */
export const WRITE_EVERY_S = 15

/** The collector POSTs of a phase of `seconds`: every 15 s from its 5th second, player-count and full-status in turn. */
export function writesOf(seconds: number): { atS: number; collector: 'player-count' | 'full-status' }[] {
  const out: { atS: number; collector: 'player-count' | 'full-status' }[] = []
  for (let at = 5, i = 0; at < seconds; at += WRITE_EVERY_S, i++) out.push({ atS: at, collector: i % 2 === 0 ? 'player-count' : 'full-status' })
  return out
}

/**
 * Units a second the polite client plans to spend: its cycle's (a kept answer 1 unit, a
 * computed one `computeCost`), plus, for each write of the phase, every kept path of the
 * cycle computed once after it (an upper bound: a write moves only some datasets).
 */
export function plannedUnitsPerSecond(o: { rate: number; seconds: number; computeCost: number; cycle?: readonly PoliteRequest[] }): number {
  const cycle = o.cycle ?? POLITE_CYCLE
  const perRequest = cycle.reduce((a, r) => a + (r.computed ? o.computeCost : 1), 0) / cycle.length
  const keptPaths = new Set(cycle.filter((r) => !r.computed).map((r) => r.path)).size
  const afterWrites = (writesOf(o.seconds).length * keptPaths * (o.computeCost - 1)) / o.seconds
  return perRequest * o.rate + afterWrites
}

/** One answer the polite client got (status 0: no answer, `error` says why). */
export interface PoliteAnswer {
  path: string
  /** When it was sent, in seconds since the phase started. */
  atS: number
  status: number
  ms: number
  /** The `r` of its RateLimit header: units left in its budget. */
  remaining: number | null
  /** Sent more than 1 ms after its time, the previous answer having come late. */
  late: boolean
  error?: string
}

export interface LatencySummary {
  requests: number
  ok: number
  /** 429: refused for want of budget. */
  refused: number
  /** Any other status, or no answer. */
  failed: number
  p50: number
  p99: number
  max: number
  mean: number
  lowestRemaining: number | null
  late: number
}

/** The polite client's figures over some answers (latencies of every answer received, whatever its status). */
export function summarizePolite(answers: readonly PoliteAnswer[]): LatencySummary {
  const lat = answers.filter((a) => a.status !== 0).map((a) => a.ms).sort((a, b) => a - b)
  const remaining = answers.map((a) => a.remaining).filter((r): r is number => r !== null)
  return {
    requests: answers.length,
    ok: answers.filter((a) => a.status === 200).length,
    refused: answers.filter((a) => a.status === 429).length,
    failed: answers.filter((a) => a.status !== 200 && a.status !== 429).length,
    p50: percentile(lat, 50),
    p99: percentile(lat, 99),
    max: lat.at(-1) ?? NaN,
    mean: lat.reduce((a, b) => a + b, 0) / lat.length,
    lowestRemaining: remaining.length ? Math.min(...remaining) : null,
    late: answers.filter((a) => a.late).length,
  }
}

/** The route patterns of the polite client's paths, as the service's request metrics name them. */
export const POLITE_ROUTES = [...new Set(POLITE_CYCLE.map((q) => q.path.split('?')[0]!))]

/**
 * The time the service's handlers took over some routes (GET, any status) so far, from its
 * request metrics (`http_request_duration_seconds`: from the request's arrival in the app
 * to its answer, so neither the wait before it nor the client's own time).
 */
export function handlerSeconds(metrics: string, routes: readonly string[]): { sum: number; count: number } {
  const out = { sum: 0, count: 0 }
  for (const line of metrics.split('\n')) {
    const m = /^http_request_duration_seconds_(sum|count)\{([^}]*)\} (\S+)$/.exec(line)
    if (!m) continue
    const labels = Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]))
    if (labels.method !== 'GET' || !routes.includes(labels.route ?? '')) continue
    out[m[1] as 'sum' | 'count'] += Number(m[3])
  }
  return out
}

/** The `count` slowest answers of a phase, each with the time since the phase's last write before it (null: none yet). */
export function slowest(p: Pick<Phase, 'answers' | 'writes'>, count: number): (PoliteAnswer & { sinceWriteS: number | null; write: string | null })[] {
  return [...p.answers]
    .filter((a) => a.status !== 0)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count)
    .map((a) => {
      const w = p.writes.filter((x) => x.atS <= a.atS).at(-1)
      return { ...a, sinceWriteS: w ? a.atS - w.atS : null, write: w?.collector ?? null }
    })
}

/** `"default";r=42;t=12` → 42. */
export const remainingOf = (rateLimit: string | undefined): number | null => {
  const m = rateLimit === undefined ? null : /;r=(\d+)/.exec(rateLimit)
  return m ? Number(m[1]) : null
}

/** What the flood script printed (bench/fair-use-flood.lua). */
export interface FloodResult {
  statuses: Record<string, number>
  /** 429s that failed a check, by check (retry-after, ratelimit-policy, ratelimit, body). */
  failed: Record<string, number>
  /** The first 429 that failed each check: its headers and body, as `sample`. */
  failedSamples: Record<string, Record<string, string>>
  /** The first 429: its headers (lower case) and its body under "(body)". */
  sample: Record<string, string> | null
  durationUs: number
  requests: number
  socketErrors: { connect: number; read: number; write: number; timeout: number }
  latencyUs: { p50: number; p99: number; max: number }
}

export function parseFlood(stdout: string): FloodResult {
  const line = stdout.split('\n').find((l) => l.startsWith('FAIR-USE-FLOOD '))
  if (line === undefined) throw new Error(`no FAIR-USE-FLOOD line in wrk's output: ${stdout.slice(0, 500)}`)
  return JSON.parse(line.slice('FAIR-USE-FLOOD '.length)) as FloodResult
}

/**
 * What is wrong with a 429 as docs/api.md describes it (empty: nothing), the checks the
 * flood script makes of every 429: Retry-After a whole number of seconds ≥ 1,
 * RateLimit-Policy the client's policy, RateLimit of that policy with no unit left (`r=0`)
 * and `t` ≥ Retry-After (full again no sooner than the next unit is there; a budget in debt
 * after computed answers takes longer than the window), a body `{"error": "too many requests…"}`.
 */
export function refusalProblems(sample: Record<string, string> | null, policy: string): string[] {
  if (sample === null) return ['no 429 seen']
  const problems: string[] = []
  const retry = sample['retry-after']
  const retryS = retry !== undefined && /^\d+$/.test(retry) ? Number(retry) : NaN
  if (!(retryS >= 1)) problems.push(`Retry-After ${JSON.stringify(retry)}`)
  if (sample['ratelimit-policy'] !== policy) problems.push(`RateLimit-Policy ${JSON.stringify(sample['ratelimit-policy'])}, not ${policy}`)
  const name = /^"([^"]+)"/.exec(policy)?.[1]
  const rl = /^"([^"]+)";r=(\d+);t=(\d+)$/.exec(sample.ratelimit ?? '')
  if (!rl || rl[1] !== name || rl[2] !== '0' || Number(rl[3]) < (retryS || 0)) problems.push(`RateLimit ${JSON.stringify(sample.ratelimit)}`)
  try {
    const body = JSON.parse(sample['(body)'] ?? '') as unknown
    const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined
    if (typeof error !== 'string' || !error.startsWith('too many requests')) problems.push('body without {"error": "too many requests…"}')
  } catch {
    problems.push(`body not JSON: ${JSON.stringify(sample['(body)']?.slice(0, 100))}`)
  }
  return problems
}

export interface Phase {
  label: string
  seconds: number
  answers: PoliteAnswer[]
  polite: LatencySummary
  writes: { atS: number; collector: string; status: number; outcome: string; ms: number }[]
  /** Service CPU (user + system) over the phase, s. */
  serviceCpuS: number
  /** The service's handlers on the polite client's routes over the phase (its request metrics). */
  handlers: { sum: number; count: number }
  loadAtEnd: number
  flood: (FloodResult & { cpuS: number }) | null
}

/** Retry-After taken at its word: a 429 from the flooder's address after the flood, then one request once its Retry-After has passed. */
export interface RetryProbe {
  /** Requests until a 429 came (one admitted first when the budget had refilled meanwhile). */
  tries: number
  retryAfterS: number
  /** The status of the request sent Retry-After seconds after the 429 (0: not sent). */
  thenStatus: number
}

export interface FairUseRun {
  commit: Commit
  machine: Machine
  command: string
  date: string
  totalS: number
  loadStart: number
  database: { edition: string; timescaledbVersion: string | null; serverVersion: string }
  sizes: { table: string; rows: number; bytes: number | null }[]
  limits: { quota: number; windowSeconds: number; computeCost: number; policy: string }
  rate: number
  plannedUnitsPerS: number
  flood: { path: string; threads: number; connections: number }
  alone: Phase
  flooded: Phase
  retry: RetryProbe
}

/** Why the run fails its targets (empty: it meets them). */
export function failures(r: FairUseRun): string[] {
  const out: string[] = []
  for (const p of [r.alone, r.flooded]) {
    if (p.polite.refused) out.push(`${p.polite.refused} polite request(s) refused (429) ${p.label}`)
    if (p.polite.failed) out.push(`${p.polite.failed} polite request(s) failed ${p.label}`)
  }
  const f = r.flooded.flood
  if (!f) return [...out, 'no flood result']
  const refused = f.statuses['429'] ?? 0
  if (refused === 0) out.push('the flood got no 429')
  else if (refused < f.requests / 2) out.push(`only ${refused} of the flood's ${f.requests} answers were 429`)
  const bad = Object.entries(f.failed)
  if (bad.length) out.push(`429s failing a check: ${bad.map(([k, v]) => `${k} ${v}`).join(', ')}`)
  const sample = refusalProblems(f.sample, r.limits.policy)
  if (sample.length) out.push(`the 429 checked: ${sample.join('; ')}`)
  if (r.retry.thenStatus === 0) out.push(`Retry-After not probed (${r.retry.tries} requests, Retry-After ${r.retry.retryAfterS})`)
  else if (r.retry.thenStatus === 429) out.push(`a request sent ${r.retry.retryAfterS} s after a 429 with Retry-After: ${r.retry.retryAfterS} was refused again`)
  return out
}

const n = (v: number) => Math.round(v).toLocaleString('en')
const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)}×` : '–')
const cell = (s: string) => s.replace(/\|/g, '\\|')

/** Mean time of the service's handlers per polite request in a phase, ms. */
const handlerMs = (p: Phase) => (1000 * p.handlers.sum) / p.handlers.count

export function renderSection(r: FairUseRun): string {
  const { alone: a, flooded: b } = r
  const f = b.flood!
  const problems = failures(r)
  const refused429 = f.statuses['429'] ?? 0
  const floodS = f.durationUs / 1e6
  const share = f.requests ? refused429 / f.requests : NaN
  const others = Object.entries(f.statuses).filter(([s]) => s !== '429' && s !== '200')
  const socketErrors = Object.values(f.socketErrors).reduce((s, v) => s + v, 0)
  const failedChecks = Object.values(f.failed).reduce((s, v) => s + v, 0)
  const p99Ratio = b.polite.p99 / a.polite.p99
  const row = (p: Phase) =>
    `| ${p.label} | ${p.seconds} s | ${p.polite.requests} | ${p.polite.ok} | **${p.polite.refused}** | ${p.polite.failed} | ${ms(p.polite.p50)} ms | **${ms(p.polite.p99)} ms** | ${ms(p.polite.max)} ms | ` +
    `${p.polite.lowestRemaining ?? '–'} | ${p.polite.late} | ${p.serviceCpuS.toFixed(1)} s | ${p.loadAtEnd.toFixed(2)} |`
  const byRoute = [...new Set(POLITE_CYCLE.map((q) => q.path))].map((path) => {
    const s = (p: Phase) => summarizePolite(p.answers.filter((q) => q.path === path))
    const [sa, sb] = [s(a), s(b)]
    return `| \`${path}\` | ${sa.requests} | ${ms(sa.p50)} / ${ms(sa.p99)} / ${ms(sa.max)} ms | ${sb.requests} | ${ms(sb.p50)} / ${ms(sb.p99)} / ${ms(sb.max)} ms | ${x(sb.p99 / sa.p99)} |`
  })
  const writes = (p: Phase) => p.writes.map((w) => `${w.collector} at ${w.atS} s: ${w.status} ${w.outcome} (${ms(w.ms)} ms)`).join(', ') || 'none'
  const sample = f.sample ?? {}
  const shown = ['retry-after', 'ratelimit-policy', 'ratelimit', 'content-type', 'cache-control'].filter((h) => sample[h] !== undefined)
  const mix = [...new Set(POLITE_CYCLE.map((q) => q.path))].map((path) => `${POLITE_CYCLE.filter((q) => q.path === path).length} \`${path}\``).join(', ')
  const L = [
    sectionTitle({
      label: 'Fair use under a flood, one process',
      commit: r.commit, machine: r.machine, sizes: r.sizes,
      database: { label: 'TimescaleDB (scripts/testdb.sh)', ...r.database, notes: '' },
    }),
    '',
    `${commitMeasured(r.commit)}.`,
    '',
    `**Target: a flooding client gets 429s with correct headers while a polite client keeps its latency and none of its requests is refused: ${problems.length ? 'missed' : 'met'}** ` +
      `(polite p99 ${ms(a.polite.p99)} ms alone, ${ms(b.polite.p99)} ms during the flood: **${x(p99Ratio)}**, one run; polite requests refused: ${a.polite.refused + b.polite.refused} of ${a.polite.requests + b.polite.requests}; ` +
      `the flood: ${n(f.requests / floodS)} requests/s, ${(100 * share).toFixed(2)} % of them 429, ${failedChecks === 0 ? `all ${n(refused429)} 429s with Retry-After, RateLimit-Policy and RateLimit as documented` : `${n(failedChecks)} 429s failing a check`}).` +
      (problems.length ? ` Failed: ${problems.join('; ')}.` : ''),
    '',
    `- **Date:** ${r.date} UTC (whole run ${r.totalS.toFixed(0)} s)`,
    `- **Command:** \`${r.command}\``,
    `- **Machine:** ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memGiB.toFixed(1)} GiB RAM; ${r.machine.os}, Linux ${r.machine.kernel}, Bun ${r.machine.bun}; ` +
      `load average (1 min) at the start ${r.loadStart.toFixed(2)}, after each phase in the table (a shared machine: other work ran on it too)`,
    `- **Setup:** everything on these cores: TimescaleDB (edition \`${r.database.edition}\`, TimescaleDB ${r.database.timescaledbVersion ?? '–'}, PostgreSQL ${r.database.serverVersion}, a scratch database), ` +
      `one \`bun src/main.ts\` (RATE_LIMIT=on: RATE_LIMIT_QUOTA=${r.limits.quota}, RATE_LIMIT_WINDOW_SECONDS=${r.limits.windowSeconds}, RATE_LIMIT_COMPUTE_COST=${r.limits.computeCost}; no TRUSTED_PROXIES; SCHEDULE_ENABLED=false, DB_POOL_MAX=5), ` +
      'the feed simulator and the polite client (in the bench process), and wrk. Each client from a loopback address of its own, seen by the service as the socket\'s peer ' +
      `(no forwarding header): polite ${ADDRESSES.polite}, flooder ${ADDRESSES.flooder}, writer ${ADDRESSES.writer}.`,
    `- **Polite client:** one keep-alive connection (node:http), ${r.rate} requests a second on a fixed schedule (a request sent after its time only when the previous answer came late: "late" below), ` +
      `cycling over ${mix} (${POLITE_CYCLE.length} requests a cycle); planned at ${r.plannedUnitsPerS.toFixed(1)} units a second at most (the campaigns computed each time, every other route computed once after each write) ` +
      `of the ${(r.limits.quota / r.limits.windowSeconds).toFixed(1)} its budget refills. Latency: request sent → last byte, in the bench process. Both phases start the cycle afresh, after one unrecorded cycle before the first.`,
    `- **Flooder:** \`wrk -t${r.flood.threads} -c${r.flood.connections} -d${b.seconds}s -s bench/fair-use-flood.lua\` on \`${r.flood.path}\` (computed at each admitted request), started with the second phase; ` +
      'its script counts every answer by status and checks every 429 against docs/api.md (Retry-After a whole number of seconds ≥ 1; RateLimit-Policy the policy; RateLimit of that policy with `r=0` and `t` ≥ Retry-After; ' +
      'a body `{"error": "too many requests…"}`): the script costs wrk some of its rate.',
    `- **Writes** (collector POSTs from the writer): alone: ${writes(a)}; with the flood: ${writes(b)}.`,
    '',
    '| Phase | Length | Polite requests | 200 | Refused (429) | Failed | p50 | p99 | max | Lowest `RateLimit` r | Late | Service CPU | Load average after |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    row(a),
    row(b),
    `| flood ÷ alone | | | | | | ${x(b.polite.p50 / a.polite.p50)} | **${x(p99Ratio)}** | ${x(b.polite.max / a.polite.max)} | | | ${x(b.serviceCpuS / a.serviceCpuS)} | |`,
    '',
    '| Polite route | Alone: requests | p50 / p99 / max | With the flood: requests | p50 / p99 / max | p99 ratio |',
    '|---|---:|---:|---:|---:|---:|',
    ...byRoute,
    '',
    `| Flooder (${ADDRESSES.flooder}) | Answers | Requests/s | 429 | Share of 429 | 200 | Other statuses | Socket errors | wrk latency p50 / p99 / max | 429s failing a check | wrk CPU |`,
    '|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|',
    `| \`${r.flood.path}\`, ${floodS.toFixed(1)} s | ${n(f.requests)} | ${n(f.requests / floodS)} | ${n(refused429)} | ${(100 * share).toFixed(2)} % | ${n(f.statuses['200'] ?? 0)} | ` +
      `${others.length ? others.map(([s, c]) => `${s}: ${c}`).join(', ') : 'none'} | ${socketErrors} | ${ms(f.latencyUs.p50 / 1000)} / ${ms(f.latencyUs.p99 / 1000)} / ${ms(f.latencyUs.max / 1000)} ms | ` +
      `${failedChecks === 0 ? '0' : `**${Object.entries(f.failed).map(([k, v]) => `${k} ${v}`).join(', ')}**`} | ${f.cpuS.toFixed(1)} s |`,
    '',
    `The first 429 the flooder got (headers as wrk read them, lower-cased), checked against docs/api.md: ${(() => {
      const p = refusalProblems(f.sample, r.limits.policy)
      return p.length ? `**${p.map(cell).join('; ')}**` : 'as documented'
    })()}.`,
    '',
    '```http',
    'HTTP/1.1 429 Too Many Requests',
    ...shown.map((h) => `${h}: ${sample[h]}`),
    '',
    sample['(body)'] ?? '(no body)',
    '```',
    '',
    ...Object.entries(f.failedSamples).flatMap(([check, h]) => [
      `The first 429 failing the ${check} check (of ${n(f.failed[check] ?? 0)}): ` +
        ['retry-after', 'ratelimit-policy', 'ratelimit'].map((k) => `\`${k}: ${h[k] ?? '(none)'}\``).join(', ') + `, body \`${(h['(body)'] ?? '').slice(0, 200)}\`.`,
      '',
    ]),
    `Retry-After taken at its word, after the flood, from the flooder's address: ${r.retry.tries > 1 ? `${r.retry.tries - 1} request(s) admitted first (the budget had refilled), then ` : ''}` +
      `a 429 with Retry-After: ${r.retry.retryAfterS}; the same request ${r.retry.retryAfterS} s later: **${r.retry.thenStatus || 'not sent'}**.`,
    '',
    `Slowest polite answers (route, sent at, latency; the phase's last write before it): ${[a, b]
      .map((p) => `${p.label}: ${slowest(p, 3).map((q) => `\`${q.path.replace('/api/v1', '')}\` at ${q.atS.toFixed(1)} s ${ms(q.ms)} ms (${q.write === null ? 'no write yet' : `${q.sinceWriteS!.toFixed(1)} s after ${q.write}`})`).join(', ')}`)
      .join('; ')}.`,
    '',
    `Where the time goes, during the flood: the service used ${b.serviceCpuS.toFixed(1)} s of CPU in ${b.seconds} s (${a.serviceCpuS.toFixed(1)} s alone) and wrk ${f.cpuS.toFixed(1)} s, on ${r.machine.cores} cores shared with the database, ` +
      `the bench process and other work (load average ${b.loadAtEnd.toFixed(2)} after the phase). The polite client's mean latency went from ${ms(a.polite.mean)} to ${ms(b.polite.mean)} ms; ` +
      `the service's handlers on its routes (request metrics: from the request's arrival in the app to its answer) from ${ms(handlerMs(a))} to ${ms(handlerMs(b))} ms, ` +
      `the rest (the request waiting to be read, the event loop's turn, a core, the client itself) from ${ms(a.polite.mean - handlerMs(a))} to ${ms(b.polite.mean - handlerMs(b))} ms. ` +
      `The flood's ${r.flood.connections} connections are answered in turn: ${r.flood.connections} ÷ ${n(f.requests / floodS)} answers/s = ${ms((1000 * r.flood.connections * floodS) / f.requests)} ms a turn (wrk's p50 ${ms(f.latencyUs.p50 / 1000)} ms); ` +
      'a computed answer waits for the event loop again after each of its database round trips, one reason the computed routes grow most.',
  ]
  return L.join('\n')
}

// ------------------------------------------------------------------ the run

interface Answer {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
  ms: number
}

/** A client on one keep-alive connection from `localAddress`. */
function clientFrom(localAddress: string, base: string) {
  const u = new URL(base)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress })
  const request = (method: 'GET' | 'POST', path: string, headers: Record<string, string> = {}) =>
    new Promise<Answer>((resolve, reject) => {
      const t0 = performance.now()
      const req = http.request({ host: u.hostname, port: Number(u.port), method, path, headers, agent, timeout: 30_000 }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (body += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, ms: performance.now() - t0 }))
        res.on('error', reject)
      })
      req.on('timeout', () => req.destroy(new Error('no answer in 30 s')))
      req.on('error', reject)
      req.end()
    })
  return { request, close: () => agent.destroy() }
}
type Client = ReturnType<typeof clientFrom>

/** The polite client for `seconds`: request i is sent at t0 + i / rate (or when the previous answer comes, if later). */
async function politeRun(client: Client, seconds: number, rate: number): Promise<PoliteAnswer[]> {
  const every = 1000 / rate
  const count = Math.floor(seconds * rate)
  const out: PoliteAnswer[] = []
  const t0 = performance.now()
  for (let i = 0; i < count; i++) {
    const wait = t0 + i * every - performance.now()
    if (wait > 0) await Bun.sleep(wait)
    const { path } = POLITE_CYCLE[i % POLITE_CYCLE.length]!
    const atS = (performance.now() - t0) / 1000
    try {
      const a = await client.request('GET', path)
      out.push({ path, atS, status: a.status, ms: a.ms, remaining: remainingOf(a.headers.ratelimit as string | undefined), late: wait < -1 })
    } catch (err) {
      out.push({ path, atS, status: 0, ms: NaN, remaining: null, late: wait < -1, error: String(err) })
    }
  }
  return out
}

/** Ask until a 429 comes (at most 5 times), wait its Retry-After (up to 120 s), ask once more. */
async function retryAfterProbe(client: Client, path: string): Promise<RetryProbe> {
  for (let tries = 1; tries <= 5; tries++) {
    const a = await client.request('GET', path)
    if (a.status !== 429) continue
    const retryAfterS = Number(a.headers['retry-after'])
    if (!(retryAfterS >= 1 && retryAfterS <= 120)) return { tries, retryAfterS, thenStatus: 0 }
    await Bun.sleep(retryAfterS * 1000)
    return { tries, retryAfterS, thenStatus: (await client.request('GET', path)).status }
  }
  return { tries: 5, retryAfterS: NaN, thenStatus: 0 }
}

async function main() {
  const { values: argv } = parseArgs({
    args: scriptArgs(),
    options: {
      seconds: { type: 'string', default: '40' },
      rate: { type: 'string', default: '4' },
      connections: { type: 'string', default: '32' },
      threads: { type: 'string', default: '2' },
      'flood-path': { type: 'string', default: '/api/v1/war/trends' },
      quota: { type: 'string' },
      window: { type: 'string' },
      'compute-cost': { type: 'string' },
      'no-write': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (argv.help) printUsageAndExit(import.meta.path)
  const started = performance.now()
  const progress = progressSince(started)
  const usage = (line: string): never => {
    process.stderr.write(`bench:fair-use: ${line}\n`)
    process.exit(2)
  }
  const S = Number(argv.seconds)
  const rate = Number(argv.rate)
  const connections = Number(argv.connections)
  const threads = Number(argv.threads)
  const floodPath = argv['flood-path']!
  if (!(Number.isInteger(S) && S >= 5)) usage('--seconds: a whole number ≥ 5 (wrk takes whole seconds)')
  if (!(rate > 0)) usage('--rate: > 0')
  if (!(Number.isInteger(threads) && threads >= 1 && Number.isInteger(connections) && connections >= threads)) usage('--threads ≥ 1, --connections ≥ --threads')
  if (!floodPath.startsWith('/')) usage('--flood-path: a path, e.g. /api/v1/war/trends')
  const rateEnv: Record<string, string> = {
    RATE_LIMIT: 'on',
    ...(argv.quota ? { RATE_LIMIT_QUOTA: argv.quota } : {}),
    ...(argv.window ? { RATE_LIMIT_WINDOW_SECONDS: argv.window } : {}),
    ...(argv['compute-cost'] ? { RATE_LIMIT_COMPUTE_COST: argv['compute-cost'] } : {}),
  }
  let config: ReturnType<typeof loadConfig>
  try {
    config = loadConfig(rateEnv)
  } catch (err) {
    return usage(String(err instanceof Error ? err.message : err))
  }
  const limits = {
    quota: config.rateLimitQuota,
    windowSeconds: config.rateLimitWindowSeconds,
    computeCost: config.rateLimitComputeCost,
    policy: `"default";q=${config.rateLimitQuota};w=${config.rateLimitWindowSeconds}`,
  }
  const plannedUnitsPerS = plannedUnitsPerSecond({ rate, seconds: S, computeCost: limits.computeCost })
  const refill = limits.quota / limits.windowSeconds
  if (plannedUnitsPerS > refill) usage(`the polite client would spend up to ${plannedUnitsPerS.toFixed(1)} units a second, more than the ${refill.toFixed(1)} its budget refills: lower --rate`)
  if (!(await ensureWrk({ progress }))) usage('this bench needs wrk (its flooder runs apart from the polite client\'s process): install Debian\'s wrk')
  const command = `npm run bench:fair-use${scriptArgs().filter((a) => a !== '--no-write').length ? ` -- ${scriptArgs().filter((a) => a !== '--no-write').join(' ')}` : ''}`

  let bench: BenchDatabase | undefined
  let sim: Simulator | undefined
  let svc: ServiceProcess | undefined
  let wrk: Subprocess<'ignore', 'pipe', 'pipe'> | undefined
  const clients: Client[] = []
  let cleaning: Promise<void> | undefined
  const cleanup = () =>
    (cleaning ??= (async () => {
      if (wrk && wrk.exitCode === null) wrk.kill('SIGKILL')
      for (const c of clients) c.close()
      await svc?.stop('SIGKILL').catch(() => {})
      await sim?.stop().catch(() => {})
      await bench?.close().catch((e) => progress(`database close failed: ${e}`))
    })())
  cleanUpOnSignals(cleanup, progress)

  try {
    const commitAtStart = commitOf(progress)
    const m = machine()
    const loadStart = loadavg()[0]!
    progress(`${S} s alone then ${S} s flooded; polite ${rate}/s (planned ≤ ${plannedUnitsPerS.toFixed(1)} of ${refill.toFixed(1)} units/s); flood wrk -t${threads} -c${connections} ${floodPath}; ${m.cpu}, ${m.cores} cores, load average ${loadStart.toFixed(2)}`)
    const SECRET = 'fair-use-bench-secret'
    let env: Record<string, string>
    ;({ bench, sim, env } = await serviceBench(progress, SECRET))
    const { sql, info } = bench.db
    svc = await startService({ ...env, ...rateEnv })
    const base = svc.baseUrl
    const pid = svc.proc.pid
    progress(`service: ${base} (pid ${pid}), ${limits.policy}, compute cost ${limits.computeCost}`)
    const polite = clientFrom(ADDRESSES.polite, base)
    const writer = clientFrom(ADDRESSES.writer, base)
    clients.push(polite, writer)

    const collect = async (collector: string) => {
      const a = await writer.request('POST', `/api/v1/collect/${collector}`, { 'x-collector-secret': SECRET })
      let outcome = a.body.slice(0, 80)
      try {
        outcome = (JSON.parse(a.body) as { outcome?: string; error?: string }).outcome ?? outcome
      } catch {}
      return { status: a.status, outcome, ms: a.ms }
    }
    // Data for the reads: the war, a full-status tick, a player count.
    for (const c of ['war-info', 'full-status', 'player-count']) {
      const r = await collect(c)
      if (r.status !== 200) throw new Error(`seed ${c}: ${r.status} ${r.outcome}`)
    }
    // One unrecorded cycle: the routes' first answers, the connection, the JIT.
    for (const q of POLITE_CYCLE) {
      const a = await polite.request('GET', q.path)
      if (a.status !== 200) throw new Error(`warm-up ${q.path}: ${a.status} ${a.body.slice(0, 200)}`)
    }

    const handlersNow = async () => handlerSeconds((await writer.request('GET', '/metrics')).body, POLITE_ROUTES)
    const phase = async (label: string, flood: boolean): Promise<Phase> => {
      const handlers0 = await handlersNow()
      const cpu0 = cpuSeconds(pid)
      let floodResult: Promise<Phase['flood']> = Promise.resolve(null)
      if (flood) {
        const proc = Bun.spawn(
          ['wrk', `-t${threads}`, `-c${connections}`, `-d${S}s`, '-s', `${ROOT}/bench/fair-use-flood.lua`, `${base}${floodPath}`, '--', limits.policy],
          { cwd: ROOT, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' },
        )
        wrk = proc
        floodResult = (async () => {
          const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
          if (code !== 0) throw new Error(`wrk exited with ${code}: ${err}${out}`)
          const cpu = proc.resourceUsage()?.cpuTime.total
          return { ...parseFlood(out), cpuS: cpu === undefined ? NaN : Number(cpu) / 1e6 }
        })()
        floodResult.catch(() => {}) // awaited below
      }
      const writes = Promise.all(
        writesOf(S).map(async (w) => {
          await Bun.sleep(w.atS * 1000)
          return { ...w, ...(await collect(w.collector).catch((e) => ({ status: 0, outcome: String(e), ms: NaN }))) }
        }),
      )
      progress(`${label}: ${S} s`)
      const answers = await politeRun(polite, S, rate)
      const serviceCpuS = cpuSeconds(pid) - cpu0
      const loadAtEnd = loadavg()[0]!
      const handlers1 = await handlersNow()
      const handlers = { sum: handlers1.sum - handlers0.sum, count: handlers1.count - handlers0.count }
      const result: Phase = { label, seconds: S, answers, polite: summarizePolite(answers), writes: await writes, serviceCpuS, handlers, loadAtEnd, flood: await floodResult }
      const p = result.polite
      progress(`${label}: ${p.requests} polite requests, ${p.ok} 200, ${p.refused} 429, ${p.failed} failed; p50 ${ms(p.p50)} ms, p99 ${ms(p.p99)} ms, max ${ms(p.max)} ms; service CPU ${serviceCpuS.toFixed(1)} s`)
      if (result.flood) progress(`flood: ${result.flood.requests} answers (${JSON.stringify(result.flood.statuses)}), 429s failing a check: ${JSON.stringify(result.flood.failed)}`)
      for (const e of answers.filter((q) => q.error).slice(0, 3)) progress(`polite ${e.path}: ${e.error}`)
      return result
    }

    const alone = await phase('alone', false)
    await Bun.sleep(5000)
    const flooded = await phase('with the flood', true)
    const flooder = clientFrom(ADDRESSES.flooder, base)
    clients.push(flooder)
    const retry = await retryAfterProbe(flooder, floodPath)
    progress(`Retry-After probe: 429 with Retry-After ${retry.retryAfterS} after ${retry.tries} request(s); ${retry.retryAfterS} s later: ${retry.thenStatus}`)

    const sizes = await storageFigures(sql, info.edition)
    const commit = sameCheckout(commitAtStart, commitOf(progress))
    const run: FairUseRun = {
      commit, machine: m, command, date: new Date().toISOString().slice(0, 16), totalS: (performance.now() - started) / 1000, loadStart,
      database: { edition: info.edition, timescaledbVersion: info.timescaledbVersion, serverVersion: info.serverVersion },
      sizes, limits, rate, plannedUnitsPerS, flood: { path: floodPath, threads, connections }, alone, flooded, retry,
    }
    const md = renderSection(run)
    process.stdout.write(`${md}\n`)
    if (!argv['no-write']) writeSection(`${ROOT}/BENCHMARKS.md`, 'fair-use', md)
    const failed = failures(run)
    for (const f of failed) progress(`FAILED: ${f}`)
    await cleanup()
    process.exit(failed.length ? 3 : 0)
  } catch (err) {
    progress(`failed: ${err instanceof Error ? err.stack : err}`)
    await cleanup()
    process.exit(1)
  }
}

if (import.meta.main) await main()
