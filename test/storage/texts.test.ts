/**
 * Major-order texts written by a batch (storage/texts.ts upsertOrderTextsOfTicks: folded
 * over the ticks from the stored texts, written once) leave what upsertOrderTexts one tick
 * after the other leaves, with the same count per tick: for random ticks of edited texts,
 * in and out of order, over stored texts newer or older than them.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import fc from 'fast-check'
import * as texts from '../../src/storage/texts.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'

const T0 = Date.UTC(2026, 0, 5)
const LANGS = ['en-US', 'de-DE']

/** A tick: its time (minutes from T0) and, per order and language, which of a few versions of its text it carries. */
const tick = fc.record({
  minute: fc.integer({ min: 0, max: 8 }),
  texts: fc.uniqueArray(fc.record({ order: fc.integer({ min: 0, max: 1 }), lang: fc.constantFrom(...LANGS), version: fc.integer({ min: 0, max: 2 }) }), {
    selector: (t) => `${t.order}:${t.lang}`,
    maxLength: 4,
  }),
})

const inputOf = (base: number, t: { order: number; lang: string; version: number }): texts.OrderTextInput => ({
  order_id32: base + t.order, lang: t.lang, title: `title ${t.version}`, briefing: `briefing ${t.version % 2}`, task_description: 'tasks',
})

describeOnEachDatabase('major-order texts written by a batch', (target) => {
  let db: TestDatabase
  let base = 1000
  beforeAll(async () => {
    db = await target.open()
  }, 60_000)
  afterAll(async () => {
    await db?.dispose()
  })

  test('the rows and counts of the ticks written one after the other', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(tick, { maxLength: 3 }), fc.array(tick, { minLength: 1, maxLength: 8 }), async (before, batch) => {
        // Two sets of orders: one written tick by tick, the other as a batch, over the same stored texts.
        const [one, many] = [(base += 10), (base += 10)]
        const ticksOf = (b: number, ts: typeof batch) => ts.map((t) => ({ at: new Date(T0 + t.minute * 60_000), texts: t.texts.map((x) => inputOf(b, x)) }))
        for (const b of [one, many]) {
          await db.sql.begin(async (tx) => {
            for (const t of ticksOf(b, before)) await texts.upsertOrderTexts(tx, t.at, t.texts)
          })
        }
        const sequential = await db.sql.begin(async (tx) => {
          const n: number[] = []
          for (const t of ticksOf(one, batch)) n.push(await texts.upsertOrderTexts(tx, t.at, t.texts))
          return n
        })
        const folded = await db.sql.begin(async (tx) => texts.upsertOrderTextsOfTicks(tx, ticksOf(many, batch), await texts.storedOrderTexts(tx, [many, many + 1])))
        expect(folded).toEqual(sequential)
        const rows = (b: number) => db.sql<{ r: string }[]>`
          SELECT concat_ws(' ', order_id32 - ${b}, lang, title, briefing, task_description, seen_at) AS r FROM major_order_texts
          WHERE order_id32 IN (${b}, ${b + 1}) ORDER BY 1`
        expect((await rows(many)).map((x) => x.r)).toEqual((await rows(one)).map((x) => x.r))
      }),
      { numRuns: 60 },
    )
  }, 120_000)

  test('a tick listing a text twice fails, as its own upsert does', async () => {
    const t = { order_id32: 5, lang: 'en-US', title: 'a', briefing: 'b', task_description: 'c' }
    await expect(db.sql.begin((tx) => texts.upsertOrderTexts(tx, new Date(T0), [t, { ...t, title: 'z' }]))).rejects.toThrow('second time')
    await expect(db.sql.begin((tx) => texts.upsertOrderTextsOfTicks(tx, [{ at: new Date(T0), texts: [t, { ...t, title: 'z' }] }], new Map()))).rejects.toThrow('second time')
  })
})
