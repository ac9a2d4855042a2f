/**
 * The embedded default as a new user meets it (issue 37, item 4): `npm start` without
 * DATABASE_URL on a new data folder and again on the same one, `npm run demo`, and
 * optionally a year of 5-minute captures imported into PGlite with the service then
 * started on it. Each command runs as a user runs it, through npm, in a process tree of
 * its own: every process of the tree is read from /proc every 50 ms (VmRSS summed: the
 * tree's peak; each one's VmHWM), and stopped by its pid.
 *
 *   npm run bench:embedded [-- options]
 *     --idle-wait S      seconds a started service is left idle before its RSS is read (default 20)
 *     --demo-days N      DEMO_HISTORY_DAYS of the demo case (default 30; 0: no demo case)
 *     --year-captures N  captures of the import case, 5 minutes apart up to now (default 0: no
 *                        import case; 105120 is a year); the NDJSON.gz source is written first
 *     --interrupt        stop the import (SIGINT) halfway and run it again: every capture stored once
 *     --planets N        planets whose history is asked once per range on the imported year (default 30;
 *                        that service runs with RATE_LIMIT=off: the bench is one client asking fast)
 *     --json FILE        also write the results as JSON
 *     --no-write         do not write the section of BENCHMARKS.md
 * Progress on stderr; the section (issue 37 item 4's bounds with verdicts, every figure) on
 * stdout, and into BENCHMARKS.md when the run had every case (the year and the demo).
 * Ports and data folders are its own.
 */
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createGzip } from 'node:zlib'
import type { Subprocess } from 'bun'
import { languageOf } from '../src/sim/languages.ts'
import { World } from '../src/sim/world.ts'
import { linesOf } from '../test/support/process.ts'
import { commitOf, machine, sameCheckout } from './checkout.ts'
import { cleanUpOnSignals, printUsageAndExit, progressSince, scriptArgs } from './cli.ts'
import { commitMeasured, commitText, writeSection, type Commit, type Machine } from './report.ts'
import { ROOT } from './setup.ts'
import { ms, n } from './stats.ts'

/** A process tree read from /proc: its processes' summed VmRSS at its highest, and each process's VmHWM. */
class TreeSampler {
  peakKb = 0
  readonly processes = new Map<number, { cmd: string; hwmKb: number; rssKb: number }>()
  private readonly timer: Timer

  constructor(readonly root: number) {
    this.timer = setInterval(() => this.sample(), 50)
    this.sample()
  }

  /** The tree's pids, the root first. */
  pids(): number[] {
    const out: number[] = []
    const walk = (pid: number) => {
      out.push(pid)
      let tasks: string[] = []
      try {
        tasks = readdirSync(`/proc/${pid}/task`)
      } catch {
        return
      }
      for (const t of tasks) {
        let children = ''
        try {
          children = readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8')
        } catch {
          continue
        }
        for (const c of children.split(' ').filter(Boolean)) walk(Number(c))
      }
    }
    walk(this.root)
    return out
  }

  sample(): number {
    let sum = 0
    for (const pid of this.pids()) {
      const status = statusOf(pid)
      if (!status) continue
      sum += status.rssKb
      const known = this.processes.get(pid)
      // Read again each time: npm's shell execs the command in its own pid, after it was first seen.
      this.processes.set(pid, { cmd: cmdOf(pid), hwmKb: Math.max(known?.hwmKb ?? 0, status.hwmKb), rssKb: status.rssKb })
    }
    this.peakKb = Math.max(this.peakKb, sum)
    return sum
  }

  /** The Bun process of the tree whose command line holds `part` (not npm's shell that started it). */
  find(part: string): { pid: number; cmd: string; hwmKb: number; rssKb: number } | undefined {
    for (const [pid, p] of this.processes) if (p.cmd.includes(part) && !p.cmd.startsWith('sh ')) return { pid, ...p }
    return undefined
  }

  stop(): void {
    clearInterval(this.timer)
  }
}

function statusOf(pid: number): { rssKb: number; hwmKb: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8')
    return { rssKb: Number(/^VmRSS:\s+(\d+)/m.exec(s)?.[1] ?? 0), hwmKb: Number(/^VmHWM:\s+(\d+)/m.exec(s)?.[1] ?? 0) }
  } catch {
    return null
  }
}

function cmdOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim()
  } catch {
    return '?'
  }
}

const mb = (kb: number) => Math.round(kb / 1024)

function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const { port } = probe
  probe.stop(true)
  return port
}

