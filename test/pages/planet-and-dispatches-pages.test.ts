/**
 * The planet page (/planet/:id) and the dispatches page (/dispatches) in headless Chromium:
 * the planet's charts against /planet/:id/history, its campaign's progress against
 * /campaigns/:id/history, the dispatch archive and its search against
 * /historical-dispatches.
 * The service, simulator and browser: test/support/browser.ts.
 */
import { describe, expect } from 'bun:test'
import { it, named, usePagesService, type CampaignItem } from '../support/browser.ts'
import { SEED } from '../support/seed.ts'

describe('planet and dispatches pages in headless Chromium', () => {
  const pages = usePagesService()
  const { api, visit } = pages

  it(named('planet page: both charts hold the points of /planet/:id/history for 24 h, 7 and 30 days; owner changes marked'), async () => {
    type History = { points: { owner: number }[] }
    const id = SEED.trackedPlanets[1]
    const { page, problems } = await visit(`/planet/${id}`)
    const counts: number[] = []
    for (const hours of [24, 168, 720]) {
      if (hours !== 24) await page.click(`button[data-hours="${hours}"]`)
      const expected = await api<History>(`/planet/${id}/history?hours=${hours}`)
      expect(expected.points.length).toBeGreaterThan(1)
      await page.waitForSelector(`#planet-lib-chart[data-points="${expected.points.length}"]`)
      expect(Number(await page.getAttribute('#planet-players-chart', 'data-points'))).toBe(expected.points.length)
      const changes = expected.points.filter((p, i) => i > 0 && p.owner !== expected.points[i - 1]!.owner).length
      expect(Number(await page.getAttribute('#planet-lib-chart', 'data-owner-changes'))).toBe(changes)
      expect(await page.isVisible('#owner-changes')).toBe(changes > 0)
      counts.push(expected.points.length)
    }
    expect(new Set(counts).size).toBe(3)
    expect(problems).toEqual([])
  }, 60_000)

  it(named("planet page: its campaign's progress over its life, one point per tick of /campaigns/:campaignId/history"), async () => {
    const fronts = (await api<{ items: CampaignItem[] }>('/campaigns')).items
    const front = fronts.find((c) => c.type === 'defense') ?? fronts[0]!
    const { page, problems } = await visit(`/planet/${front.planetIndex}`)
    await page.waitForSelector('#campaign-progress svg')
    // The campaign may gain a tick meanwhile: read the route again until the two agree.
    let drawn = ''
    let served = -1
    for (let i = 0; i < 50 && drawn !== String(served); i++) {
      served = (await api<{ points: unknown[] }>(`/campaigns/${front.campaignId}/history`)).points.length
      drawn = (await page.getAttribute('#campaign-progress svg', 'data-points')) ?? ''
      if (drawn !== String(served)) await Bun.sleep(100)
    }
    expect(drawn).toBe(String(served))
    expect(served).toBeGreaterThan(0)
    expect(await page.textContent('#campaign-progress figcaption')).toContain(`${served} tick`)
    expect(problems).toEqual([])
    await page.close()
  })

  it(named('dispatches page: the archive and the q search give what /historical-dispatches gives'), async () => {
    const all = await api<{ items: { id: number; message: string }[]; totalResults: number }>('/historical-dispatches?limit=20')
    const { page, problems } = await visit('/dispatches')
    if (all.totalResults === 0) {
      await page.waitForSelector('#dispatch-list .empty')
    } else {
      await page.waitForSelector('#dispatch-list li')
      expect(await page.$$eval('#dispatch-list li', (lis) => lis.map((li) => Number(li.getAttribute('data-dispatch'))))).toEqual(all.items.map((d) => d.id))
      const word = all.items[0]!.message.replace(/<[^>]*>/g, ' ').split(/\s+/).find((w) => w.length >= 5)!
      const found = await api<{ totalResults: number }>(`/historical-dispatches?q=${encodeURIComponent(word)}`)
      await page.fill('#dispatch-q', word)
      await page.click('#dispatch-search button[type="submit"]')
      await page.locator('#dispatch-summary', { hasText: word }).waitFor()
      expect(await page.textContent('#dispatch-summary')).toContain(`${found.totalResults.toLocaleString('en-US')} dispatches contain`)
      expect(new URL(page.url()).searchParams.get('q')).toBe(word)
    }
    // The language switch lists the collected languages; switching shows that language's texts.
    const every = await api<{ items: { id: number; message: Record<string, string | null> }[] }>('/historical-dispatches?limit=20&lang=all')
    const codes = Object.keys(every.items[0]?.message ?? {})
    if (codes.length > 1) {
      await page.waitForSelector('#dispatch-lang', { state: 'visible' })
      expect(await page.$$eval('#dispatch-lang option', (os) => os.map((o) => o.getAttribute('value')))).toEqual(codes)
      await page.fill('#dispatch-q', '')
      await page.click('#dispatch-search button[type="submit"]')
      await page.selectOption('#dispatch-lang', codes[1]!)
      await page.waitForURL((u) => u.searchParams.get('lang') === codes[1])
      const want = every.items[0]!.message[codes[1]!]
      const first = page.locator('#dispatch-list li').first().locator('.message')
      if (want) await first.filter({ hasText: want.replace(/<[^>]*>/g, '').split('\n')[0]!.slice(0, 30) }).waitFor()
      else await first.locator('.empty').waitFor()
    } else expect(await page.isHidden('#dispatch-lang')).toBe(true)
    expect(problems).toEqual([])
  }, 60_000)
})
