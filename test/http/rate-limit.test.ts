/**
 * Fair use per client (http/rate-limit.ts): the budgets' arithmetic on a moved clock, and
 * the app on a real socket, where each client is a local address of its own (127.0.0.x:
 * the whole 127/8 is loopback) and the socket's peer is what identifies it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import http from 'node:http'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { createFeeds } from '../../src/feeds/index.ts'
import { hashApiKey, newApiKey } from '../../src/http/api-keys.ts'
import { ClientBudgets, meteredClient } from '../../src/http/rate-limit.ts'
import { silentLogger } from '../../src/log.ts'
import { openEmbeddedTestDatabase, type TestDatabase } from '../support/db.ts'

const settings = (env: Record<string, string> = {}) => loadConfig({ RATE_LIMIT_QUOTA: '20', RATE_LIMIT_WINDOW_SECONDS: '60', RATE_LIMIT_COMPUTE_COST: '10', ...env })
const request = (headers: Record<string, string> = {}) => new Request('http://localhost/api/v1/war', { headers })

describe('budgets (the arithmetic, on a moved clock)', () => {
  test('a bucket starts full, refills continuously, and refuses what it does not hold', () => {
    let now = 0
    const budgets = new ClientBudgets(settings(), () => now)
    const a = budgets.clientOf(request(), '192.0.2.1')!
    expect(budgets.take(a, 15)).toEqual({ ok: true, remaining: 5, retryAfterSeconds: 0 })
    // 20 units a minute: one every 3 s. Nothing is taken by a refusal.
    expect(budgets.take(a, 8)).toEqual({ ok: false, remaining: 5, retryAfterSeconds: 9 })
    now += 9000
    expect(budgets.take(a, 8)).toEqual({ ok: true, remaining: 0, retryAfterSeconds: 0 })
    expect(budgets.headersOf(a)).toEqual({ 'ratelimit-policy': '"default";q=20;w=60', ratelimit: '"default";r=0;t=60' })
    now += 60_000
    expect(budgets.headersOf(budgets.clientOf(request(), '192.0.2.1')!).ratelimit).toBe('"default";r=20;t=0')
    // Another address has its own.
    expect(budgets.take(budgets.clientOf(request(), '192.0.2.2')!, 20).ok).toBe(true)
  })

  test('a refused request says r=0 with its Retry-After, even when the bucket refilled a unit before its headers were made', () => {
    let now = 0
    const budgets = new ClientBudgets(settings(), () => now)
    const a = budgets.clientOf(request(), '192.0.2.1')!
    expect(budgets.take(a, 20).ok).toBe(true)
    const refused = request()
    expect(budgets.admit(refused, '192.0.2.1')).toBeDefined()
    // 4.5 s on: 1.5 units back (one every 3 s) between the refusal and its answer's headers.
    now += 4500
    expect(budgets.settle(refused, false)).toEqual({ 'ratelimit-policy': '"default";q=20;w=60', ratelimit: '"default";r=0;t=56', 'retry-after': '1' })
    // The next request is admitted and its answer says what is left.
    const next = request()
    expect(budgets.admit(next, '192.0.2.1')).toBeUndefined()
    expect(budgets.settle(next, false)!.ratelimit).toBe('"default";r=0;t=59')
  })

  test('an IPv6 client is its /64; an IPv4 client of a dual-stack socket is its IPv4 address', () => {
    const budgets = new ClientBudgets(settings(), () => 0)
    expect(budgets.clientOf(request(), '2001:db8:1:2:aaaa::1')!.id).toBe('2001:db8:1:2::/64')
    expect(budgets.clientOf(request(), '2001:db8:1:2:bbbb::9')).toBe(budgets.clientOf(request(), '2001:db8:1:2:aaaa::1'))
    expect(budgets.clientOf(request(), '2001:db8:1:3::1')!.id).toBe('2001:db8:1:3::/64')
    expect(budgets.clientOf(request(), '::ffff:192.0.2.7')!.id).toBe('192.0.2.7')
    expect(budgets.clientOf(request(), null)!.id).toBe('unknown')
  })

  test('RATE_LIMIT_PROCESSES = 3: each process holds a third; the headers speak of the whole', () => {
    let now = 0
    const budgets = new ClientBudgets(settings({ RATE_LIMIT_QUOTA: '30', RATE_LIMIT_PROCESSES: '3' }), () => now)
    const a = budgets.clientOf(request(), '192.0.2.1')!
    expect(budgets.headersOf(a)).toEqual({ 'ratelimit-policy': '"default";q=30;w=60', ratelimit: '"default";r=30;t=0' })
    expect(budgets.take(a, 10)).toMatchObject({ ok: true, remaining: 0 })
    expect(budgets.take(a, 1)).toMatchObject({ ok: false, retryAfterSeconds: 6 })
    now += 6000
    expect(budgets.take(a, 1)).toMatchObject({ ok: true, remaining: 0 })
  })

  test('an API key: its own bucket and policy (the key\'s quota, else RATE_LIMIT_KEY_QUOTA); a key no live key matches is no client', () => {
    const budgets = new ClientBudgets(settings({ RATE_LIMIT_KEY_QUOTA: '500' }), () => 0)
    const own = newApiKey()
    const defaulted = newApiKey()
    // Until the keys are read, a key counts as its address.
    expect(budgets.clientOf(request({ 'x-api-key': own }), '192.0.2.1')!.id).toBe('192.0.2.1')
    budgets.keys.replace([
      { id: 7, keySha256: hashApiKey(own), quota: 5000, windowSeconds: 10 },
      { id: 8, keySha256: hashApiKey(defaulted), quota: null, windowSeconds: null },
    ])
    const keyed = budgets.clientOf(request({ 'x-api-key': own }), '192.0.2.1')!
    expect(keyed.id).toBe('key:7')
    expect(budgets.headersOf(keyed)['ratelimit-policy']).toBe('"key";q=5000;w=10')
    expect(budgets.headersOf(budgets.clientOf(request({ 'x-api-key': defaulted }), '192.0.2.1')!)['ratelimit-policy']).toBe('"key";q=500;w=60')
    for (const wrong of [newApiKey(), '', 'gws_short', own.slice(0, -1) + (own.endsWith('A') ? 'B' : 'A'), `${own}, ${own}`, 'x'.repeat(10_000)]) {
      expect(budgets.clientOf(request({ 'x-api-key': wrong }), '192.0.2.1')).toBeUndefined()
    }
    // Revoked (the table reloaded without it): no client any more.
    budgets.keys.replace([{ id: 8, keySha256: hashApiKey(defaulted), quota: null, windowSeconds: null }])
    expect(budgets.clientOf(request({ 'x-api-key': own }), '192.0.2.1')).toBeUndefined()
  })

  test('memory is bounded: full buckets go first, then the least recently used; a spent bucket in use stays spent', () => {
    let now = 0
    const budgets = new ClientBudgets(settings(), () => now, 100)
    const flooder = budgets.clientOf(request(), '198.51.100.1')!
    expect(budgets.take(flooder, 20).ok).toBe(true)
    let granted = 0
    for (let i = 0; i < 6100; i++) {
      now += 1
      // The flooder keeps asking while thousands of others come and go: what it gets is
      // what 6 s refill (2 units), not a new full bucket.
      if (i % 50 === 0 && budgets.take(budgets.clientOf(request(), '198.51.100.1')!, 1).ok) granted++
      budgets.clientOf(request(), `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`)
      expect(budgets.size).toBeLessThanOrEqual(100)
    }
    expect(granted).toBe(2)
  })
})

/** A GET on a real socket from a local address of its own (the peer the server sees). */
function get(base: string, path: string, opts: { from?: string; headers?: Record<string, string | string[]> } = {}) {
  const url = new URL(path, base)
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }>((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, localAddress: opts.from ?? '127.0.0.1', headers: opts.headers ?? {} }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d) => (text += d))
      res.on('end', () => {
        let body: unknown = text
        try {
          body = text ? JSON.parse(text) : null
        } catch {}
        resolve({ status: res.statusCode!, headers: res.headers, body })
      })
    })
    req.on('error', reject)
    req.end()
  })
}