/** The environment of a user's command: no DATABASE_URL, the feeds on a closed port (this is about start-up, not collection). */
function userEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('BENCH_') && k !== 'DATABASE_URL' && k !== 'DATABASE_READ_URL') env[k] = v
  return {
    ...env,
    UPSTREAM_URL: 'http://127.0.0.1:9/api', COMMUNITY_API_URL: 'http://127.0.0.1:9', PCSTORE_API_URL: 'http://127.0.0.1:9',
    ...extra,
  }
}

/** A command this bench started and the tree of processes it made. */
interface Running {
  proc: Subprocess
  tree: TreeSampler
}
const running = new Set<Running>()
const tempDirs = new Set<string>()

function spawnTree(cmd: string[], env: Record<string, string>, stdout: 'pipe' | 'ignore'): Running & { proc: Subprocess<'ignore', 'pipe' | 'ignore', 'pipe'> } {
  const proc = Bun.spawn(cmd, { cwd: ROOT, env, stdin: 'ignore', stdout, stderr: 'pipe' })
  const run = { proc, tree: new TreeSampler(proc.pid) }
  running.add(run)
  return run
}

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  tempDirs.add(dir)
  return dir
}

function removeTemp(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
  tempDirs.delete(dir)
}

function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal)
    } catch {
      // gone already
    }
  }
}

/** Neither running nor a zombie. */
function gone(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return true
  }
}

async function allGone(pids: number[], timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs
  while (performance.now() < until) {
    if (pids.every(gone)) return true
    await Bun.sleep(50)
  }
  return pids.every(gone)
}

/**
 * `signal` to every process of the tree, deepest first; SIGKILL what is left after `graceMs`.
 * Waits for every one of them, not only npm: a service outliving npm would write into a data
 * folder the bench is about to remove.
 */
async function stopTree(run: Running, signal: NodeJS.Signals = 'SIGTERM', graceMs = 20_000): Promise<void> {
  const pids = run.tree.pids().reverse()
  signalAll(pids, signal)
  if (!(await allGone(pids, graceMs))) {
    signalAll([...new Set([...run.tree.pids().reverse(), ...pids])], 'SIGKILL')
    await allGone(pids, 5000)
  }
  await run.proc.exited
  run.tree.stop()
  running.delete(run)
}

async function waitReady(url: string, proc: Subprocess, timeoutMs: number): Promise<number> {
  const t0 = performance.now()
  while (performance.now() - t0 < timeoutMs) {
    if (proc.exitCode !== null) throw new Error(`exited with ${proc.exitCode} before ${url} answered`)
    if (await fetch(url).then((r) => r.ok, () => false)) return performance.now() - t0
    await Bun.sleep(100)
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms`)
}

/** The 1-minute load average now: the machine is shared, each case says what ran beside it. */
const load1 = () => loadavg()[0]!

export interface StartCase {
  label: string
  /** Spawn of `npm start` to the first /health/ready 200 (ms). */
  readyMs: number
  /** The service process's VmHWM and the tree's peak (npm and the service) up to ready. */
  servicePeakMb: number
  treePeakMb: number
  /** After idleS without requests. */
  idleS: number
  serviceIdleMb: number
  treeIdleMb: number
  origin: string
  /** 1-minute load average at ready and at the end. */
  load: [number, number]
}

/** `npm start` on `dataDir` (new or not): ready, peak, idle. */
async function measureStart(
  label: string,
  dataDir: string,
  idleS: number,
  progress: (l: string) => void,
  opts: { env?: Record<string, string>; after?: (base: string) => Promise<void> } = {},
): Promise<StartCase> {
  const port = freePort()
  const t0 = performance.now()
  const run = spawnTree(['npm', 'start', '--silent'], userEnv({ DATA_DIR: dataDir, PORT: String(port), ...opts.env }), 'pipe')
  const { proc, tree } = run
  let origin = '?'
  void (async () => {
    for await (const line of linesOf(proc.stdout as ReadableStream<Uint8Array>)) {
      const m = /"msg":"embedded database started".*"origin":"(\w+)"/.exec(line)
      if (m) origin = m[1]!
    }
  })()
  try {
    await waitReady(`http://127.0.0.1:${port}/health/ready`, proc, 120_000)
    const readyMs = performance.now() - t0
    const loadReady = load1()
    tree.sample()
    const servicePeakMb = mb(tree.find('src/main.ts')?.hwmKb ?? 0)
    const treePeakMb = mb(tree.peakKb)
    progress(`${label}: ready after ${(readyMs / 1000).toFixed(1)} s (${origin}), service peak ${servicePeakMb} MB, tree peak ${treePeakMb} MB, load ${loadReady.toFixed(2)}; idle for ${idleS} s`)
    if (opts.after) await opts.after(`http://127.0.0.1:${port}`)
    await Bun.sleep(idleS * 1000)
    const treeIdleMb = mb(tree.sample())
    const serviceIdleMb = mb(tree.find('src/main.ts')?.rssKb ?? 0)
    const load: [number, number] = [loadReady, load1()]
    progress(`${label}: idle service ${serviceIdleMb} MB, tree ${treeIdleMb} MB, load ${load[1].toFixed(2)}`)
    return { label, readyMs, servicePeakMb, treePeakMb, idleS, serviceIdleMb, treeIdleMb, origin, load }
  } finally {
    await stopTree(run)
  }
}

