import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createUpstreamClient, UPSTREAM_ENDPOINTS } from '../../src/feeds/upstream.ts'
import { FeedUnavailableError } from '../../src/feeds/errors.ts'
import type { FetchLike } from '../../src/feeds/http.ts'

const STATUS_TEXT = readFileSync(join(import.meta.dir, '../../assets/upstream-samples/arrowhead/warstatus_801_2024-03-08_sector-hq.json'), 'utf8')
const SUMMARY_TEXT = readFileSync(join(import.meta.dir, '../../assets/upstream-samples/arrowhead/DERIVED_summary_801_from_community_excerpt.json'), 'utf8')

/** A scripted upstream: answers from a queue (default: the real Status sample), records every request. */
function fakeUpstream() {
  const requests: { url: string; headers: Headers }[] = []
  const script: (() => Response)[] = []
  let release: (() => void) | undefined
  let gate: Promise<void> | undefined
  const fetch: FetchLike = async (input, init) => {
    requests.push({ url: String(input), headers: new Headers(init?.headers) })
    if (gate) await gate
    return (script.shift() ?? (() => new Response(STATUS_TEXT, { status: 200 })))()
  }
  return {
    fetch,
    requests,
    then: (...responses: (() => Response)[]) => script.push(...responses),
    hold: () => {
      gate = new Promise((r) => (release = r))
    },
    release: () => {
      gate = undefined
      release?.()
    },
  }
}

const tooMany = () => new Response(null, { status: 429 })

function setup(languages?: string[]) {
  const upstream = fakeUpstream()
  let nowMs = Date.parse('2026-01-01T00:00:00Z')
  const clock = { now: () => nowMs, advance: (s: number) => (nowMs += s * 1000) }
  const client = createUpstreamClient({
    baseUrl: 'http://upstream.test/api/',
    timeoutMs: 1000,
    userAgent: 'galactic-war-stats/test',
    now: clock.now,
    fetch: upstream.fetch,
    languages,
  })
  const stats = (name = 'status') => client.snapshot().endpoints.find((e) => e.endpoint === name)!
  return { upstream, clock, client, stats }
}

