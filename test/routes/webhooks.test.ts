/**
 * Webhooks: subscriptions behind the secret, and deliveries from the outbox to a real
 * receiver: every event of the subscribed types, in order, signed (checked with the
 * Standard Webhooks reference library and with the recipe of docs/api.md), retried while
 * the receiver is down and delivered once it is back (once per delivery id), abandoned
 * after 24 hours of the deliverer's clock; Discord bodies; bad input is 400 {error}.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { Webhook as Verifier } from 'standardwebhooks'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { silentLogger } from '../../src/log.ts'
import { retryDelayMs, WebhookDeliverer } from '../../src/push/webhooks.ts'
import { DataVersions } from '../../src/storage/changes.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { simulatedFeeds } from '../support/sim.ts'

const SECRET = 'test-secret'

interface Received {
  headers: Record<string, string>
  body: string
}

/** A webhook receiver on a fixed port that can go down (refusing connections) and come back, or answer an error. */
function receiver() {
  const got: Received[] = []
  let answer = 204
  let server: ReturnType<typeof Bun.serve> | null = null
  const start = (port = 0) =>
    (server = Bun.serve({
      port, hostname: '127.0.0.1',
      async fetch(req) {
        got.push({ headers: Object.fromEntries(req.headers), body: await req.text() })
        return new Response(null, { status: answer })
      },
    }))
  start()
  const port = server!.port
  return {
    got,
    url: `http://127.0.0.1:${port}/hook`,
    answer: (status: number) => void (answer = status),
    down: () => server?.stop(true),
    up: () => void start(port),
    stop: () => server?.stop(true),
  }
}