export interface DemoCase {
  days: number
  /** Spawn of `npm run demo` to its first line of any kind (npm's dependency check), to the demo's own first line, to "history written", to its "ready" line (ms). */
  anyFirstLineMs: number
  firstLineMs: number
  longestSilenceMs: number
  historyMs: number
  readyMs: number
  /** The demo process's VmHWM and the tree's peak while it writes the history (before the service starts). */
  seedingPeakMb: number
  seedingTreePeakMb: number
  /** The tree's peak from start to ready (the demo and the service). */
  treePeakMb: number
  idleS: number
  serviceIdleMb: number
  demoIdleMb: number
  /** 1-minute load average at ready and at the end. */
  load: [number, number]
}

async function measureDemo(days: number, idleS: number, progress: (l: string) => void): Promise<DemoCase> {
  const dataDir = tempDir('gws-bench-demo-')
  const port = freePort()
  const t0 = performance.now()
  const run = spawnTree(['npm', 'run', 'demo', '--silent'], userEnv({ DATA_DIR: dataDir, PORT: String(port), SIM_PORT: String(freePort()), DEMO_HISTORY_DAYS: String(days) }), 'ignore')
  const { proc, tree } = run
  const at: { anyLine?: number; firstLine?: number; history?: number; ready?: number } = {}
  let seedingPeakMb = 0
  let seedingTreePeakMb = 0
  let last = 0
  let longestSilenceMs = 0
  try {
    for await (const line of linesOf(proc.stderr)) {
      const now = performance.now() - t0
      at.anyLine ??= now
      if (!line.startsWith('demo: ')) continue
      longestSilenceMs = Math.max(longestSilenceMs, now - last)
      last = now
      at.firstLine ??= now
      if (line.startsWith('demo: history written') && at.history === undefined) {
        at.history = now
        tree.sample()
        seedingPeakMb = mb(tree.find('scripts/demo.ts')?.hwmKb ?? 0)
        seedingTreePeakMb = mb(tree.peakKb)
      }
      if (line.startsWith('demo: ready ')) {
        at.ready = now
        break
      }
    }
    if (at.ready === undefined || at.history === undefined || at.firstLine === undefined || at.anyLine === undefined) throw new Error(`demo exited with ${await proc.exited} before ready`)
    const loadReady = load1()
    tree.sample()
    const treePeakMb = mb(tree.peakKb)
    progress(
      `demo (${days} days): first line after ${(at.anyLine / 1000).toFixed(1)} s (the demo's ${(at.firstLine / 1000).toFixed(1)} s), history written ${(at.history / 1000).toFixed(1)} s, ` +
        `ready ${(at.ready / 1000).toFixed(1)} s, longest silence ${(longestSilenceMs / 1000).toFixed(1)} s; peak while seeding ${seedingPeakMb} MB (tree ${seedingTreePeakMb} MB), tree ${treePeakMb} MB, load ${loadReady.toFixed(2)}; idle for ${idleS} s`,
    )
    await Bun.sleep(idleS * 1000)
    tree.sample()
    const serviceIdleMb = mb(tree.find('src/main.ts')?.rssKb ?? 0)
    const demoIdleMb = mb(tree.find('scripts/demo.ts')?.rssKb ?? 0)
    const load: [number, number] = [loadReady, load1()]
    progress(`demo: idle service ${serviceIdleMb} MB, demo (simulator) ${demoIdleMb} MB, load ${load[1].toFixed(2)}`)
    return {
      days, anyFirstLineMs: at.anyLine, firstLineMs: at.firstLine, longestSilenceMs, historyMs: at.history, readyMs: at.ready,
      seedingPeakMb, seedingTreePeakMb, treePeakMb, idleS, serviceIdleMb, demoIdleMb, load,
    }
  } finally {
    await stopTree(run)
    removeTemp(dataDir)
  }
}

