/**
 * Push across real service processes on one TimescaleDB: whichever process collects, a
 * stream client on each process sees each event once, in order; a client of a process
 * that was SIGKILLed resumes on its restart with Last-Event-ID and misses nothing; each
 * webhook event is delivered by one process, not three, and a delivery cut by SIGKILL is
 * sent again after a restart (same delivery id), so the receiver, deduplicating, sees
 * every event exactly once.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connect, type Sql } from '../../src/db/connect.ts'
import { migrate } from '../../src/db/migrate.ts'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'
import { createScratchDatabase, describeTimescale } from '../support/db.ts'
import { startService, type ServiceProcess } from '../support/process.ts'
import { openSse, type SseClient } from '../support/sse.ts'

describeTimescale('push across service processes', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>
  let sql: Sql
  let sim: Simulator
  let procs: ServiceProcess[] = []
  let env: Record<string, string>
  const clients: SseClient[] = []
  /** The webhook receiver: every request; `hold` keeps answers back until released. */
  const got: { id: string; body: string }[] = []
  let hold: Promise<void> | null = null
  let heldOne: (() => void) | null = null
  const receiver = Bun.serve({
    port: 0, hostname: '127.0.0.1',
    async fetch(req) {
      const body = await req.text()
      if (hold) {
        heldOne?.()
        await hold
      }
      got.push({ id: req.headers.get('webhook-id')!, body })
      return new Response(null, { status: 204 })
    },
  })

  const within = async (limitMs: number, check: () => boolean | Promise<boolean>) => {
    const t0 = performance.now()
    while (!(await check())) {
      if (performance.now() - t0 > limitMs) throw new Error(`not seen within ${limitMs} ms`)
      await Bun.sleep(50)
    }
  }
  const collect = async (p: ServiceProcess, name: string) => expect((await fetch(`${p.baseUrl}/api/v1/collect/${name}`, { method: 'POST' })).status).toBe(200)
  const logged = () => sql<{ id: number; type: string }[]>`SELECT id, type FROM event_log ORDER BY id`

  beforeAll(async () => {
    scratch = await createScratchDatabase('push')
    sql = connect({ url: scratch.url, max: 2 })
    await migrate(sql)
    sim = startSimulator({ port: 0, seed: 11, speed: 60 })
    env = {
      DATABASE_URL: scratch.url, UPSTREAM_URL: sim.upstreamUrl, COMMUNITY_API_URL: sim.communityUrl, PCSTORE_API_URL: sim.pcstoreUrl,
      SCHEDULE_ENABLED: 'false', WEBHOOK_ALLOW_PRIVATE: 'true',
    }
    procs = await Promise.all([startService(env), startService(env), startService(env)])
  }, 90_000)
  afterAll(async () => {
    for (const c of clients) c.close()
    await Promise.all(procs.map((p) => p.stop()))
    receiver.stop(true)
    await sim?.stop()
    await sql?.end()
    await scratch?.drop()
  })

  test('three processes: each stream client sees each event once, in order; each webhook event is delivered once, by one process', async () => {
    const sub = await fetch(`${procs[0]!.baseUrl}/api/v1/webhooks`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/hook`, types: ['tick', 'player-count'] }),
    })
    expect(sub.status).toBe(201)
    for (const p of procs) clients.push(await openSse(`${p.baseUrl}/api/v1/events/stream`))
    // A tick collected by each process in turn (each its own fresh fetch).
    for (const p of procs) {
      await collect(p, 'full-status')
      await collect(p, 'player-count')
    }
    const all = await logged()
    expect(all.filter((e) => e.type === 'tick').length).toBeGreaterThanOrEqual(1)
    expect(all.filter((e) => e.type === 'player-count').length).toBeGreaterThanOrEqual(1)
    for (const c of clients) {
      await c.waitFor((events) => events.length >= all.length)
      expect(c.events.map((e) => Number(e.id))).toEqual(all.map((e) => e.id))
    }
    const wanted = all.filter((e) => e.type === 'tick' || e.type === 'player-count')
    await within(15_000, () => got.length >= wanted.length)
    await Bun.sleep(500)
    // One delivery per event: not one per process.
    expect(got.map((g) => JSON.parse(g.body).id)).toEqual(wanted.map((e) => e.id))
  }, 60_000)

  test('a process SIGKILLed and restarted: its stream client resumes with Last-Event-ID, every event once, in order; a cut delivery is sent again', async () => {
    const c = clients[2]!
    const lastSeen = Number(c.events.at(-1)!.id)
    // The next delivery hangs at the receiver: every process is killed while it is in flight.
    let release!: () => void
    hold = new Promise<void>((ok) => (release = ok))
    const arrived = new Promise<void>((ok) => (heldOne = ok))
    // A fresh process (its feed cache empty) collects the next event.
    procs.push(await startService(env))
    await collect(procs[3]!, 'player-count')
    await arrived
    const before = got.length
    await Promise.all(procs.map((p) => p.stop('SIGKILL')))
    c.close()
    hold = null
    release()
    // Restarted: the events committed meanwhile (by a fresh process) are resumed from storage.
    procs = await Promise.all([startService(env), startService(env), startService(env)])
    await collect(procs[1]!, 'full-status')
    await collect(procs[1]!, 'player-count')
    const missed = (await logged()).filter((e) => e.id > lastSeen)
    const back = await openSse(`${procs[2]!.baseUrl}/api/v1/events/stream`, { 'Last-Event-ID': String(lastSeen) })
    clients.push(back)
    await back.waitFor((events) => events.length >= missed.length)
    expect(back.events.map((e) => Number(e.id))).toEqual(missed.map((e) => e.id))
    // The cut delivery comes again once its lease has run out, then the rest, in order.
    const wanted = (await logged()).filter((e) => e.type === 'tick' || e.type === 'player-count')
    await within(40_000, () => new Set(got.map((g) => g.id)).size >= wanted.length)
    const firstOfEach = [...new Map(got.map((g) => [g.id, JSON.parse(g.body).id as number])).values()]
    expect(firstOfEach).toEqual(wanted.map((e) => e.id))
    expect(got.length).toBeGreaterThan(before)
  }, 120_000)
})
