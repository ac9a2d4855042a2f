/**
 * Defenses on the real series (1,000 captures of March 2024, test/support/series.ts):
 * each decided once, at the first capture at which a rule decides it, and never
 * contradicted afterwards: 4307, gone from the feed 19 hours before its expiry with the
 * planet held, stays won when later captures pass its expiry. What the rules give is
 * worked out from the captures alone (defenseEnds), never from the service's code.
 *
 * - the real war, imported then written live: the timeline's outcomes, the event log
 *   (pushed once each), the campaigns naming their defense, a defended planet read from
 *   old data;
 * - a tick written late that changes an outcome: a correction, pushed, signed and replayed;
 * - any order of ticks (late, replayed): one outcome pushed per defense, plus corrections,
 *   ending at what the rules give on every tick.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { buildApp } from '../../src/app.ts'
import { CollectorRunner } from '../../src/collect/runner.ts'
import { loadConfig } from '../../src/config.ts'
import { createFeeds } from '../../src/feeds/index.ts'
import { silentLogger } from '../../src/log.ts'
import { EventHub } from '../../src/push/stream.ts'
import { deliveryBody } from '../../src/push/webhook-bodies.ts'
import { DataVersions } from '../../src/storage/changes.ts'
import { createStore } from '../../src/storage/index.ts'
import * as webhooks from '../../src/storage/webhooks.ts'
import { eventPctOf } from '../../src/war/liberation.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { seedRealWarInfo } from '../support/seed.ts'
import { capture, defenseEnds, SERIES_LENGTH, writeImported, writeLive } from '../support/series.ts'
import { openSse } from '../support/sse.ts'
import { openHarness, type Harness } from './helpers.ts'

const NOWHERE = createFeeds({
  upstreamUrl: 'http://127.0.0.1:9/upstream/api', communityApiUrl: 'http://127.0.0.1:9/community', pcstoreApiUrl: 'http://127.0.0.1:9/pcstore',
  feedTimeoutMs: 1000, clientName: 'test', clientContact: 'test@example.invalid', feedLanguages: ['en-US'],
})
const runnerOf = (db: TestDatabase, versions?: DataVersions) =>
  new CollectorRunner({ db, store: createStore(db), feeds: NOWHERE, log: silentLogger, config: { warId: 801 }, versions })
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)
const OUTCOMES = 'defense_won,defense_lost,event_corrected'
const iso = (k: number) => capture(k).at.toISOString()

interface Logged {
  id: number
  type: string
  key: string
  at: Date
  data: Record<string, any>
}
/** The defenses whose latest outcome said (or none) is not the one the rules give now, from every stored tick. */
const unlikeTheRules = async (db: TestDatabase, warId: number) =>
  (
    await db.sql<{ event_id: string; said: string | null; rules: string | null }[]>`
      SELECT s.event_id::text, o.outcome AS said, d.outcome AS rules
      FROM planet_event_spans s
      CROSS JOIN LATERAL defense_end(s.war_id, s.event_id) d
      LEFT JOIN LATERAL (SELECT o.outcome FROM defense_outcomes o WHERE o.war_id = s.war_id AND o.event_id = s.event_id ORDER BY o.seq DESC LIMIT 1) o ON true
      WHERE s.war_id = ${warId} AND o.outcome IS DISTINCT FROM d.outcome`
  ).map((r) => `${r.event_id}: said ${r.said}, rules ${r.rules}`)
const loggedOf = (db: TestDatabase, warId: number) =>
  db.sql<Logged[]>`SELECT id, type, key, at, data FROM event_log WHERE war_id = ${warId} AND type IN ('defense_won', 'defense_lost', 'event_corrected') ORDER BY id`