describe('the app on a socket', () => {
  let db: TestDatabase
  let now = 0
  let servers: { stop(): void }[] = []
  const key = newApiKey()

  /** The app with budgets (quota 20 a minute, a computed answer 10) listening on a free port. */
  const serve = (env: Record<string, string> = {}) => {
    const config = settings({ UPSTREAM_URL: 'http://127.0.0.1:9/api', ...env })
    const budgets = new ClientBudgets(config, () => now)
    budgets.keys.replace([{ id: 1, keySha256: hashApiKey(key), quota: 1000, windowSeconds: 60 }])
    const app = buildApp({ config, db, log: silentLogger, feeds: createFeeds(config), budgets }).listen({ hostname: '127.0.0.1', port: 0 })
    servers.push({ stop: () => void app.stop(true) })
    return { base: `http://127.0.0.1:${app.server!.port}`, budgets }
  }

  beforeAll(async () => {
    db = await openEmbeddedTestDatabase()
  }, 60_000)
  afterAll(async () => {
    for (const s of servers) s.stop()
    servers = []
    await db?.dispose()
  })

  test('a flooding client gets 429 {error} with Retry-After, RateLimit and RateLimit-Policy; another client is never refused', async () => {
    const { base } = serve()
    const seen: number[] = []
    for (let i = 0; i < 40; i++) {
      const flood = await get(base, '/api/v1/sectors', { from: '127.0.0.1' })
      seen.push(flood.status)
      expect(flood.headers['ratelimit-policy']).toBe('"default";q=20;w=60')
      expect(flood.headers.ratelimit).toMatch(/^"default";r=\d+;t=\d+$/)
      if (flood.status === 429) {
        expect(flood.body).toEqual({ error: expect.stringContaining('too many requests') })
        expect(flood.headers['retry-after']).toBe('3')
        expect(flood.headers.ratelimit).toBe('"default";r=0;t=60')
        expect(flood.headers['cache-control']).toBe('no-store')
        expect(flood.headers['access-control-allow-origin']).toBe('*')
        expect(flood.headers['access-control-expose-headers']).toContain('Retry-After')
      }
      // The other client, meanwhile, asks every 3 s (a unit comes back every 3 s): every answer a 200.
      if (i % 4 === 0) {
        const calm = await get(base, '/api/v1/sectors', { from: '127.0.0.2' })
        expect(calm.status).toBe(200)
        if (i === 0) expect(calm.headers.ratelimit).toBe('"default";r=19;t=3')
      }
      if (i % 4 === 3) now += 3000
    }
    // The first answer was computed (10 units), then kept ones (1 each); refused past the budget.
    expect(seen.slice(0, 11)).toEqual(Array(11).fill(200))
    expect(seen.filter((s) => s === 429).length).toBeGreaterThan(15)
    expect(seen.every((s) => s === 200 || s === 429)).toBe(true)
    // Back after Retry-After.
    now += 3000
    expect((await get(base, '/api/v1/sectors', { from: '127.0.0.1' })).status).toBe(200)
  })

  test('a kept answer costs 1 unit, a computed one the compute cost; health and metrics are not metered', async () => {
    const { base } = serve({ RATE_LIMIT_QUOTA: '100' })
    const r = async (path: string) => (await get(base, path, { from: '127.0.0.3' })).headers.ratelimit
    expect(await r('/api/v1/factions')).toBe('"default";r=90;t=6')
    expect(await r('/api/v1/factions')).toBe('"default";r=89;t=7')
    // Computed at every request (war intelligence): 10 each.
    expect(await r('/api/v1/war/trends')).toBe('"default";r=79;t=13')
    expect(await r('/api/v1/war/trends')).toBe('"default";r=69;t=19')
    // A page is one unit; a refused parameter (400) one.
    expect(await r('/')).toBe('"default";r=68;t=20')
    const bad = await get(base, '/api/v1/divers/history?range=nope', { from: '127.0.0.3' })
    expect(bad.status).toBe(400)
    expect(bad.headers.ratelimit).toBe('"default";r=67;t=20')
    for (const path of ['/health/live', '/health/ready', '/metrics']) {
      const res = await get(base, path, { from: '127.0.0.3' })
      expect(res.status).toBeLessThan(500)
      expect(res.headers.ratelimit).toBeUndefined()
    }
    expect(await r('/api/v1/factions')).toBe('"default";r=66;t=21')
  })

  test('X-API-Key: its own budget and policy; an unknown key is 401 {error} (even over budget), with the address\'s headers', async () => {
    const { base } = serve()
    const keyed = await get(base, '/api/v1/sectors', { from: '127.0.0.4', headers: { 'x-api-key': key } })
    expect(keyed.status).toBe(200)
    expect(keyed.headers['ratelimit-policy']).toBe('"key";q=1000;w=60')
    const wrong = await get(base, '/api/v1/sectors', { from: '127.0.0.4', headers: { 'x-api-key': newApiKey() } })
    expect(wrong.status).toBe(401)
    expect(wrong.body).toEqual({ error: 'unknown or revoked API key (X-API-Key)' })
    expect(wrong.headers['ratelimit-policy']).toBe('"default";q=20;w=60')
    expect(wrong.headers.ratelimit).toBe('"default";r=20;t=0')
    // The address spent, a wrong key is still told so.
    for (let i = 0; i < 20; i++) await get(base, '/api/v1/sectors', { from: '127.0.0.4' })
    expect((await get(base, '/api/v1/sectors', { from: '127.0.0.4' })).status).toBe(429)
    expect((await get(base, '/api/v1/sectors', { from: '127.0.0.4', headers: { 'x-api-key': 'gws_revoked' } })).status).toBe(401)
    expect((await get(base, '/api/v1/sectors', { from: '127.0.0.4', headers: { 'x-api-key': key } })).status).toBe(200)
  })

  test('the budget a request was metered under is there for a route to charge more (a stream\'s connection)', async () => {
    const budgets = new ClientBudgets(settings(), () => now)
    const req = new Request('http://localhost/api/v1/war')
    expect(budgets.admit(req, '192.0.2.9')).toBeUndefined()
    const client = meteredClient(req)!
    expect(client.id).toBe('192.0.2.9')
    expect(budgets.take(client, 19)).toMatchObject({ ok: true, remaining: 0 })
    expect(budgets.take(client, 1)).toMatchObject({ ok: false })
    expect(meteredClient(new Request('http://localhost/health/live'))).toBeUndefined()
  })

  test('fuzzed X-Forwarded-For, Forwarded and X-API-Key (huge, repeated, malformed) never give a 5xx', async () => {
    const { base } = serve({ RATE_LIMIT_QUOTA: '1000000', TRUSTED_PROXIES: '127.0.0.0/8' })
    const piece = fc.oneof(
      fc.ipV4(), fc.ipV6(), fc.ipV4Extended(),
      fc.constantFrom('unknown', '_hidden', '[::1]:80', '1.2.3.4:65536', '[', ']', '"', ';', '=', 'for=', 'for="[2001:db8::1]:4711"', ',', ', ,', ' ', '::ffff:', 'gws_', key, key.slice(0, -1)),
      fc.string({ unit: 'grapheme-ascii', maxLength: 30 }),
    )
    const value = fc.oneof(
      fc.tuple(fc.array(piece, { maxLength: 12 }), fc.constantFrom(',', ', ', ';', ' ')).map(([a, sep]) => a.join(sep)),
      fc.tuple(piece, fc.integer({ min: 100, max: 6000 })).map(([p, n]) => (p || 'x').repeat(Math.ceil(n / Math.max(1, p.length)))),
    )
    // Header values a client can send: printable ASCII, no line breaks.
    const sendable = (v: string) => v.replace(/[^\x20-\x7e]/g, '').trim()
    await fc.assert(
      fc.asyncProperty(
        fc.record({ xff: fc.array(value, { maxLength: 3 }), forwarded: fc.array(value, { maxLength: 3 }), key: fc.array(value, { maxLength: 2 }) }, { requiredKeys: [] }),
        fc.constantFrom('/api/v1/sectors', '/api/v1/nope', '/', '/health/live'),
        async (h, path) => {
          const headers: Record<string, string[]> = {}
          if (h.xff?.length) headers['x-forwarded-for'] = h.xff.map(sendable)
          if (h.forwarded?.length) headers.forwarded = h.forwarded.map(sendable)
          if (h.key?.length) headers['x-api-key'] = h.key.map(sendable)
          const res = await get(base, path, { from: '127.0.0.5', headers })
          expect(res.status).toBeLessThan(500)
          if (res.status >= 400 && res.status !== 431) expect(Object.keys(res.body)).toEqual(['error'])
        },
      ),
      { numRuns: 300, ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}) },
    )
  }, 60_000)
})
