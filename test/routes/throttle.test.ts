import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Elysia } from 'elysia'
import { errorHandling } from '../../src/http/errors.ts'
import { createLogger } from '../../src/log.ts'
import type { Feeds } from '../../src/feeds/index.ts'
import { createUpstreamClient, UPSTREAM_ENDPOINTS, type ThrottleSnapshot, type UpstreamClient } from '../../src/feeds/upstream.ts'
import { Keeper } from '../../src/http/keep.ts'
import { routeContext, type RouteDeps } from '../../src/routes/context.ts'
import { throttleRoutes } from '../../src/routes/throttle.ts'
import { DataVersions } from '../../src/storage/changes.ts'

const SUMMARY_TEXT = readFileSync(join(import.meta.dir, '../../assets/upstream-samples/arrowhead/DERIVED_summary_801_from_community_excerpt.json'), 'utf8')
const get = (app: { handle(r: Request): Promise<Response> }) => app.handle(new Request('http://localhost/health/throttle'))

/** The route on its own, with the one dependency it reads (the upstream client). */
const throttleRoute = (upstream: Pick<UpstreamClient, 'snapshot' | 'snapshotVersion'>) =>
  throttleRoutes(routeContext({ feeds: { upstream } as unknown as Feeds, keeper: new Keeper(new DataVersions(), () => new Date()) } as RouteDeps))

