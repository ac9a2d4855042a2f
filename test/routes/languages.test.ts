/**
 * `lang` on the dispatch, major-order and timeline routes (issue 14, item 7), on seeded history and
 * seeded texts: one language, every language, unknown codes, and the default answer
 * unchanged (it reads the default columns, never the texts).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { describeOnEachDatabase } from '../support/editions.ts'
import { DISPATCH_MESSAGES, SEED, seedAll } from '../support/seed.ts'
import { errorOf, openHarness, type Harness } from './helpers.ts'

const german = (id: number) => (id === 3 ? 'Befreiung zu 100% auf Malevelon Creek' : `Depesche ${id}`)
const french = (id: number) => `Dépêche ${id}`

describeOnEachDatabase('lang on the dispatch, major-order and timeline routes', (target) => {
  let h: Harness
  /** The default answers before any text was stored. */
  const before: Record<string, string> = {}
  const DEFAULT_PATHS = ['/historical-dispatches?limit=500', '/historical-dispatches?q=100%25', '/historical-major-orders', '/historical-major-orders?warId=801&limit=2&page=2', '/timeline?limit=1000']

  beforeAll(async () => {
    const db = await target.open()
    await seedAll(db.sql, db.info.edition, new Date())
    h = await openHarness({ db })
    for (const path of DEFAULT_PATHS) before[path] = JSON.stringify((await h.get(path)).body)
    // en-US for 1..25 only (so a default answer read from the texts would show nulls), fr-FR
    // stored before de-DE (lang=all follows FEED_LANGUAGES, not storage order), and a
    // language that is not configured.
    const texts: [number, string, string][] = [
      ...DISPATCH_MESSAGES.slice(0, 25).map((m, i): [number, string, string] => [i + 1, 'en-US', m]),
      ...[1, 2, 3, 4, 5].map((id): [number, string, string] => [id, 'fr-FR', french(id)]),
      ...Array.from({ length: 20 }, (_, i): [number, string, string] => [i + 1, 'de-DE', german(i + 1)]),
      [1, 'xx-XX', 'not configured'],
    ]
    for (const [id, lang, message] of texts) {
      await db.sql`INSERT INTO dispatch_texts (war_id, dispatch_id, lang, message, first_seen_at) VALUES (801, ${id}, ${lang}, ${message}, now())`
    }
    await db.sql`INSERT INTO dispatch_texts (war_id, dispatch_id, lang, message, first_seen_at) VALUES (800, 901, 'de-DE', 'Alte Depesche', now())`
    const orderTexts: [number, string, string | null, string | null, string | null][] = [
      [SEED.orders.recent, 'en-US', 'MAJOR ORDER', 'Hold the line', 'Liberate 2 planets'],
      [SEED.orders.recent, 'de-DE', 'GROSSBEFEHL', 'Haltet die Linie', 'Befreit 2 Planeten'],
      [SEED.orders.big, 'de-DE', null, 'Nur ein Briefing', null],
    ]
    for (const [id, lang, title, briefing, desc] of orderTexts) {
      await db.sql`INSERT INTO major_order_texts (order_id32, lang, title, briefing, task_description, seen_at) VALUES (${id}, ${lang}, ${title}, ${briefing}, ${desc}, now())`
    }
  }, 120_000)
  afterAll(() => h?.close())

  test('without lang every answer is byte for byte what it was before any text was stored', async () => {
    for (const path of DEFAULT_PATHS) expect({ path, body: JSON.stringify((await h.get(path)).body) }).toEqual({ path, body: before[path]! })
    const res = await h.get('/historical-dispatches?limit=500')
    expect(res.body.items.map((d: { message: string }) => d.message)).toEqual([...DISPATCH_MESSAGES].reverse())
  })

  test('dispatches, lang=<code>: the same rows, each message in that language, null where none was collected; the code is case-insensitive', async () => {
    const plain = (await h.get('/historical-dispatches?limit=500')).body
    const res = await h.get('/historical-dispatches?limit=500&lang=de-DE')
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.body.totalResults).toBe(plain.totalResults)
    expect(res.body.items.map((d: { message: unknown }) => ({ ...d, message: undefined }))).toEqual(plain.items.map((d: { message: unknown }) => ({ ...d, message: undefined })))
    for (const d of res.body.items) expect({ id: d.id, message: d.message }).toEqual({ id: d.id, message: d.id <= 20 ? german(d.id) : null })
    expect((await h.get('/historical-dispatches?limit=500&lang=DE-de')).body).toEqual(res.body)
    const old = await h.get('/historical-dispatches?warId=800&lang=de-DE')
    expect(old.body.items.map((d: { id: number; message: string | null }) => [d.id, d.message])).toEqual([[903, null], [902, null], [901, 'Alte Depesche']])
  })

  test('dispatches, lang=all: {code: text} of every configured language that has one, in FEED_LANGUAGES order', async () => {
    const res = await h.get('/historical-dispatches?limit=500&lang=all')
    expect(res.status).toBe(200)
    const byId = new Map<number, Record<string, string>>(res.body.items.map((d: { id: number; message: Record<string, string> }) => [d.id, d.message]))
    expect(JSON.stringify(byId.get(1))).toBe(JSON.stringify({ 'en-US': DISPATCH_MESSAGES[0], 'de-DE': german(1), 'fr-FR': french(1) }))
    expect(byId.get(10)).toEqual({ 'en-US': DISPATCH_MESSAGES[9]!, 'de-DE': german(10) })
    expect(byId.get(24)).toEqual({ 'en-US': DISPATCH_MESSAGES[23]! })
    expect(byId.get(30)).toEqual({})
    expect((await h.get('/historical-dispatches?limit=500&lang=ALL')).body).toEqual(res.body)
  })

  test('dispatches: q searches the chosen language (any configured language with lang=all)', async () => {
    const ids = async (qs: string) => (await h.get(`/historical-dispatches?limit=500&${qs}`)).body.items.map((d: { id: number }) => d.id)
    expect(await ids('q=100%25&lang=de-DE')).toEqual([3])
    expect(await ids('q=Routine&lang=fr-FR')).toEqual([])
    expect(await ids(`q=${encodeURIComponent('dépêche')}&lang=all`)).toEqual([5, 4, 3, 2, 1])
    expect(await ids('q=Depesche 1&lang=all')).toEqual([19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 1])
    expect(await ids('q=not configured&lang=all')).toEqual([])
    const page = (await h.get('/historical-dispatches?q=Depesche&lang=de-DE&limit=7&page=2')).body
    expect({ total: page.totalResults, pages: page.totalPages, ids: page.items.map((d: { id: number }) => d.id) }).toEqual({ total: 19, pages: 3, ids: [13, 12, 11, 10, 9, 8, 7] })
  })

  test('major orders, lang=<code> and lang=all: title, briefing and description in the language', async () => {
    const plain = (await h.get('/historical-major-orders')).body
    const de = (await h.get('/historical-major-orders?lang=de-DE')).body
    expect(de.totalResults).toBe(plain.totalResults)
    const texts = (body: { items: { orderId32: number; title: unknown; briefing: unknown; description: unknown }[] }) =>
      Object.fromEntries(body.items.map((o) => [o.orderId32, [o.title, o.briefing, o.description]]))
    expect(texts(de)).toEqual({
      [SEED.orders.recent]: ['GROSSBEFEHL', 'Haltet die Linie', 'Befreit 2 Planeten'],
      [SEED.orders.older]: [null, null, null],
      [SEED.orders.big]: [null, 'Nur ein Briefing', null],
      [SEED.orders.oldWar]: [null, null, null],
    })
    expect(de.items.map((o: Record<string, unknown>) => ({ ...o, title: 0, briefing: 0, brief: 0, description: 0 }))).toEqual(
      plain.items.map((o: Record<string, unknown>) => ({ ...o, title: 0, briefing: 0, brief: 0, description: 0 })),
    )
    // `brief` is the briefing again, in the same language.
    for (const o of de.items) expect(o.brief).toEqual(o.briefing)
    const all = (await h.get('/historical-major-orders?warId=801&lang=all')).body
    for (const o of all.items) expect(o.brief).toEqual(o.briefing)
    expect(texts(all)).toEqual({
      [SEED.orders.recent]: [
        { 'en-US': 'MAJOR ORDER', 'de-DE': 'GROSSBEFEHL' },
        { 'en-US': 'Hold the line', 'de-DE': 'Haltet die Linie' },
        { 'en-US': 'Liberate 2 planets', 'de-DE': 'Befreit 2 Planeten' },
      ],
      [SEED.orders.older]: [{}, {}, {}],
      [SEED.orders.big]: [{}, { 'de-DE': 'Nur ein Briefing' }, {}],
    })
  })

  test('/major-orders (derived state), lang=<code> and lang=all: the same orders and states, texts in the language', async () => {
    type State = { orderId32: number; title: unknown; briefing: unknown; description: unknown }
    const texts = (body: { items: State[] }) => Object.fromEntries(body.items.map((o) => [o.orderId32, [o.title, o.briefing, o.description]]))
    const withoutTexts = (body: { items: State[] }) => body.items.map((o) => ({ ...o, title: 0, briefing: 0, description: 0 }))
    const plain = (await h.get('/major-orders')).body
    const de = (await h.get('/major-orders?lang=DE-de')).body
    expect(withoutTexts(de)).toEqual(withoutTexts(plain))
    expect(texts(de)).toEqual({
      [SEED.orders.recent]: ['GROSSBEFEHL', 'Haltet die Linie', 'Befreit 2 Planeten'],
      [SEED.orders.older]: [null, null, null],
      [SEED.orders.big]: [null, 'Nur ein Briefing', null],
    })
    const all = (await h.get('/major-orders?lang=all')).body
    expect(withoutTexts(all)).toEqual(withoutTexts(plain))
    expect(texts(all)[SEED.orders.recent]).toEqual([
      { 'en-US': 'MAJOR ORDER', 'de-DE': 'GROSSBEFEHL' },
      { 'en-US': 'Hold the line', 'de-DE': 'Haltet die Linie' },
      { 'en-US': 'Liberate 2 planets', 'de-DE': 'Befreit 2 Planeten' },
    ])
    expect(texts(all)[SEED.orders.big]).toEqual([{}, { 'de-DE': 'Nur ein Briefing' }, {}])
  })

  test('/timeline, lang=<code> and lang=all: the same events, order titles and dispatch messages in the language', async () => {
    type Event = { type: string; orderId32: number | null; dispatchId: number | null; warID: number; title: unknown; message: unknown }
    const withoutTexts = (body: { items: Event[] }) => body.items.map((e) => ({ ...e, title: 0, message: 0 }))
    const plain = (await h.get('/timeline?limit=1000')).body
    expect(plain.items.some((e: Event) => e.type === 'dispatch') && plain.items.some((e: Event) => e.type === 'major_order_issued')).toBe(true)
    const de = await h.get('/timeline?limit=1000&lang=DE-de')
    expect(de.status).toBe(200)
    expect(de.body.totalResults).toBe(plain.totalResults)
    expect(withoutTexts(de.body)).toEqual(withoutTexts(plain))
    for (const e of de.body.items as Event[]) {
      const expected =
        e.type === 'dispatch' ? { title: null, message: e.dispatchId! <= 20 ? german(e.dispatchId!) : null }
        : e.type.startsWith('major_order_') ? { title: e.orderId32 === SEED.orders.recent ? 'GROSSBEFEHL' : null, message: null }
        : { title: null, message: null }
      expect({ type: e.type, id: e.orderId32 ?? e.dispatchId, title: e.title, message: e.message }).toEqual({ type: e.type, id: e.orderId32 ?? e.dispatchId, ...expected })
    }
    const all = (await h.get('/timeline?limit=1000&lang=all')).body
    expect(withoutTexts(all)).toEqual(withoutTexts(plain))
    const dispatch = (id: number) => all.items.find((e: Event) => e.type === 'dispatch' && e.dispatchId === id)
    expect(JSON.stringify(dispatch(1).message)).toBe(JSON.stringify({ 'en-US': DISPATCH_MESSAGES[0], 'de-DE': german(1), 'fr-FR': french(1) }))
    expect(dispatch(30).message).toEqual({})
    const issued = (id: number) => all.items.find((e: Event) => e.type === 'major_order_issued' && e.orderId32 === id)
    expect(issued(SEED.orders.recent).title).toEqual({ 'en-US': 'MAJOR ORDER', 'de-DE': 'GROSSBEFEHL' })
    expect(issued(SEED.orders.big).title).toEqual({})
    // Filters and paging pick the same rows with a language.
    const deItems = de.body.items as Event[]
    const dispatchesDe = deItems.filter((e) => e.type === 'dispatch')
    expect((await h.get('/timeline?type=dispatch&limit=3&page=2&lang=de-DE')).body.items).toEqual(dispatchesDe.slice(3, 6))
    // Events without a text keep null in both forms.
    for (const e of all.items as Event[]) if (e.type !== 'dispatch' && !e.type.startsWith('major_order_')) expect([e.title, e.message]).toEqual([null, null])
    expect(errorOf(await h.get('/timeline?lang=xx'))).toContain('lang')
  })

  test('an unknown or empty lang is a 400 {error} naming lang (and listing the languages), never echoing the input', async () => {
    for (const path of ['/historical-dispatches', '/historical-major-orders', '/major-orders', '/timeline']) {
      for (const value of ['xx-XX', '', 'en', 'all,de-DE', '<script>']) {
        const res = await h.get(`${path}?lang=${encodeURIComponent(value)}`)
        expect({ path, value, status: res.status }).toEqual({ path, value, status: 400 })
        const error = errorOf(res)
        expect(error).toStartWith('lang must be one of en-US, de-DE, es-ES, ru-RU, fr-FR, it-IT, pl-PL, zh-Hans, zh-Hant or all')
        if (value === 'xx-XX' || value === '<script>') expect(error).not.toContain(value)
      }
    }
  })
})