describeOnEachDatabase('defenses on the real series', (target) => {
  let db: TestDatabase
  let h: Harness
  const ALL = range(0, SERIES_LENGTH - 1)
  // Imported (no pushes) up to 4307's last sightings, live through 4307's and 4308's ends
  // and past 4307's expiry, imported again after.
  const LIVE = range(446, 760)

  beforeAll(async () => {
    db = await target.open()
    await seedRealWarInfo(db.sql, capture(0).at)
    await writeImported(db.sql as never, range(0, 445))
    await writeLive(runnerOf(db), LIVE)
    await writeImported(db.sql as never, range(761, SERIES_LENGTH - 1))
    h = await openHarness({ db, now: () => new Date(capture(SERIES_LENGTH - 1).at.getTime() + 60_000), keepDb: true })
  }, 300_000)
  afterAll(async () => {
    await h?.close()
    await db?.dispose()
  })

  test('each defense ends where the captures say, once: 4301 and 4308 lost at their expiry, 4307 won when it left the feed 19 hours before its, 4311 running', async () => {
    const expected = defenseEnds(ALL)
    // The captures, read by hand: 4307 was listed last at capture 451 with 10,406 of
    // 600,000 health left, gone at 452 (war time 2,297,480, expiry 2,367,400) with planet 127 held.
    expect(Object.fromEntries([...expected].map(([id, e]) => [id, `${e.type}@${e.k}`]))).toEqual({ 4301: 'defense_lost@320', 4307: 'defense_won@452', 4308: 'defense_lost@737' })
    const items = (await h.get(`/timeline?type=${OUTCOMES}&limit=100`)).body.items as any[]
    expect(items.map((e) => `${e.type} ${e.eventId} ${e.at}`).sort()).toEqual([...expected].map(([id, e]) => `${e.type} ${id} ${iso(e.k)}`).sort())
    expect(items.find((e) => e.eventId === 4307)).toMatchObject({ planetIndex: 127, planetName: expect.any(String), race: 2, correction: null })
  })

  test('the event stream pushed each outcome decided live once, and the timeline says the same', async () => {
    const logged = await loggedOf(db, 801)
    // 4301 ended in the imported history (more than a day before the first live tick): not news.
    expect(logged.map((l) => `${l.type} ${l.key} ${l.at.toISOString()}`)).toEqual([`defense_won 4307 ${iso(452)}`, `defense_lost 4308 ${iso(737)}`])
  })

  test("a defense's campaign events name its event", async () => {
    const items = (await h.get('/timeline?type=campaign_started,campaign_ended&limit=1000')).body.items as any[]
    for (const id of [4301, 4307, 4308, 4311]) {
      const campaign = capture(ALL.find((k) => capture(k).events.some((e) => e.id === id))!).events.find((e) => e.id === id)!.campaignId
      const mine = items.filter((e) => e.campaignId === campaign)
      expect(mine.length).toBeGreaterThan(0)
      for (const e of mine) expect(e.eventId).toBe(id)
    }
    expect(items.filter((e) => e.eventId === null).length).toBeGreaterThan(0)
  })

  test('a defended planet read from old data is its defense, as when fresh: the event\'s bar and deadline', async () => {
    const last = capture(SERIES_LENGTH - 1)
    const event = last.events.find((e) => e.id === 4311)!
    const bar = Math.round(eventPctOf(event.health, event.maxHealth) * 1e4) / 1e4
    const stale = await openHarness({ db, now: () => new Date(last.at.getTime() + 3 * 3600_000), keepDb: true })
    try {
      for (const [label, app] of [['fresh', h], ['stale', stale]] as const) {
        const planet = (await app.get('/planets/liberation?planetId=127')).body.items[0]
        expect({ label, eventId: planet.eventId, libPct: planet.libPct }).toEqual({ label, eventId: 4311, libPct: bar })
        expect(planet.deadline).not.toBeNull()
        const campaign = (await app.get('/campaigns')).body.items.find((c: any) => c.campaignId === event.campaignId)
        expect({ label, type: campaign.type, eventId: campaign.eventId, progressPct: campaign.progressPct, deadline: campaign.deadline }).toEqual({
          label, type: 'defense', eventId: 4311, progressPct: bar, deadline: planet.deadline,
        })
        const history = (await app.get(`/campaigns/${event.campaignId}/history`)).body.points
        expect(history.at(-1).progressPct).toBe(bar)
      }
      const old = (await stale.get('/planets/liberation?planetId=127')).body.items[0]
      expect(old).toMatchObject({ samples: 0, outlook: 'unknown', eta: null, capturedAt: last.at.toISOString() })
    } finally {
      await stale.close()
    }
  })
})

