/**
 * Texts in every language (issue 14, item 7): the full-status collector fetches the
 * assignments and the newsfeed once per configured language, through the same throttled
 * client (an entry per endpoint and language), and stores every language's texts; a
 * language that fails is logged and left out, and comes in at a later tick.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from 'bun:test'
import { COLLECTORS } from '../../src/collect/index.ts'
import { textRows } from '../../src/collect/languages.ts'
import type { CollectorRunner } from '../../src/collect/runner.ts'
import { DEFAULT_FEED_LANGUAGES } from '../../src/config.ts'
import { createLogger } from '../../src/log.ts'
import { collect, testRunner } from '../support/collect.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { simulatedFeeds } from '../support/sim.ts'

const LANGS = [...DEFAULT_FEED_LANGUAGES]
const OTHERS = LANGS.slice(1)
/** What the simulator answers in a language: the English text marked with its tag. */
const inLanguage = (text: string, lang: string) => (lang === 'en-US' || text === '' ? text : `[${lang}] ${text}`)

describeOnEachDatabase('full-status texts in every language', (target) => {
  let db: TestDatabase
  let s: Awaited<ReturnType<typeof simulatedFeeds>>
  let runner: CollectorRunner
  let warnings: Record<string, unknown>[] = []

  const texts = async () => ({
    dispatches: [...(await db.sql<{ dispatch_id: number; lang: string; message: string }[]>`SELECT dispatch_id, lang, message FROM dispatch_texts WHERE war_id = 801`)],
    orders: [...(await db.sql<{ order_id32: number; lang: string; title: string; briefing: string }[]>`SELECT order_id32, lang, title, briefing FROM major_order_texts`)],
  })
  const perLang = (rows: { lang: string }[]) => Object.fromEntries(LANGS.map((l) => [l, rows.filter((r) => r.lang === l).length]))
  const entry = (endpoint: string, language: string) => s.feeds.upstream.snapshot().endpoints.find((e) => e.endpoint === endpoint && e.language === language)!
  /** The primary payloads the collector saw (answered from the client's cache: no request). */
  const primary = async () => ({
    news: (await s.feeds.upstream.newsfeed(801)).data.filter((n) => n.message !== undefined),
    orders: (await s.feeds.upstream.assignments(801)).data,
  })

  beforeAll(async () => {
    db = await target.open()
    s = simulatedFeeds(11, 1500, LANGS)
    const log = createLogger('warn', (line) => warnings.push(JSON.parse(line)))
    runner = testRunner(db, s.feeds, { log })
  }, 60_000)
  afterAll(async () => {
    await s?.stop()
    await db?.dispose()
  })
  beforeEach(() => {
    warnings = []
    s.sim.control.clearFaults()
  })

  test('one tick stores every language\'s dispatch and order texts, each language fetched once through its own cache entry', async () => {
    s.later(30)
    const summary = await collect(runner, 'full-status')
    const { news, orders } = await primary()
    expect(news.length).toBeGreaterThan(5)
    expect(orders.length).toBeGreaterThan(0)
    expect(summary.outcome).toBe('written')
    expect(summary.written).toMatchObject({ dispatchTexts: news.length * LANGS.length, majorOrderTexts: orders.length * LANGS.length })

    const stored = await texts()
    for (const n of news) {
      for (const lang of LANGS) {
        expect(stored.dispatches.find((r) => r.dispatch_id === n.id && r.lang === lang)?.message).toBe(inLanguage(n.message!, lang))
      }
    }
    for (const o of orders) {
      for (const lang of LANGS) {
        const row = stored.orders.find((r) => r.order_id32 === o.id32 && r.lang === lang)
        expect(row).toEqual({ order_id32: o.id32, lang, title: inLanguage('MAJOR ORDER', lang), briefing: inLanguage(o.setting.overrideBrief, lang) })
      }
    }
    // The default columns keep the primary's texts.
    const [first] = await db.sql<{ message: string }[]>`SELECT message FROM dispatches WHERE war_id = 801 AND dispatch_id = ${news[0]!.id}`
    expect(first!.message).toBe(news[0]!.message!)

    const requests = s.sim.control.requests()
    for (const lang of OTHERS) {
      expect({ lang, assignment: requests[`upstream:assignment@${lang}`], newsfeed: requests[`upstream:newsfeed@${lang}`] }).toEqual({ lang, assignment: 1, newsfeed: 1 })
      expect(entry('assignment', lang)).toMatchObject({ misses: 1, ok: 1, errors: 0, ttlS: 15 })
      expect(entry('newsfeed', lang)).toMatchObject({ misses: 1, ok: 1, errors: 0, ttlS: 15 })
    }
    expect(warnings).toEqual([])
  })

  test('the same tick again writes no text (texts are keyed by item and language)', async () => {
    const again = await collect(runner, 'full-status')
    expect(again.outcome).toBe('unchanged')
    expect(again.written).toMatchObject({ dispatchTexts: 0, majorOrderTexts: 0 })
  })

  test('a language failing leaves the others stored and is logged; the next tick brings in what it missed (even a tick already stored), and only that', async () => {
    await db.sql`DELETE FROM dispatch_texts`
    await db.sql`DELETE FROM major_order_texts`
    s.sim.control.addFault({ kind: 'server_error', feed: 'upstream', endpoint: 'newsfeed', language: 'de-DE' })
    s.sim.control.addFault({ kind: 'outage', feed: 'upstream', language: 'fr-FR' })
    s.later(30)
    const summary = await collect(runner, 'full-status')
    const { news, orders } = await primary()
    expect(summary.outcome).toBe('written')
    const stored = await texts()
    expect(perLang(stored.dispatches)).toEqual(Object.fromEntries(LANGS.map((l) => [l, l === 'de-DE' || l === 'fr-FR' ? 0 : news.length])))
    expect(perLang(stored.orders)).toEqual(Object.fromEntries(LANGS.map((l) => [l, l === 'fr-FR' ? 0 : orders.length])))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ level: 'warn', collector: 'full-status', warId: 801 })
    expect(Object.keys(warnings[0]!.failed as object).sort()).toEqual(['de-DE', 'fr-FR'])
    expect((warnings[0]!.failed as Record<string, object>)['de-DE']).toEqual({ newsfeed: expect.stringContaining('HTTP 500') })
    expect(Object.keys((warnings[0]!.failed as Record<string, object>)['fr-FR']!).sort()).toEqual(['assignment', 'newsfeed'])
    expect(entry('newsfeed', 'de-DE').errors).toBe(1)
    expect(entry('assignment', 'de-DE').errors).toBe(0)

    s.sim.control.clearFaults()
    // The war has not moved (same upstream war time): the tick itself is stored already,
    // yet the texts it brings that were missing are written.
    s.ageCache(301)
    // The tick carries only the texts not stored yet.
    const { tick } = await runner.capture(COLLECTORS['full-status'], { warId: 801 })
    const carried = (tick.rows as { texts: { dispatches: { lang: string }[] } }).texts.dispatches
    expect(perLang(carried)).toEqual(Object.fromEntries(LANGS.map((l) => [l, l === 'de-DE' || l === 'fr-FR' ? news.length : 0])))
    const next = await runner.write(COLLECTORS['full-status'], tick)
    expect(next).toMatchObject({ outcome: 'written', unchanged: { tick: 1 } })
    expect(next.written).toMatchObject({ planetStatus: 0, dispatchTexts: 2 * news.length, majorOrderTexts: orders.length })
    const after = await texts()
    expect(perLang(after.dispatches)).toEqual(Object.fromEntries(LANGS.map((l) => [l, news.length])))
    expect(perLang(after.orders)).toEqual(Object.fromEntries(LANGS.map((l) => [l, orders.length])))
  })

  test('a failing primary fails the tick as before, and no other language is asked', async () => {
    const before = s.sim.control.requests()
    s.sim.control.addFault({ kind: 'server_error', feed: 'upstream', endpoint: 'newsfeed', count: 1 })
    s.later(30)
    await expect(collect(runner, 'full-status')).rejects.toMatchObject({ reason: 'http_status', endpoint: 'newsfeed' })
    const after = s.sim.control.requests()
    for (const lang of OTHERS) expect(after[`upstream:newsfeed@${lang}`]).toBe(before[`upstream:newsfeed@${lang}`]!)
  })

  test('a tick spooled before languages existed (no texts) stores its texts as en-US', async () => {
    await db.sql`DELETE FROM dispatch_texts`
    await db.sql`DELETE FROM major_order_texts`
    s.later(30)
    const { tick } = await runner.capture(COLLECTORS['full-status'], { warId: 801 })
    delete (tick.rows as { texts?: unknown }).texts
    await runner.write(COLLECTORS['full-status'], tick)
    const { news, orders } = await primary()
    const stored = await texts()
    expect(perLang(stored.dispatches)).toEqual(Object.fromEntries(LANGS.map((l) => [l, l === 'en-US' ? news.length : 0])))
    expect(perLang(stored.orders)).toEqual(Object.fromEntries(LANGS.map((l) => [l, l === 'en-US' ? orders.length : 0])))
  })
})

