/**
 * GET /metrics on the real collection (simulator feeds, a real database): HTTP requests by
 * route pattern and status, collector runs and rows, scheduled firings and the spool,
 * feed calls and TTLs (the same figures as /health/throttle), the pool, rollup refreshes.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { buildApp } from '../../src/app.ts'
import { openCollection, type Collection } from '../../src/collect/collection.ts'
import { loadConfig } from '../../src/config.ts'
import { silentLogger } from '../../src/log.ts'
import { Metrics } from '../../src/metrics.ts'
import { DataVersions } from '../../src/storage/changes.ts'
import { createStore } from '../../src/storage/index.ts'
import { CurrentWar } from '../../src/war/current-war.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { simulatedFeeds } from '../support/sim.ts'

type Labels = Record<string, string>

/** Every sample of the exposition: name, labels, value. */
function samples(text: string): { name: string; labels: Labels; value: number }[] {
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
      if (!m) throw new Error(`not a sample line: ${line}`)
      const labels: Labels = {}
      for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!
      return { name: m[1]!, labels, value: Number(m[3]) }
    })
}

/** The value of the one sample with exactly these labels; undefined when there is none. */
function value(text: string, name: string, labels: Labels = {}): number | undefined {
  const want = JSON.stringify(Object.entries(labels).sort())
  return samples(text).find((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === want)?.value
}

describeOnEachDatabase('GET /metrics', (target) => {
  let db: TestDatabase
  let s: ReturnType<typeof simulatedFeeds>
  let collection: Collection
  let app: ReturnType<typeof buildApp>
  const config = { ...loadConfig({ SPOOL_DIR: '', COLLECTOR_SECRET: 'metrics-test' }), warId: 801 }
  const req = (path: string, headers: Record<string, string> = {}) => app.handle(new Request(`http://localhost${path}`, { headers }))
  const scrape = async () => {
    const res = await req('/metrics')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    return res.text()
  }

  beforeAll(async () => {
    db = await target.open()
    s = simulatedFeeds(11)
    const metrics = new Metrics()
    const war = new CurrentWar(801, s.feeds.upstream, silentLogger)
    collection = await openCollection({ config, db, store: createStore(db), feeds: s.feeds, log: silentLogger, war, versions: new DataVersions(), metrics })
    metrics.watch({ collectors: () => collection.counts() })
    app = buildApp({ config, db, log: silentLogger, feeds: s.feeds, currentWar: war, runner: collection.runner, metrics })
    await collection.start(app, false) // the spool writer only, no schedule
  }, 60_000)
  afterAll(async () => {
    await collection?.stop(app)
    await s?.stop()
    await db?.dispose()
  })

  test('HTTP requests are counted and timed by method, route pattern (not the raw path) and status', async () => {
    for (const id of [5, 6, 7]) expect((await req(`/api/v1/planet/${id}/history`)).status).toBe(404)
    expect((await req('/no/such/path/123')).status).toBe(404)
    expect((await req('/no/such/path/456')).status).toBe(404)
    const planets = await req('/api/v1/planets')
    expect(planets.status).toBe(200)
    expect((await req('/api/v1/planets', { 'if-none-match': planets.headers.get('etag')! })).status).toBe(304)
    expect((await req('/api/v1/historical-dispatches?page=0')).status).toBe(400)
    expect((await app.handle(new Request('http://localhost/api/v1/collect/war-info', { method: 'POST' }))).status).toBe(401)
    // onAfterResponse runs after the response is handed over.
    await Bun.sleep(20)
    const text = await scrape()

    const count = (route: string, status: string) => value(text, 'http_request_duration_seconds_count', { method: 'GET', route, status })
    expect(count('/api/v1/planet/:planetId/history', '404')).toBe(3)
    expect(count('(unmatched)', '404')).toBe(2)
    expect(count('/api/v1/planets', '200')).toBe(1)
    expect(count('/api/v1/planets', '304')).toBe(1)
    expect(count('/api/v1/historical-dispatches', '400')).toBe(1)
    expect(value(text, 'http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/collect/war-info', status: '401' })).toBe(1)
    // Each request is one observation, whichever way it was answered.
    const total = samples(text).filter((x) => x.name === 'http_request_duration_seconds_count').reduce((n, x) => n + x.value, 0)
    expect(total).toBe(9)
    expect(text).not.toContain('/planet/5/')
    expect(text).not.toContain('/no/such/path')
    // A histogram: cumulative buckets up to +Inf, equal to the count.
    const inf = value(text, 'http_request_duration_seconds_bucket', { method: 'GET', route: '/api/v1/planet/:planetId/history', status: '404', le: '+Inf' })
    expect(inf).toBe(3)
    expect(value(text, 'http_request_duration_seconds_sum', { method: 'GET', route: '/api/v1/planet/:planetId/history', status: '404' })).toBeGreaterThan(0)
  })

  test('collector runs by outcome with rows written; firings and the spool read from the collection', async () => {
    await collection.fire('war-info')
    await collection.fire('player-count')
    s.sim.control.addFault({ kind: 'outage', feed: 'upstream', endpoint: 'status' })
    s.ageCache(30)
    await collection.fire('player-count')
    s.sim.control.clearFaults()
    const deadline = Date.now() + 10_000
    while (collection.counts()['player-count']!.written < 1 || collection.counts()['war-info']!.written < 1) {
      if (Date.now() > deadline) throw new Error(`ticks not written: ${JSON.stringify(collection.counts())}`)
      await Bun.sleep(20)
    }
    const text = await scrape()
    const counts = collection.counts()['player-count']!
    expect(counts).toMatchObject({ fetched: 1, failed: 1, written: 1, pending: 0 })
    expect(value(text, 'collector_firings_total', { collector: 'player-count', outcome: 'fetched' })).toBe(1)
    expect(value(text, 'collector_firings_total', { collector: 'player-count', outcome: 'failed' })).toBe(1)
    expect(value(text, 'collector_firings_total', { collector: 'full-status', outcome: 'fetched' })).toBe(0)
    expect(value(text, 'collector_backlog_ticks', { collector: 'player-count' })).toBe(0)
    expect(value(text, 'collector_backlog_ticks_total', { collector: 'player-count', outcome: 'written' })).toBe(1)
    expect(value(text, 'collector_run_duration_seconds_count', { collector: 'player-count', outcome: 'written' })).toBe(1)
    expect(value(text, 'collector_run_duration_seconds_count', { collector: 'player-count', outcome: 'failed' })).toBe(1)
    expect(value(text, 'collector_run_duration_seconds_count', { collector: 'war-info', outcome: 'written' })).toBe(1)
    expect(value(text, 'collector_rows_written_total', { collector: 'player-count', dataset: 'upstreamRows' })).toBe(1)
    expect(value(text, 'collector_rows_written_total', { collector: 'war-info', dataset: 'planets' })).toBeGreaterThan(10)
    expect(value(text, 'collector_last_success_timestamp_seconds', { collector: 'player-count' })).toBeGreaterThan(Date.now() / 1000 - 60)
  })

  test('feed calls and TTLs are the feed clients\' own counters, read when scraped', async () => {
    // One 429 raises the status endpoint's TTL from 15 s to 30 s.
    s.sim.control.addFault({ kind: 'rate_limit', feed: 'upstream', endpoint: 'status', count: 1 })
    s.ageCache(60)
    await s.feeds.upstream.status(801).catch(() => {})
    const text = await scrape()
    const snapshot = s.feeds.upstream.snapshot().endpoints.find((e) => e.endpoint === 'status')!
    expect(snapshot.ttlS).toBe(30)
    expect(value(text, 'feed_cache_ttl_seconds', { feed: 'upstream', endpoint: 'status' })).toBe(30)
    expect(value(text, 'feed_cache_ttl_seconds', { feed: 'upstream', endpoint: 'warinfo' })).toBe(15)
    expect(value(text, 'feed_cache_ttl_seconds', { feed: 'pcstore', endpoint: 'players' })).toBe(15)
    expect(value(text, 'feed_requests_total', { feed: 'upstream', endpoint: 'status', outcome: 'ok' })).toBe(snapshot.ok)
    expect(value(text, 'feed_requests_total', { feed: 'upstream', endpoint: 'status', outcome: 'rate_limited' })).toBe(1)
    expect(value(text, 'feed_requests_total', { feed: 'upstream', endpoint: 'status', outcome: 'error' })).toBe(snapshot.errors)
    expect(snapshot.errors).toBeGreaterThanOrEqual(1) // the outage of the previous test
    expect(value(text, 'feed_requests_total', { feed: 'upstream', endpoint: 'status', outcome: 'hit' })).toBe(snapshot.hits)
    // The current-war check (war-info's firing) and the community feed have no cache: no TTL, no hits.
    expect(value(text, 'feed_requests_total', { feed: 'upstream', endpoint: 'warid', outcome: 'ok' })).toBeGreaterThanOrEqual(1)
    expect(value(text, 'feed_cache_ttl_seconds', { feed: 'upstream', endpoint: 'warid' })).toBeUndefined()
    expect(value(text, 'feed_requests_total', { feed: 'community', endpoint: 'planets', outcome: 'ok' })).toBe(0)
    await collection.fire('planet-stats')
    expect(value(await scrape(), 'feed_requests_total', { feed: 'community', endpoint: 'planets', outcome: 'ok' })).toBe(1)
  })

  test('pool: size, operations in progress, availability', async () => {
    // The planet-stats tick of the previous test is written from the spool meanwhile.
    while (Object.values(collection.counts()).some((c) => c.pending > 0)) await Bun.sleep(20)
    await Bun.sleep(50)
    const idle = await scrape()
    expect(value(idle, 'db_pool_connections_max')).toBe(db.sql.options.max)
    expect(value(idle, 'db_pool_connections_in_use')).toBe(0)
    expect(value(idle, 'db_available')).toBe(1)
    // A transaction holding its connection until the test lets it go.
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    let begun!: () => void
    const inside = new Promise<void>((resolve) => (begun = resolve))
    const tx = db.gate.run(() => db.sql.begin(async (t) => {
      await t`SELECT 1`
      begun()
      await held
    }))
    await inside
    expect(value(await scrape(), 'db_pool_connections_in_use')).toBe(1)
    release()
    await tx
    expect(value(await scrape(), 'db_pool_connections_in_use')).toBe(0)
  })

  test('rollup refresh: duration by outcome and how far each rollup is materialized behind now', async () => {
    await collection.fire('rollup-refresh')
    const text = await scrape()
    expect(value(text, 'rollup_refresh_duration_seconds_count', { outcome: 'ok' })).toBe(1)
    const lag = value(text, 'rollup_refresh_lag_seconds', { rollup: 'player_count_5m' })
    // Buckets close 2 minutes after their end (refresh_lag): the 5-minute rollup lags 2..7 minutes behind.
    expect(lag).toBeGreaterThanOrEqual(120)
    expect(lag).toBeLessThan(7 * 60 + 5)
    expect(value(text, 'rollup_refresh_lag_seconds', { rollup: 'player_count_1d' })).toBeGreaterThan(lag!)
  })

  test('/metrics is outside /api/v1 and outside the OpenAPI document', async () => {
    expect((await req('/api/v1/metrics')).status).toBe(404)
    const doc = (await (await req('/openapi/json')).json()) as { paths: Record<string, unknown> }
    expect(Object.keys(doc.paths).some((p) => p.includes('metrics'))).toBe(false)
  })
})