describeOnEachDatabase('a tick written late that changes an outcome', (target) => {
  let db: TestDatabase
  let hub: EventHub
  let app: ReturnType<typeof buildApp>
  let base: string
  let versions: DataVersions
  let runner: CollectorRunner

  beforeAll(async () => {
    db = await target.open()
    await seedRealWarInfo(db.sql, capture(0).at)
    versions = new DataVersions()
    hub = new EventHub(createStore(db).events, versions, silentLogger)
    app = buildApp({ config: { ...loadConfig({}), warId: 801 }, db, log: silentLogger, feeds: NOWHERE, versions, events: hub, now: () => capture(600).at })
      .listen({ port: 0, hostname: '127.0.0.1' })
    base = `http://127.0.0.1:${app.server!.port}/api/v1`
    runner = runnerOf(db, versions)
  }, 120_000)
  afterAll(async () => {
    hub?.stop()
    await app?.stop(true)
    await db?.dispose()
  })

  test('is corrected by an event of its own, naming the pushed one; the timeline keeps both, the stream and a webhook carry it, a resumed stream replays it', async () => {
    const hook = await webhooks.create(db.sql, { url: 'http://127.0.0.1:9/hook', types: ['defense_won', 'defense_lost', 'event_corrected'], format: 'json', lang: null, secret: 'whsec_dGVzdA==' })
    const live = await openSse(`${base}/events/stream?types=${OUTCOMES}`)
    // 4307 listed, then the first capture past its expiry (gone): lost, by what is stored.
    await writeLive(runner, [...range(440, 451), 597])
    await live.waitFor((e) => e.length === 1)
    const [lost] = await loggedOf(db, 801)
    expect(lost).toMatchObject({ type: 'defense_lost', key: '4307' })
    expect(lost!.at.toISOString()).toBe(iso(597))
    // The capture that shows it gone 19 hours earlier, planet held, comes in late.
    await writeLive(runner, [452])
    await live.waitFor((e) => e.length === 2)
    const logged = await loggedOf(db, 801)
    expect(logged.map((l) => `${l.type} ${l.key}`)).toEqual(['defense_lost 4307', 'event_corrected 4307#1'])
    const correction = { corrects: lost!.id, seq: 1, was: { type: 'defense_lost', at: iso(597) }, now: { type: 'defense_won', at: iso(452) } }
    const streamed = JSON.parse(live.events[1]!.data)
    expect(live.events[1]!.event).toBe('event_corrected')
    expect(streamed).toMatchObject({ id: logged[1]!.id, type: 'event_corrected', at: iso(597), eventId: 4307, planetIndex: 127, correction })
    live.close()

    // The timeline says both: nothing it said is dropped or rewritten.
    const items = ((await (await fetch(`${base}/timeline?type=${OUTCOMES}`)).json()) as { items: any[] }).items
    expect(items.map((e) => [e.type, e.at, e.correction])).toEqual([
      ['event_corrected', iso(597), correction],
      ['defense_lost', iso(597), null],
    ])

    // Resumed from the lost event, a client gets the correction, once.
    const resumed = await openSse(`${base}/events/stream?types=${OUTCOMES}`, { 'last-event-id': String(lost!.id) })
    await resumed.waitFor((e) => e.length === 1)
    expect(JSON.parse(resumed.events[0]!.data)).toMatchObject({ id: logged[1]!.id, correction })
    resumed.close()

    // Queued for the webhook like any event; its body is the stream's, signed by the delivery.
    const queued = await db.sql<{ event_id: number }[]>`SELECT event_id FROM webhook_deliveries WHERE webhook_id = ${hook.id} ORDER BY event_id`
    expect(queued.map((q) => Number(q.event_id))).toEqual(logged.map((l) => l.id))
    const body = JSON.parse(deliveryBody('discord', { id: logged[1]!.id, type: 'event_corrected', at: logged[1]!.at, data: logged[1]!.data }))
    expect(body.embeds[0].title).toContain('defended')
    expect(body.embeds[0].description).toContain(`event ${lost!.id}`)

    // Replayed, the same ticks add nothing.
    await writeLive(runner, [452, 597, 445])
    expect((await loggedOf(db, 801)).length).toBe(2)
  }, 60_000)
})

