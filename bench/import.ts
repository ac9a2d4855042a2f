/**
 * The importer's rate: `npm run import` (src/cli/import.ts, a process of its
 * own, as a user runs it) into an empty database, from two generated sources of the same
 * captures of the simulated war on a 5-minute cadence:
 * - a git archive as a git-scraping archive of every feed is: one commit per capture
 *   (committer date = capture time) changing status.json (the war status of 261 planets),
 *   summary.json, assignments.json and newsfeed.json: whole captures; built with
 *   `git fast-import`;
 * - an NDJSON file, one capture per line with every part: the status, the summary, the
 *   assignments and the newsfeed.
 * Reported: captures/s (the importer's own summary, its rollup refresh included), rows/s
 * and the import process's peak RSS (VmHWM, /proc polled every 100 ms).
 *
 *   bun bench/import.ts [-- options]     the import case alone (bun run bench runs it too)
 *     --captures N   captures in each source (default 3000, ~10 days of 5-minute captures)
 *     --db-url URL   a PostgreSQL/TimescaleDB server (a scratch database per source, dropped);
 *                    default: an own TimescaleDB instance (scripts/testdb.sh)
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { Subprocess } from 'bun'
import { languageOf } from '../src/sim/languages.ts'
import { World } from '../src/sim/world.ts'
import { printUsageAndExit, scriptArgs } from './cli.ts'
import { statusKb, stopProcess } from './load.ts'
import { IMPORT_BOUND } from './targets.ts'
import { ROOT, scratchDatabase, startBenchServer } from './setup.ts'

const EVERY_S = 300
/** The git archive's files, one per part of a capture. */
const FILES = { status: 'status.json', summary: 'summary.json', assignments: 'assignments.json', newsfeed: 'newsfeed.json' } as const

export interface ImportSources {
  dir: string
  ndjson: string
  git: { repo: string; paths: string[] }
  captures: number
  planets: number
  /** Bytes of the NDJSON file. */
  bytes: number
  /** Seconds to render the captures and write both sources. */
  seconds: number
  remove(): void
}

/**
 * `captures` captures of the simulated war (seed 1), EVERY_S apart, the last one a day
 * before now, written as an NDJSON file and as a git archive in a temp folder.
 */
