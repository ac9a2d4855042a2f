import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { errorHandling } from '../../src/http/errors.ts'
import { createLogger } from '../../src/log.ts'
import { throttleRoutes } from '../../src/routes/throttle.ts'
import { createUpstreamClient, UPSTREAM_ENDPOINTS, type ThrottleSnapshot } from '../../src/feeds/upstream.ts'

const get = (app: { handle(r: Request): Promise<Response> }) => app.handle(new Request('http://localhost/health/throttle'))

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
    const res = await get(new Elysia().use(throttleRoutes(client)))
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
    const broken = { snapshot: () => ({ config: { initialTtlS: 15, backoffStepS: 15, maxTtlS: 300 }, endpoints: [{ endpoint: 'status', ttlS: 'soon' }] }) }
    const lines: string[] = []
    const app = new Elysia().use(errorHandling(createLogger('error', (l) => lines.push(l)))).use(throttleRoutes(broken as unknown as { snapshot(): ThrottleSnapshot }))
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
    const body = (await (await get(new Elysia().use(throttleRoutes(client)))).json()) as ThrottleSnapshot
    expect(body.endpoints.map((e) => [e.endpoint, e.language])).toEqual([
      ...UPSTREAM_ENDPOINTS.map((e) => [e, undefined]), ['assignment', 'pl-PL'], ['newsfeed', 'pl-PL'],
    ])
    expect(body.endpoints[5]).toMatchObject({ endpoint: 'assignment', language: 'pl-PL', misses: 1, ok: 1 })
    expect(body.endpoints[2]).toMatchObject({ endpoint: 'assignment', misses: 0, ok: 0 })
    expect('language' in body.endpoints[2]!).toBe(false)
  })
})
