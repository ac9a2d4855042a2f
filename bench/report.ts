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
import type { RouteThroughput, ThroughputResult } from './load.ts'
import type { LatencyCase, ModeTiming, RouteCoverage } from './measure.ts'
import type { ColdStart, IdleRss } from './startup.ts'
import { POST_EVERY_MS, SAMPLE_EVERY_MS, SLACK_MS, WAR_STEP_S } from './check.ts'
import { ms, msFine, us } from './stats.ts'

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

/** Issue 24: a computed diver history (every range) and planet history (24/168/720 h) answer in p50 ≤ 10 ms at the default scale. */
export const COMPUTED_HISTORY_P50_MS = 10

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

export interface Target {
  name: string
  measured: string
  /** 'met' / 'missed', or a word where no verdict applies ('reported', 'no baseline', ...). */
  verdict: string
}

/**
 * The figures of the service before issue 13 that the issue's write and memory targets
 * refer to: BENCHMARKS.md, TimescaleDB default-scale run of 2026-11-23 (full-status tick
 * p50, rollup refresh, peak RSS of the throughput phase), and the issue's own figure for
 * the idle RSS on the embedded default (not measured by the bench before). No
 * player-count tick was timed before issue 13.
 */
export const BEFORE_ISSUE_13 = { fullStatusP50Ms: 4.46, playerCountP50Ms: null as number | null, rollupRefreshS: 23.3, peakRssMb: 120, idleEmbeddedRssMb: 330 }

/** Issue 26: captures of full war status per second into TimescaleDB, judged on sources of this many captures. */
export const IMPORT_BOUND = { capturesPerSecond: 200, captures: 3000 }

/**
 * The routes the throughput phase loaded before issue 13 (bench/run.ts then): the peak RSS
 * of 120 MB was measured over these four only; the phase now loads every read route.
 */
export const ROUTES_LOADED_BEFORE_ISSUE_13 = ['/api/v1/war', '/api/v1/planets', '/api/v1/player-count', '/api/v1/divers/history?range=7d']

/** Highest VmRSS polled up to the end of the last of the routes the run before issue 13 loaded (undefined when one is missing). */
export function peakOverRoutesLoadedBefore(routes: RouteThroughput[]): { mb: number; upTo: string } | undefined {
  const at = ROUTES_LOADED_BEFORE_ISSUE_13.map((p) => routes.findIndex((x) => x.path === p))
  if (at.some((i) => i < 0)) return undefined
  const last = Math.max(...at)
  return { mb: Math.max(...routes.slice(0, last + 1).map((x) => x.maxRssMb)), upTo: routes[last]!.path }
}

const n = (v: number) => Math.round(v).toLocaleString('en')
const mb = (b: number | null) => (b === null ? '–' : b >= 1 << 30 ? `${(b / (1 << 30)).toFixed(2)} GB` : `${(b / (1 << 20)).toFixed(1)} MB`)
const size = (b: number) => (b < 1024 ? `${b} B` : b < 1 << 20 ? `${(b / 1024).toFixed(1)} KB` : mb(b))
const ratio = (r: number) => (r >= 100 ? `${r.toFixed(0)}×` : `${r.toFixed(1)}×`)

/** A share in percent: whole percents, one decimal below 10 % (0.2 % is not 0 %). */
const percent = (r: number) => (100 * r).toFixed(r < 0.1 ? 1 : 0)
const pct = (r: number) => `${percent(r)} %`
/** Every pair's ratio of a route run in slices, e.g. "91 · 83 · 93 %"; empty for one run. */
const pairsOf = (x: RouteThroughput) => (x.slices.length > 1 ? `${x.slices.map((p) => percent(p.ratio)).join(' · ')} %` : '')
/** A route's timed load: "15 s", or its median pair of slices, e.g. "median of 91 · 83 · 93 %, 3 × 5 s". */
const runOf = (x: RouteThroughput) => (x.slices.length > 1 ? `median of ${pairsOf(x)}, ${x.slices.length} × ${x.sliceS} s` : `${x.durationS} s`)
const verdict = (met: boolean) => (met ? 'met' : 'missed')