/** `captures` of the simulated war (seed 1), 5 minutes apart, the last at the latest 5-minute mark, as NDJSON.gz. */
export async function writeCaptures(file: string, captures: number, progress: (l: string) => void): Promise<number> {
  const t0 = performance.now()
  const every = 300_000
  const endMs = Math.floor(Date.now() / every) * every
  const startMs = endMs - (captures - 1) * every
  const world = new World({ seed: 1, speed: 1, now: () => startMs })
  const gzip = createGzip({ level: 1 })
  const out = gzip.pipe(createWriteStream(file))
  const language = languageOf('en-US')
  for (let i = 0; i < captures; i++) {
    if (i) world.advance(every / 1000)
    const war = world.current()
    const line = JSON.stringify({
      capturedAt: new Date(startMs + i * every).toISOString(), warId: war.warId,
      status: war.status(), summary: war.summary(), assignments: war.assignments(language),
      newsfeed: war.newsfeed({ maxEntries: 1024, fromTimestamp: 1000, withMessage: true, language }),
    })
    if (!gzip.write(`${line}\n`)) await new Promise((r) => gzip.once('drain', r))
    if (i % 10_000 === 9_999) progress(`year: ${i + 1}/${captures} captures written (${((performance.now() - t0) / 1000).toFixed(0)} s)`)
  }
  gzip.end()
  await new Promise((r) => out.on('finish', r))
  return (performance.now() - t0) / 1000
}

export interface ImportRun {
  durationS: number
  /** Captures read by this run: imported, already stored (duplicates) or skipped (0 without a summary). */
  captures: number
  imported: number
  duplicates: number
  skipped: number
  capturesPerSecond: number
  peakMb: number
  code: number
  /** Its last lines on stderr when it ended without its summary (a failure: judged missed). */
  failure: string | null
  /** 1-minute load average at the end. */
  load: number
}

