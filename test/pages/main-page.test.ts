/**
 * The main page (/) in headless Chromium: the diver chart against /divers/history for every
 * range, the series it names, the trend deltas, the timeline's events (thinned evenly, the
 * note saying how many of how many), chart labels, and
 * the time to first chart (printed; BENCHMARKS.md).
 * The service, simulator and browser: test/support/browser.ts.
 */
import { describe, expect } from 'bun:test'
import { it, named, screenshot, usePagesService } from '../support/browser.ts'
import { SEED } from '../support/seed.ts'

describe('main page in headless Chromium', () => {
  const pages = usePagesService()
  const { api, visit, release, checkCharts } = pages

  it(named('main page: the chart holds as many points as /divers/history returns, for each of the five ranges'), async () => {
    const { page, problems } = await visit('/')
    const counts: Record<string, number> = {}
    for (const range of ['24h', '7d', '30d', '90d', 'all']) {
      if (range !== '24h') await page.click(`button[data-range="${range}"]`)
      await page.waitForSelector(`#divers-chart[data-range="${range}"]:not([data-points="0"])`)
      const expected = await api<{ points: unknown[]; source: string }>(`/divers/history?range=${range}`)
      expect(expected.points.length).toBeGreaterThan(0)
      expect(Number(await page.getAttribute('#divers-chart', 'data-points'))).toBe(expected.points.length)
      expect(await page.getAttribute('#history-source', 'data-source')).toBe(expected.source)
      expect(await page.getAttribute(`button[data-range="${range}"]`, 'aria-pressed')).toBe('true')
      counts[range] = expected.points.length
    }
    // Switching ranges changed what the chart holds (the seeded history makes them differ).
    expect(new Set(Object.values(counts)).size).toBeGreaterThan(2)
    // The live count and the peaks are those of the API.
    const all = await api<{ stats: { peak: { value: number } } }>('/divers/history?range=all')
    expect(await page.textContent('#peak-all')).toBe(all.stats.peak.value.toLocaleString('en-US'))
    expect(await page.textContent('#live-total')).toMatch(/^\d{1,3}(,\d{3})*$/)
    expect(await page.textContent('#live-age')).toContain('Data age')
    expect(problems).toEqual([])
  }, 60_000)

  it(named('main page: the trend deltas of /war/trends'), async () => {
    const { page, problems } = await visit('/')
    await page.waitForSelector('#trends-table, #trends .empty')
    expect(await page.textContent('#trends')).not.toContain('not available')
    expect(problems).toEqual([])
  })

  it(named('main page: timeline events are drawn on the chart'), async () => {
    const events = await api<{ items: unknown[]; totalResults: number }>(`/timeline?limit=1000&from=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}`)
    // 24 h holds fewer events than a chart draws: every one of them.
    expect(events.totalResults).toBeLessThan(200)
    const { page, problems } = await visit('/')
    await page.waitForSelector('#divers-chart:not([data-points="0"])')
    expect(Number(await page.getAttribute('#divers-chart', 'data-lines'))).toBe(events.items.length)
    expect(await page.textContent('#history .chart-note')).toContain(`all ${events.totalResults} war events`)
    expect(await page.locator('#events-note').textContent({ timeout: 10_000 })).toContain(`all ${events.totalResults} war events`)
    expect(problems).toEqual([])
  }, 30_000)

  it(named('main page: a range with more war events than a chart draws (30d, all): thinned evenly over the range, the note says how many of how many'), async () => {
    type Timeline = { items: { at: string }[]; totalResults: number }
    const { page, problems } = await visit('/?range=24h')
    for (const [range, days] of [['30d', 30], ['all', null]] as const) {
      const from = days === null ? '' : `&from=${encodeURIComponent(new Date(Date.now() - days * 86_400_000).toISOString())}`
      // The seeded contested planet (test/support/browser.ts CONTESTED) makes hundreds; the route answers up to 1000 a page.
      const all = await api<Timeline>(`/timeline?limit=1000${from}`)
      expect(all.totalResults).toBeGreaterThan(200)
      expect(all.totalResults).toBeLessThanOrEqual(1000)
      await page.click(`button[data-range="${range}"]`)
      await page.waitForSelector(`#divers-chart[data-range="${range}"]:not([data-points="0"])`)
      // As a player reads it: "200 of the 457 war events".
      const said = /(\d+) of the ([\d,]+) war events/.exec((await page.textContent('#history .chart-note')) ?? '')
      expect(said?.slice(1).map((n) => Number(n.replace(/,/g, '')))).toEqual([200, expect.any(Number)])
      const note = page.locator('#events-note')
      await note.waitFor({ timeout: 10_000 })
      await page.waitForLoadState('networkidle')
      const shown = Number(await note.getAttribute('data-shown'))
      const total = Number(await note.getAttribute('data-total'))
      // The page's window starts a moment after the test's: an event may fall between the two.
      expect(Math.abs(total - all.totalResults)).toBeLessThanOrEqual(1)
      expect(shown).toBe(200)
      expect(Number(await page.getAttribute('#divers-chart', 'data-lines'))).toBe(shown)
      expect(await note.textContent()).toContain(`${shown} of the ${total.toLocaleString('en-US')} war events`)
      // Evenly over the range, not the newest 200: the oldest drawn is the range's oldest event.
      const oldest = Date.parse((await note.getAttribute('data-oldest'))!)
      expect(oldest).toBeLessThan(Date.parse(all.items[199]!.at))
      expect(Math.abs(oldest - Date.parse(all.items.at(-1)!.at))).toBeLessThanOrEqual(Math.abs(Date.parse(all.items.at(-1)!.at) - Date.parse(all.items.at(-3)!.at)))
    }
    expect(problems).toEqual([])
    // On a 360-px phone fewer lines (one per 5 px of the chart at most), said the same way.
    const phone = await visit('/?range=30d', undefined, [], { viewport: { width: 360, height: 780 } })
    await phone.page.waitForSelector('#divers-chart[data-range="30d"]:not([data-points="0"])')
    const shown = Number(await phone.page.getAttribute('#events-note', 'data-shown'))
    const total = Number(await phone.page.getAttribute('#events-note', 'data-total'))
    expect(shown).toBeLessThan(100)
    expect(shown).toBeGreaterThanOrEqual(20)
    expect(Number(await phone.page.getAttribute('#divers-chart', 'data-lines'))).toBe(shown)
    expect(await phone.page.textContent('#events-note')).toContain(`${shown} of the ${total.toLocaleString('en-US')} war events`)
    await screenshot(phone.page, 'main-30d-events-phone-360')
    expect(phone.problems).toEqual([])
  }, 60_000)

  it(named('main page: the diver chart names the series it draws, and says so when a range switches series (7d upstream → 30d PC store)'), async () => {
    const week = await api<{ source: string; stats: { avg: number } }>('/divers/history?range=7d')
    const month = await api<{ source: string; stats: { avg: number } }>('/divers/history?range=30d')
    // The seeded history: ten days of upstream counts, 120 of PC store counts.
    expect([week.source, month.source]).toEqual(['api', 'pcstore'])
    const { page, problems } = await visit('/?range=7d')
    await page.waitForSelector('#divers-chart[data-range="7d"]:not([data-points="0"])')
    expect(await page.getAttribute('#history-source', 'data-source')).toBe('api')
    expect(await page.textContent('#divers-chart .u-legend')).toContain('all platforms')
    expect(await page.isVisible('#series-switch')).toBe(false)
    await page.click('button[data-range="30d"]')
    await page.waitForSelector('#divers-chart[data-range="30d"]')
    await page.waitForSelector('#history-source[data-source="pcstore"]')
    expect(await page.textContent('#divers-chart .u-legend')).toContain('PC only')
    const note = (await page.textContent('#series-switch'))!
    expect(note).toContain('7d')
    expect(note).toContain('PC store')
    expect(note).toContain('not comparable')
    expect(problems).toEqual([])
  }, 60_000)

  it(named('charts: peak and low labels never overlap and stay in the plot, axis labels never repeat (every range, 1366 and 360 px)'), async () => {
    for (const width of [1366, 360]) {
      const viewport = { width, height: 900 }
      const { page, problems } = await visit('/', undefined, [], { viewport })
      for (const range of ['24h', '7d', '30d', '90d', 'all']) {
        await page.click(`button[data-range="${range}"]`)
        await page.waitForSelector(`#divers-chart[data-range="${range}"]:not([data-points="0"])`)
        await page.waitForFunction(() => JSON.parse((globalThis as any).document.getElementById('divers-chart').getAttribute('data-label-boxes') ?? '[]').length > 0)
        // Checked once the page is done loading the range (on a busy machine its answers come in one by one).
        await page.waitForLoadState('networkidle')
        expect(await checkCharts(page, `main ${range} at ${width} px`)).toBe(1)
        // Peak and low are both marked (their labels placed) on every range.
        expect(JSON.parse((await page.getAttribute('#divers-chart', 'data-label-boxes'))!).length).toBeGreaterThanOrEqual(2)
      }
      const planet = await visit(`/planet/${SEED.trackedPlanets[1]}`, undefined, [], { viewport })
      for (const hours of [24, 168, 720]) {
        await planet.page.click(`button[data-hours="${hours}"]`)
        await planet.page.waitForSelector(`button[data-hours="${hours}"][aria-pressed="true"]`)
        await planet.page.waitForSelector('#planet-players-chart:not([data-points="0"])')
        await planet.page.waitForSelector('#planet-players-chart[data-axis-1]')
        await planet.page.waitForLoadState('networkidle')
        expect(await checkCharts(planet.page, `planet ${hours} h at ${width} px`)).toBe(2)
      }
      expect(problems).toEqual([])
      expect(planet.problems).toEqual([])
      await release(page)
      await release(planet.page)
    }
  }, 60_000)

  it(named('time to first chart on loopback (printed; BENCHMARKS.md)'), async () => {
    const times: number[] = []
    // Fresh loads: a new context each (no cache, a new renderer).
    for (let i = 0; i < 5; i++) {
      const ctx = await pages.browser.newContext({ viewport: { width: 1280, height: 900 } })
      const { page, problems } = await visit('/', ctx)
      // The page marks its first draw with data (src/pages/client/chart.ts).
      await page.waitForFunction(() => performance.getEntriesByName('first-chart').length > 0)
      const ms = await page.evaluate<number>("performance.getEntriesByName('first-chart')[0].startTime")
      times.push(ms)
      expect(problems).toEqual([])
      await ctx.close()
    }
    times.sort((a, b) => a - b)
    console.log(`time to first chart (navigation start → first draw with data, 5 fresh loads): median ${times[2]!.toFixed(0)} ms, min ${times[0]!.toFixed(0)} ms, max ${times[4]!.toFixed(0)} ms`)
    expect(times[2]).toBeLessThan(10_000)
  }, 120_000)
})
