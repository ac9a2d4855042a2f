/**
 * bench/embedded.ts's verdicts on issue 37 item 4: a run that holds every bound says so; a
 * year not stored once, an import that ended without its summary, a slow start or a heavy
 * demo is missed; a run without the year says which bounds it did not measure.
 */
import { describe, expect, test } from 'bun:test'
import { embeddedBounds, renderEmbeddedSection, type EmbeddedResult, type ImportRun, type StartCase } from '../../bench/embedded.ts'

const start = (label: string, o: Partial<StartCase> = {}): StartCase => ({
  label, readyMs: 2500, servicePeakMb: 240, treePeakMb: 300, idleS: 20, serviceIdleMb: 180, treeIdleMb: 236, origin: 'template', load: [1, 1], ...o,
})
const run = (o: Partial<ImportRun> = {}): ImportRun => ({
  durationS: 100, captures: 52_560, imported: 52_560, duplicates: 0, skipped: 0, capturesPerSecond: 500, peakMb: 200, code: 130, failure: null, load: 1, ...o,
})

function passing(): EmbeddedResult {
  return {
    at: '2026-11-29T12:00:00.000Z',
    commit: { hash: 'abc1234', changes: [] },
    machine: { cpu: 'AMD EPYC', cores: 2, memGiB: 23.5, loadavg: [1, 1, 1], kernel: '6', os: 'Debian', bun: '1.4.5' },
    command: 'npm run bench:embedded -- --year-captures 105120 --interrupt',
    pglite: '0.5.14',
    totalS: 3600,
    starts: [start('npm start, new data folder'), start('npm start again, same folder', { origin: 'existing' })],
    demo: {
      days: 30, anyFirstLineMs: 300, firstLineMs: 400, longestSilenceMs: 2100, historyMs: 13_000, readyMs: 14_500,
      seedingPeakMb: 265, seedingTreePeakMb: 321, treePeakMb: 380, idleS: 20, serviceIdleMb: 175, demoIdleMb: 95, load: [1, 1],
    },
    year: {
      captures: 105_120, interrupted: true, generateS: 300, sourceMb: 4766,
      runs: [run(), run({ captures: 105_120, imported: 52_560, duplicates: 52_560, code: 0 })],
      stored: { ticks: 105_120, times: 105_120 }, dataDirMb: 2000,
      start: start('year: npm start', { origin: 'existing', readyMs: 4000 }),
      planetHistory: [24, 168, 720].map((hours) => ({ hours, p50Ms: 12, maxMs: 40, n: 30 })),
    },
  }
}

const verdicts = (r: EmbeddedResult) => embeddedBounds(r).map((b) => b.met)

describe('the verdicts', () => {
  test('a run within every bound: all met, and the section says so', () => {
    const r = passing()
    expect(verdicts(r).every((m) => m === true)).toBe(true)
    expect(renderEmbeddedSection(r)).toContain(`**Bounds: ${verdicts(r).length} of ${verdicts(r).length} met**.`)
  })

  test('the year: a capture stored twice or missing, an import without its summary, no interruption: missed', () => {
    const cases: ((r: EmbeddedResult) => void)[] = [
      (r) => (r.year!.stored.ticks = 105_119),
      (r) => (r.year!.stored.times = 105_119),
      (r) => (r.year!.runs[0] = run({ failure: 'import failed: …', code: 1 })),
      (r) => (r.year!.runs = [r.year!.runs[1]!]),
      (r) => (r.year!.captures = r.year!.stored.ticks = r.year!.stored.times = 50_000),
    ]
    for (const change of cases) {
      const r = passing()
      change(r)
      expect(embeddedBounds(r)[0]!.met).toBe(false)
    }
  })

  test('each figure against its own bound', () => {
    const over: [(r: EmbeddedResult) => void, string][] = [
      [(r) => (r.year!.start.readyMs = 10_001), 'ready'],
      [(r) => (r.year!.planetHistory[2]!.p50Ms = 51), 'planet history'],
      [(r) => (r.year!.start.serviceIdleMb = 201), 'idle RSS'],
      [(r) => (r.starts[0]!.servicePeakMb = 301), 'peak RSS during start-up'],
      [(r) => (r.demo!.seedingPeakMb = 301), 'peak RSS while it seeds'],
      [(r) => (r.demo!.readyMs = 30_001), 'ready (its `ready` line)'],
      [(r) => (r.demo!.firstLineMs = 1001), 'first second'],
    ]
    for (const [change, bound] of over) {
      const r = passing()
      change(r)
      const missed = embeddedBounds(r).filter((b) => b.met === false)
      expect(missed.map((b) => b.bound).join(' | ')).toContain(bound)
      expect(missed).toHaveLength(1)
      expect(renderEmbeddedSection(r)).toContain('(missed: ')
    }
  })

  test('without the year: its four bounds are not measured, the others judged', () => {
    const r = passing()
    r.year = null
    const b = embeddedBounds(r)
    expect(b.filter((x) => x.met === null)).toHaveLength(4)
    expect(b.filter((x) => x.met === true)).toHaveLength(b.length - 4)
    expect(renderEmbeddedSection(r)).toContain('4 not measured by this run')
  })
})