describe('GET /health/throttle', () => {
  test('returns the spec shape of a real client, uncached', async () => {
    let calls = 0
    let nowMs = 1_767_225_600_000
    const client = createUpstreamClient({
      baseUrl: 'http://upstream.test/api', timeoutMs: 100, userAgent: 'test', now: () => nowMs,
      fetch: async () => (++calls === 1 ? new Response(null, { status: 429 }) : new Response('{"galaxy_stats":{}}')),
    })
    await client.summary(801).catch(() => {})
    nowMs += 5000 // past the failure hold
    await client.summary(801).catch(() => {})
    const res = await get(new Elysia().use(throttleRoute(client)))
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const body = (await res.json()) as ThrottleSnapshot
    expect(body.config).toEqual({ initialTtlS: 15, backoffStepS: 15, maxTtlS: 300 })
    expect(body.endpoints.map((e) => e.endpoint)).toEqual([...UPSTREAM_ENDPOINTS])
    expect(body.endpoints[1]).toEqual({
      endpoint: 'summary', ttlS: 30, lastBumpAt: '2026-01-01T00:00:00.000Z', lastSuccessAt: null,
      hits: 0, misses: 2, ok: 0, rateLimited: 1, errors: 1, hitRate: 0,
    })
    for (const e of body.endpoints) expect(Object.keys(e).sort()).toEqual(Object.keys(body.endpoints[1]!).sort())
  })

  test('a snapshot that breaks the schema is not served: 500 {error}, logged, nothing of it echoed', async () => {
    const broken = { snapshotVersion: () => 0, snapshot: () => ({ config: { initialTtlS: 15, backoffStepS: 15, maxTtlS: 300 }, endpoints: [{ endpoint: 'status', ttlS: 'soon' }] }) }
    const lines: string[] = []
    const app = new Elysia().use(errorHandling(createLogger('error', (l) => lines.push(l)))).use(throttleRoute(broken as unknown as UpstreamClient))
    const res = await get(app)
    expect({ status: res.status, cacheControl: res.headers.get('cache-control'), body: await res.json() }).toEqual({
      status: 500, cacheControl: 'no-store', body: { error: 'internal error' },
    })
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['request failed'])
  })

  test('with languages: the spec\'s five entries as before, then an entry per other language for assignment and newsfeed, naming it', async () => {
    const client = createUpstreamClient({
      baseUrl: 'http://upstream.test/api', timeoutMs: 100, userAgent: 'test', languages: ['en-US', 'pl-PL'],
      fetch: async () => new Response('[]'),
    })
    await client.assignments(801, { language: 'pl-PL' })
    const body = (await (await get(new Elysia().use(throttleRoute(client)))).json()) as ThrottleSnapshot
    expect(body.endpoints.map((e) => [e.endpoint, e.language])).toEqual([
      ...UPSTREAM_ENDPOINTS.map((e) => [e, undefined]), ['assignment', 'pl-PL'], ['newsfeed', 'pl-PL'],
    ])
    expect(body.endpoints[5]).toMatchObject({ endpoint: 'assignment', language: 'pl-PL', misses: 1, ok: 1 })
    expect(body.endpoints[2]).toMatchObject({ endpoint: 'assignment', misses: 0, ok: 0 })
    expect('language' in body.endpoints[2]!).toBe(false)
  })

  test('the kept body is what a fresh snapshot gives after every kind of change (hit, miss, success, 429 bump, error, other languages\' entries), and is kept while nothing changed', async () => {
    let nowMs = 1_767_225_600_000
    const answers: (() => Response)[] = []
    const client = createUpstreamClient({
      baseUrl: 'http://upstream.test/api', timeoutMs: 100, userAgent: 'test', languages: ['en-US', 'de-DE'], now: () => nowMs,
      fetch: async (url) => (answers.shift() ?? (() => new Response(String(url).includes('/Summary') ? SUMMARY_TEXT : '[]')))(),
    })
    const snapshotCalls = { n: 0 }
    const counted = { snapshotVersion: () => client.snapshotVersion(), snapshot: () => (snapshotCalls.n++, client.snapshot()) }
    const app = new Elysia().use(throttleRoute(counted))
    const bodies: string[] = []
    const served = async () => {
      const text = await (await get(app)).text()
      expect(text).toBe(JSON.stringify(client.snapshot()))
      bodies.push(text)
    }
    const events: [string, () => Promise<unknown>][] = [
      ['a miss and a success', () => client.summary(801)],
      ['a hit', () => client.summary(801)],
      ['a fresh hit without a promise', async () => client.freshSummary(801)],
      ['a 429: TTL bumped, stale served', async () => {
        nowMs += 16_000
        answers.push(() => new Response(null, { status: 429 }))
        return client.summary(801)
      }],
      ['an error', async () => {
        answers.push(() => new Response('nope', { status: 500 }))
        return client.status(801).catch(() => null)
      }],
      ['another language\'s newsfeed', () => client.newsfeed(801, { language: 'de-DE' }).catch(() => null)],
      ['another language\'s assignments', () => client.assignments(801, { language: 'de-DE' }).catch(() => null)],
    ]
    await served()
    for (const [, event] of events) {
      await event()
      await served()
      const before = snapshotCalls.n
      await served() // nothing happened in between: kept
      expect(snapshotCalls.n).toBe(before + 0)
    }
    // Each event changed the body; the repeat in between served the same bytes.
    for (let i = 0; i < events.length; i++) {
      expect(bodies[2 * i + 1]).not.toBe(bodies[2 * i])
      expect(bodies[2 * i + 2]).toBe(bodies[2 * i + 1])
    }
  })

  test('a request\'s outcome changes the kept body when it settles, after the miss that started it (ok, 429, error each)', async () => {
    let nowMs = 1_767_225_600_000
    let release: (r: Response) => void = () => {}
    const client = createUpstreamClient({
      baseUrl: 'http://upstream.test/api', timeoutMs: 60_000, userAgent: 'test', now: () => nowMs,
      fetch: () => new Promise<Response>((resolve) => (release = resolve)),
    })
    const app = new Elysia().use(throttleRoute(client))
    const served = async () => {
      const text = await (await get(app)).text()
      expect(text).toBe(JSON.stringify(client.snapshot()))
      return text
    }
    const outcomes = [() => new Response(SUMMARY_TEXT), () => new Response(null, { status: 429 }), () => new Response('nope', { status: 500 })]
    for (const outcome of outcomes) {
      nowMs += 400_000 // past the cache, any failure hold and the stale limit
      const before = await served()
      const call = client.summary(801).catch(() => null)
      await Bun.sleep(0)
      const inFlight = await served()
      expect(inFlight).not.toBe(before)
      release(outcome())
      await call
      expect(await served()).not.toBe(inFlight)
    }
  })
})

