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
 * Progress on stderr; the table on stdout. Ports and data folders are its own.
 */
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createGzip } from 'node:zlib'
import type { Subprocess } from 'bun'
import { languageOf } from '../src/sim/languages.ts'
import { World } from '../src/sim/world.ts'
import { linesOf } from '../test/support/process.ts'
import { cleanUpOnSignals, printUsageAndExit, progressSince, scriptArgs } from './cli.ts'
import { ROOT } from './setup.ts'

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
      this.processes.set(pid, { cmd: known?.cmd ?? cmdOf(pid), hwmKb: Math.max(known?.hwmKb ?? 0, status.hwmKb), rssKb: status.rssKb })
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

const children = new Set<Subprocess>()

/** SIGTERM to every process of the tree, deepest first; SIGKILL what is left after 20 s. */
async function stopTree(proc: Subprocess, tree: TreeSampler): Promise<void> {
  for (const pid of tree.pids().reverse()) {
    try {
      process.kill(pid, 'SIGTERM')
    } catch {
      // gone already
    }
  }
  const done = await Promise.race([proc.exited.then(() => true), Bun.sleep(20_000).then(() => false)])
  if (!done) for (const pid of tree.pids().reverse()) try {
    process.kill(pid, 'SIGKILL')
  } catch {
    // gone already
  }
  await proc.exited
  tree.stop()
  children.delete(proc)
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
  const env = userEnv({ DATA_DIR: dataDir, PORT: String(port), ...opts.env })
  const proc = Bun.spawn(['npm', 'start', '--silent'], { cwd: ROOT, env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  children.add(proc)
  const tree = new TreeSampler(proc.pid)
  let origin = '?'
  void (async () => {
    for await (const line of linesOf(proc.stdout)) {
      const m = /"msg":"embedded database started".*"origin":"(\w+)"/.exec(line)
      if (m) origin = m[1]!
    }
  })()
  try {
    await waitReady(`http://127.0.0.1:${port}/health/ready`, proc, 120_000)
    const readyMs = performance.now() - t0
    tree.sample()
    const servicePeakMb = mb(tree.find('src/main.ts')?.hwmKb ?? 0)
    const treePeakMb = mb(tree.peakKb)
    progress(`${label}: ready after ${(readyMs / 1000).toFixed(1)} s (${origin}), service peak ${servicePeakMb} MB, tree peak ${treePeakMb} MB; idle for ${idleS} s`)
    if (opts.after) await opts.after(`http://127.0.0.1:${port}`)
    await Bun.sleep(idleS * 1000)
    const treeIdleMb = mb(tree.sample())
    const serviceIdleMb = mb(tree.find('src/main.ts')?.rssKb ?? 0)
    progress(`${label}: idle service ${serviceIdleMb} MB, tree ${treeIdleMb} MB`)
    return { label, readyMs, servicePeakMb, treePeakMb, idleS, serviceIdleMb, treeIdleMb, origin }
  } finally {
    await stopTree(proc, tree)
  }
}

export interface DemoCase {
  days: number
  /** Spawn of `npm run demo` to the demo's first line, to "history written", to its "ready" line (ms). */
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
}

async function measureDemo(days: number, idleS: number, progress: (l: string) => void): Promise<DemoCase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gws-bench-demo-'))
  const port = freePort()
  const t0 = performance.now()
  const proc = Bun.spawn(['npm', 'run', 'demo', '--silent'], {
    cwd: ROOT, env: userEnv({ DATA_DIR: dataDir, PORT: String(port), SIM_PORT: String(freePort()), DEMO_HISTORY_DAYS: String(days) }),
    stdin: 'ignore', stdout: 'ignore', stderr: 'pipe',
  })
  children.add(proc)
  const tree = new TreeSampler(proc.pid)
  const at: { firstLine?: number; history?: number; ready?: number } = {}
  let seedingPeakMb = 0
  let seedingTreePeakMb = 0
  let last = 0
  let longestSilenceMs = 0
  try {
    for await (const line of linesOf(proc.stderr)) {
      const now = performance.now() - t0
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
    if (at.ready === undefined || at.history === undefined || at.firstLine === undefined) throw new Error(`demo exited with ${await proc.exited} before ready`)
    tree.sample()
    const treePeakMb = mb(tree.peakKb)
    progress(`demo (${days} days): first line after ${(at.firstLine / 1000).toFixed(1)} s, history written ${(at.history / 1000).toFixed(1)} s, ready ${(at.ready / 1000).toFixed(1)} s; peak while seeding ${seedingPeakMb} MB (tree ${seedingTreePeakMb} MB), tree ${treePeakMb} MB; idle for ${idleS} s`)
    await Bun.sleep(idleS * 1000)
    tree.sample()
    const serviceIdleMb = mb(tree.find('src/main.ts')?.rssKb ?? 0)
    const demoIdleMb = mb(tree.find('scripts/demo.ts')?.rssKb ?? 0)
    progress(`demo: idle service ${serviceIdleMb} MB, demo (simulator) ${demoIdleMb} MB`)
    return {
      days, firstLineMs: at.firstLine, longestSilenceMs, historyMs: at.history, readyMs: at.ready,
      seedingPeakMb, seedingTreePeakMb, treePeakMb, idleS, serviceIdleMb, demoIdleMb,
    }
  } finally {
    await stopTree(proc, tree)
    rmSync(dataDir, { recursive: true, force: true })
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
  imported: number
  duplicates: number
  capturesPerSecond: number
  peakMb: number
  code: number
}

/** `npm run import` of `file` into the embedded database in `dataDir`; `stopAt`: SIGINT once that many captures are done. */
async function runImport(file: string, dataDir: string, progress: (l: string) => void, stopAt?: number): Promise<ImportRun> {
  const t0 = performance.now()
  const proc = Bun.spawn(['npm', 'run', 'import', '--silent', '--', file], { cwd: ROOT, env: userEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' }), stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  children.add(proc)
  const tree = new TreeSampler(proc.pid)
  const stdout = new Response(proc.stdout).text()
  let shown = 0
  for await (const line of linesOf(proc.stderr)) {
    const m = /^import: (\d+) captures/.exec(line)
    if (!m) continue
    const done = Number(m[1])
    if (stopAt !== undefined && done >= stopAt && proc.exitCode === null) {
      progress(`import: SIGINT at ${done} captures`)
      for (const pid of tree.pids().reverse()) try {
        process.kill(pid, 'SIGINT')
      } catch {
        // gone
      }
      stopAt = undefined
    }
    if (performance.now() - shown > 30_000) {
      shown = performance.now()
      progress(line)
    }
  }
  const code = await proc.exited
  tree.stop()
  children.delete(proc)
  const summary = JSON.parse((await stdout).trim().split('\n').at(-1) ?? '{}') as { imported?: number; duplicates?: number; captures?: number; durationMs?: number }
  const durationS = (performance.now() - t0) / 1000
  return {
    durationS, imported: summary.imported ?? 0, duplicates: summary.duplicates ?? 0,
    capturesPerSecond: (summary.captures ?? 0) / ((summary.durationMs ?? 1) / 1000), peakMb: mb(tree.peakKb), code,
  }
}

export interface YearCase {
  captures: number
  generateS: number
  sourceMb: number
  runs: ImportRun[]
  dataDirMb: number
  start: StartCase
  /** Planet history asked once per planet (computed: each answer's first request), per range: p50 and max (ms). */
  planetHistory: { hours: number; p50Ms: number; maxMs: number; n: number }[]
}

async function measureYear(captures: number, interrupt: boolean, planets: number, idleS: number, progress: (l: string) => void): Promise<YearCase> {
  const dir = mkdtempSync(join(tmpdir(), 'gws-bench-year-'))
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
    for (const r of runs) progress(`year: import ${r.imported} imported, ${r.duplicates} already stored, ${r.capturesPerSecond.toFixed(0)}/s, ${r.durationS.toFixed(0)} s, peak ${r.peakMb} MB (exit ${r.code})`)
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
    return { captures, generateS, sourceMb, runs, dataDirMb, start, planetHistory }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export interface EmbeddedResult {
  at: string
  starts: StartCase[]
  demo: DemoCase | null
  year: YearCase | null
}

/** The results as a markdown table, with the bounds of issue 37 item 4 beside them. */
export function embeddedMarkdown(r: EmbeddedResult): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`
  const rows: string[][] = []
  for (const c of r.starts) {
    rows.push([`${c.label}: ready`, s(c.readyMs), ''])
    rows.push([`${c.label}: peak RSS up to ready, service (tree with npm)`, `${c.servicePeakMb} MB (${c.treePeakMb} MB)`, '≤ 300 MB'])
    rows.push([`${c.label}: idle RSS after ${c.idleS} s, service (tree)`, `${c.serviceIdleMb} MB (${c.treeIdleMb} MB)`, '≤ 200 MB'])
  }
  if (r.demo) {
    const d = r.demo
    rows.push([`npm run demo (${d.days} days): first line`, s(d.firstLineMs), '≤ 1 s'])
    rows.push(['npm run demo: longest silence (between its lines) up to ready', s(d.longestSilenceMs), ''])
    rows.push(['npm run demo: history written, ready', `${s(d.historyMs)}, ${s(d.readyMs)}`, 'ready ≤ 30 s'])
    rows.push(['npm run demo: peak RSS while it seeds, demo process (tree)', `${d.seedingPeakMb} MB (${d.seedingTreePeakMb} MB)`, '≤ 300 MB'])
    rows.push(['npm run demo: tree peak up to ready (demo + service)', `${d.treePeakMb} MB`, ''])
    rows.push([`npm run demo: idle after ${d.idleS} s, service / demo`, `${d.serviceIdleMb} / ${d.demoIdleMb} MB`, ''])
  }
  if (r.year) {
    const y = r.year
    rows.push([`year: ${y.captures} captures (NDJSON.gz ${y.sourceMb} MB, written in ${y.generateS.toFixed(0)} s)`, '', ''])
    for (const [i, run] of y.runs.entries()) {
      rows.push([`year: npm run import${y.runs.length > 1 ? ` (run ${i + 1}${i === 0 ? ', stopped halfway' : ''})` : ''}`, `${run.imported} imported, ${run.duplicates} already there; ${run.capturesPerSecond.toFixed(0)}/s, ${run.durationS.toFixed(0)} s; peak ${run.peakMb} MB`, i === y.runs.length - 1 ? 'every capture once' : ''])
    }
    rows.push(['year: data folder', `${y.dataDirMb} MB`, ''])
    rows.push(['year: npm start on it: ready', s(y.start.readyMs), '≤ 10 s'])
    rows.push(['year: peak RSS up to ready, service (tree)', `${y.start.servicePeakMb} MB (${y.start.treePeakMb} MB)`, '≤ 300 MB'])
    rows.push([`year: idle RSS after the history requests and ${y.start.idleS} s, service (tree)`, `${y.start.serviceIdleMb} MB (${y.start.treeIdleMb} MB)`, '≤ 200 MB'])
    for (const p of y.planetHistory) rows.push([`year: planet history ${p.hours} h, computed (${p.n} planets, each once)`, `p50 ${p.p50Ms.toFixed(1)} ms, max ${p.maxMs.toFixed(1)} ms`, '≤ 50 ms'])
  }
  return ['| Case | Measured | Bound |', '|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n')
}

if (import.meta.main) {
  const { values: argv } = parseArgs({
    args: scriptArgs(),
    options: {
      'idle-wait': { type: 'string' }, 'demo-days': { type: 'string' }, 'year-captures': { type: 'string' },
      interrupt: { type: 'boolean' }, planets: { type: 'string' }, json: { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (argv.help) printUsageAndExit(import.meta.path)
  const num = (v: string | undefined, env: string, fallback: number) => Number(v ?? process.env[`BENCH_${env}`] ?? fallback)
  const idleS = num(argv['idle-wait'], 'IDLE_WAIT', 20)
  const demoDays = num(argv['demo-days'], 'DEMO_DAYS', 30)
  const yearCaptures = num(argv['year-captures'], 'YEAR_CAPTURES', 0)
  const progress = progressSince(performance.now())
  cleanUpOnSignals(async () => {
    for (const p of children) p.kill('SIGKILL')
  }, progress)

  const result: EmbeddedResult = { at: new Date().toISOString(), starts: [], demo: null, year: null }
  const dataDir = mkdtempSync(join(tmpdir(), 'gws-bench-start-'))
  try {
    result.starts.push(await measureStart('npm start, new data folder', join(dataDir, 'data'), idleS, progress))
    result.starts.push(await measureStart('npm start again, same folder', join(dataDir, 'data'), idleS, progress))
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
  if (demoDays > 0) result.demo = await measureDemo(demoDays, idleS, progress)
  if (yearCaptures > 0) result.year = await measureYear(yearCaptures, argv.interrupt ?? false, num(argv.planets, 'PLANETS', 30), idleS, progress)
  process.stdout.write(`${embeddedMarkdown(result)}\n`)
  if (argv.json) writeFileSync(argv.json, `${JSON.stringify(result, null, 2)}\n`)
}
