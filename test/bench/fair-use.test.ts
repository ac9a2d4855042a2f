/**
 * bench/fair-use.ts's pure parts: the polite client's plan fits the documented budget, the
 * writes of a phase, the polite figures, the check of a 429 against docs/api.md (each
 * broken header caught), the verdict; and its flood script (bench/fair-use-flood.lua)
 * under wrk against a small server answering good and broken 429s: each broken one counted
 * under its check (a check that cannot fail checks nothing).
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { loadConfig } from '../../src/config.ts'
import {
  failures,
  handlerSeconds,
  parseFlood,
  plannedUnitsPerSecond,
  POLITE_CYCLE,
  POLITE_ROUTES,
  refusalProblems,
  remainingOf,
  renderSection,
  slowest,
  summarizePolite,
  writesOf,
  type FairUseRun,
  type FloodResult,
  type Phase,
  type PoliteAnswer,
} from '../../bench/fair-use.ts'
import { ROOT } from '../../bench/setup.ts'

const POLICY = '"default";q=600;w=60'
const GOOD: Record<string, string> = {
  'retry-after': '2',
  'ratelimit-policy': POLICY,
  ratelimit: '"default";r=0;t=62',
  '(body)': '{"error":"too many requests: this client\'s budget (\\"default\\";q=600;w=60) is spent; retry after 2 s"}',
}

describe('the polite plan', () => {
  test('the default plan stays within the default budget, with room', () => {
    const c = loadConfig({})
    const planned = plannedUnitsPerSecond({ rate: 4, seconds: 40, computeCost: c.rateLimitComputeCost })
    expect(planned).toBeLessThan(c.rateLimitQuota / c.rateLimitWindowSeconds)
    expect(planned).toBeGreaterThan(5)
  })

  test('a computed request costs the compute cost, a kept one 1; each write recomputes every kept path once', () => {
    const cycle = [
      { path: '/a', computed: false },
      { path: '/b', computed: true },
    ]
    // No write in 5 s: (1 + 10) / 2 units a request.
    expect(plannedUnitsPerSecond({ rate: 2, seconds: 5, computeCost: 10, cycle })).toBeCloseTo(11)
    // One write (at 5 s) in 10 s: one kept path computed once more, 9 units over 10 s.
    expect(plannedUnitsPerSecond({ rate: 2, seconds: 10, computeCost: 10, cycle })).toBeCloseTo(11.9)
  })

  test('the cycle asks the three routes of the issue, the campaigns least', () => {
    const paths = new Set(POLITE_CYCLE.map((q) => q.path.split('?')[0]))
    expect([...paths].sort()).toEqual(['/api/v1/campaigns', '/api/v1/divers/history', '/api/v1/war'])
    expect(POLITE_CYCLE.filter((q) => q.computed).map((q) => q.path)).toEqual(['/api/v1/campaigns'])
  })

  test('writes every 15 s from the 5th second, player-count and full-status in turn', () => {
    expect(writesOf(40)).toEqual([
      { atS: 5, collector: 'player-count' },
      { atS: 20, collector: 'full-status' },
      { atS: 35, collector: 'player-count' },
    ])
    expect(writesOf(5)).toEqual([])
  })
})

describe('the polite figures', () => {
  const answer = (status: number, ms: number, remaining: number | null = 500, late = false, atS = 0): PoliteAnswer => ({ path: '/api/v1/war', atS, status, ms, remaining, late })

  test('statuses, percentiles, the lowest budget left, late starts', () => {
    const answers = [...Array.from({ length: 98 }, (_, i) => answer(200, i + 1)), answer(429, 500, 0), { ...answer(0, NaN, null, true), error: 'reset' }]
    const s = summarizePolite(answers)
    expect(s).toMatchObject({ requests: 100, ok: 98, refused: 1, failed: 1, p50: 50, max: 500, lowestRemaining: 0, late: 1 })
    // 99 latencies (the request without an answer has none): the nearest rank of p99 is the last.
    expect(s.p99).toBe(500)
    expect(summarizePolite(answers.slice(0, 98)).p99).toBe(98)
  })

  test('the slowest answers, each with the last write before it', () => {
    const answers = [answer(200, 5, 500, false, 1), answer(200, 90, 500, false, 6.5), answer(200, 40, 500, false, 21), answer(0, NaN, null, false, 22), answer(200, 3, 500, false, 30)]
    const writes = [{ atS: 5, collector: 'player-count', status: 200, outcome: 'written', ms: 10 }, { atS: 20, collector: 'full-status', status: 200, outcome: 'written', ms: 30 }]
    expect(slowest({ answers, writes }, 3).map((q) => [q.ms, q.write, q.sinceWriteS])).toEqual([
      [90, 'player-count', 1.5],
      [40, 'full-status', 1],
      [5, null, null],
    ])
  })

  test("the service's handler time on the polite routes, from its request metrics", () => {
    const text = [
      '# TYPE http_request_duration_seconds histogram',
      'http_request_duration_seconds_bucket{method="GET",route="/api/v1/war",status="200",le="0.005"} 3',
      'http_request_duration_seconds_sum{method="GET",route="/api/v1/war",status="200"} 0.25',
      'http_request_duration_seconds_count{method="GET",route="/api/v1/war",status="200"} 10',
      'http_request_duration_seconds_sum{method="GET",route="/api/v1/war",status="304"} 0.05',
      'http_request_duration_seconds_count{method="GET",route="/api/v1/war",status="304"} 2',
      'http_request_duration_seconds_sum{method="GET",route="/api/v1/war/trends",status="200"} 9',
      'http_request_duration_seconds_count{method="GET",route="/api/v1/war/trends",status="200"} 60',
      'http_request_duration_seconds_sum{method="POST",route="/api/v1/campaigns",status="200"} 1',
      'http_request_duration_seconds_count{method="POST",route="/api/v1/campaigns",status="200"} 1',
      'http_request_duration_seconds_sum{method="GET",route="/api/v1/campaigns",status="200"} 0.5',
      'http_request_duration_seconds_count{method="GET",route="/api/v1/campaigns",status="200"} 5',
    ].join('\n')
    const h = handlerSeconds(text, POLITE_ROUTES)
    expect(h.count).toBe(17)
    expect(h.sum).toBeCloseTo(0.8)
    expect(POLITE_ROUTES).toEqual(['/api/v1/war', '/api/v1/divers/history', '/api/v1/campaigns'])
  })

  test('RateLimit r', () => {
    expect(remainingOf('"default";r=42;t=12')).toBe(42)
    expect(remainingOf(undefined)).toBeNull()
    expect(remainingOf('garbage')).toBeNull()
  })
})

describe('a 429 against docs/api.md', () => {
  test('the documented one passes', () => {
    expect(refusalProblems(GOOD, POLICY)).toEqual([])
  })

  test.each([
    ['no Retry-After', { 'retry-after': undefined }, 'Retry-After'],
    ['Retry-After 0', { 'retry-after': '0' }, 'Retry-After'],
    ['Retry-After as a date', { 'retry-after': 'Fri, 27 Nov 2026 10:00:00 GMT' }, 'Retry-After'],
    ['another policy', { 'ratelimit-policy': '"default";q=60;w=60' }, 'RateLimit-Policy'],
    ['units left on a 429', { ratelimit: '"default";r=3;t=62' }, 'RateLimit'],
    ['full sooner than the next unit', { ratelimit: '"default";r=0;t=1' }, 'RateLimit'],
    ['another policy name', { ratelimit: '"key";r=0;t=62' }, 'RateLimit'],
    ['no RateLimit', { ratelimit: undefined }, 'RateLimit'],
    ['a body without error', { '(body)': '{"message":"slow down"}' }, 'body'],
    ['a body not JSON', { '(body)': 'Too Many Requests' }, 'body'],
  ])('%s is caught', (_, change, what) => {
    const sample = { ...GOOD, ...change } as Record<string, string>
    for (const k of Object.keys(change)) if ((change as Record<string, unknown>)[k] === undefined) delete sample[k]
    const problems = refusalProblems(sample, POLICY)
    expect(problems.length).toBe(1)
    expect(problems[0]).toContain(what)
  })

  test('no 429 at all', () => {
    expect(refusalProblems(null, POLICY)).toEqual(['no 429 seen'])
  })
})

describe('the verdict and the section', () => {
  const phase = (label: string, p99: number, refused = 0, flood: Phase['flood'] = null): Phase => {
    const answers: PoliteAnswer[] = Array.from({ length: 100 }, (_, i) => ({ path: POLITE_CYCLE[i % POLITE_CYCLE.length]!.path, atS: i / 4, status: i < refused ? 429 : 200, ms: i === 99 ? p99 * 2 : i === 98 ? p99 : 1, remaining: 550, late: false }))
    return { label, seconds: 40, answers, polite: summarizePolite(answers), writes: [{ atS: 5, collector: 'player-count', status: 200, outcome: 'written', ms: 12 }], serviceCpuS: 1, handlers: { sum: 0.1, count: 100 }, loadAtEnd: 2, flood }
  }
  const flood = (statuses: Record<string, number>, failed: Record<string, number> = {}): FloodResult & { cpuS: number } => ({
    statuses, failed, failedSamples: Object.fromEntries(Object.keys(failed).map((k) => [k, { ...GOOD, ratelimit: '"default";r=1;t=60', 'retry-after': '1' }])), sample: GOOD, durationUs: 40e6, requests: Object.values(statuses).reduce((a, b) => a + b, 0),
    socketErrors: { connect: 0, read: 0, write: 0, timeout: 0 }, latencyUs: { p50: 1800, p99: 9000, max: 20000 }, cpuS: 12,
  })
  const run = (o: { refused?: number; statuses?: Record<string, number>; failed?: Record<string, number>; thenStatus?: number } = {}): FairUseRun => ({
    commit: { hash: 'abc1234', changes: [] },
    machine: { cpu: 'CPU', cores: 2, memGiB: 8, loadavg: [1, 1, 1], kernel: '6', os: 'Linux', bun: '1' },
    command: 'npm run bench:fair-use', date: '2026-11-27T10:00', totalS: 100, loadStart: 1,
    database: { edition: 'apache', timescaledbVersion: '2.19.3', serverVersion: '17' },
    sizes: [{ table: 'player_count_snapshots', rows: 10, bytes: 8192 }],
    limits: { quota: 600, windowSeconds: 60, computeCost: 10, policy: POLICY },
    rate: 4, plannedUnitsPerS: 8.3, flood: { path: '/api/v1/war/trends', threads: 2, connections: 32 },
    alone: phase('alone', 4),
    flooded: phase('with the flood', 10, o.refused ?? 0, flood(o.statuses ?? { '200': 100, '429': 400_000 }, o.failed)),
    retry: { tries: 1, retryAfterS: 2, thenStatus: o.thenStatus ?? 200 },
  })

  test('met: nothing refused, the flood refused, every 429 as documented', () => {
    const r = run()
    expect(failures(r)).toEqual([])
    const md = renderSection(r)
    expect(md).toStartWith('## Fair use under a flood, one process: commit abc1234, CPU (2 cores), edition `apache`, ')
    expect(md).toContain(': met** (polite p99 4.00 ms alone, 10.0 ms during the flood: **2.5×**, one run; polite requests refused: 0 of 200;')
    expect(md).toContain('all 400,000 429s with Retry-After, RateLimit-Policy and RateLimit as documented')
    expect(md).toContain('ratelimit: "default";r=0;t=62')
  })

  test.each([
    ['a polite request refused', { refused: 1 }, '1 polite request(s) refused (429) with the flood'],
    ['no 429', { statuses: { '200': 1000 } }, 'the flood got no 429'],
    ['mostly answered', { statuses: { '200': 1000, '429': 10 } }, "only 10 of the flood's 1010 answers were 429"],
    ['a 429 without its headers', { failed: { 'retry-after': 3 } }, '429s failing a check: retry-after 3'],
    ['Retry-After too short', { thenStatus: 429 }, 'was refused again'],
  ])('missed: %s', (_, o, why) => {
    const r = run(o)
    expect(failures(r).join('; ')).toContain(why)
    expect(renderSection(r)).toContain(': missed**')
  })

  test('a 429 failing a check is shown', () => {
    expect(renderSection(run({ failed: { ratelimit: 2 } }))).toContain(
      'The first 429 failing the ratelimit check (of 2): `retry-after: 1`, `ratelimit-policy: "default";q=600;w=60`, `ratelimit: "default";r=1;t=60`, body',
    )
  })
})

describe('the flood script under wrk', () => {
  const servers: { stop(force: boolean): void }[] = []
  afterAll(() => servers.forEach((s) => s.stop(true)))

  const noWrk = Bun.which('wrk') === null
  test.skipIf(noWrk)(`counts statuses and each broken 429 under its check${noWrk ? ' (skipped: no wrk on PATH; npm run bench installs it)' : ''}`, async () => {
    const good = { 'retry-after': '2', 'ratelimit-policy': POLICY, ratelimit: '"default";r=0;t=62', 'content-type': 'application/json' }
    const body = '{"error":"too many requests: spent"}'
    const answers: (() => Response)[] = [
      () => new Response('{"ok":true}', { headers: { 'ratelimit-policy': POLICY, ratelimit: '"default";r=5;t=3' } }),
      () => new Response(body, { status: 429, headers: good }),
      () => new Response(body, { status: 429, headers: { ...good, 'retry-after': '0' } }),
      () => new Response(body, { status: 429, headers: { ...good, 'ratelimit-policy': '"default";q=1;w=60' } }),
      () => new Response(body, { status: 429, headers: { ...good, ratelimit: '"default";r=0;t=1' } }),
      () => new Response('{"message":"no"}', { status: 429, headers: good }),
      () => new Response('{"error":"boom"}', { status: 503 }),
    ]
    const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => answers[Number(new URL(req.url).pathname.slice(1))]!() })
    servers.push(server)
    const flood = async (which: number): Promise<FloodResult> => {
      const proc = Bun.spawn(['wrk', '-t1', '-c1', '-d1s', '-s', `${ROOT}/bench/fair-use-flood.lua`, `http://127.0.0.1:${server.port}/${which}`, '--', POLICY], { stdout: 'pipe', stderr: 'pipe' })
      const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
      expect(code).toBe(0)
      return parseFlood(out)
    }
    const ok = await flood(0)
    expect(Object.keys(ok.statuses)).toEqual(['200'])
    expect(ok.statuses['200']).toBe(ok.requests)
    expect(ok.sample).toBeNull()
    const refused = await flood(1)
    expect(refused.statuses['429']).toBe(refused.requests)
    expect(refused.failed).toEqual({})
    expect(refused.failedSamples).toEqual({})
    expect(refusalProblems(refused.sample, POLICY)).toEqual([])
    expect(refused.sample!['(body)']).toBe(body)
    for (const [which, check] of [[2, 'retry-after'], [3, 'ratelimit-policy'], [4, 'ratelimit'], [5, 'body']] as const) {
      const r = await flood(which)
      expect(r.failed).toEqual({ [check]: r.requests })
      expect(Object.keys(r.failedSamples)).toEqual([check])
      expect(r.failedSamples[check]!['(body)']).toBe(which === 5 ? '{"message":"no"}' : body)
    }
    const errors = await flood(6)
    expect(errors.statuses).toEqual({ '503': errors.requests })
    expect(errors.failed).toEqual({})
  }, 30_000)
})