/** `npm run import` of `file` into the embedded database in `dataDir`; `stopAt`: SIGINT once that many captures are done. */
async function runImport(file: string, dataDir: string, progress: (l: string) => void, stopAt?: number): Promise<ImportRun> {
  const t0 = performance.now()
  const run = spawnTree(['npm', 'run', 'import', '--silent', '--', file], userEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' }), 'pipe')
  const { proc, tree } = run
  const stdout = new Response(proc.stdout as ReadableStream<Uint8Array>).text()
  // Its last lines: what it said when it ends without a summary.
  const tail: string[] = []
  let shown = 0
  for await (const line of linesOf(proc.stderr)) {
    tail.push(line)
    if (tail.length > 30) tail.shift()
    const m = /^import: (\d+) captures/.exec(line)
    if (!m) continue
    const done = Number(m[1])
    if (stopAt !== undefined && done >= stopAt && proc.exitCode === null) {
      progress(`import: SIGINT at ${done} captures`)
      signalAll(tree.pids().reverse(), 'SIGINT')
      stopAt = undefined
    }
    if (performance.now() - shown > 30_000) {
      shown = performance.now()
      progress(`${line} (load ${load1().toFixed(2)})`)
    }
  }
  const code = await proc.exited
  await allGone(tree.pids(), 20_000)
  tree.stop()
  running.delete(run)
  const durationS = (performance.now() - t0) / 1000
  const summaryLine = (await stdout).trim().split('\n').at(-1) ?? ''
  if (!summaryLine.startsWith('{')) {
    progress(`import: exited with ${code} without its summary; its last lines:\n${tail.join('\n')}`)
    return { durationS, captures: 0, imported: 0, duplicates: 0, skipped: 0, capturesPerSecond: NaN, peakMb: mb(tree.peakKb), code, failure: tail.join('\n'), load: load1() }
  }
  const summary = JSON.parse(summaryLine) as { imported: number; duplicates: number; skipped: number; captures: number; durationMs: number }
  return {
    durationS, captures: summary.captures, imported: summary.imported, duplicates: summary.duplicates, skipped: summary.skipped,
    capturesPerSecond: summary.captures / (summary.durationMs / 1000), peakMb: mb(tree.peakKb), code, failure: null, load: load1(),
  }
}

/** The full-status ticks stored in the embedded database in `dataDir`, and their distinct capture times, counted by a process of their own. */
async function countTicks(dataDir: string): Promise<{ ticks: number; times: number }> {
  const code = `
    import { loadConfig } from './src/config.ts'
    import { openDatabase } from './src/db/index.ts'
    import { createLogger } from './src/log.ts'
    const db = await openDatabase(loadConfig(), createLogger('warn', (l) => process.stderr.write(l + '\\n')))
    const [r] = await db.sql\`SELECT count(*)::int AS ticks, count(DISTINCT captured_at)::int AS times FROM full_status_ticks\`
    await db.close()
    process.stdout.write(JSON.stringify(r))`
  const run = spawnTree([process.execPath, '--eval', code], userEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' }), 'pipe')
  const [out, err, exit] = await Promise.all([new Response(run.proc.stdout as ReadableStream<Uint8Array>).text(), new Response(run.proc.stderr).text(), run.proc.exited])
  await stopTree(run)
  if (exit !== 0) throw new Error(`counting the stored ticks failed (${exit}): ${err}`)
  return JSON.parse(out) as { ticks: number; times: number }
}

export interface YearCase {
  captures: number
  interrupted: boolean
  generateS: number
  sourceMb: number
  runs: ImportRun[]
  /** Counted in the database after the runs: full-status ticks and their distinct capture times. */
  stored: { ticks: number; times: number }
  dataDirMb: number
  start: StartCase
  /** Planet history asked once per planet (computed: each answer's first request), per range: p50 and max (ms). */
  planetHistory: { hours: number; p50Ms: number; maxMs: number; n: number }[]
}

async function measureYear(captures: number, interrupt: boolean, planets: number, idleS: number, progress: (l: string) => void): Promise<YearCase> {
  const dir = tempDir('gws-bench-year-')
  try {
    const file = join(dir, 'captures.ndjson.gz')
    progress(`year: writing ${captures} captures to ${file}`)
    const generateS = await writeCaptures(file, captures, progress)
    const sourceMb = Math.round(Bun.file(file).size / 2 ** 20)
    progress(`year: source written in ${generateS.toFixed(0)} s (${sourceMb} MB gzipped)`)
    const dataDir = join(dir, 'data')
    const runs: ImportRun[] = []
    runs.push(await runImport(file, dataDir, progress, interrupt ? Math.floor(captures / 2) : undefined))
    if (interrupt) runs.push(await runImport(file, dataDir, progress))
    for (const r of runs) progress(`year: import ${r.imported} imported, ${r.duplicates} already stored, ${r.skipped} skipped, ${r.capturesPerSecond.toFixed(0)}/s, ${r.durationS.toFixed(0)} s, peak ${r.peakMb} MB (exit ${r.code})`)
    const stored = await countTicks(dataDir)
    progress(`year: ${stored.ticks} full-status ticks stored, at ${stored.times} distinct times`)
    const dataDirMb = Math.round(Number(Bun.spawnSync(['du', '-sk', dataDir]).stdout.toString().split('\t')[0]) / 1024)
    const planetHistory: YearCase['planetHistory'] = []
    // One client asking 3 × planets computed answers at once: over a client's budget with RATE_LIMIT on.
    const start = await measureStart('year: npm start', dataDir, idleS, progress, { env: { RATE_LIMIT: 'off' }, after: async (base) => {
      // One request first, of a planet not measured: the service's first computes its code too.
      await fetch(`${base}/api/v1/planet/${planets}/history?hours=1`).then((r) => r.arrayBuffer())
      for (const hours of [24, 168, 720]) {
        const times: number[] = []
        for (let p = 0; p < planets; p++) {
          const t = performance.now()
          const res = await fetch(`${base}/api/v1/planet/${p}/history?hours=${hours}`)
          await res.arrayBuffer()
          if (res.ok) times.push(performance.now() - t)
        }
        times.sort((a, b) => a - b)
        planetHistory.push({ hours, p50Ms: times[Math.floor(times.length / 2)] ?? NaN, maxMs: times.at(-1) ?? NaN, n: times.length })
        progress(`year: planet history ${hours} h, ${times.length} planets: p50 ${planetHistory.at(-1)!.p50Ms.toFixed(1)} ms, max ${planetHistory.at(-1)!.maxMs.toFixed(1)} ms`)
      }
    } })
    return { captures, interrupted: interrupt, generateS, sourceMb, runs, stored, dataDirMb, start, planetHistory }
  } finally {
    removeTemp(dir)
  }
}

export interface EmbeddedResult {
  at: string
  commit: Commit
  machine: Machine
  command: string
  /** PGlite's version (node_modules). */
  pglite: string
  totalS: number
  starts: StartCase[]
  demo: DemoCase | null
  year: YearCase | null
}

const YEAR = 105_120

/** Issue 37 item 4's bounds, each against its figure: null when the run did not measure it. */
export function embeddedBounds(r: EmbeddedResult): { bound: string; limit: string; measured: string; load: string; met: boolean | null }[] {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`
  const l = (...v: number[]) => v.map((x) => x.toFixed(2)).join(' / ')
  const out: ReturnType<typeof embeddedBounds> = []
  const none = (bound: string, limit: string) => out.push({ bound, limit, measured: 'not measured (`--year-captures 105120 --interrupt`)', load: '', met: null })
  const y = r.year
  if (y) {
    const last = y.runs.at(-1)!
    const resumed = y.runs.length > 1 ? `; run 1 stopped by SIGINT at ${n(y.runs[0]!.captures)}, run 2 found ${n(last.duplicates)} stored and imported ${n(last.imported)}` : ''
    out.push({
      bound: 'a year of 5-minute captures imported into PGlite in one resumable run (stopped halfway, resumed; every capture stored once)',
      limit: `${n(YEAR)} captures, each stored once`,
      measured: `${n(y.captures)} captures${resumed}; ${n(y.stored.ticks)} ticks stored at ${n(y.stored.times)} distinct times; ${y.runs.map((x) => `${x.capturesPerSecond.toFixed(0)}/s`).join(', ')}`,
      load: l(...y.runs.map((x) => x.load)),
      met: y.captures >= YEAR && y.interrupted && y.runs.length > 1 && y.stored.ticks === y.captures && y.stored.times === y.captures && y.runs.every((x) => x.skipped === 0 && x.failure === null),
    })
    out.push({ bound: 'the service on that year: ready', limit: '≤ 10 s', measured: s(y.start.readyMs), load: l(y.start.load[0]), met: y.start.readyMs <= 10_000 })
    const worst = y.planetHistory.reduce((a, p) => (p.p50Ms > a.p50Ms ? p : a), y.planetHistory[0]!)
    out.push({
      bound: `planet history computed on that year, 24 / 168 / 720 h (${y.planetHistory[0]?.n ?? 0} planets, each once per range)`,
      limit: 'p50 ≤ 50 ms',
      measured: `p50 ${y.planetHistory.map((p) => ms(p.p50Ms)).join(' / ')} ms (max ${y.planetHistory.map((p) => ms(p.maxMs)).join(' / ')} ms)`,
      load: l(y.start.load[0]),
      met: worst !== undefined && worst.p50Ms <= 50,
    })
    out.push({ bound: `idle RSS of the service on that year (after the history requests and ${y.start.idleS} s)`, limit: '≤ 200 MB', measured: `${y.start.serviceIdleMb} MB (with npm ${y.start.treeIdleMb} MB)`, load: l(y.start.load[1]), met: y.start.serviceIdleMb <= 200 })
  } else {
    none('a year of 5-minute captures imported into PGlite in one resumable run', `${n(YEAR)} captures, each stored once`)
    none('the service on that year: ready', '≤ 10 s')
    none('planet history computed on that year', 'p50 ≤ 50 ms')
    none('idle RSS of the service on that year', '≤ 200 MB')
  }
  const empty = r.starts[0]
  if (empty) out.push({ bound: `peak RSS during start-up, ${empty.label} (the service process, up to ready)`, limit: '≤ 300 MB', measured: `${empty.servicePeakMb} MB (with npm ${empty.treePeakMb} MB)`, load: l(empty.load[0]), met: empty.servicePeakMb <= 300 })
  if (r.demo) {
    const d = r.demo
    out.push({ bound: `\`npm run demo\` (${d.days} days): peak RSS while it seeds (the demo process)`, limit: '≤ 300 MB', measured: `${d.seedingPeakMb} MB (with npm ${d.seedingTreePeakMb} MB)`, load: l(d.load[0]), met: d.seedingPeakMb <= 300 })
    out.push({ bound: '`npm run demo`: ready (its `ready` line)', limit: '≤ 30 s', measured: s(d.readyMs), load: l(d.load[0]), met: d.readyMs <= 30_000 })
    out.push({
      bound: '`npm run demo`: a progress line from its first second',
      limit: 'first line ≤ 1 s',
      measured: `${s(d.anyFirstLineMs)} (npm's dependency check), the demo's own ${s(d.firstLineMs)}; then at most ${s(d.longestSilenceMs)} between its lines`,
      load: l(d.load[0]),
      met: d.firstLineMs <= 1000,
    })
  } else {
    none('`npm run demo`: peak RSS while it seeds', '≤ 300 MB')
    none('`npm run demo`: ready', '≤ 30 s')
  }
  return out
}