describe('cache', () => {
  test('hits within the TTL make no request; the TTL boundary refetches', async () => {
    const { upstream, clock, client, stats } = setup()
    const first = await client.status(801)
    expect(first.fromCache).toBe(false)
    expect(first.data.time).toBe(2610780)
    // Fresh until TTL minus the scheduling allowance (SCHEDULE_JITTER_MS = 1 s).
    clock.advance(13.9)
    const second = await client.status(801)
    expect(second.fromCache).toBe(true)
    expect(second.fetchedAt).toEqual(first.fetchedAt)
    expect(upstream.requests).toHaveLength(1)
    clock.advance(0.1)
    expect((await client.status(801)).fromCache).toBe(false)
    expect(upstream.requests).toHaveLength(2)
    expect(stats()).toMatchObject({ hits: 1, misses: 2, ok: 2, errors: 0, rateLimited: 0, ttlS: 15, hitRate: 1 / 3 })
  })

  test('freshStatus answers a fresh cached value at once (a hit), nothing otherwise, and makes no request', async () => {
    const { upstream, clock, client, stats } = setup()
    expect(client.freshStatus(801)).toBeUndefined()
    expect(upstream.requests).toHaveLength(0)
    const first = await client.status(801)
    const hit = client.freshStatus(801)
    expect(hit).toMatchObject({ data: first.data, fromCache: true, stale: false })
    expect(hit!.fetchedAt).toEqual(first.fetchedAt)
    // The same answer object while the entry lasts: the live route keys its body on it.
    expect(client.freshStatus(801)).toBe(hit!)
    expect(client.freshStatus(802)).toBeUndefined()
    clock.advance(14)
    expect(client.freshStatus(801)).toBeUndefined()
    expect(upstream.requests).toHaveLength(1)
    expect(stats()).toMatchObject({ hits: 2, misses: 1 })
  })

  test('freshSummary does the same for the war summary', async () => {
    const { upstream, clock, client } = setup()
    expect(client.freshSummary(801)).toBeUndefined()
    upstream.then(() => new Response(SUMMARY_TEXT, { status: 200 }))
    const first = await client.summary(801)
    const hit = client.freshSummary(801)
    expect(hit).toMatchObject({ data: first.data, fromCache: true, stale: false })
    expect(client.freshSummary(801)).toBe(hit!)
    expect(client.freshStatus(801)).toBeUndefined() // another endpoint
    clock.advance(14)
    expect(client.freshSummary(801)).toBeUndefined()
    expect(upstream.requests).toHaveLength(1)
  })

  test('keys by war id and uses the documented paths and headers', async () => {
    const { upstream, client } = setup()
    upstream.then(
      () => new Response(STATUS_TEXT),
      () => new Response('[]'),
      () => new Response('[]'),
    )
    await client.status(801)
    await client.assignments(801)
    await client.newsfeed(802)
    expect(upstream.requests.map((r) => r.url)).toEqual([
      'http://upstream.test/api/WarSeason/801/Status',
      'http://upstream.test/api/v2/Assignment/War/801',
      'http://upstream.test/api/NewsFeed/802?maxEntries=1024&fromTimestamp=1000',
    ])
    const headers = upstream.requests[0]!.headers
    expect(headers.get('accept-language')).toBe('en-US')
    expect(headers.get('accept')).toBe('application/json')
    expect(headers.get('user-agent')).toBe('galactic-war-stats/test')
  })

  test('single flight: N concurrent calls share one request', async () => {
    const { upstream, client, stats } = setup()
    upstream.hold()
    const calls = Array.from({ length: 10 }, () => client.status(801))
    for (let i = 0; i < 20 && upstream.requests.length === 0; i++) await Promise.resolve()
    expect(upstream.requests).toHaveLength(1) // held upstream: the ten calls wait on one request
    upstream.release()
    const results = await Promise.all(calls)
    expect(upstream.requests).toHaveLength(1)
    expect(new Set(results.map((r) => r.data)).size).toBe(1)
    expect(stats()).toMatchObject({ hits: 9, misses: 1, ok: 1, hitRate: 0.9 })
  })

  test('single flight also shares a failure, counted once', async () => {
    const { upstream, client, stats } = setup()
    upstream.then(() => new Response('oops', { status: 502 }))
    upstream.hold()
    const calls = Array.from({ length: 5 }, () => client.summary(801).catch((e: unknown) => e))
    upstream.release()
    const results = await Promise.all(calls)
    expect(results.every((r) => r instanceof FeedUnavailableError && r.reason === 'http_status' && r.status === 502)).toBe(true)
    expect(upstream.requests).toHaveLength(1)
    expect(stats('summary')).toMatchObject({ misses: 1, hits: 4, errors: 1, ok: 0, lastSuccessAt: null })
  })

  test('a failure is answered from memory for 5 s (no request, not a hit), then asked again', async () => {
    const { upstream, clock, client, stats } = setup()
    upstream.then(() => new Response('', { status: 503 }))
    await expect(client.status(801)).rejects.toMatchObject({ reason: 'http_status', status: 503 })
    clock.advance(4.9)
    await expect(client.status(801)).rejects.toMatchObject({ reason: 'http_status', status: 503 })
    expect(upstream.requests).toHaveLength(1)
    clock.advance(0.1)
    expect((await client.status(801)).fromCache).toBe(false)
    expect(upstream.requests).toHaveLength(2)
    expect(stats()).toMatchObject({ misses: 2, hits: 0, ok: 1, errors: 1 })
    // Held per key: another war asks at once.
    upstream.then(() => new Response('', { status: 503 }))
    await expect(client.status(802)).rejects.toMatchObject({ status: 503 })
    expect((await client.status(801)).fromCache).toBe(true)
  })

  test('a 429 naming Retry-After is held that long', async () => {
    const { upstream, clock, client } = setup()
    upstream.then(() => new Response(null, { status: 429, headers: { 'retry-after': '40' } }))
    await expect(client.status(801)).rejects.toMatchObject({ reason: 'rate_limited', retryAfterS: 40 })
    clock.advance(39.9)
    await expect(client.status(801)).rejects.toMatchObject({ reason: 'rate_limited' })
    expect(upstream.requests).toHaveLength(1)
    clock.advance(0.1)
    expect((await client.status(801)).fromCache).toBe(false)
    expect(upstream.requests).toHaveLength(2)
  })
})

