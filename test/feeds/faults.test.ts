/** Every simulator fault, seen through the real clients. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { createUpstreamClient } from '../../src/feeds/upstream.ts'
import { createCommunityClient } from '../../src/feeds/community.ts'
import { FeedUnavailableError } from '../../src/feeds/errors.ts'
import { createPcstoreClient, pcstoreCounts, PCSTORE_APP_IDS } from '../../src/feeds/pcstore.ts'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'
import { FAILURE_HOLD_MS } from '../../src/feeds/throttle.ts'

const TIMEOUT_MS = 200
let sim: Simulator

beforeAll(() => {
  sim = startSimulator({ port: 0, seed: 7, speed: 0 })
})
afterAll(() => sim.stop())
beforeEach(() => sim.control.reset())

// The clients' clock: moved past the failure hold where a test asks again right after a failure.
let offsetMs = 0
const now = () => Date.now() + offsetMs
const pastFailureHold = () => (offsetMs += FAILURE_HOLD_MS)
const upstream = () => createUpstreamClient({ baseUrl: sim.upstreamUrl, timeoutMs: TIMEOUT_MS, userAgent: 'galactic-war-stats/test', now })
const community = () => createCommunityClient({ baseUrl: sim.communityUrl, timeoutMs: TIMEOUT_MS, superClient: 'galactic-war-stats/test', superContact: 'test@example.invalid' })
const pcstore = () => createPcstoreClient({ baseUrl: sim.pcstoreUrl, timeoutMs: TIMEOUT_MS })
const statsOf = (client: ReturnType<typeof upstream>, name: string) => client.snapshot().endpoints.find((e) => e.endpoint === name)!

async function failure(p: Promise<unknown>): Promise<FeedUnavailableError> {
  const e = await p.then(() => undefined, (x: unknown) => x)
  if (!(e instanceof FeedUnavailableError)) throw new Error(`expected FeedUnavailableError, got ${String(e)}`)
  return e
}

describe('upstream request faults', () => {
  const cases = [
    { kind: 'rate_limit', reason: 'rate_limited', status: 429, counter: 'rateLimited' },
    { kind: 'server_error', reason: 'http_status', status: 500, counter: 'errors' },
    { kind: 'outage', reason: 'http_status', status: 503, counter: 'errors' },
    { kind: 'slow', delayMs: 1000, reason: 'timeout', counter: 'errors' },
    { kind: 'malformed_json', reason: 'bad_body', status: 200, counter: 'errors' },
    { kind: 'html_maintenance', reason: 'bad_body', status: 200, counter: 'errors' },
    { kind: 'empty_body', reason: 'bad_body', status: 200, counter: 'errors' },
    { kind: 'invalid_payload', reason: 'invalid_payload', status: 200, counter: 'errors' },
  ] as const
  for (const c of cases) {
    test(`${c.kind} → ${c.reason}`, async () => {
      const client = upstream()
      sim.control.addFault({ kind: c.kind, endpoint: 'status', count: 1, ...('delayMs' in c ? { delayMs: c.delayMs } : {}) })
      const e = await failure(client.status(801))
      expect(e).toMatchObject({ feed: 'upstream', endpoint: 'status', reason: c.reason })
      if ('status' in c) expect(e.status).toBe(c.status)
      expect(e.stack ?? '').not.toContain('faults.ts')
      expect(statsOf(client, 'status')).toMatchObject({ misses: 1, ok: 0, [c.counter]: 1 })
      expect(statsOf(client, 'status').ttlS).toBe(c.kind === 'rate_limit' ? 30 : 15)
      // Within the hold the failure is answered from memory; after it, the fault is used up
      // and the next call (a miss, nothing cached) succeeds.
      await failure(client.status(801))
      expect(statsOf(client, 'status')).toMatchObject({ misses: 1, hits: 0 })
      pastFailureHold()
      expect((await client.status(801)).data.warId).toBe(801)
      expect(statsOf(client, 'status')).toMatchObject({ misses: 2, ok: 1 })
    })
  }

  test('server_error carries the upstream JSON envelope', async () => {
    sim.control.addFault({ kind: 'server_error', count: 1 })
    const res = await fetch(`${sim.upstreamUrl}/WarSeason/801/Status`)
    expect(res.status).toBe(500)
    expect(await res.json()).toMatchObject({ errorCode: -1, message: 'An unexpected server error has occured' })
  })

  test('invalid_payload message names the field', async () => {
    sim.control.addFault({ kind: 'invalid_payload', endpoint: 'summary', count: 1 })
    await expect(upstream().summary(801)).rejects.toThrow('upstream summary: /galaxy_stats: Expected object')
  })

  test('html maintenance page with 503 → http_status', async () => {
    sim.control.addFault({ kind: 'html_maintenance', status: 503, count: 1 })
    expect(await failure(upstream().warInfo(801))).toMatchObject({ reason: 'http_status', status: 503 })
  })

  test('a 429 storm (by duration) keeps raising the TTL; hits do not reach the simulator', async () => {
    const client = upstream()
    sim.control.addFault({ kind: 'rate_limit', endpoint: 'newsfeed', durationMs: 60_000 })
    for (let i = 0; i < 3; i++) {
      await failure(client.newsfeed(801))
      pastFailureHold()
    }
    expect(statsOf(client, 'newsfeed')).toMatchObject({ ttlS: 60, rateLimited: 3 })
    sim.control.clearFaults()
    await client.newsfeed(801)
    await client.newsfeed(801)
    expect(sim.control.requests()['upstream:newsfeed']).toBe(4)
    expect(statsOf(client, 'newsfeed')).toMatchObject({ hits: 1, ok: 1, ttlS: 60 })
  })
})

describe('upstream state faults', () => {
  test('freeze: time and the whole payload stop changing, then resume where they stopped', async () => {
    const before = await upstream().status(801)
    sim.control.addFault({ kind: 'freeze' })
    sim.control.advance(600)
    const frozen = await upstream().status(801)
    expect(frozen.data).toEqual(before.data)
    expect(sim.control.state().frozen).toBe(true)
    sim.control.clearFaults()
    sim.control.advance(20)
    const resumed = await upstream().status(801)
    expect(resumed.data.time).toBe(before.data.time + 20)
  })

  test('new war: WarID and new paths answer; the old war keeps answering, frozen', async () => {
    const client = upstream()
    sim.control.advance(100)
    const old = (await upstream().status(801)).data
    sim.control.addFault({ kind: 'new_war', warId: 802 })
    sim.control.advance(100)
    expect(await client.currentWarId()).toBe(802)
    const fresh = await client.status(802)
    expect(fresh.data.warId).toBe(802)
    expect((await client.warInfo(802)).data.warId).toBe(802)
    expect((await upstream().status(801)).data).toEqual(old)
    expect(await failure(client.status(803))).toMatchObject({ reason: 'http_status', status: 404 })
  })
})

describe('community client', () => {
  test('planets parse, with owners as strings', async () => {
    const { data } = await community().planets()
    expect(data.length).toBe(261)
    expect(data.some((p) => p.statistics.playerCount > 0)).toBe(true)
    expect(new Set(data.map((p) => p.currentOwner))).toContain('Automaton')
  })

  test('429 with Retry-After: no further request inside the penalty window', async () => {
    // The client's own clock, moved by the test: the window ends exactly 1 s after the 429.
    let t = Date.now()
    const client = createCommunityClient({ baseUrl: sim.communityUrl, timeoutMs: TIMEOUT_MS, superClient: 'galactic-war-stats/test', superContact: 'test@example.invalid', now: () => t })
    sim.control.addFault({ kind: 'rate_limit', feed: 'community', retryAfterS: 1, count: 1 })
    expect(await failure(client.planets())).toMatchObject({ feed: 'community', reason: 'rate_limited', status: 429, retryAfterS: 1 })
    expect(await failure(client.planets())).toMatchObject({ reason: 'rate_limited', status: undefined })
    t += 999
    expect(await failure(client.planets())).toMatchObject({ reason: 'rate_limited', status: undefined, retryAfterS: 1 })
    expect(sim.control.requests()['community:planets']).toBe(1)
    t += 1
    expect((await client.planets()).data.length).toBe(261)
    expect(sim.control.requests()['community:planets']).toBe(2)
  })

  test('outage and slow answers', async () => {
    sim.control.addFault({ kind: 'outage', feed: 'community', count: 1 })
    expect(await failure(community().planets())).toMatchObject({ reason: 'http_status', status: 503 })
    sim.control.addFault({ kind: 'slow', feed: 'community', delayMs: 1000, count: 1 })
    expect(await failure(community().planets())).toMatchObject({ reason: 'timeout' })
  })

  test('missing X-Super headers → 400', async () => {
    const anonymous = createCommunityClient({ baseUrl: sim.communityUrl, timeoutMs: TIMEOUT_MS, superClient: '', superContact: '' })
    expect(await failure(anonymous.planets())).toMatchObject({ reason: 'http_status', status: 400 })
  })
})

describe('pcstore client', () => {
  test('both games; game2 is a share of the upstream total, game1 hundreds', async () => {
    const counts = await pcstoreCounts(pcstore())
    const state = sim.control.state()
    expect({ game1: counts.game1, game2: counts.game2 }).toEqual(state.pcstore)
    expect(counts.game2!).toBeLessThan(state.playersTotal)
    expect(counts.game1!).toBeGreaterThan(50)
    expect(counts.game1!).toBeLessThan(1000)
  })

  test('unknown app → 404 error; outage → nulls', async () => {
    expect(await failure(pcstore().currentPlayers(1))).toMatchObject({ feed: 'pcstore', reason: 'http_status', status: 404 })
    sim.control.addFault({ kind: 'outage', feed: 'pcstore' })
    expect(await pcstoreCounts(pcstore())).toMatchObject({ game1: null, game2: null })
  })

  test('a 429 from the store: no stale count, no TTL backoff; the count is asked again after the 5 s hold', async () => {
    let nowMs = Date.parse('2026-01-01T00:00:00Z')
    let calls = 0
    const client = createPcstoreClient({
      baseUrl: 'http://pcstore.test', timeoutMs: TIMEOUT_MS, now: () => nowMs,
      fetch: async () => (++calls === 2 ? new Response(null, { status: 429 }) : new Response('{"response":{"player_count":42,"result":1}}')),
    })
    expect((await client.currentPlayers(PCSTORE_APP_IDS.game2)).data).toBe(42)
    nowMs += 16_000
    expect(await failure(client.currentPlayers(PCSTORE_APP_IDS.game2))).toMatchObject({ reason: 'rate_limited' })
    nowMs += 5_000
    expect((await client.currentPlayers(PCSTORE_APP_IDS.game2)).data).toBe(42)
    nowMs += 13_000 // the TTL stayed at 15 s (fresh until 1 s before it)
    expect((await client.currentPlayers(PCSTORE_APP_IDS.game2)).data).toBe(42)
    expect(calls).toBe(3)
    nowMs += 2_000
    await client.currentPlayers(PCSTORE_APP_IDS.game2)
    expect(calls).toBe(4)
  })

  test('result != 1 with HTTP 200 is an error', async () => {
    const client = createPcstoreClient({
      baseUrl: 'http://pcstore.test', timeoutMs: TIMEOUT_MS,
      fetch: async () => new Response('{"response":{"result":42}}'),
    })
    expect(await failure(client.currentPlayers(PCSTORE_APP_IDS.game2))).toMatchObject({ reason: 'invalid_payload' })
  })
})
