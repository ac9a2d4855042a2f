/**
 * The bench report (bench/report.ts) and the read-latency pieces it stands on
 * (bench/measure.ts, bench/stats.ts): computed and kept latencies side by side, the raw
 * ratio judged against the computed one, issue 24's computed-history bound with its
 * verdicts, and a section title naming commit, machine, edition and data size with every
 * missed target at its top.
 */
import { describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { countingSql, untimedRoutes, type LatencyCase } from '../../bench/measure.ts'
import { commitText, LATENCY_HEADER, latencyRow, renderMarkdown, sectionTitle, type RunResult } from '../../bench/report.ts'
import { BOUNDS, COMPUTED_HISTORY_P50_MS, evaluateTargets, IMPORT_BOUND, missedTargets, PLANET_STATUS_TABLES } from '../../bench/targets.ts'
import type { IngestResult } from '../../bench/ingest.ts'
import type { ImportRun } from '../../bench/import.ts'
import { msFine, repeat, summarize, us } from '../../bench/stats.ts'

/** A timing whose every sample is `ms`. */
const flat = (ms: number, n = 30) => summarize(Array.from({ length: n }, () => ms))
const mode = (ms: number, queried: number) => ({ timing: flat(ms), queried })

function history(target: 'divers' | 'planet', label: string, computedMs: number, keptMs = 0.004): LatencyCase {
  const name = target === 'divers' ? `divers/history range=${label}` : `planet/12/history hours=${label}`
  return {
    group: target,
    name,
    path: target === 'divers' ? `/api/v1/divers/history?range=${label}` : `/api/v1/planet/12/history?hours=${label}`,
    target,
    computed: mode(computedMs, 30),
    kept: mode(keptMs, 0),
    status: 200,
    bytes: 4000,
    detail: '200 points',
    baseline: { timing: flat(400), equal: true, points: 200 },
  }
}

function result(over: Partial<RunResult> = {}, computed: { divers?: number; planet?: number } = {}): RunResult {
  const latency = [
    ...['24h', '7d', '30d', '90d', 'all'].map((r) => history('divers', r, computed.divers ?? 3)),
    ...['24', '168', '720'].map((h) => history('planet', h, computed.planet ?? 4)),
    { group: 'current', name: 'player-count', path: '/api/v1/player-count', computed: mode(0.05, 0), kept: mode(0.05, 0), status: 200, bytes: 300 } as LatencyCase,
  ]
  return {
    key: 'timescaledb-default',
    commit: { hash: '9822d64', changes: [] },
    preset: 'default',
    dbKind: 'timescaledb',
    label: 'TimescaleDB (apache), default scale',
    command: 'bun run bench',
    date: '2026-12-01T00:00:00Z',
    machine: { cpu: 'Test CPU 3000', cores: 2, memGiB: 8, loadavg: [0.5, 0.5, 0.5], kernel: '6.1', os: 'Debian', bun: '1.3' },
    database: { label: 'test', edition: 'apache', timescaledbVersion: '2.17', serverVersion: '17', notes: '' },
    scale: { years: 2.74, planetDays: 1000, summaryDays: 1000, orders: 411, dispatches: 3830 },
    generation: { steps: [], seconds: 1, warInfoS: 0.1, analyzeS: 0.1, refreshS: 1, refreshed: {} },
    sizes: [
      { table: 'player_count_snapshots (hypertable)', rows: 1_000_000, bytes: 2 ** 30 },
      { table: 'dispatches', rows: 500, bytes: 2 ** 20 },
    ],
    latency,
    coverage: { routes: ['/api/v1/divers/history', '/api/v1/planet/:planetId/history', '/api/v1/player-count'], untimed: [] },
    reps: 30,
    explains: [],
    throughput: null,
    ingest: null,
    coldStarts: null,
    idleRss: null,
    targets: [],
    totalS: 100,
    ...over,
  }
}

const withTargets = (r: RunResult) => ({ ...r, targets: evaluateTargets(r) })
const targetNamed = (r: RunResult, part: string) => {
  const t = r.targets.find((x) => x.name.includes(part))
  if (!t) throw new Error(`no target naming '${part}' in ${r.targets.map((x) => x.name).join(' | ')}`)
  return t
}
/** The lines of a section before its first subsection. */
const top = (md: string) => md.slice(0, md.indexOf('\n### '))

describe('issue 24 targets: computed diver and planet history p50 ≤ 10 ms at the default scale', () => {
  test('below the bound: met, and the section says none missed at its top', () => {
    const r = withTargets(result())
    expect(COMPUTED_HISTORY_P50_MS).toBe(10)
    expect(targetNamed(r, 'computed diver history').verdict).toBe('met')
    expect(targetNamed(r, 'computed planet history').verdict).toBe('met')
    expect(missedTargets(r.targets)).toEqual([])
    expect(top(renderMarkdown(r))).toContain('none missed')
  })

  test('one diver range above the bound: missed, listed at the top of the section before any table', () => {
    const base = result()
    base.latency[4] = history('divers', 'all', 12.5)
    const r = withTargets(base)
    const t = targetNamed(r, 'computed diver history')
    expect(t.verdict).toBe('missed')
    expect(t.measured).toContain('worst computed p50 12.5 ms (all)')
    expect(targetNamed(r, 'computed planet history').verdict).toBe('met')
    const head = top(renderMarkdown(r))
    expect(head).not.toContain('none missed')
    expect(head).toContain('Targets missed (1 of')
    expect(head).toContain(`- ${t.name}: ${t.measured}`)
    expect(head).not.toContain('| Route |')
  })

  test('planet history above the bound: missed; a computed p50 of exactly 10 ms still meets it', () => {
    const r = withTargets(result({}, { divers: 10, planet: 10.2 }))
    expect(targetNamed(r, 'computed diver history').verdict).toBe('met')
    expect(targetNamed(r, 'computed planet history').verdict).toBe('missed')
    expect(missedTargets(r.targets).map((x) => x.name)).toEqual([targetNamed(r, 'computed planet history').name])
  })

  test('judged on the computed latency, not the kept one: slow computed answers miss even when kept ones take µs', () => {
    const r = withTargets(result({}, { divers: 50 }))
    expect(targetNamed(r, 'computed diver history').verdict).toBe('missed')
    // The issue-13 target is the kept answer's, and a 4 µs kept answer meets it.
    expect(targetNamed(r, 'kept answer p50 ≤ 1 ms').verdict).toBe('met')
  })

  test('--quick and embedded runs: not comparable, never missed, whatever the figure', () => {
    for (const over of [{ preset: 'quick' }, { dbKind: 'embedded' }] as const) {
      const r = withTargets(result(over, { divers: 80, planet: 80 }))
      for (const part of ['computed diver history', 'computed planet history']) {
        expect(targetNamed(r, part).verdict).toStartWith('not comparable')
      }
      expect(missedTargets(r.targets).filter((x) => x.name.includes('computed'))).toEqual([])
    }
  })

  test('a read route without a case is a missed target, named at the top and under the table', () => {
    const r = withTargets(result({ coverage: { routes: ['/api/v1/player-count', '/api/v1/war-stats'], untimed: ['/api/v1/war-stats'] } }))
    const t = targetNamed(r, 'every GET route under /api/v1')
    expect(t.verdict).toBe('missed')
    expect(t.measured).toContain('1 of 2 routes')
    expect(t.measured).toContain('not timed: /api/v1/war-stats')
    const md = renderMarkdown(r)
    expect(top(md)).toContain('/api/v1/war-stats')
    expect(md).toContain('**Read routes not timed:** /api/v1/war-stats.')
  })

  test('computed requests that queried no database are named (the bump could not force a computation)', () => {
    const t = targetNamed(withTargets(result()), 'every GET route under /api/v1')
    expect(t.verdict).toBe('met')
    expect(t.measured).toContain('computed requests that queried no database: player-count')
    expect(t.measured).not.toContain('divers/history')
  })
})

describe('issue 37 bounds at the war\'s real length', () => {
  const ingest = (writeMs: number): RunResult['ingest'] => {
    const tick = (wall: number, write: number) =>
      ({ collector: 'full-status', ticks: 25, advanceS: 300, wall: flat(wall), fetch: flat(wall - write), write: flat(write), mainPerTick: 22, rowsPerTick: 40, mainRowsPerS: 1, rowsPerS: 1 }) as unknown as IngestResult
    return { fullStatus: tick(writeMs + 4, writeMs), playerCount: tick(3, 1) }
  }
  const imports = (perS: number, rssMb: number, captures = IMPORT_BOUND.captures): RunResult['imports'] => ({
    captures, planets: 261, ndjsonBytes: 1, generateS: 1,
    runs: (['git', 'ndjson'] as const).map((source) => ({ source, captures, imported: captures, durationMs: (captures / perS) * 1000, capturesPerSecond: perS, rows: 1, rowsPerSecond: 1, rowsByDataset: {}, peakRssMb: rssMb, rssSamples: 10 }) as ImportRun),
  })
  /** The planet-status tables at `gb` GB in all, and another table. */
  const sized = (gb: number): RunResult['sizes'] => [
    ...PLANET_STATUS_TABLES.map((table) => ({ table, rows: 1, bytes: (gb * 2 ** 30) / PLANET_STATUS_TABLES.length })),
    { table: 'player_count_snapshots (hypertable)', rows: 1, bytes: 5 * 2 ** 30 },
  ]

  test('full-status tick: judged on the write transaction (≤ 4 ms), the whole tick and its fetches reported beside', () => {
    expect(BOUNDS.fullStatusWriteP50Ms).toBe(4)
    const met = targetNamed(withTargets(result({ ingest: ingest(3.9) })), 'full-status tick')
    expect(met.verdict).toBe('met')
    expect(met.measured).toContain('write transaction p50 3.90 ms')
    expect(met.measured).toContain('whole tick p50 7.90 ms, of which the fetches 4.00 ms')
    expect(targetNamed(withTargets(result({ ingest: ingest(4.2) })), 'full-status tick').verdict).toBe('missed')
    expect(targetNamed(withTargets(result({ ingest: ingest(9), preset: 'quick' })), 'full-status tick').verdict).toStartWith('not comparable')
  })

  test('import: ≥ 1,000 captures/s and peak RSS ≤ 250 MB, each source', () => {
    const both = (r: RunResult) => r.targets.filter((t) => t.name.includes('npm run import'))
    expect(both(withTargets(result({ imports: imports(1200, 240) }))).map((t) => t.verdict)).toEqual(['met', 'met'])
    expect(both(withTargets(result({ imports: imports(900, 240) }))).map((t) => t.verdict)).toEqual(['missed', 'missed'])
    expect(both(withTargets(result({ imports: imports(1200, 260) }))).map((t) => t.verdict)).toEqual(['missed', 'missed'])
    expect(both(withTargets(result({ imports: imports(100, 900, 300) })))[0]!.verdict).toStartWith('not comparable')
  })

  test('planet-status storage: ≤ 1 GB per 1,000 days on PostgreSQL and Apache; Community reported without a compressed size', () => {
    const storage = (over: Partial<RunResult>) => targetNamed(withTargets(result(over)), 'planet-status storage')
    expect(storage({ sizes: sized(0.9) }).verdict).toBe('met')
    expect(storage({ sizes: sized(0.9) }).measured).toContain('921.6 MB per 1,000 days')
    expect(storage({ sizes: sized(1.1) }).verdict).toBe('missed')
    const pg = { label: 'pg', edition: 'postgres', timescaledbVersion: null, serverVersion: '17', notes: '' }
    expect(storage({ sizes: sized(1.1), dbKind: 'url', database: pg }).verdict).toBe('missed')
    const community = storage({ sizes: sized(0.5), database: { ...pg, edition: 'timescale', timescaledbVersion: '2.19' } })
    expect(community.verdict).toStartWith('reported')
    expect(community.measured).toContain('the compressed size is not measured')
    // 100 days of ticks at 0.2 GB: 2 GB per 1,000 days, yet not judged at another scale.
    const small = storage({ sizes: sized(0.2), preset: 'custom', scale: { years: 1, planetDays: 100, summaryDays: 100, orders: 1, dispatches: 1 } })
    expect(small.measured).toContain('2.00 GB per 1,000 days')
    expect(small.verdict).toStartWith('not comparable')
    // A table of the layout not measured: missed, not a smaller figure; none measured: no verdict.
    expect(storage({ sizes: sized(0.5).slice(1) }).verdict).toBe('missed')
    expect(withTargets(result()).targets.some((t) => t.name.includes('planet-status storage'))).toBe(false)
    expect(renderMarkdown(withTargets(result({ sizes: sized(0.9) })))).toContain('**921.6 MB per 1,000 days**')
  })

  test('rollup refresh ≤ 20 s', () => {
    const refresh = (s: number) => targetNamed(withTargets(result({ generation: { steps: [], seconds: 1, warInfoS: 0, analyzeS: 0, refreshS: s, refreshed: {} } })), 'rollup refresh').verdict
    expect([refresh(19.9), refresh(20.5)]).toEqual(['met', 'missed'])
  })
})

describe('section title and commit', () => {
  test('commit, +dirty with uncommitted changes', () => {
    expect(commitText({ hash: 'abc1234', changes: [] })).toBe('abc1234')
    expect(commitText({ hash: 'abc1234', changes: ['M src/app.ts'] })).toBe('abc1234+dirty')
  })

  test('the title names commit, machine, edition and data size; the commit line lists the changed paths', () => {
    const r = withTargets(result({ commit: { hash: 'abc1234', changes: ['M src/app.ts', '?? bench/x.ts'], movedDuringRun: 'HEAD moved to def5678' } }))
    const title = sectionTitle(r)
    expect(title).toStartWith('## TimescaleDB (apache), default scale: commit abc1234+dirty, Test CPU 3000 (2 cores), edition `apache`, ')
    expect(title).toContain('1,000,500 rows in 2 tables, 1.00 GB')
    const md = renderMarkdown(r)
    expect(md.split('\n')[0]).toBe(title)
    expect(md.split('\n')[2]).toStartWith('**Commit measured:** abc1234+dirty (uncommitted at the start: M src/app.ts, ?? bench/x.ts); during the run: HEAD moved to def5678. **Targets missed:** none missed')
  })
})

describe('read-latency table', () => {
  test('computed in ms and kept in µs: a 4.2 µs kept answer is not rounded to 0.00 ms', () => {
    expect(us(0.0042)).toBe('4.20')
    expect(us(0.0421)).toBe('42.1')
    expect(us(0.25)).toBe('250')
    expect(msFine(0.0421)).toBe('0.0421')
    expect(msFine(0.25)).toBe('0.250')
    expect(msFine(3.456)).toBe('3.46')
  })

  test('raw ÷ computed (bold) beside raw ÷ kept; queried counts of both modes', () => {
    const c = history('divers', '7d', 5, 0.002)
    const cells = latencyRow(c).split('|').map((x) => x.trim())
    const col = (name: string) => cells[LATENCY_HEADER.split('|').map((x) => x.trim()).indexOf(name)]
    expect(col('Computed p50 ms')).toBe('5.00')
    expect(col('Kept p50 µs')).toBe('2.00')
    expect(col('Queried (computed · kept)')).toBe('30/30 · 0/30')
    expect(col('Raw p50 ms (n)')).toBe('400 (30)')
    // 400 / 5, not 400 / 0.002.
    expect(col('Raw ÷ computed')).toBe('**80.0×**')
    expect(col('Raw ÷ kept')).toBe('200000×')
  })

  test('the rendered section has the new header and one row per case', () => {
    const r = withTargets(result())
    const md = renderMarkdown(r)
    expect(md).toContain(LATENCY_HEADER)
    expect(md).not.toContain('Raw ÷ service')
    for (const c of r.latency) expect(md).toContain(`| ${c.name} |`)
  })
})

describe('timing pieces', () => {
  test('repeat: `before` runs before every run, warm-ups included, and outside the timed interval', async () => {
    const order: string[] = []
    const t = await repeat(
      async () => {
        order.push('run')
      },
      {
        warmup: 2,
        reps: 5,
        before: async () => {
          order.push('before')
          await Bun.sleep(15)
        },
      },
    )
    expect(order).toEqual(Array.from({ length: 7 }, () => ['before', 'run']).flat())
    expect(t.n).toBe(5)
    // The 15 ms sleeps are not in the samples.
    expect(t.max).toBeLessThan(5)
  })

  test('untimedRoutes: GET routes under /api/v1 that no case path requests; :params match one segment', () => {
    const routes = [
      { method: 'GET', path: '/api/v1/war' },
      { method: 'GET', path: '/api/v1/war/:warId' },
      { method: 'GET', path: '/api/v1/historical-major-orders/:orderId/progress' },
      { method: 'GET', path: '/api/v1/sectors' },
      { method: 'POST', path: '/api/v1/collect/:collector' },
      { method: 'GET', path: '/health/live' },
      { method: 'GET', path: '/api/v1/war' },
    ]
    expect(untimedRoutes(routes, ['/api/v1/war', '/api/v1/war/801?planetId=3', '/api/v1/historical-major-orders/77/progress?page=2'])).toEqual(['/api/v1/sectors'])
    // /war/801/extra is not /war/:warId; /war?x=1 is /war.
    expect(untimedRoutes(routes, ['/api/v1/war?x=1', '/api/v1/war/801/extra', '/api/v1/sectors'])).toEqual([
      '/api/v1/war/:warId',
      '/api/v1/historical-major-orders/:orderId/progress',
    ])
  })

  test('countingSql: counts tagged-template calls and unsafe/begin, not identifier helpers; the rest passes through', async () => {
    const calls: unknown[][] = []
    const fake = Object.assign((...args: unknown[]) => (calls.push(args), 'q'), {
      unsafe: (text: string) => `unsafe:${text}`,
      begin: async (fn: (tx: string) => Promise<string>) => fn('tx'),
      options: { max: 7 },
    }) as unknown as Sql
    let n = 0
    const sql = countingSql(fake, () => n++)
    const tagged = sql`SELECT ${1}`
    expect(tagged as unknown).toBe('q')
    expect(n).toBe(1)
    ;(sql as unknown as (id: string) => unknown)('a_table')
    expect(n).toBe(1)
    expect((sql as unknown as { unsafe: (t: string) => string }).unsafe('SELECT 2')).toBe('unsafe:SELECT 2')
    expect(n).toBe(2)
    expect(await (sql as unknown as { begin: (fn: (tx: string) => Promise<string>) => Promise<string> }).begin(async (tx) => `in ${tx}`)).toBe('in tx')
    expect(n).toBe(3)
    expect(sql.options.max).toBe(7)
    expect(calls).toHaveLength(2)
  })
})