describe('TTL backoff on 429', () => {
  test('15 → 30 → … → 300, capped, never lower, per endpoint', async () => {
    const { upstream, clock, client, stats } = setup()
    const seen: number[] = []
    for (let i = 0; i < 21; i++) {
      upstream.then(tooMany)
      await expect(client.status(801)).rejects.toMatchObject({ reason: 'rate_limited', status: 429 })
      seen.push(stats().ttlS)
      clock.advance(5) // past the failure hold
    }
    expect(seen.slice(0, 3)).toEqual([30, 45, 60])
    expect(seen[18]).toBe(300)
    expect(seen.slice(18)).toEqual([300, 300, 300])
    expect(stats()).toMatchObject({ rateLimited: 21, errors: 0, ok: 0, misses: 21 })
    expect(stats().lastBumpAt).toBe(new Date(clock.now() - 5000).toISOString())
    // Other endpoints keep their own TTL.
    expect(stats('summary').ttlS).toBe(15)

    // Successes and time do not lower it, and the longer TTL is what the cache uses.
    await client.status(801)
    clock.advance(298)
    expect((await client.status(801)).fromCache).toBe(true)
    clock.advance(1)
    expect((await client.status(801)).fromCache).toBe(false)
    clock.advance(86_400)
    await client.status(801)
    expect(stats().ttlS).toBe(300)
  })

  test('a burst of calls during a 429 makes one request and bumps the TTL once', async () => {
    const { upstream, client, stats } = setup()
    upstream.then(tooMany)
    for (let i = 0; i < 20; i++) await expect(client.status(801)).rejects.toMatchObject({ reason: 'rate_limited' })
    expect(upstream.requests).toHaveLength(1)
    expect(stats()).toMatchObject({ ttlS: 30, rateLimited: 1, misses: 1, hits: 0 })
  })

  test('a collector bypasses a held failure, but not a held 429', async () => {
    const { upstream, client } = setup()
    upstream.then(() => new Response('', { status: 502 }))
    await expect(client.status(801)).rejects.toMatchObject({ status: 502 })
    expect((await client.status(801, { bypassFailureHold: true })).fromCache).toBe(false)
    expect(upstream.requests).toHaveLength(2)
    upstream.then(tooMany)
    await expect(client.summary(801)).rejects.toMatchObject({ reason: 'rate_limited' })
    await expect(client.summary(801, { bypassFailureHold: true })).rejects.toMatchObject({ reason: 'rate_limited' })
    expect(upstream.requests).toHaveLength(3)
  })

  test('while a 429 is held, a stale value older than the raised TTL keeps being served without asking', async () => {
    const { upstream, clock, client } = setup()
    await client.status(801)
    clock.advance(40) // older than the 30 s the 429 will raise the TTL to
    upstream.then(tooMany)
    expect(await client.status(801)).toMatchObject({ fromCache: true, stale: true })
    clock.advance(4)
    expect(await client.status(801)).toMatchObject({ fromCache: true, stale: true })
    expect(upstream.requests).toHaveLength(2)
  })

  test('a 429 with a recent cached value serves it as stale; without one it throws', async () => {
    const { upstream, clock, client, stats } = setup()
    const fresh = await client.status(801)
    clock.advance(20)
    upstream.then(tooMany)
    const stale = await client.status(801)
    expect(stale).toMatchObject({ fromCache: true, stale: true })
    expect(stale.fetchedAt).toEqual(fresh.fetchedAt)
    expect(stats()).toMatchObject({ ttlS: 30, rateLimited: 1, ok: 1, misses: 2 })

    // Older than the 300 s cap: no longer served.
    clock.advance(300)
    upstream.then(tooMany)
    await expect(client.status(801)).rejects.toMatchObject({ reason: 'rate_limited' })
    // Another war id has no cached value to fall back on.
    upstream.then(tooMany)
    await expect(client.status(802)).rejects.toMatchObject({ reason: 'rate_limited' })
  })
})