/** Every figure of the run as a markdown table. */
export function embeddedMarkdown(r: EmbeddedResult): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`
  const l = (...v: number[]) => v.map((x) => x.toFixed(2)).join(' / ')
  const rows: string[][] = []
  for (const c of r.starts) {
    rows.push([`${c.label} (${c.origin}): ready`, s(c.readyMs), l(c.load[0])])
    rows.push([`${c.label}: peak RSS up to ready, service (tree with npm)`, `${c.servicePeakMb} MB (${c.treePeakMb} MB)`, l(c.load[0])])
    rows.push([`${c.label}: idle RSS after ${c.idleS} s, service (tree)`, `${c.serviceIdleMb} MB (${c.treeIdleMb} MB)`, l(c.load[1])])
  }
  if (r.demo) {
    const d = r.demo
    rows.push([`npm run demo (${d.days} days): first line (npm's dependency check), the demo's first line`, `${s(d.anyFirstLineMs)}, ${s(d.firstLineMs)}`, l(d.load[0])])
    rows.push(['npm run demo: longest silence (between its lines) up to ready', s(d.longestSilenceMs), l(d.load[0])])
    rows.push(['npm run demo: history written, ready', `${s(d.historyMs)}, ${s(d.readyMs)}`, l(d.load[0])])
    rows.push(['npm run demo: peak RSS while it seeds, demo process (tree)', `${d.seedingPeakMb} MB (${d.seedingTreePeakMb} MB)`, l(d.load[0])])
    rows.push(['npm run demo: tree peak up to ready (demo + service)', `${d.treePeakMb} MB`, l(d.load[0])])
    rows.push([`npm run demo: idle after ${d.idleS} s, service / demo`, `${d.serviceIdleMb} / ${d.demoIdleMb} MB`, l(d.load[1])])
  }
  if (r.year) {
    const y = r.year
    rows.push([`year: ${n(y.captures)} captures (NDJSON.gz ${n(y.sourceMb)} MB, written in ${y.generateS.toFixed(0)} s)`, '', ''])
    for (const [i, run] of y.runs.entries()) {
      rows.push([
        `year: npm run import${y.runs.length > 1 ? ` (run ${i + 1}${i === 0 ? ', stopped halfway' : ''})` : ''}`,
        run.failure !== null
          ? `**ended without its summary** (exit ${run.code}) after ${run.durationS.toFixed(0)} s: ${run.failure.split('\n').at(-1)}`
          : `${n(run.imported)} imported, ${n(run.duplicates)} already stored, ${n(run.skipped)} skipped; ${run.capturesPerSecond.toFixed(0)}/s, ${run.durationS.toFixed(0)} s; peak ${run.peakMb} MB; exit ${run.code}`,
        l(run.load),
      ])
    }
    rows.push(['year: full-status ticks stored (distinct capture times)', `${n(y.stored.ticks)} (${n(y.stored.times)})`, ''])
    rows.push(['year: data folder', `${n(y.dataDirMb)} MB`, ''])
    rows.push(['year: npm start on it: ready', s(y.start.readyMs), l(y.start.load[0])])
    rows.push(['year: peak RSS up to ready, service (tree)', `${y.start.servicePeakMb} MB (${y.start.treePeakMb} MB)`, l(y.start.load[0])])
    rows.push([`year: idle RSS after the history requests and ${y.start.idleS} s, service (tree)`, `${y.start.serviceIdleMb} MB (${y.start.treeIdleMb} MB)`, l(y.start.load[1])])
    for (const p of y.planetHistory) rows.push([`year: planet history ${p.hours} h, computed (${p.n} planets, each once)`, `p50 ${ms(p.p50Ms)} ms, max ${ms(p.maxMs)} ms`, l(y.start.load[0])])
  }
  return ['| Case | Measured | Load (1 min) |', '|---|---|---:|', ...rows.map((x) => `| ${x.join(' | ')} |`)].join('\n')
}

/** The run's section of BENCHMARKS.md: what ran where, the bounds with their verdicts, every figure. */
export function renderEmbeddedSection(r: EmbeddedResult): string {
  const bounds = embeddedBounds(r)
  const judged = bounds.filter((b) => b.met !== null)
  const missed = judged.filter((b) => b.met === false)
  const y = r.year
  const m = r.machine
  const data = y ? `${n(y.captures)} captures, data folder ${n(y.dataDirMb)} MB` : 'no year imported'
  return [
    `## The embedded default (PGlite ${r.pglite}), issue 37 item 4: commit ${commitText(r.commit)}, ${m.cpu} (${m.cores} cores), ${data}`,
    '',
    `${commitMeasured(r.commit)}.`,
    '',
    `**Bounds: ${judged.length - missed.length} of ${judged.length} met**${missed.length ? ` (missed: ${missed.map((b) => b.bound.replace(/ \(.*\)$/, '')).join('; ')})` : ''}` +
      `${bounds.length > judged.length ? `; ${bounds.length - judged.length} not measured by this run` : ''}.`,
    '',
    `- **Date:** ${r.at.slice(0, 16)} UTC (whole run ${n(r.totalS)} s)`,
    `- **Command:** \`${r.command}\``,
    `- **Machine:** ${m.cpu}, ${m.cores} cores, ${m.memGiB.toFixed(1)} GiB RAM; ${m.os}, Linux ${m.kernel}, Bun ${m.bun}; load average (1 min) at the start ${m.loadavg[0]!.toFixed(2)}, ` +
      'then beside each figure (a shared machine: other work ran on it too)',
    '- **How:** each command through npm as a user runs it, without DATABASE_URL, in a data folder and on ports of its own, the feeds on a closed port; every process of its tree ' +
      'read from /proc every 50 ms. RSS judged is the project\'s own process (its VmHWM for a peak); npm\'s own process is in the figure "with npm".' +
      (y ? ` The year: the simulated war's captures 5 minutes apart up to now, as NDJSON.gz, imported by \`npm run import\`${y.interrupted ? ' (SIGINT halfway, then run again)' : ''}; the stored ticks counted in the database; the service started on the folder with RATE_LIMIT=off, each planet's history asked once per range after one request of another planet.` : ''),
    '',
    '| Bound (issue 37, item 4) | Bound | Measured | Load (1 min) | |',
    '|---|---|---|---:|---|',
    ...bounds.map((b) => `| ${b.bound} | ${b.limit} | ${b.measured} | ${b.load} | ${b.met === null ? '–' : b.met ? 'met' : '**missed**'} |`),
    '',
    'Every figure:',
    '',
    embeddedMarkdown(r),
  ].join('\n')
}

