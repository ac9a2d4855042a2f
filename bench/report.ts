/**
 * The run's report: one Markdown section (printed to stdout and written into BENCHMARKS.md
 * between markers named after the database and preset, so each kind of run replaces only
 * its own section), built from measured values only.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import type { GenStep, Scale } from './generate.ts'
import type { Explained } from './explain.ts'
import type { ImportResult } from './import.ts'
import type { IngestResult } from './ingest.ts'
import type { ThroughputResult } from './load.ts'
import type { LatencyCase, RouteCoverage } from './measure.ts'
import type { ColdStart, IdleRss } from './startup.ts'
import { POST_EVERY_MS, SAMPLE_EVERY_MS, SLACK_MS, WAR_STEP_S } from './check.ts'
import { mb, ms, msFine, n, pct, ratio, size, us } from './stats.ts'
import { checkTotals, missedTargets, pairsOf, planetStatusBytes, PLANET_STATUS_TABLES, type Target } from './targets.ts'


export interface Machine {
  cpu: string
  cores: number
  memGiB: number
  loadavg: number[]
  kernel: string
  os: string
  bun: string
}

/** The checkout a run measured. */
export interface Commit {
  /** `git rev-parse --short HEAD` ('unknown' outside a checkout). */
  hash: string
  /** `git status --porcelain` lines at the start of the run: uncommitted or untracked paths. */
  changes: string[]
  /** Set when HEAD or the changed paths were different at the end of the run. */
  movedDuringRun?: string
}

/** `9822d64`, or `9822d64+dirty` when the tree had uncommitted changes. */
export const commitText = (c: Commit) => `${c.hash}${c.changes.length ? '+dirty' : ''}`

/** `**Commit measured:** 9822d64+dirty (uncommitted at the start: …); during the run: …`, without a final period. */
export const commitMeasured = (c: Commit) =>
  `**Commit measured:** ${commitText(c)}` +
  (c.changes.length ? ` (uncommitted at the start: ${c.changes.slice(0, 8).join(', ')}${c.changes.length > 8 ? ` and ${c.changes.length - 8} more` : ''})` : '') +
  (c.movedDuringRun ? `; during the run: ${c.movedDuringRun}` : '')

export interface RunResult {
  key: string
  commit: Commit
  /** 'default', 'quick' or 'custom': the write and memory baselines hold for the default scale only. */
  preset: string
  dbKind: string
  label: string
  command: string
  date: string
  machine: Machine
  database: { label: string; edition: string; timescaledbVersion: string | null; serverVersion: string; notes: string }
  scale: Scale
  generation: { steps: GenStep[]; seconds: number; warInfoS: number; analyzeS: number; refreshS: number; refreshed: Record<string, number> }
  sizes: { table: string; rows: number; bytes: number | null }[]
  latency: LatencyCase[]
  /** The app's read routes and those no latency case timed. */
  coverage: RouteCoverage
  reps: number
  explains: Explained[]
  throughput: ThroughputResult | null
  /** atStart: the bench process's JS heap before the ticks and after the full collection they start with; autovacuum workers busy then. */
  ingest: { fullStatus: IngestResult; playerCount: IngestResult; atStart?: { heapMb: number; heapAfterGcMb: number; autovacuumWorkers: number } } | null
  /** npm run import of the generated sources (bench/import.ts); absent or null when not measured. */
  imports?: ImportResult | null
  coldStarts: ColdStart[] | null
  idleRss: IdleRss | null
  targets: Target[]
  totalS: number
}


/** Rows and bytes of every table measured. */
export function dataSize(sizes: RunResult['sizes']): string {
  const rows = sizes.reduce((a, t) => a + t.rows, 0)
  const bytes = sizes.reduce((a, t) => a + (t.bytes ?? 0), 0)
  return `${n(rows)} rows in ${sizes.length} tables, ${mb(bytes)}`
}

/** The section's title: what ran, on which commit, machine, edition and data size. */
export function sectionTitle(r: Pick<RunResult, 'label' | 'commit' | 'machine' | 'database' | 'sizes'>): string {
  return `## ${r.label}: commit ${commitText(r.commit)}, ${r.machine.cpu} (${r.machine.cores} cores), edition \`${r.database.edition}\`, ${dataSize(r.sizes)}`
}