describe('snapshot', () => {
  test('spec shape for all five endpoints in fixed order, before any call', () => {
    const { client } = setup()
    const snap = client.snapshot()
    expect(snap.config).toEqual({ initialTtlS: 15, backoffStepS: 15, maxTtlS: 300 })
    expect(snap.endpoints.map((e) => e.endpoint)).toEqual([...UPSTREAM_ENDPOINTS])
    expect(snap.endpoints[0]).toEqual({
      endpoint: 'status', ttlS: 15, lastBumpAt: null, lastSuccessAt: null,
      hits: 0, misses: 0, ok: 0, rateLimited: 0, errors: 0, hitRate: 0,
    })
  })

  test('lastSuccessAt is the epoch ms of the last success', async () => {
    const { clock, client, stats } = setup()
    await client.status(801)
    expect(stats().lastSuccessAt).toBe(clock.now())
  })
})

describe('languages', () => {
  const LANGS = ['en-US', 'de-DE', 'fr-FR']
  const entry = (client: ReturnType<typeof setup>['client'], endpoint: string, language?: string) =>
    client.snapshot().endpoints.find((e) => e.endpoint === endpoint && e.language === language)!

  test('the snapshot keeps the spec\'s five entries first and adds assignment and newsfeed per other language, before any call', () => {
    const { client } = setup(LANGS)
    const endpoints = client.snapshot().endpoints
    expect(endpoints.map((e) => (e.language ? `${e.endpoint}@${e.language}` : e.endpoint))).toEqual([
      ...UPSTREAM_ENDPOINTS, 'assignment@de-DE', 'newsfeed@de-DE', 'assignment@fr-FR', 'newsfeed@fr-FR',
    ])
    // The spec's entries carry no language field; the added ones carry the spec's fields plus it.
    expect(Object.keys(endpoints[2]!)).not.toContain('language')
    expect(Object.keys(endpoints[5]!)).toEqual(['endpoint', 'language', ...Object.keys(endpoints[2]!).slice(1)])
    expect(client.languages).toEqual(LANGS)
  })

  test('each language is its own cache entry: its own Accept-Language, request, hits and counters', async () => {
    const { upstream, clock, client } = setup(LANGS)
    upstream.then(
      () => new Response('[{"id":1,"published":5,"type":0,"tagIds":[],"message":"hello"}]'),
      () => new Response('[{"id":1,"published":5,"type":0,"tagIds":[],"message":"hallo"}]'),
      () => new Response('[{"id":1,"published":5,"type":0,"tagIds":[],"message":"salut"}]'),
    )
    const en = await client.newsfeed(801)
    const de = await client.newsfeed(801, { language: 'de-DE' })
    const fr = await client.newsfeed(801, { language: 'fr-FR', bypassFailureHold: true })
    expect([en, de, fr].map((f) => f.data[0]!.message)).toEqual(['hello', 'hallo', 'salut'])
    expect(upstream.requests.map((r) => r.headers.get('accept-language'))).toEqual(LANGS)
    expect(new Set(upstream.requests.map((r) => r.url)).size).toBe(1)

    // Within the TTL every language is answered from its own entry.
    clock.advance(5)
    expect((await client.newsfeed(801, { language: 'de-DE' })).data[0]!.message).toBe('hallo')
    expect((await client.newsfeed(801, { language: 'en-US' })).data[0]!.message).toBe('hello')
    expect(upstream.requests).toHaveLength(3)
    expect(entry(client, 'newsfeed')).toMatchObject({ hits: 1, misses: 1, ok: 1 })
    expect(entry(client, 'newsfeed', 'de-DE')).toMatchObject({ hits: 1, misses: 1, ok: 1, lastSuccessAt: clock.now() - 5000 })
    expect(entry(client, 'newsfeed', 'fr-FR')).toMatchObject({ hits: 0, misses: 1, ok: 1 })
    expect(entry(client, 'assignment', 'de-DE')).toMatchObject({ hits: 0, misses: 0, ok: 0, lastSuccessAt: null })
  })

  test('a 429 raises the TTL of that language\'s entry only', async () => {
    const { upstream, client } = setup(LANGS)
    upstream.then(tooMany)
    await expect(client.assignments(801, { language: 'fr-FR' })).rejects.toMatchObject({ reason: 'rate_limited', endpoint: 'assignment' })
    expect(entry(client, 'assignment', 'fr-FR')).toMatchObject({ ttlS: 30, rateLimited: 1 })
    expect(entry(client, 'assignment')).toMatchObject({ ttlS: 15, rateLimited: 0 })
    expect(entry(client, 'assignment', 'de-DE')).toMatchObject({ ttlS: 15, rateLimited: 0 })
  })

  test('a language the client was not given is refused without a request', async () => {
    const { upstream, client } = setup(LANGS)
    expect(() => client.assignments(801, { language: 'pl-PL' })).toThrow('language "pl-PL" is not configured')
    expect(upstream.requests).toHaveLength(0)
  })
})

