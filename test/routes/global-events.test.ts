/** GET /global-events (contract): title and message in the language asked with every language's texts, race, order and planets by name, expiry by the tick's clock; errors. */
import { expect, test } from 'bun:test'
import { describeOnEachDatabase } from '../support/editions.ts'
import { NOW, REGION, rows, STATUS_2025, TICKS, WAR_TIME_0, withSurfaces } from '../support/surfaces.ts'
import { errorOf } from './helpers.ts'

describeOnEachDatabase('GET /global-events', (target) => {
  const surfaces = withSurfaces(target, async (h) => {
    // A text in another collected language, as the languages' fetch would store it.
    await h.db.sql`INSERT INTO global_event_texts (war_id, event_id, lang, title, message, captured_at) VALUES (801, 77, 'de-DE', 'HALTET DIE LINIE', 'Verteidigt Fenrir III.', now())`
  })

  test('the events of the latest tick with their texts', async () => {
    const res = await surfaces.h.get('/global-events')
    expect(res.status).toBe(200)
    const listed = (STATUS_2025 as any).globalEvents.length + 1
    expect(res.body.items).toHaveLength(listed)
    const e = res.body.items.find((x: any) => x.eventId === 77)
    expect(e).toMatchObject({
      id32: 5, lang: 'en-US', title: 'HOLD THE LINE', message: 'Defend Fenrir III.', race: 3, raceName: expect.any(String), flag: 1, orderId32: 1234,
      planets: [{ index: REGION.planetIndex, name: expect.any(String) }],
      expiresAt: new Date(rows.at(TICKS - 1).getTime() + (WAR_TIME_0 + 86_400 - rows.warTime(TICKS - 1)) * 1000).toISOString(),
    })
    expect(e.texts.map((x: any) => x.lang).sort()).toEqual(['de-DE', 'en-US'])
    const de = (await surfaces.h.get('/global-events?lang=de-de')).body.items.find((x: any) => x.eventId === 77)
    expect(de).toMatchObject({ lang: 'de-DE', title: 'HALTET DIE LINIE' })
    // The sample's marker event has no words.
    expect(res.body.items.find((x: any) => x.eventId === 1499462)).toMatchObject({ title: null, message: null, texts: [] })
  })

  test('errors: 400 naming the parameter', async () => {
    expect(errorOf(await surfaces.h.get('/global-events?lang=xx-XX'))).toContain('lang')
  })
})