test('the HTTP histogram: a request counts in the first bucket whose bound it does not exceed, buckets are cumulative', async () => {
  const m = new Metrics()
  for (const s of [0.0005, 0.0007, 0.003, 20]) m.observeHttp('GET', '/api/v1/war', 200, s)
  const text = await m.text()
  const bucket = (le: string) => value(text, 'http_request_duration_seconds_bucket', { method: 'GET', route: '/api/v1/war', status: '200', le })
  expect([bucket('0.0005'), bucket('0.001'), bucket('0.0025'), bucket('0.005'), bucket('10'), bucket('+Inf')]).toEqual([1, 2, 2, 3, 3, 4])
  expect(value(text, 'http_request_duration_seconds_sum', { method: 'GET', route: '/api/v1/war', status: '200' })).toBeCloseTo(20.0042, 6)
  expect(value(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/war', status: '200' })).toBe(4)
  expect(text).toContain('# TYPE http_request_duration_seconds histogram')
  // Label values stay few whatever clients send: any non-standard method is OTHER.
  for (const method of ['BREW', 'PROPFIND', 'X-1']) m.observeHttp(method, '(unmatched)', 404, 0.001)
  expect(value(await m.text(), 'http_request_duration_seconds_count', { method: 'OTHER', route: '(unmatched)', status: '404' })).toBe(3)
})
