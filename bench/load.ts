/**
 * HTTP throughput on loopback: the real service process (`bun src/main.ts`) against the
 * ceiling (bench/ceiling.ts, a bare Bun.serve answering the same bytes), same routes,
 * same load generator (wrk, installed by bench/wrk.ts when missing and possible; a small
 * Bun client otherwise), same run. The service's memory is polled from /proc during the
 * whole phase.
 */
import { startListening, type Listening } from '../test/support/process.ts'
import { mergeTallies, startCheck, type CheckerDeps, type CheckSpec, type CheckTally } from './check.ts'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'

export interface LoadOptions {
  warmupS: number
  threads: number
  connections: number
  progress: (line: string) => void
}

export interface LoadResult {
  rps: number
  p50Ms: number | null
  p99Ms: number | null
  requests: number
  errors: number
  non2xx: number
}

/** One route to load: its path, the seconds of its timed load, and the exactness check to run meanwhile. */
export interface LoadRoute {
  path: string
  /** Seconds of timed load on each side (service, ceiling), in `slices` runs. */
  durationS: number
  /**
   * The timed load is split into this many runs of durationS / slices seconds on each
   * side, alternating service and ceiling; the route's figures are its median pair's (by
   * ratio). A burst of other work on the shared machine then moves one pair, not the
   * verdict. 1: one run on each side.
   */
  slices: number
  /** An issue-13 target route (15 s runs at the default scale). */
  target: boolean
  check?: CheckSpec
}

export interface RouteThroughput {
  path: string
  durationS: number
  target: boolean
  bytes: number
  service: LoadResult
  ceiling: LoadResult
  ratio: number
  /** Seconds of each slice (durationS / slices, whole seconds for wrk). */
  sliceS: number
  /** Every pair of runs, in order; service, ceiling and ratio above are the median pair's. */
  slices: Slice[]
  /** The exactness check during the service's runs (see bench/check.ts). */
  check?: CheckTally
  /** The shadow sampling during the ceiling's runs: samples and raw ms, for comparison. */
  shadow?: { samples: number; rawMsTotal: number }
  /** Highest VmRSS of the service (MB) polled from the start of this route's runs to the next route's. */
  maxRssMb: number
}

/** One pair of timed runs of a route: the service's, then the ceiling's. */
export interface Slice {
  service: LoadResult
  ceiling: LoadResult
  ratio: number
}

/** wrk takes whole seconds. */
export const sliceSeconds = (r: Pick<LoadRoute, 'durationS' | 'slices'>) => Math.max(1, Math.round(r.durationS / r.slices))

/** The pair with the median ratio (of an even count, the lower of the two middle ones). */
export function medianSlice(slices: Slice[]): Slice {
  if (!slices.length) throw new Error('medianSlice: no slices')
  return [...slices].sort((a, b) => a.ratio - b.ratio)[Math.floor((slices.length - 1) / 2)]!
}

export interface ThroughputResult {
  /** The load generator and its settings. */
  tool: string
  routes: RouteThroughput[]
  /** Peak resident memory of the service process (MB): VmHWM at the end and the highest VmRSS polled. */
  rss: { vmHwmMb: number; maxVmRssMb: number; afterStartMb: number; samples: number }
  servicePid: number
}

/** SIGTERM the process (by its pid), SIGKILL after 10 s; resolves with its exit code. */
export async function stopProcess(proc: Subprocess): Promise<number | null> {
  if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode
  proc.kill('SIGTERM')
  const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 10_000))
  if ((await Promise.race([proc.exited, timeout])) === 'timeout') {
    proc.kill('SIGKILL')
    await proc.exited
  }
  return proc.exitCode
}

export function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) : null
  } catch {
    return null
  }
}

/** User + system CPU time of a process so far, in seconds (/proc/<pid>/stat, clock ticks of 1/100 s). */
export function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(f[11]) + Number(f[12])) / 100
}

const toMs = (v: string, unit: string) => Number(v) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 1)

export function wrkAvailable(): boolean {
  return Bun.which('wrk') !== null
}