export const LATENCY_HEADER =
  '| Route | Result | Computed p50 ms | Computed p95 ms | Kept p50 µs | Kept p95 µs | Queried (computed · kept) | Raw p50 ms (n) | Raw ÷ computed | Raw ÷ kept | Totals |'
export const LATENCY_RULE = '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|'

/** One case of the read-latency table: computed in ms, kept in µs, the raw ratio against each. */
export function latencyRow(c: LatencyCase): string {
  const ct = c.computed?.timing
  const kt = c.kept?.timing
  const b = c.baseline
  const totals = c.totals ? `${n(c.totals.totalResults)} = count(*)` : c.group === 'historical' ? '–' : ''
  const queried = c.computed && c.kept ? `${c.computed.queried}/${c.computed.timing.n} · ${c.kept.queried}/${c.kept.timing.n}` : ''
  const vs = (t: typeof ct) => (b && t ? ratio(b.timing.p50 / t.p50) : '')
  return (
    `| ${c.name} | ${c.detail ? `${c.detail}, ` : ''}${size(c.bytes ?? 0)} | ${ct ? msFine(ct.p50) : '–'} | ${ct ? msFine(ct.p95) : '–'} | ` +
    `${kt ? us(kt.p50) : '–'} | ${kt ? us(kt.p95) : '–'} | ${queried} | ${b ? `${ms(b.timing.p50)} (${b.timing.n})` : ''} | ${b && ct ? `**${vs(ct)}**` : ''} | ${vs(kt)} | ${totals} |`
  )
}

/**
 * The data of a run: rows and bytes per table, the planet-status storage against its bound
 * (per 1,000 days of ticks), and what generating it took, dataset by dataset.
 */
export function dataMarkdown(r: Pick<RunResult, 'sizes' | 'generation' | 'scale' | 'database'>): string[] {
  const L: string[] = ['### Data', '']
  L.push('| Table | Rows | Size |', '|---|---:|---:|')
  for (const t of r.sizes) L.push(`| ${t.table} | ${n(t.rows)} | ${mb(t.bytes)} |`)
  L.push('')
  const ps = planetStatusBytes(r.sizes)
  L.push(
    `**Planet-status storage** (${PLANET_STATUS_TABLES.join(' + ')}; table, indexes and TOAST): ${mb(ps.bytes)} for ${n(r.scale.planetDays)} days of ticks, ` +
      `**${mb((ps.bytes * 1000) / r.scale.planetDays)} per 1,000 days** on edition \`${r.database.edition}\`` +
      (r.database.edition === 'timescale' ? ' (uncompressed; the compressed size is not measured).' : '.'),
    '',
  )
  L.push('Generation (INSERT … SELECT in the database; planet status and the fight from the real captures, bench/war-history.ts):', '')
  L.push('| Dataset | Rows | Seconds | Rows/s |', '|---|---:|---:|---:|')
  for (const g of r.generation.steps) L.push(`| ${g.dataset} | ${n(g.rows)} | ${g.seconds.toFixed(1)} | ${n(g.rows / Math.max(g.seconds, 1e-3))} |`)
  const total = r.generation.steps.reduce((a, g) => a + g.rows, 0)
  L.push(`| **all generated** | **${n(total)}** | **${r.generation.seconds.toFixed(1)}** | **${n(total / Math.max(r.generation.seconds, 1e-3))}** |`)
  L.push('')
  L.push(
    `War-info collector against the simulator (wars, planets, planet_war_info, sectors, factions): ${r.generation.warInfoS.toFixed(2)} s. ` +
      `ANALYZE: ${r.generation.analyzeS.toFixed(1)} s. ` +
      `Rollup refresh (\`refreshRollups\`, as the service's schedule runs it): **${r.generation.refreshS.toFixed(1)} s** ` +
      (Object.keys(r.generation.refreshed).length
        ? `(${Object.entries(r.generation.refreshed).map(([k, v]) => `${k} ${n(v)} rows`).join(', ')}).`
        : '(a no-op on this edition: refresh policies materialize the continuous aggregates).'),
    '',
  )
  return L
}