/** Sum of the exactness checks of some load runs. */
export function checkTotals(routes: RouteThroughput[]) {
  const checked = routes.filter((x) => x.check)
  const sum = (f: (x: RouteThroughput) => number) => checked.reduce((a, x) => a + f(x), 0)
  return {
    runs: checked.length,
    equal: sum((x) => x.check!.equal),
    skipped: sum((x) => x.check!.skipped),
    mismatched: sum((x) => x.check!.mismatched),
    failed: sum((x) => x.check!.failed),
    rows: sum((x) => Object.values(x.check!.rowsWritten).reduce((a, b) => a + b, 0)),
    upstreamRows: sum((x) => x.check!.rowsWritten.upstreamRows ?? 0),
    planetRows: sum((x) => x.check!.rowsWritten.planetStatus ?? 0),
  }
}

/** Verdicts against the targets of issue 13, from the measured figures. */
export function evaluateTargets(
  r: Pick<RunResult, 'latency' | 'coverage' | 'throughput' | 'ingest' | 'coldStarts' | 'idleRss' | 'generation' | 'preset' | 'dbKind'> &
    Partial<Pick<RunResult, 'imports' | 'database'>>,
): Target[] {
  const out: Target[] = []
  // Issue 24's computed-history bound holds at the default scale, on a database server (not the in-memory PGlite).
  const historyComparable = r.preset === 'default' && r.dbKind !== 'embedded'
  const historyNotComparable = `not comparable (the bound holds at the default scale on a database server; this run: ${r.preset} scale, ${r.dbKind})`
  const p50 = (t: ModeTiming | undefined) => t?.timing.p50 ?? NaN
  const worstBy = (cs: LatencyCase[], f: (c: LatencyCase) => number) => cs.reduce((a, c) => (f(c) > f(a) ? c : a))
  const computedHistory = (name: string, cases: LatencyCase[], label: (c: LatencyCase) => string) => {
    if (!cases.length) return
    const worst = worstBy(cases, (c) => p50(c.computed))
    out.push({
      name,
      measured:
        `worst computed p50 ${msFine(p50(worst.computed))} ms (${label(worst)}); ` +
        cases.map((c) => `${label(c)} ${msFine(p50(c.computed))} ms computed / ${us(p50(c.kept))} µs kept`).join(', '),
      verdict: historyComparable ? verdict(cases.every((c) => p50(c.computed) <= COMPUTED_HISTORY_P50_MS)) : historyNotComparable,
    })
  }
  const b = BEFORE_ISSUE_13
  // The write and peak-memory baselines are figures of the default-scale TimescaleDB run.
  const comparable = r.preset === 'default' && r.dbKind === 'timescaledb'
  const notComparable = 'not comparable (baseline: default scale, TimescaleDB)'
  const shares = (prefix: string) => r.throughput?.routes.filter((x) => x.path.startsWith(prefix)) ?? []
  const shareTarget = (name: string, routes: RouteThroughput[], min: number, label: (x: RouteThroughput) => string) => {
    if (!routes.length) return
    const least = routes.reduce((a, x) => (x.ratio < a.ratio ? x : a))
    out.push({
      name,
      measured:
        (routes.length > 1 ? `least ${pct(least.ratio)} (${label(least)}); ` : '') +
        routes.map((x) => `${routes.length > 1 ? `${label(x)} ` : ''}${pct(x.ratio)} (${n(x.service.rps)} vs ${n(x.ceiling.rps)} req/s, ${runOf(x)})`).join(', '),
      verdict: verdict(routes.every((x) => x.ratio >= min)),
    })
  }

  shareTarget('diver history, every range: ≥ 50 % of the ceiling under load', shares('/api/v1/divers/history'), 0.5, (x) => x.path.split('range=')[1]!)
  const divers = r.latency.filter((c) => c.target === 'divers' && c.computed && c.kept)
  computedHistory(
    `computed diver history, every range: p50 ≤ ${COMPUTED_HISTORY_P50_MS} ms (in process, data versions moved before each request)`,
    divers,
    (c) => c.name.split('=')[1]!,
  )
  if (divers.length) {
    const worst = worstBy(divers, (c) => p50(c.kept))
    out.push({
      name: 'diver history, every range: kept answer p50 ≤ 1 ms for one request (in process)',
      measured: `worst kept p50 ${us(p50(worst.kept))} µs (${worst.name.replace('divers/history ', '')}); ` + divers.map((c) => `${c.name.split('=')[1]} ${us(p50(c.kept))} µs`).join(', '),
      verdict: verdict(divers.every((c) => p50(c.kept) <= 1)),
    })
  }
  computedHistory(
    `computed planet history 24/168/720 h: p50 ≤ ${COMPUTED_HISTORY_P50_MS} ms (in process, data versions moved before each request)`,
    r.latency.filter((c) => c.target === 'planet' && c.computed && c.kept),
    (c) => `${c.name.split('hours=')[1]} h`,
  )
  {
    const timed = r.latency.filter((c) => c.computed && c.kept)
    const unqueried = timed.filter((c) => c.computed!.queried === 0).map((c) => c.name)
    out.push({
      name: 'every GET route under /api/v1 timed computed and kept (in process)',
      measured:
        `${r.coverage.routes.length - r.coverage.untimed.length} of ${r.coverage.routes.length} routes, ${timed.length} cases` +
        (r.coverage.untimed.length ? `; not timed: ${r.coverage.untimed.join(', ')}` : '') +
        (unqueried.length ? `; computed requests that queried no database: ${unqueried.join(', ')}` : ''),
      verdict: verdict(r.coverage.untimed.length === 0 && r.coverage.routes.length > 0),
    })
  }
  if (r.throughput) {
    const t = checkTotals(r.throughput.routes)
    if (t.runs) {
      out.push({
        name: 'answers under load (diver history, planet history, two kept pages) equal the raw answer over the rows stored at that moment',
        measured:
          `${n(t.equal)} samples equal, ${n(t.mismatched)} mismatched, ${n(t.skipped)} skipped (a writing POST overlapped)` +
          `${t.failed ? `, ${n(t.failed)} failed requests` : ''}, over ${t.runs} load runs; ` +
          `meanwhile the ingest POSTs wrote ${n(t.upstreamRows)} player-count and ${n(t.planetRows)} planet-status rows`,
        verdict: t.mismatched > 0 ? 'missed' : t.equal === 0 ? 'not checked (no sample compared)' : 'met',
      })
    }
  }
  shareTarget('planet history 24/168/720 h: ≥ 50 % of the ceiling under load', shares('/api/v1/planet/'), 0.5, (x) => `${x.path.split('hours=')[1]} h`)
  const pages = r.latency.filter((c) => c.target === 'page' && c.computed)
  if (pages.length) {
    const worst = worstBy(pages, (c) => p50(c.computed))
    const checked = pages.filter((c) => c.totals).length
    out.push({
      name: 'every page (first, middle, last) of every historical-* route over the whole history: computed p50 ≤ 20 ms, totals exact',
      measured:
        `worst computed p50 ${ms(p50(worst.computed))} ms (${worst.name}); ${pages.filter((c) => p50(c.computed) > 20).length} of ${pages.length} pages above 20 ms; ` +
        `totalResults/totalPages equal to a direct count(*) on ${checked} of ${pages.length} pages`,
      verdict: verdict(pages.every((c) => p50(c.computed) <= 20) && checked === pages.length),
    })
  }
  const derived = r.latency.filter((c) => c.target === 'derived' && c.computed && c.kept)
  if (derived.length) {
    const worst = worstBy(derived, (c) => p50(c.kept))
    const worstComputed = worstBy(derived, (c) => p50(c.computed))
    out.push({
      name: 'each route of the derived war view p50 ≤ 20 ms (in process; judged on the request repeated with the data versions unchanged)',
      measured:
        `worst kept p50 ${us(p50(worst.kept))} µs (${worst.name}); worst computed p50 ${ms(p50(worstComputed.computed))} ms (${worstComputed.name}); ` +
        derived.map((c) => `${c.name} ${ms(p50(c.computed))} ms computed / ${us(p50(c.kept))} µs kept`).join(', '),
      verdict: verdict(derived.every((c) => p50(c.kept) <= 20 && c.status === 200)),
    })
  }
  const fronts = r.latency.filter((c) => c.target === 'derived' && c.computed && (c.path === '/api/v1/campaigns' || c.path === '/api/v1/major-orders'))
  if (fronts.length) {
    out.push({
      name: '/campaigns and /major-orders: computed p50 ≤ 5 ms (in process, data versions moved before each request)',
      measured: fronts.map((c) => `${c.name} ${ms(p50(c.computed))} ms`).join(', '),
      verdict: verdict(fronts.length === 2 && fronts.every((c) => p50(c.computed) <= 5 && c.status === 200)),
    })
  }
  for (const path of ['/api/v1/player-count', '/api/v1/war', '/api/v1/planets']) {
    shareTarget(`${path}: ≥ 90 % of the ceiling`, r.throughput?.routes.filter((x) => x.path === path) ?? [], 0.9, (x) => x.path)
  }
  if (r.coldStarts?.length) {
    out.push({
      name: 'cold start: the first diver-history request after a restart (all, 90d)',
      measured: r.coldStarts.map((c) => `${c.path.split('range=')[1]} ${ms(c.firstMs)} ms`).join(', '),
      verdict: 'reported',
    })
  }
  if (r.ingest) {
    const fs = r.ingest.fullStatus.wall.p50
    out.push({
      name: `one full-status tick: p50 within 2× of before (${b.fullStatusP50Ms} ms → ≤ ${ms(2 * b.fullStatusP50Ms)} ms)`,
      measured: `p50 ${ms(fs)} ms`,
      verdict: comparable ? verdict(fs <= 2 * b.fullStatusP50Ms) : notComparable,
    })
    const pc = r.ingest.playerCount.wall.p50
    out.push({
      name: 'one player-count tick: p50 within 2× of before',
      measured: `p50 ${ms(pc)} ms`,
      verdict: b.playerCountP50Ms === null ? 'no baseline (first timed here)' : comparable ? verdict(pc <= 2 * b.playerCountP50Ms) : notComparable,
    })
  }
  if (r.imports) {
    const im = r.imports
    const comparable = im.captures === IMPORT_BOUND.captures && r.dbKind !== 'embedded' && r.database?.edition !== 'postgres'
    for (const run of im.runs) {
      out.push({
        name: `npm run import of ${run.source === 'git' ? 'a git archive' : 'an NDJSON file'} of the default scale (captures of 261 planets) into TimescaleDB: ≥ ${IMPORT_BOUND.capturesPerSecond} captures/s`,
        measured: `${run.capturesPerSecond.toFixed(0)} captures/s over ${n(run.captures)} captures (${n(run.rowsPerSecond)} rows/s, peak RSS ${run.peakRssMb.toFixed(0)} MB)`,
        verdict: comparable
          ? verdict(run.capturesPerSecond >= IMPORT_BOUND.capturesPerSecond)
          : `not comparable (the bound holds for ${n(IMPORT_BOUND.captures)} captures into TimescaleDB; this run: ${n(im.captures)}, ${r.dbKind})`,
      })
    }
  }
  out.push({
    name: `rollup refresh of the generated history: ≤ before (${b.rollupRefreshS} s)`,
    measured: `${r.generation.refreshS.toFixed(1)} s`,
    verdict: comparable ? verdict(r.generation.refreshS <= b.rollupRefreshS) : notComparable,
  })
  if (r.throughput) {
    const same = peakOverRoutesLoadedBefore(r.throughput.routes)
    if (same) {
      out.push({
        name: `service peak RSS under the load the run before loaded (${ROUTES_LOADED_BEFORE_ISSUE_13.length} routes): ≤ before (${b.peakRssMb} MB)`,
        measured: `highest polled VmRSS ${same.mb.toFixed(0)} MB, from the start up to the end of ${same.upTo} (every route run up to there)`,
        verdict: comparable ? verdict(same.mb <= b.peakRssMb) : notComparable,
      })
    }
    out.push({
      name: `service peak RSS during the whole throughput phase (every read route): ≤ before (${b.peakRssMb} MB, over ${ROUTES_LOADED_BEFORE_ISSUE_13.length} routes)`,
      measured: `VmHWM ${r.throughput.rss.vmHwmMb.toFixed(0)} MB (highest polled VmRSS ${r.throughput.rss.maxVmRssMb.toFixed(0)} MB)`,
      verdict: comparable ? verdict(r.throughput.rss.vmHwmMb <= b.peakRssMb) : notComparable,
    })
  }
  if (r.idleRss) {
    out.push({
      name: `idle RSS of the service on the embedded default: ≤ before (~${b.idleEmbeddedRssMb} MB, the figure before)`,
      measured: `VmRSS ${r.idleRss.vmRssMb.toFixed(0)} MB after ${r.idleRss.waitS} s idle`,
      verdict: verdict(r.idleRss.vmRssMb <= b.idleEmbeddedRssMb),
    })
  }
  return out
}
/** The targets whose verdict is 'missed', in the report's order. */
export const missedTargets = (targets: readonly Target[]) => targets.filter((t) => t.verdict === 'missed')

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
  L.push(`- **Scale:** ${s.years} years of player counts, ${s.planetDays} days of planet ticks, ${s.summaryDays} days of war summary, ${s.orders} major orders, ${s.dispatches} dispatches`)
  L.push('')

  L.push('### Data', '')
  L.push('| Table | Rows | Size |', '|---|---:|---:|')
  for (const t of r.sizes) L.push(`| ${t.table} | ${n(t.rows)} | ${mb(t.bytes)} |`)
  L.push('')
  L.push('Generation (INSERT … SELECT over generate_series, in the database):', '')
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
  )
  L.push('')

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
        'a git archive of the war status alone (one commit per capture, dated at it, as the git-scraping archives hold it) and an NDJSON file of whole captures ' +
        `(status, summary, assignments, newsfeed; ${mb(im.ndjsonBytes)}). Each is imported into a scratch database of its own on the bench's server. ` +
        "Captures/s and rows/s: the importer's own summary (reading, writing, and its rollup refresh at the end); peak RSS: the import process's VmHWM, /proc polled every 100 ms.",
      '',
    )
    L.push('| Source | Captures | Imported | Seconds | Captures/s | Rows | Rows/s | Peak RSS |', '|---|---:|---:|---:|---:|---:|---:|---:|')
    for (const x of im.runs) {
      L.push(
        `| ${x.source === 'git' ? 'git archive (status)' : 'NDJSON (whole captures)'} | ${n(x.captures)} | ${n(x.imported)} | ${(x.durationMs / 1000).toFixed(1)} | **${x.capturesPerSecond.toFixed(0)}** | ${n(x.rows)} | ${n(x.rowsPerSecond)} | ${x.peakRssMb.toFixed(0)} MB |`,
      )
    }
    L.push('')
  }

  L.push('### Targets', '')
  if (r.preset !== 'default' || r.dbKind !== 'timescaledb') {
    L.push(
      'The write and peak-memory targets compare with figures of the default-scale TimescaleDB run, and the computed-history bound holds at the default scale on a database server; ' +
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