/** The receiver's check, as docs/api.md gives it: HMAC-SHA256 of `id.timestamp.body` with the base64 key after whsec_. */
function verifiedByRecipe(secret: string, r: Received, nowS: number): boolean {
  const id = r.headers['webhook-id']!
  const ts = Number(r.headers['webhook-timestamp'])
  if (!Number.isFinite(ts) || Math.abs(nowS - ts) > 300) return false
  const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${id}.${ts}.${r.body}`).digest()
  return r.headers['webhook-signature']!.split(' ').some((s) => {
    const [v, sig] = s.split(',')
    const given = Buffer.from(sig ?? '', 'base64')
    return v === 'v1' && given.length === expected.length && timingSafeEqual(given, expected)
  })
}

describeOnEachDatabase('webhooks', (target) => {
  let db: TestDatabase
  let s: Awaited<ReturnType<typeof simulatedFeeds>>
  let app: ReturnType<typeof buildApp>
  let base: string
  let deliverer: WebhookDeliverer
  let clock = new Date()
  const r = receiver()

  beforeAll(async () => {
    db = await target.open()
    s = await simulatedFeeds()
    const versions = new DataVersions()
    const config = { ...loadConfig({}), warId: 801, collectorSecret: SECRET, webhookAllowPrivate: true }
    app = buildApp({ config, db, log: silentLogger, feeds: s.feeds, versions }).listen({ port: 0, hostname: '127.0.0.1' })
    base = `http://127.0.0.1:${app.server!.port}/api/v1`
    clock = new Date()
    // Its clock is the test's: retries come due when the test moves it, and are kicked.
    deliverer = new WebhookDeliverer(db.sql, versions, silentLogger, { now: () => clock, allowPrivate: true, retryBaseMs: 1000, pollMs: 60_000, timeoutMs: 2000 })
    deliverer.start()
  }, 120_000)
  afterAll(async () => {
    await deliverer?.stop()
    await app?.stop(true)
    r.stop()
    await s?.stop()
    await db?.dispose()
  })

  const call = (method: string, path: string, body?: unknown, secret: string | null = SECRET) =>
    fetch(`${base}${path}`, {
      method,
      headers: { ...(secret ? { 'x-collector-secret': secret } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    })
  const tick = async (hours: number) => {
    s.later(hours * 3600)
    for (const name of ['full-status', 'player-count']) expect((await call('POST', `/collect/${name}`)).status).toBe(200)
  }
  const logged = (types: string[]) => db.sql<{ id: number; type: string }[]>`SELECT id, type FROM event_log WHERE type IN ${db.sql(types)} ORDER BY id`
  const until = async (done: () => boolean | Promise<boolean>, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error('condition not met in time')
      await deliverer.kick()
      await Bun.sleep(25)
    }
  }
  let hook: { id: number; secret: string }

  test('subscribe: 201 with the secret once; listed with its health; gated by the secret; bad input 400 naming the field', async () => {
    const res = await call('POST', '/webhooks', { url: r.url, types: ['tick', 'player-count', 'planet_liberated'] })
    expect(res.status).toBe(201)
    const created = (await res.json()) as { id: number; secret: string; format: string; health: { backlog: number } }
    expect(created.secret).toMatch(/^whsec_/)
    expect(created.format).toBe('json')
    expect(created.health.backlog).toBe(0)
    hook = created
    const list = (await (await call('GET', '/webhooks')).json()) as { items: Record<string, unknown>[] }
    expect(list.items.map((w) => w.id)).toEqual([created.id])
    expect(list.items[0]).not.toHaveProperty('secret')
    expect((await call('GET', `/webhooks/${created.id}`)).status).toBe(200)
    expect((await call('GET', '/webhooks/999999')).status).toBe(404)
    for (const [method, path] of [['GET', '/webhooks'], ['POST', '/webhooks'], ['DELETE', `/webhooks/${created.id}`]]) {
      const refused = await call(method!, path!, method === 'POST' ? { url: r.url, types: ['tick'] } : undefined, null)
      expect(refused.status).toBe(401)
    }
    for (const [body, field] of [
      [{ url: r.url, types: ['tick', 'nope'] }, 'types'],
      [{ url: r.url, types: [] }, 'types'],
      [{ url: 'ftp://example.com/x', types: ['tick'] }, 'url'],
      [{ url: 'not a url', types: ['tick'] }, 'url'],
      [{ url: r.url, types: ['tick'], format: 'xml' }, 'format'],
      [{ url: r.url, types: ['tick'], lang: 'xx-XX' }, 'lang'],
      [{ types: ['tick'] }, 'url'],
    ] as const) {
      const bad = await call('POST', '/webhooks', body)
      expect(bad.status).toBe(400)
      const e = (await bad.json()) as { error: string }
      expect(Object.keys(e)).toEqual(['error'])
      expect(e.error).toContain(field)
    }
  })

  test('deliveries: every subscribed event, in order, once, signed; the signature checks with the reference library and the recipe; a tampered body does not', async () => {
    await tick(1)
    await tick(1)
    const events = await logged(['tick', 'player-count', 'planet_liberated'])
    expect(events.length).toBeGreaterThanOrEqual(4)
    await until(() => r.got.length >= events.length)
    expect(r.got.map((g) => JSON.parse(g.body).id)).toEqual(events.map((e) => e.id))
    expect(r.got.map((g) => g.headers['webhook-id'])).toEqual(events.map((e) => `evt_${e.id}_wh_${hook.id}`))
    const lib = new Verifier(hook.secret)
    for (const g of r.got) {
      expect(lib.verify(g.body, g.headers)).toBeDefined()
      expect(verifiedByRecipe(hook.secret, g, Math.floor(clock.getTime() / 1000))).toBe(true)
    }
    const tampered = { ...r.got[0]!, body: r.got[0]!.body.replace('"type"', '"tipe"') }
    expect(() => lib.verify(tampered.body, tampered.headers)).toThrow()
    expect(verifiedByRecipe(hook.secret, tampered, Math.floor(clock.getTime() / 1000))).toBe(false)
    // A replay older than 5 minutes is refused by the recipe.
    expect(verifiedByRecipe(hook.secret, r.got[0]!, Math.floor(clock.getTime() / 1000) + 301)).toBe(false)
    const health = (await (await call('GET', `/webhooks/${hook.id}`)).json()) as { health: Record<string, unknown> }
    expect(health.health).toMatchObject({ lastStatus: 204, lastError: null, failingSince: null, backlog: 0 })
  }, 60_000)

  test('a receiver down for 60 s, then up: every event delivered, in order, once per delivery id; its health says so meanwhile', async () => {
    r.got.length = 0
    const before = (await logged(['tick', 'player-count', 'planet_liberated'])).at(-1)!.id
    r.down()
    await tick(1)
    await tick(1)
    const missed = (await logged(['tick', 'player-count', 'planet_liberated'])).filter((e) => e.id > before)
    // Attempts fail while it is down; the retries back off (in the deliverer's clock).
    for (let s = 0; s < 60; s += 5) {
      clock = new Date(clock.getTime() + 5000)
      await deliverer.kick()
    }
    const down = (await (await call('GET', `/webhooks/${hook.id}`)).json()) as { health: Record<string, unknown> }
    expect(down.health.failingSince).not.toBeNull()
    expect(down.health.lastStatus).toBeNull()
    expect(down.health.backlog).toBe(missed.length)
    r.up()
    clock = new Date(clock.getTime() + 3600_000)
    await until(() => new Set(r.got.map((g) => g.headers['webhook-id'])).size >= missed.length)
    const ids = [...new Set(r.got.map((g) => g.headers['webhook-id']))]
    expect(ids).toEqual(missed.map((e) => `evt_${e.id}_wh_${hook.id}`))
    expect(r.got.map((g) => JSON.parse(g.body).id)).toEqual(missed.map((e) => e.id))
    const up = (await (await call('GET', `/webhooks/${hook.id}`)).json()) as { health: Record<string, unknown> }
    expect(up.health).toMatchObject({ failingSince: null, backlog: 0, lastStatus: 204 })
  }, 60_000)

  test('retries back off exponentially up to an hour; after 24 hours of failures a delivery is abandoned and the next goes', async () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 5000, () => 0.5))).toEqual([5000, 10_000, 20_000, 40_000])
    expect(retryDelayMs(30, 5000, () => 0.5)).toBe(3600_000)
    r.got.length = 0
    r.answer(500)
    const before = (await logged(['tick', 'player-count', 'planet_liberated'])).at(-1)!.id
    await tick(1)
    const queued = (await logged(['tick', 'player-count', 'planet_liberated'])).filter((e) => e.id > before)
    await until(() => r.got.length >= 1)
    // Still failing a day later: the head is given up, then each next one after its own day.
    clock = new Date(clock.getTime() + 25 * 3600_000)
    await until(async () => (await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ${hook.id} AND state = 'abandoned'`)[0]!.n === queued.length)
    const w = (await (await call('GET', `/webhooks/${hook.id}`)).json()) as { health: Record<string, unknown> }
    expect(w.health).toMatchObject({ backlog: 0, abandoned: queued.length })
    r.answer(204)
    // Back to the present: the next deliveries are queued now, not a day ago.
    clock = new Date()
  }, 60_000)

  test('discord: an embed per event, texts in the subscription\'s language; DELETE unsubscribes (404 after)', async () => {
    const res = await call('POST', '/webhooks', { url: r.url, types: ['tick'], format: 'discord', lang: 'de-DE' })
    expect(res.status).toBe(201)
    const d = (await res.json()) as { id: number; lang: string }
    expect(d.lang).toBe('de-DE')
    r.got.length = 0
    await tick(1)
    await until(() => r.got.some((g) => g.headers['webhook-id']!.endsWith(`_wh_${d.id}`)))
    const body = JSON.parse(r.got.find((g) => g.headers['webhook-id']!.endsWith(`_wh_${d.id}`))!.body)
    expect(body.embeds).toHaveLength(1)
    expect(body.embeds[0]).toMatchObject({ title: 'War status stored' })
    expect(body.embeds[0].footer.text).toContain('tick')
    expect((await call('DELETE', `/webhooks/${d.id}`)).status).toBe(204)
    expect((await call('DELETE', `/webhooks/${d.id}`)).status).toBe(404)
    expect((await call('GET', `/webhooks/${d.id}`)).status).toBe(404)
  }, 60_000)
})