export function renderMarkdown(r: RunResult): string {
  const L: string[] = []
  const m = r.machine
  L.push(sectionTitle(r), '')
  const missed = missedTargets(r.targets)
  const c = r.commit
  L.push(
    `${commitMeasured(c)}. ` +
      (missed.length ? `**Targets missed (${missed.length} of ${r.targets.length}):**` : `**Targets missed:** none missed (${r.targets.length} targets, verdicts under "Targets" below).`),
    '',
  )
  if (missed.length) {
    for (const t of missed) L.push(`- ${t.name}: ${t.measured}`)
    L.push('')
  }
  L.push(`- **Date:** ${r.date} (whole run ${r.totalS.toFixed(0)} s)`)
  L.push(`- **Command:** \`${r.command}\``)
  L.push(`- **Machine:** ${m.cpu}, ${m.cores} cores, ${m.memGiB.toFixed(1)} GiB RAM; ${m.os}, Linux ${m.kernel}, Bun ${m.bun}; load average at start ${m.loadavg.map((x) => x.toFixed(2)).join(' / ')}`)
  L.push(
    `- **Database:** ${r.database.label}: edition \`${r.database.edition}\`, ` +
      `${r.database.timescaledbVersion ? `TimescaleDB ${r.database.timescaledbVersion}, ` : 'no TimescaleDB, '}PostgreSQL ${r.database.serverVersion}. ${r.database.notes}`,
  )
  const s = r.scale
  L.push(
    `- **Scale:** ${+s.years.toFixed(2)} years of player counts, ${n(s.planetDays)} days of full-status ticks (the real captures of March 2024 tiled), ` +
      `${n(s.summaryDays)} days of war summary, ${n(s.orders)} major orders, ${n(s.dispatches)} dispatches`,
  )
  L.push('')

  L.push(...dataMarkdown(r))

  L.push('### Read latency (in process: `buildApp(deps).handle(request)`, one request at a time)', '')
  L.push(
    `Every GET route under /api/v1, each case timed twice, ${r.reps} timed requests after 3 warm-up ones: ` +
      '**computed** = `deps.versions.bumpAll()` before each request (outside the timed interval), so no answer the service keeps for a data version can serve it: what a request pays after a data change; ' +
      '**kept** = the same request repeated with the versions unchanged. ' +
      'Queried = timed requests during which the app built a query on its database pool, computed · kept (0 for a route that reads no database: /player-count and /war-stats answer from the feeds\' cache, /health/throttle from the process). ' +
      'Raw = the same answer from raw rows (bench/baseline.ts); the computed and the kept answer are both checked equal to it (points and stats) before timing. ' +
      '**Raw ÷ computed** is what the rollups buy; raw ÷ kept (beside it) adds what keeping the answer buys. ' +
      'Paged routes: the first, a middle and the last page of a realistic window and of the whole history; ' +
      "Totals = the answer's totalResults (computed and kept) against a direct `count(*)` over the same filters (the run fails on a difference; `–` where the window is the route's moving default).",
    '',
  )
  L.push(LATENCY_HEADER, LATENCY_RULE)
  for (const c of r.latency) L.push(latencyRow(c))
  if (r.coverage.untimed.length) L.push('', `**Read routes not timed:** ${r.coverage.untimed.join(', ')}.`)
  L.push('')

  if (r.throughput) {
    const tp = r.throughput
    const runs = [...new Set(tp.routes.map((x) => x.durationS))].sort((a, b) => b - a)
    const target = tp.routes.find((x) => x.target)
    const otherS = tp.routes.find((x) => !x.target)?.durationS
    const targetRun = !target ? '–' : target.slices.length > 1 ? `${target.durationS} s on each side, in ${target.slices.length} alternating runs of ${target.sliceS} s (service, ceiling, service, …)` : `${target.durationS} s`
    L.push(`### HTTP throughput (loopback, ${tp.tool}, ${runs.map((d) => `${d} s`).join(' / ')} per route and side)`, '')
    L.push(
      'Service = `bun src/main.ts` on the bench database (SCHEDULE_ENABLED=false, feeds on the simulator); ceiling = `bench/ceiling.ts`, a bare `Bun.serve` answering the same bytes and headers ' +
        '(fetched once from the service, so bodies that carry the current time keep the time of that fetch); both measured in this run, alternately, route by route, each after a warm-up run. ' +
        `The target routes (diver history, planet history, /player-count, /war, /planets; marked *) get ${targetRun}, the others ${otherS ?? '–'} s in one run on each side. ` +
        (target && target.slices.length > 1
          ? 'A target route\'s req/s, latencies and ratio are those of its median pair of runs (by ratio; every pair\'s ratio in the Pairs column), so a burst of other work on this shared machine within one pair moves that pair, not the figure. '
          : '') +
        'During the diver- and planet-history runs and two historical page runs the exactness check below runs as well (its sampling also during the ceiling\'s run). ' +
        'Service RSS = the highest VmRSS of the service polled from the start of the route\'s runs to the start of the next route\'s (memory a route takes stays with the process, so it bounds the routes after it too).',
      '',
    )
    L.push(
      '| Route | Run | Body | Service req/s | p50 / p99 ms | Ceiling req/s | p50 / p99 ms | Service ÷ ceiling | Pairs | Service RSS |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    )
    for (const x of tp.routes) {
      const lat = (l: typeof x.service) => `${l.p50Ms === null ? '–' : ms(l.p50Ms)} / ${l.p99Ms === null ? '–' : ms(l.p99Ms)}`
      // Failed requests of every run of the route, not only the median pair's.
      const errors = x.slices.reduce((a, p) => a + p.service.errors, 0)
      const non2xx = x.slices.reduce((a, p) => a + p.service.non2xx, 0)
      const errs = errors + non2xx > 0 ? ` (${errors} errors, ${non2xx} non-2xx over all runs)` : ''
      const run = x.slices.length > 1 ? `${x.slices.length} × ${x.sliceS} s` : `${x.durationS} s`
      L.push(
        `| ${x.path}${x.target ? ' *' : ''} | ${run} | ${size(x.bytes)} | ${n(x.service.rps)}${errs} | ${lat(x.service)} | ${n(x.ceiling.rps)} | ${lat(x.ceiling)} | ${pct(x.ratio)} | ${pairsOf(x)} | ${x.maxRssMb.toFixed(0)} MB |`,
      )
    }
    L.push('')

    const checked = tp.routes.filter((x) => x.check)
    if (checked.length) {
      L.push('### Exact answers under load', '')
      L.push(
        `While wrk loads the route on the service, the bench process (bench/check.ts) every ${(POST_EVERY_MS / 1000).toFixed(1)} s advances the simulator's war by ${WAR_STEP_S} s and POSTs ` +
          '`/collect/player-count` (and `/collect/full-status` for planet status) to the service, the only writer; and every ' +
          `${SAMPLE_EVERY_MS} ms GETs the route from the service and compares the answer with the raw-rows answer (bench/baseline.ts) at the answer's own \`to\` ` +
          '(a page, which has none: its total and row times against `count(*)` and `ORDER BY captured_at DESC LIMIT` over the raw rows at the request\'s start, or at its answer). ' +
          `A sample is skipped when a POST that wrote rows overlapped it (from ${SLACK_MS} ms before its request to ${SLACK_MS} ms after its raw computation). ` +
          "A POST writes only when the service's feed cache (15 s per endpoint, fresh for 14 s) has expired and shows a new war time: the table counts the POSTs that wrote. " +
          'Checker DB time = the raw computations\' share of the run (the same sampling runs against the ceiling during its run, without comparing, so both sides carry it).',
        '',
      )
      L.push(
        '| Route | Samples equal | Skipped | Mismatched | Failed | Ingest POSTs that wrote | Rows written during the run | Checker DB time |',
        '|---|---:|---:|---:|---:|---|---|---:|',
      )
      for (const x of checked) {
        const c = x.check!
        const rows = Object.entries(c.rowsWritten).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${n(v)}`).join(', ') || 'none'
        L.push(
          `| ${x.path} | ${n(c.equal)} | ${n(c.skipped)} | ${c.mismatched ? `**${n(c.mismatched)}**` : '0'} | ${n(c.failed)} | ` +
            `${c.posts.map((p) => `${p.collector} ${p.wrote}/${p.posts}${p.failed ? ` (${p.failed} failed)` : ''}`).join(', ')} | ${rows} | ${pct(c.rawMsTotal / c.durationMs)} |`,
        )
      }
      const t = checkTotals(tp.routes)
      L.push('', `**${n(t.equal)} samples equal, ${n(t.mismatched)} mismatched, ${n(t.skipped)} skipped${t.failed ? `, ${n(t.failed)} failed` : ''}.**`)
      for (const x of checked.filter((y) => y.check!.firstMismatch)) L.push('', `Mismatch: ${x.check!.firstMismatch}`)
      for (const x of checked.filter((y) => y.check!.errors.length)) L.push('', `Failed samples of ${x.path}: ${x.check!.errors.join('; ')}`)
      L.push('')
    }
  }

  if (r.coldStarts?.length) {
    L.push('### Cold start (a fresh service process on the same database; the first request it gets)', '')
    L.push('Wall clock from sending the request to its last byte, sent as soon as the process logged "listening"; the second request follows at once.', '')
    L.push('| Route | Process start → listening | First request | Second request | Body |', '|---|---:|---:|---:|---:|')
    for (const c of r.coldStarts) L.push(`| ${c.path} | ${ms(c.startMs)} ms | **${ms(c.firstMs)} ms** | ${ms(c.secondMs)} ms | ${size(c.bytes)} |`)
    L.push('')
  }

  if (r.throughput || r.idleRss) {
    L.push('### Memory', '')
    if (r.throughput) {
      const tp = r.throughput
      L.push(
        `- Service during the throughput phase (pid ${tp.servicePid}, /proc polled every 100 ms, ${tp.rss.samples} samples): ` +
          `after start ${tp.rss.afterStartMb.toFixed(0)} MB, highest VmRSS ${tp.rss.maxVmRssMb.toFixed(0)} MB, **peak (VmHWM) ${tp.rss.vmHwmMb.toFixed(0)} MB**.`,
      )
    }
    if (r.idleRss) {
      const i = r.idleRss
      L.push(
        `- Idle service on the embedded default (\`bun src/main.ts\` without DATABASE_URL: PGlite in a fresh DATA_DIR, edition \`${i.edition}\`, feeds on the simulator, SCHEDULE_ENABLED=false): ` +
          `listening after ${ms(i.startMs)} ms, then ${i.waitS} s without requests: **VmRSS ${i.vmRssMb.toFixed(0)} MB** (VmHWM ${i.vmHwmMb.toFixed(0)} MB).`,
      )
    }
    L.push('')
  }

  if (r.ingest) {
    L.push('### Ingest (the real collectors through the runner, as a POST runs them; simulator at speed 0, feed caches expired between ticks)', '')
    L.push('| Measure | full-status | player-count |', '|---|---:|---:|')
    const { fullStatus: f, playerCount: p } = r.ingest
    L.push(`| feeds fetched per tick | status, summary, assignments, newsfeed | status (+ PC store when due) |`)
    L.push(`| war advanced per tick | ${f.advanceS} s | ${p.advanceS} s |`)
    L.push(`| tick, wall (fetches + 1 transaction), p50 / p95 | ${ms(f.wall.p50)} / ${ms(f.wall.p95)} ms (n = ${f.ticks}) | ${ms(p.wall.p50)} / ${ms(p.wall.p95)} ms (n = ${p.ticks}) |`)
    L.push(`| of which the feed fetches, p50 / p95 | ${ms(f.fetch.p50)} / ${ms(f.fetch.p95)} ms | ${ms(p.fetch.p50)} / ${ms(p.fetch.p95)} ms |`)
    L.push(`| of which the write transaction, p50 / p95 | ${ms(f.write.p50)} / ${ms(f.write.p95)} ms | ${ms(p.write.p50)} / ${ms(p.write.p95)} ms |`)
    L.push(`| rows per tick (main dataset / all datasets) | ${n(f.mainPerTick)} planet status / ${n(f.rowsPerTick)} | ${p.mainPerTick.toFixed(1)} upstream / ${p.rowsPerTick.toFixed(1)} |`)
    L.push(`| main-dataset rows/s through the collector path | ${n(f.mainRowsPerS)} | ${n(p.mainRowsPerS)} |`)
    L.push(`| all rows/s through the collector path | ${n(f.rowsPerS)} | ${n(p.rowsPerS)} |`)
    L.push('')
    const s = r.ingest.atStart
    if (s) {
      L.push(
        `The ticks run in the bench process; its JS heap held ${n(s.heapMb)} MB after the reads' raw baselines and ${n(s.heapAfterGcMb)} MB after the full collection (\`Bun.gc(true)\`) the ticks start with. ` +
          `Autovacuum workers busy in the database when the ticks started: ${s.autovacuumWorkers}.`,
        '',
      )
    }
  }

  if (r.imports) {
    const im = r.imports
    L.push('### Import (`npm run import`, a process of its own, into an empty database)', '')
    L.push(
      `Sources generated from the simulated war (bench/import.ts, seed 1): ${n(im.captures)} captures 5 minutes apart, ${im.planets} planets each, written in ${im.generateS.toFixed(1)} s: ` +
        'a git archive (one commit per capture, dated at it, changing its status, summary, assignments and newsfeed files, as a git-scraping archive of every feed holds them) ' +
        `and an NDJSON file, one whole capture per line (${mb(im.ndjsonBytes)}). Each is imported into a scratch database of its own on the bench's server. ` +
        "Captures/s and rows/s: the importer's own summary (reading, writing, and its rollup refresh at the end); peak RSS: the import process's VmHWM, /proc polled every 100 ms.",
      '',
    )
    L.push('| Source | Captures | Imported | Seconds | Captures/s | Rows | Rows/s | Peak RSS |', '|---|---:|---:|---:|---:|---:|---:|---:|')
    for (const x of im.runs) {
      L.push(
        `| ${x.source === 'git' ? 'git archive (whole captures)' : 'NDJSON (whole captures)'} | ${n(x.captures)} | ${n(x.imported)} | ${(x.durationMs / 1000).toFixed(1)} | **${x.capturesPerSecond.toFixed(0)}** | ${n(x.rows)} | ${n(x.rowsPerSecond)} | ${x.peakRssMb.toFixed(0)} MB |`,
      )
    }
    L.push('')
  }

  L.push('### Targets', '')
  if (r.preset !== 'default' || r.dbKind !== 'timescaledb') {
    L.push(
      'The write, refresh and peak-memory bounds hold for the default-scale TimescaleDB run, the computed-history and storage bounds at the default scale on a database server; ' +
        `this run (${r.preset} scale, ${r.dbKind}) is not comparable with them.`,
      '',
    )
  }
  L.push('| Target | Measured | Verdict |', '|---|---|---|')
  for (const t of r.targets) L.push(`| ${t.name} | ${t.measured} | ${t.verdict === 'missed' ? '**missed**' : t.verdict} |`)
  L.push('')

  if (r.explains.length) {
    L.push('### Query plans of the slowest cases', '')
    for (const e of r.explains) {
      L.push(
        `<details><summary>${e.reason ? `${e.reason}: ` : ''}<code>GET ${e.path}</code>: ${e.statements.length} statements; slowest ${e.slowest ? ms(e.slowest.ms) : '–'} ms alone</summary>`,
        '',
      )
      L.push('Statements of the request, each timed alone (ms):', '')
      for (const st of e.statements) L.push(`- ${ms(st.ms)} ms: \`${st.query.slice(0, 300).replace(/`/g, "'")}${st.query.length > 300 ? ' …' : ''}\``)
      L.push('', 'EXPLAIN (ANALYZE, BUFFERS) of the slowest:', '', '```', e.plan, '```', '', '</details>', '')
    }
  }
  return L.join('\n')
}

const HEADER = `# Benchmarks

Written by \`npm run bench\` (bench/run.ts): each section below is one real run, replaced
only by the next run of the same kind (database and preset). See the README's
"Benchmarks" section for how to run it.
`

/** Replace (or append) this run's section of BENCHMARKS.md. */
export function writeSection(file: string, key: string, markdown: string) {
  const start = `<!-- bench:${key}:start -->`
  const end = `<!-- bench:${key}:end -->`
  const block = `${start}\n${markdown.trim()}\n${end}`
  let text = existsSync(file) ? readFileSync(file, 'utf8') : HEADER
  const i = text.indexOf(start)
  const j = text.indexOf(end)
  if (i >= 0 && j > i) text = text.slice(0, i) + block + text.slice(j + end.length)
  else text = `${text.trimEnd()}\n\n${block}\n`
  writeFileSync(file, text.endsWith('\n') ? text : `${text}\n`)
}