export interface EmbeddedOptions {
  idleS: number
  /** 0: no demo case. */
  demoDays: number
  /** 0: no import case. */
  yearCaptures: number
  interrupt: boolean
  planets: number
  command: string
}

/** Every case of this bench, in order; the processes it starts are stopped by their pids. */
export async function measureEmbedded(o: EmbeddedOptions, progress: (line: string) => void): Promise<EmbeddedResult> {
  const t0 = performance.now()
  const commitAtStart = commitOf(progress)
  const m = machine()
  progress(`${m.cpu}, ${m.cores} cores, load average ${m.loadavg.map((x) => x.toFixed(2)).join(' ')}`)
  const starts: StartCase[] = []
  const dataDir = tempDir('gws-bench-start-')
  try {
    starts.push(await measureStart('npm start, new data folder', join(dataDir, 'data'), o.idleS, progress))
    starts.push(await measureStart('npm start again, same folder', join(dataDir, 'data'), o.idleS, progress))
  } finally {
    removeTemp(dataDir)
  }
  const demo = o.demoDays > 0 ? await measureDemo(o.demoDays, o.idleS, progress) : null
  const year = o.yearCaptures > 0 ? await measureYear(o.yearCaptures, o.interrupt, o.planets, o.idleS, progress) : null
  const pglite = (JSON.parse(readFileSync(join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }).version
  return {
    at: new Date().toISOString(), commit: sameCheckout(commitAtStart, commitOf(progress)), machine: m, command: o.command, pglite,
    totalS: (performance.now() - t0) / 1000, starts, demo, year,
  }
}

/** On a signal: every process this bench started, killed, and its temporary folders removed. */
export async function cleanUpEmbedded(): Promise<void> {
  await Promise.all([...running].map((run) => stopTree(run, 'SIGKILL', 5000)))
  for (const dir of tempDirs) removeTemp(dir)
}

if (import.meta.main) {
  const { values: argv } = parseArgs({
    args: scriptArgs(),
    options: {
      'idle-wait': { type: 'string' }, 'demo-days': { type: 'string' }, 'year-captures': { type: 'string' },
      interrupt: { type: 'boolean' }, planets: { type: 'string' }, json: { type: 'string' }, 'no-write': { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (argv.help) printUsageAndExit(import.meta.path)
  const num = (v: string | undefined, env: string, fallback: number) => Number(v ?? process.env[`BENCH_${env}`] ?? fallback)
  const progress = progressSince(performance.now())
  cleanUpOnSignals(cleanUpEmbedded, progress)
  const result = await measureEmbedded(
    {
      idleS: num(argv['idle-wait'], 'IDLE_WAIT', 20), demoDays: num(argv['demo-days'], 'DEMO_DAYS', 30),
      yearCaptures: num(argv['year-captures'], 'YEAR_CAPTURES', 0), interrupt: argv.interrupt ?? false, planets: num(argv.planets, 'PLANETS', 30),
      command: ['npm run bench:embedded', ...(scriptArgs().length ? ['--', ...scriptArgs()] : [])].join(' '),
    },
    progress,
  )
  const md = renderEmbeddedSection(result)
  process.stdout.write(`${md}\n`)
  if (argv.json) writeFileSync(argv.json, `${JSON.stringify(result, null, 2)}\n`)
  // The section holds runs that measured every bound: one without the year would replace the year's figures.
  if (argv['no-write']) progress('BENCHMARKS.md not written (--no-write)')
  else if (!result.year || !result.demo) progress('BENCHMARKS.md not written: its section holds runs of every case (--year-captures 105120 --interrupt, a demo)')
  else writeSection(`${ROOT}/BENCHMARKS.md`, 'embedded-user', md)
}