describe('error classification', () => {
  const cases: [string, () => Response, string][] = [
    ['non-JSON', () => new Response('hello'), 'bad_body'],
    ['HTML', () => new Response('<html><body>Maintenance</body></html>'), 'bad_body'],
    ['empty', () => new Response(''), 'bad_body'],
    ['404', () => new Response(null, { status: 404 }), 'http_status'],
    ['invalid', () => new Response('{"warId":"801"}'), 'invalid_payload'],
  ]
  for (const [name, response, reason] of cases) {
    test(name, async () => {
      const { upstream, client, stats } = setup()
      upstream.then(response)
      const e = await client.status(801).catch((x: unknown) => x)
      expect(e).toBeInstanceOf(FeedUnavailableError)
      expect(e).toMatchObject({ feed: 'upstream', endpoint: 'status', reason })
      expect(stats()).toMatchObject({ errors: 1, ok: 0 })
    })
  }

  test('invalid payload message names the field', async () => {
    const { upstream, client } = setup()
    const status = JSON.parse(STATUS_TEXT)
    status.planetStatus[3].health = 'full'
    upstream.then(() => new Response(JSON.stringify(status)))
    await expect(client.status(801)).rejects.toThrow('upstream status: /planetStatus/3/health: Expected integer')
  })

  test('network errors and timeouts', async () => {
    const failing = createUpstreamClient({
      baseUrl: 'http://upstream.test/api', timeoutMs: 50, userAgent: 'x',
      fetch: async () => { throw new TypeError('connection refused') },
    })
    await expect(failing.warInfo(801)).rejects.toMatchObject({ reason: 'network', endpoint: 'warinfo' })
    const hanging = createUpstreamClient({
      baseUrl: 'http://upstream.test/api', timeoutMs: 50, userAgent: 'x',
      fetch: (_input, init) => new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason))),
    })
    await expect(hanging.warInfo(801)).rejects.toMatchObject({ reason: 'timeout' })
    expect(hanging.snapshot().endpoints.find((e) => e.endpoint === 'warinfo')?.errors).toBe(1)
  })

  test('currentWarId is uncached and not counted', async () => {
    const { upstream, client } = setup()
    upstream.then(() => new Response('{"id":802}'), () => new Response('{"id":802}'))
    expect(await client.currentWarId()).toBe(802)
    expect(await client.currentWarId()).toBe(802)
    expect(upstream.requests.map((r) => r.url)).toEqual([
      'http://upstream.test/api/WarSeason/current/WarID',
      'http://upstream.test/api/WarSeason/current/WarID',
    ])
    expect(client.snapshot().endpoints.every((e) => e.misses === 0)).toBe(true)
  })
})
