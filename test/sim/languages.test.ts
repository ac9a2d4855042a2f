/** The simulated upstream answers assignments and the newsfeed in the language of the request. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseAssignments, parseNewsFeed } from '../../src/feeds/upstream.ts'
import { parseFaultFlag } from '../../src/sim/faults.ts'
import { languageOf, localize } from '../../src/sim/languages.ts'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'

let sim: Simulator
beforeAll(() => {
  sim = startSimulator({ port: 0, seed: 5, speed: 0 })
})
afterAll(() => sim.stop())

const get = (path: string, language?: string) =>
  fetch(`${sim.upstreamUrl}${path}`, language === undefined ? {} : { headers: { 'accept-language': language } })
const news = async (language?: string) => parseNewsFeed(await (await get('/NewsFeed/801?maxEntries=1024&fromTimestamp=1000', language)).json()).data
const orders = async (language?: string) => parseAssignments(await (await get('/v2/Assignment/War/801', language)).json()).data

describe('languages of the simulated upstream', () => {
  test('Accept-Language: exact tag (any case), else the primary subtag, else en-US; none without a header', () => {
    expect(languageOf('de-DE')).toBe('de-DE')
    expect(languageOf('ZH-hant')).toBe('zh-Hant')
    expect(languageOf('fr-CA,fr;q=0.8')).toBe('fr-FR')
    expect(languageOf('en-US,en;q=0.5')).toBe('en-US')
    expect(languageOf('ja-JP')).toBe('en-US')
    expect(languageOf('  ')).toBeUndefined()
    expect(languageOf(null)).toBeUndefined()
    expect(localize('MAJOR ORDER', 'pl-PL')).toBe('[pl-PL] MAJOR ORDER')
    expect(localize('', 'pl-PL')).toBe('')
    expect(localize('x', 'en-US')).toBe('x')
  })

  test('the same items in every language, texts marked with the language; en-US unchanged; no header, no message', async () => {
    const en = await news('en-US')
    const de = await news('de-DE')
    expect(en.length).toBeGreaterThan(5)
    expect(de.map((n) => [n.id, n.published])).toEqual(en.map((n) => [n.id, n.published]))
    expect(de.map((n) => n.message)).toEqual(en.map((n) => `[de-DE] ${n.message}`))
    expect((await news()).every((n) => n.message === undefined)).toBe(true)
    const [order] = await orders('zh-Hans')
    const [english] = await orders('en-US')
    expect(order!.setting.overrideTitle).toBe('[zh-Hans] MAJOR ORDER')
    expect(order!.setting.overrideBrief).toBe(localize(english!.setting.overrideBrief, 'zh-Hans'))
    expect({ ...order!, setting: { ...order!.setting, overrideTitle: '', overrideBrief: '' } }).toEqual({
      ...english!, setting: { ...english!.setting, overrideTitle: '', overrideBrief: '' },
    })
  })

  test('a fault can target one language; requests are counted per language too', async () => {
    sim.control.addFault({ kind: 'server_error', feed: 'upstream', endpoint: 'newsfeed', language: 'it-IT' })
    const before = sim.control.requests()
    expect((await get('/NewsFeed/801', 'it-IT')).status).toBe(500)
    expect((await get('/NewsFeed/801', 'es-ES')).status).toBe(200)
    expect((await get('/v2/Assignment/War/801', 'it-IT')).status).toBe(200)
    expect((await get('/WarSeason/801/Status', 'it-IT')).status).toBe(200)
    sim.control.clearFaults()
    const after = sim.control.requests()
    expect(after['upstream:newsfeed@it-IT']! - (before['upstream:newsfeed@it-IT'] ?? 0)).toBe(1)
    expect(after['upstream:newsfeed']! - before['upstream:newsfeed']!).toBe(2)
    expect(parseFaultFlag('outage:upstream:assignment,language=de-DE,count=2')).toEqual({ kind: 'outage', feed: 'upstream', endpoint: 'assignment', language: 'de-DE', count: 2 })
  })
})
