/**
 * GET /events/stream on a real server: the events the collectors' writes append
 * (storage/events.ts) reach a connected client as they commit, each once, in id order;
 * a client that comes back with Last-Event-ID gets exactly what it missed; the log holds
 * each timeline event once, equal to the timeline; bad input is 400 {error}; the caps
 * refuse with 429/503 {error}; a client that never reads is closed, not buffered for.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connect as tcpConnect } from 'node:net'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { silentLogger } from '../../src/log.ts'
import { EventHub } from '../../src/push/stream.ts'
import { DataVersions } from '../../src/storage/changes.ts'
import { createStore } from '../../src/storage/index.ts'
import { EVENT_TYPES } from '../../src/storage/timeline.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { simulatedFeeds } from '../support/sim.ts'
import { openSse, rawStreamStatus, type SseClient } from '../support/sse.ts'

async function waitUntil(done: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await Bun.sleep(20)
  }
}

describeOnEachDatabase('the event stream', (target) => {
  let db: TestDatabase
  let s: Awaited<ReturnType<typeof simulatedFeeds>>
  let base: string
  let app: ReturnType<typeof buildApp>
  let hub: EventHub
  let versions: DataVersions
  const clients: SseClient[] = []

  beforeAll(async () => {
    db = await target.open()
    s = await simulatedFeeds()
    versions = new DataVersions()
    const config = { ...loadConfig({}), warId: 801 }
    hub = new EventHub(createStore(db).events, versions, silentLogger, { maxClients: 6, maxPerAddress: 4, maxQueueBytes: 64 * 1024, heartbeatMs: 15_000, retryMs: 1000 })
    app = buildApp({ config, db, log: silentLogger, feeds: s.feeds, versions, events: hub, now: s.now }).listen({ port: 0, hostname: '127.0.0.1' })
    base = `http://127.0.0.1:${app.server!.port}/api/v1`
  }, 120_000)
  afterAll(async () => {
    for (const c of clients) c.close()
    hub?.stop()
    await app?.stop(true)
    await s?.stop()
    await db?.dispose()
  })

  const open = async (query = '', headers: Record<string, string> = {}) => {
    const c = await openSse(`${base}/events/stream${query}`, headers)
    clients.push(c)
    return c
  }
  /** One full-status and one player-count tick, the war moved on by `hours` first. */
  const tick = async (hours: number) => {
    s.later(hours * 3600)
    for (const name of ['full-status', 'player-count']) {
      const res = await fetch(`${base}/collect/${name}`, { method: 'POST' })
      expect(res.status).toBe(200)
    }
  }
  const logged = () => db.sql<{ id: number; type: string; key: string }[]>`SELECT id, type, key FROM event_log ORDER BY id`

  test('a connected client gets every event as its write commits, once, in id order', async () => {
    const c = await open()
    await tick(0)
    await tick(6)
    const all = await logged()
    expect(all.map((e) => e.type)).toContain('tick')
    expect(all.map((e) => e.type)).toContain('player-count')
    await c.waitFor((events) => events.length >= all.length)
    expect(c.events.map((e) => [Number(e.id), e.event])).toEqual(all.map((e) => [e.id, e.type]))
    // The body: the id, then the event's fields; a tick says its war time and rows.
    const t = c.events.find((e) => e.event === 'tick')!
    const body = JSON.parse(t.data)
    expect(Object.keys(body).slice(0, 3)).toEqual(['id', 'at', 'type'])
    expect(body).toMatchObject({ id: Number(t.id), type: 'tick', warID: 801 })
    expect(body.planets).toBeGreaterThan(0)
    expect(c.retry).toBe(1000)
  }, 60_000)

  test('the log holds each timeline event of the last day once, equal to the timeline', async () => {
    await tick(12)
    await tick(12)
    const timeline = (await fetch(`${base}/timeline?limit=1000`).then((r) => r.json())) as { items: Record<string, unknown>[] }
    const latest = (await db.sql<{ t: Date }[]>`SELECT max(captured_at) AS t FROM full_status_ticks`)[0]!.t
    // Those within a day of the tick that logged them (the war started ~2 days before the simulator's start is older news).
    const rows = await db.sql<{ type: string; at: Date; data: Record<string, unknown> }[]>`SELECT type, at, data FROM event_log WHERE type NOT IN ('tick', 'player-count') ORDER BY id`
    expect(rows.length).toBeGreaterThan(0)
    const key = (e: Record<string, unknown>) => JSON.stringify([e.type, e.at, e.planetIndex, e.orderId32, e.dispatchId, e.eventId, e.campaignId])
    const fromLog = rows.map((r) => key({ ...r.data, type: r.type, at: r.at.toISOString() }))
    expect(new Set(fromLog).size).toBe(fromLog.length)
    // Each write logs the events of the day before its tick: from a day before the first tick on.
    const first = (await db.sql<{ t: Date }[]>`SELECT min(captured_at) AS t FROM full_status_ticks`)[0]!.t
    const expected = (timeline.items as Record<string, unknown>[])
      .filter((e) => Date.parse(e.at as string) > first.getTime() - 24 * 3600_000 && Date.parse(e.at as string) <= latest.getTime())
      .map(key)
    expect(fromLog.sort()).toEqual(expected.sort())
  }, 60_000)

  test('a client that was away resumes with Last-Event-ID: what it missed, once, in order, then live', async () => {
    const before = await logged()
    const lastSeen = before[before.length - 1]!.id
    await tick(3)
    await tick(3)
    const missed = (await logged()).filter((e) => e.id > lastSeen)
    expect(missed.length).toBeGreaterThan(2)
    const c = await open('', { 'Last-Event-ID': String(lastSeen) })
    await c.waitFor((events) => events.length >= missed.length)
    expect(c.events.map((e) => Number(e.id))).toEqual(missed.map((e) => e.id))
    await tick(3)
    const now = (await logged()).filter((e) => e.id > lastSeen)
    await c.waitFor((events) => events.length >= now.length)
    expect(c.events.map((e) => Number(e.id))).toEqual(now.map((e) => e.id))
    // The same by the query parameter, with a type filter.
    const q = await open(`?lastEventId=${lastSeen}&types=tick`)
    const ticks = now.filter((e) => e.type === 'tick')
    await q.waitFor((events) => events.length >= ticks.length)
    expect(q.events.map((e) => Number(e.id))).toEqual(ticks.map((e) => e.id))
  }, 60_000)

  test('an id the log does not hold gets a reset event, then the live events', async () => {
    const c = await open('', { 'Last-Event-ID': '999999999' })
    await c.waitFor((events) => events.length >= 1)
    expect(c.events[0]!.event).toBe('reset')
    const last = (await logged()).at(-1)!.id
    expect(JSON.parse(c.events[0]!.data)).toMatchObject({ lastEventId: last })
    await tick(1)
    await c.waitFor((events) => events.some((e) => e.event === 'tick'))
    expect(c.events.slice(1).every((e) => Number(e.id) > last)).toBe(true)
  }, 60_000)

  test('bad input: unknown types, a bad Last-Event-ID, an unknown lang are 400 {error} naming the field', async () => {
    for (const [query, headers, field] of [
      ['?types=tick,nope', {}, 'types'],
      ['', { 'Last-Event-ID': 'abc' }, 'Last-Event-ID'],
      ['?lastEventId=-1', {}, 'Last-Event-ID'],
      ['?lang=xx-XX', {}, 'lang'],
    ] as const) {
      const res = await fetch(`${base}/events/stream${query}`, { headers })
      expect(res.status).toBe(400)
      const body = (await res.json()) as { error: string }
      expect(Object.keys(body)).toEqual(['error'])
      expect(body.error).toContain(field)
    }
    // Every timeline type is accepted.
    for (const c of clients.splice(0)) c.close()
    await waitUntil(() => hub.size === 0)
    const ok = await open(`?types=${[...EVENT_TYPES, 'tick', 'player-count'].join(',')}`)
    expect(ok.status).toBe(200)
  })

  test('caps: beyond the streams per address 429 {error}, beyond the process\'s 503 {error}', async () => {
    for (const c of clients.splice(0)) c.close()
    await waitUntil(() => hub.size === 0)
    const url = `${base}/events/stream`
    const mine = await Promise.all([0, 1, 2, 3].map(() => rawStreamStatus(url, '127.0.0.1')))
    expect(mine.map((c) => c.status)).toEqual([200, 200, 200, 200])
    const over = await fetch(url)
    expect(over.status).toBe(429)
    expect(Object.keys((await over.json()) as object)).toEqual(['error'])
    // Other addresses: at 6 streams the process is full.
    const other = await Promise.all([0, 1].map(() => rawStreamStatus(url, '127.0.0.2')))
    expect(other.map((c) => c.status)).toEqual([200, 200])
    const full = await rawStreamStatus(url, '127.0.0.3')
    expect(full.status).toBe(503)
    for (const c of [...mine, ...other, full]) c.close()
    await waitUntil(() => hub.size === 0)
  })

  test('a client that never reads is closed once its queue is full; the process does not buffer for it', async () => {
    const url = new URL(base)
    const socket = tcpConnect({ host: url.hostname, port: Number(url.port) })
    socket.pause()
    await new Promise<void>((ok) => socket.once('connect', () => ok()))
    socket.write(`GET /api/v1/events/stream HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`)
    await waitUntil(() => hub.size === 1)
    const closed = hub.counts.slowClosed
    // Far more than the socket buffers and the 64 KiB queue hold: big events, as a long outage's backlog would be.
    const filler = 'x'.repeat(8000)
    for (let batch = 0; batch < 10 && hub.size > 0; batch++) {
      await db.sql`
        INSERT INTO event_log (type, war_id, key, at, data)
        SELECT 'dispatch', 801, 'filler-' || ${batch} || '-' || g, now(), jsonb_build_object('warID', 801, 'message', ${filler}::text)
        FROM generate_series(1, 500) g`
      versions.bump(['dispatches'])
      await waitUntil(() => hub.counts.sent >= 500 * (batch + 1) || hub.size === 0, 30_000).catch(() => {})
    }
    expect(hub.size).toBe(0)
    expect(hub.counts.slowClosed).toBe(closed + 1)
    socket.destroy()
  }, 120_000)
})