describe('any order of ticks', () => {
  // 4307's last sightings, its end and captures past its expiry; 4308's end at its expiry.
  const POOL = [...range(444, 455), ...range(595, 599), ...range(733, 739)]
  const rules = defenseEnds(POOL)

  describeOnEachDatabase('each defense: one outcome pushed, then corrections, ending at what the rules give on every tick', (target) => {
    let db: TestDatabase
    let runner: CollectorRunner
    let war = 2000
    beforeAll(async () => {
      db = await target.open()
      runner = runnerOf(db)
    }, 120_000)
    afterAll(async () => {
      await db?.dispose()
    })

    test('late and replayed ticks', async () => {
      const arrivals = fc
        .tuple(fc.shuffledSubarray(POOL, { minLength: POOL.length, maxLength: POOL.length }), fc.array(fc.tuple(fc.nat(), fc.constantFrom(...POOL)), { maxLength: 4 }))
        .map(([order, replays]) => {
          const out = [...order]
          for (const [at, k] of replays) out.splice(at % (out.length + 1), 0, k)
          return out
        })
      await fc.assert(
        fc.asyncProperty(arrivals, async (order) => {
          // Each run a war of its own: a new history, the same store.
          const warId = ++war
          // After each write, what is said is what the rules give over every stored tick
          // (defense_end from each defense's first sighting): a write in time order looks
          // only at undecided defenses, from the tick before it (sql/0026).
          for (const k of order) {
            await writeLive(runner, [k], warId)
            expect(await unlikeTheRules(db, warId)).toEqual([])
          }
          const logged = await loggedOf(db, warId)
          for (const [id, end] of rules) {
            const mine = logged.filter((l) => l.data.eventId === id)
            const [first, ...corrections] = mine
            expect(first?.type).toMatch(/^defense_(won|lost)$/)
            let said = { id: first!.id, type: first!.type, at: first!.at.toISOString() }
            for (const c of corrections) {
              expect(c.type).toBe('event_corrected')
              expect(c.data.correction).toMatchObject({ corrects: said.id, was: { type: said.type } })
              said = { id: c.id, type: c.data.correction.now.type, at: c.data.correction.now.at }
            }
            expect(said.type).toBe(end.type)
          }
          // The timeline holds every pushed outcome as it was pushed.
          const timeline = await createStore(db).timeline.events({ warId, types: ['defense_won', 'defense_lost', 'event_corrected'], range: { from: null, to: null, toExclusive: false }, asOf: capture(800).at }, { limit: 100, offset: 0 })
          expect(timeline.rows.map((e) => `${e.type} ${e.at.toISOString()}`).sort()).toEqual(logged.map((l) => `${l.type} ${l.at.toISOString()}`).sort())
        }),
        { numRuns: 12 },
      )
    }, 240_000)

    test('ticks in batches (an import): after each batch, the outcomes the rules give', async () => {
      // The pool in time order or shuffled, cut into batches; some captures list no
      // defense, so a defense leaves the feed and comes back inside a batch.
      const batches = fc
        .tuple(
          fc.shuffledSubarray(POOL, { minLength: POOL.length, maxLength: POOL.length }), fc.array(fc.nat(), { maxLength: 6 }), fc.boolean(),
          fc.uniqueArray(fc.constantFrom(...POOL), { maxLength: 3 }),
        )
        .map(([order, cuts, sorted, flicker]) => {
          const ks = sorted ? [...POOL] : order
          const at = [...new Set(cuts.map((c) => c % ks.length))].sort((a, b) => a - b)
          return { list: [...at, ks.length].map((end, i) => ks.slice(i === 0 ? 0 : at[i - 1]!, end)).filter((b) => b.length), flicker: new Set(flicker) }
        })
      await fc.assert(
        fc.asyncProperty(batches, async ({ list, flicker }) => {
          const warId = ++war
          for (const batch of list) {
            await writeImported(db.sql as never, batch, warId, flicker)
            expect(await unlikeTheRules(db, warId)).toEqual([])
          }
        }),
        { numRuns: 12 },
      )
    }, 240_000)
  })
})