export async function writeImportSources(captures: number): Promise<ImportSources> {
  const t0 = performance.now()
  const dir = mkdtempSync(join(tmpdir(), 'gws-bench-import-'))
  const endMs = Math.floor((Date.now() - 86_400_000) / (EVERY_S * 1000)) * EVERY_S * 1000
  const startMs = endMs - (captures - 1) * EVERY_S * 1000
  const world = new World({ seed: 1, speed: 1, now: () => startMs })
  const ndjson = join(dir, 'captures.ndjson')
  const repo = join(dir, 'archive')
  const lines = createWriteStream(ndjson)
  const git = (args: string[]) => {
    const r = Bun.spawnSync(['git', ...args], { cwd: repo, stdout: 'pipe', stderr: 'pipe' })
    if (r.exitCode !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.toString()}`)
  }
  Bun.spawnSync(['mkdir', '-p', repo])
  git(['init', '-q', '-b', 'main'])
  const fastImport = Bun.spawn(['git', 'fast-import', '--quiet'], { cwd: repo, stdin: 'pipe', stdout: 'ignore', stderr: 'pipe' })
  const enc = new TextEncoder()
  let bytes = 0
  let planets = 0
  const language = languageOf('en-US')
  for (let i = 0; i < captures; i++) {
    if (i) world.advance(EVERY_S)
    const war = world.current()
    const at = new Date(startMs + i * EVERY_S * 1000)
    const parts = {
      status: war.status(),
      summary: war.summary(),
      assignments: war.assignments(language),
      newsfeed: war.newsfeed({ maxEntries: 1024, fromTimestamp: 1000, withMessage: true, language }),
    }
    planets = parts.status.planetStatus.length
    const line = `${JSON.stringify({ capturedAt: at.toISOString(), warId: war.warId, ...parts })}\n`
    bytes += Buffer.byteLength(line)
    if (!lines.write(line)) await new Promise((r) => lines.once('drain', r))
    const epoch = Math.floor(at.getTime() / 1000)
    // One commit, its files inline (fast-import's stream format); a file as it was adds nothing to the commit.
    fastImport.stdin.write(`commit refs/heads/main\ncommitter Bench <bench@example.invalid> ${epoch} +0000\ndata 7\ncapture\n`)
    for (const [part, file] of Object.entries(FILES)) {
      const text = enc.encode(JSON.stringify(parts[part as keyof typeof FILES]))
      fastImport.stdin.write(`M 644 inline ${file}\ndata ${text.byteLength}\n`)
      fastImport.stdin.write(text)
      fastImport.stdin.write('\n')
    }
    await fastImport.stdin.flush()
  }
  await new Promise<void>((resolve, reject) => lines.end((err?: Error | null) => (err ? reject(err) : resolve())))
  fastImport.stdin.end()
  if ((await fastImport.exited) !== 0) throw new Error(`git fast-import failed: ${await new Response(fastImport.stderr).text()}`)
  return {
    dir, ndjson, git: { repo, paths: Object.values(FILES) }, captures, planets, bytes, seconds: (performance.now() - t0) / 1000,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}

export interface ImportRun {
  source: 'git' | 'ndjson'
  captures: number
  imported: number
  durationMs: number
  capturesPerSecond: number
  rows: number
  rowsPerSecond: number
  rowsByDataset: Record<string, number>
  /** The import process's peak resident memory (VmHWM, MB) and its samples. */
  peakRssMb: number
  rssSamples: number
}

/** One `npm run import` of a source into the database at `databaseUrl` (empty, migrated or not). */
export async function runImport(
  source: 'git' | 'ndjson',
  sources: ImportSources,
  databaseUrl: string,
  track: (p: Subprocess) => void = () => {},
): Promise<ImportRun> {
  const args = source === 'git' ? ['--git', sources.git.repo, ...sources.git.paths.flatMap((p) => ['--path', p])] : [sources.ndjson]
  const proc = Bun.spawn([process.execPath, 'src/cli/import.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, DATABASE_READ_URL: '', LOG_LEVEL: 'warn', WAR_ID: '801' },
    stdin: 'ignore', stdout: 'pipe', stderr: 'pipe',
  })
  track(proc)
  let hwmKb = 0
  let samples = 0
  const poll = setInterval(() => {
    const kb = statusKb(proc.pid, 'VmHWM')
    if (kb !== null) {
      hwmKb = Math.max(hwmKb, kb)
      samples++
    }
  }, 100)
  try {
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    if (code !== 0) throw new Error(`import (${source}) exited with ${code}: ${err.slice(-2000)}`)
    const summary = JSON.parse(out.trim().split('\n').at(-1)!) as { captures: number; imported: number; skipped: number; durationMs: number; rows: Record<string, number> }
    if (summary.imported !== sources.captures) throw new Error(`import (${source}): ${summary.imported} of ${sources.captures} captures imported: ${out.slice(0, 2000)}`)
    const rows = Object.values(summary.rows).reduce((a, b) => a + b, 0)
    return {
      source, captures: summary.captures, imported: summary.imported, durationMs: summary.durationMs,
      capturesPerSecond: (summary.captures * 1000) / summary.durationMs, rows, rowsPerSecond: (rows * 1000) / summary.durationMs,
      rowsByDataset: summary.rows, peakRssMb: hwmKb / 1024, rssSamples: samples,
    }
  } finally {
    clearInterval(poll)
    await stopProcess(proc)
  }
}

export interface ImportResult {
  captures: number
  planets: number
  ndjsonBytes: number
  generateS: number
  runs: ImportRun[]
}

/** Both sources, each into a scratch database of its own on the server at `serverUrl`. */
export async function measureImport(
  serverUrl: string,
  o: { captures: number; progress: (line: string) => void; track?: (p: Subprocess) => void },
): Promise<ImportResult> {
  o.progress(`import: writing ${o.captures} captures as a git archive and an NDJSON file`)
  const sources = await writeImportSources(o.captures)
  o.progress(`import: sources written in ${sources.seconds.toFixed(1)} s (NDJSON ${(sources.bytes / 2 ** 20).toFixed(0)} MB)`)
  const runs: ImportRun[] = []
  try {
    for (const source of ['git', 'ndjson'] as const) {
      const scratch = await scratchDatabase(serverUrl)
      try {
        const r = await runImport(source, sources, scratch.url, o.track)
        runs.push(r)
        o.progress(`import ${source}: ${r.captures} captures in ${(r.durationMs / 1000).toFixed(1)} s, ${r.capturesPerSecond.toFixed(0)}/s, ${Math.round(r.rowsPerSecond)} rows/s, peak RSS ${r.peakRssMb.toFixed(0)} MB`)
      } finally {
        await scratch.drop()
      }
    }
  } finally {
    sources.remove()
  }
  return { captures: sources.captures, planets: sources.planets, ndjsonBytes: sources.bytes, generateS: sources.seconds, runs }
}

if (import.meta.main) {
  const { values: argv } = parseArgs({
    args: scriptArgs(),
    options: { captures: { type: 'string' }, 'db-url': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  })
  if (argv.help) printUsageAndExit(import.meta.path)
  const captures = Math.max(1, Math.round(Number(argv.captures ?? IMPORT_BOUND.captures)))
  const progress = (line: string) => process.stderr.write(`${line}\n`)
  const server = await startBenchServer(argv['db-url'])
  let code = 0
  try {
    const r = await measureImport(server.url, { captures, progress })
    for (const run of r.runs) {
      const met = run.capturesPerSecond >= IMPORT_BOUND.capturesPerSecond && run.peakRssMb <= IMPORT_BOUND.peakRssMb
      process.stdout.write(`${JSON.stringify({ ...run, verdict: met ? 'met' : 'missed' })}\n`)
    }
  } catch (err) {
    code = 1
    progress(`bench import FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
  } finally {
    await server.stop()
  }
  process.exit(code)
}