async function wrk(url: string, durationS: number, o: LoadOptions): Promise<LoadResult> {
  const proc = Bun.spawn(['wrk', `-t${o.threads}`, `-c${o.connections}`, `-d${durationS}s`, '--latency', url], { stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${err}${out}`)
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out)
  const total = /(\d+) requests in/.exec(out)
  const p50 = /^\s+50%\s+([\d.]+)(us|ms|s|m)\s*$/m.exec(out)
  const p99 = /^\s+99%\s+([\d.]+)(us|ms|s|m)\s*$/m.exec(out)
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out)
  if (!rps || !total) throw new Error(`cannot read wrk output: ${out}`)
  return {
    rps: Number(rps[1]),
    requests: Number(total[1]),
    p50Ms: p50 ? toMs(p50[1]!, p50[2]!) : null,
    p99Ms: p99 ? toMs(p99[1]!, p99[2]!) : null,
    errors: sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
    non2xx: non2xx ? Number(non2xx[1]) : 0,
  }
}

/** Fallback load generator: `connections` concurrent keep-alive fetch loops for `durationS`. */
async function bunClient(url: string, durationS: number, o: LoadOptions): Promise<LoadResult> {
  const end = performance.now() + durationS * 1000
  const lat: number[] = []
  let errors = 0
  let non2xx = 0
  await Promise.all(
    Array.from({ length: o.connections }, async () => {
      while (performance.now() < end) {
        const t = performance.now()
        try {
          const res = await fetch(url)
          await res.arrayBuffer()
          if (res.status >= 400) non2xx++
          lat.push(performance.now() - t)
        } catch {
          errors++
        }
      }
    }),
  )
  lat.sort((a, b) => a - b)
  return {
    rps: lat.length / durationS,
    requests: lat.length,
    p50Ms: lat[Math.floor(lat.length * 0.5)] ?? null,
    p99Ms: lat[Math.floor(lat.length * 0.99)] ?? null,
    errors,
    non2xx,
  }
}

export interface ServiceSpec {
  databaseUrl: string
  poolMax: number
  feeds: { upstreamUrl: string; communityUrl: string; pcstoreUrl: string }
}

export const COLLECTOR_SECRET = 'bench-secret'

/** The service process's environment: the bench database, the simulator's feeds, no schedule (only the bench's POSTs write). */
export function serviceEnv(service: ServiceSpec): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    DATABASE_URL: service.databaseUrl,
    DB_POOL_MAX: String(service.poolMax),
    SCHEDULE_ENABLED: 'false',
    // One load generator on one address: the service's throughput, not its budgets.
    RATE_LIMIT: 'off',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    UPSTREAM_URL: service.feeds.upstreamUrl,
    COMMUNITY_API_URL: service.feeds.communityUrl,
    PCSTORE_API_URL: service.feeds.pcstoreUrl,
    COLLECTOR_SECRET,
  }
}

/**
 * Start the service on the bench database, fetch each route's bytes once, start the
 * ceiling with them, then load each route on both, alternating, in its slices (service,
 * ceiling, service, …). Where a route has a check, a checker runs during each of the
 * service's timed runs (ingest POSTs + compared samples) and its shadow during each of the
 * ceiling's (bench/check.ts); a route's checks add up to one tally.
 */
export async function measureThroughput(
  routes: LoadRoute[],
  service: ServiceSpec,
  o: LoadOptions & { checker?: Omit<CheckerDeps, 'serviceBase' | 'secret'> },
  track: (proc: Subprocess) => void,
): Promise<ThroughputResult> {
  const useWrk = wrkAvailable()
  const tool = useWrk ? `wrk (${o.threads} threads, ${o.connections} connections)` : `Bun fetch client (${o.connections} concurrent loops; wrk not installed)`
  const load = (url: string, s: number) => (useWrk ? wrk(url, s, o) : bunClient(url, s, o))

  o.progress('throughput: starting the service (bun src/main.ts, SCHEDULE_ENABLED=false)')
  const dir = mkdtempSync(join(tmpdir(), 'gws-bench-'))
  // A DATA_DIR of its own (its spool folder), not the checkout's ./data.
  const svc = await startListening([process.execPath, 'src/main.ts'], { ...serviceEnv(service), DATA_DIR: join(dir, 'data') })
  track(svc.proc)
  const pid = svc.proc.pid
  const afterStart = statusKb(pid, 'VmRSS') ?? 0
  let maxRss = afterStart
  let samples = 0
  // The route whose runs are under way, and the highest VmRSS polled during each (kB).
  let current = -1
  const routeMax: number[] = []
  const poll = setInterval(() => {
    const v = statusKb(pid, 'VmRSS')
    if (v !== null) {
      samples++
      maxRss = Math.max(maxRss, v)
      if (current >= 0) routeMax[current] = Math.max(routeMax[current] ?? 0, v)
    }
  }, 100)
  let ceiling: Listening | undefined
  try {
    const base = `http://127.0.0.1:${svc.port}`
    const stored: Record<string, { status: number; headers: Record<string, string>; body: string }> = {}
    for (const { path } of routes) {
      const res = await fetch(base + path)
      const body = await res.text()
      if (res.status !== 200) throw new Error(`service GET ${path}: ${res.status} ${body.slice(0, 200)}`)
      const headers: Record<string, string> = {}
      res.headers.forEach((v, k) => {
        if (!['date', 'content-length', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)) headers[k] = v
      })
      stored[path] = { status: res.status, headers, body }
    }
    const file = join(dir, 'bodies.json')
    writeFileSync(file, JSON.stringify(stored))
    ceiling = await startListening([process.execPath, 'bench/ceiling.ts', file], { PATH: process.env.PATH ?? '' })
    track(ceiling.proc)
    const cbase = `http://127.0.0.1:${ceiling.port}`
    const checker = o.checker ? { ...o.checker, serviceBase: base, secret: COLLECTOR_SECRET } : undefined
    const out: RouteThroughput[] = []
    for (const [i, route] of routes.entries()) {
      const { path, durationS } = route
      current = i
      routeMax[i] = statusKb(pid, 'VmRSS') ?? 0
      if (o.warmupS > 0) {
        await load(base + path, o.warmupS)
        await load(cbase + path, o.warmupS)
      }
      const sliceS = sliceSeconds(route)
      const slices: Slice[] = []
      const tallies: CheckTally[] = []
      const shadows: CheckTally[] = []
      for (let k = 0; k < route.slices; k++) {
        const check = route.check && checker ? startCheck(checker, route.check, base, path, true) : undefined
        const s = await load(base + path, sliceS)
        const tally = await check?.stop()
        if (tally?.firstMismatch) {
          // Sample times count from the start of their run: name the pair.
          if (route.slices > 1) tally.firstMismatch = `pair ${k + 1} of ${route.slices}: ${tally.firstMismatch}`
          o.progress(`MISMATCH under load: ${tally.firstMismatch}`)
        }
        if (tally) tallies.push(tally)
        const shadow = route.check && checker ? startCheck(checker, route.check, cbase, path, false) : undefined
        const c = await load(cbase + path, sliceS)
        const shadowTally = await shadow?.stop()
        if (shadowTally) shadows.push(shadowTally)
        if (!(c.rps > 0)) throw new Error(`the ceiling answered no request of ${path} in ${sliceS} s`)
        slices.push({ service: s, ceiling: c, ratio: s.rps / c.rps })
      }
      const tally = tallies.length ? mergeTallies(tallies) : undefined
      const shadow = shadows.length ? mergeTallies(shadows) : undefined
      const median = medianSlice(slices)
      o.progress(
        `throughput ${i + 1}/${routes.length} ${path}: ${slices.map((x) => `${Math.round(x.service.rps).toLocaleString('en')} / ${Math.round(x.ceiling.rps).toLocaleString('en')} req/s (${(100 * x.ratio).toFixed(0)} %)`).join(', ')} ` +
          `(service / ceiling, ${route.slices} × ${sliceS} s)` +
          (tally
            ? `; check: ${tally.equal} equal, ${tally.skipped} skipped, ${tally.mismatched} mismatched${tally.failed ? `, ${tally.failed} failed` : ''}; ` +
              `ingest wrote ${JSON.stringify(tally.rowsWritten)} in ${tally.posts.map((p) => `${p.wrote}/${p.posts} ${p.collector} POSTs`).join(', ')}`
            : ''),
      )
      out.push({
        path,
        durationS,
        sliceS,
        target: route.target,
        bytes: Buffer.byteLength(stored[path]!.body),
        service: median.service,
        ceiling: median.ceiling,
        ratio: median.ratio,
        slices,
        check: tally,
        shadow: shadow ? { samples: shadow.samples, rawMsTotal: shadow.rawMsTotal } : undefined,
        maxRssMb: Math.max(routeMax[i] ?? 0, statusKb(pid, 'VmRSS') ?? 0) / 1024,
      })
    }
    const hwm = statusKb(pid, 'VmHWM') ?? 0
    return {
      tool,
      routes: out,
      rss: { vmHwmMb: hwm / 1024, maxVmRssMb: maxRss / 1024, afterStartMb: afterStart / 1024, samples },
      servicePid: pid,
    }
  } finally {
    clearInterval(poll)
    if (ceiling) await stopProcess(ceiling.proc)
    const code = await stopProcess(svc.proc)
    if (code !== 0) o.progress(`service exited with code ${code}: ${svc.stderr().slice(0, 500)}`)
    rmSync(dir, { recursive: true, force: true })
  }
}