test('textRows: without an answer from the database a tick carries no other language\'s dispatch texts (the feed still lists them next time), but its order texts', () => {
  const order = { id32: 5, progress: [0], expiresIn: 10, setting: { type: 4, overrideTitle: 'T', overrideBrief: 'B', taskDescription: '', tasks: [], flags: 1 } }
  const item = (id: number, message: string) => ({ id, published: 1, type: 0, tagIds: [], message })
  const fetched = [{ language: 'de-DE', assignments: [{ ...order, setting: { ...order.setting, overrideTitle: 'T-de' } }], news: [item(1, 'eins'), item(2, 'zwei'), item(3, 'drei')] }]
  const primaryNews = [item(1, 'one'), item(2, 'two')]
  expect(textRows('en-US', [order], primaryNews, { fetched, stored: undefined })).toEqual({
    primary: 'en-US',
    orders: [{ order_id32: 5, lang: 'de-DE', title: 'T-de', briefing: 'B', task_description: '' }],
    dispatches: [],
  })
  // With an answer: only what is not stored, and only items the primary feed lists.
  expect(textRows('en-US', [order], primaryNews, { fetched, stored: new Map([['de-DE', new Set([1])]]) }).dispatches).toEqual([
    { dispatch_id: 2, lang: 'de-DE', message: 'zwei' },
  ])
})
