/**
 * The planet page (/planet/:id) and the dispatches page (/dispatches) in headless Chromium:
 * the planet's charts against /planet/:id/history, its campaign's progress against
 * /campaigns/:id/history, each figure named by its bar (a defended planet: the defense's
 * and the planet's own, docs/api.md "War intelligence"), the dispatch archive and its search against
 * /historical-dispatches.
 * The service, simulator and browser: test/support/browser.ts.
 */
import { describe, expect } from 'bun:test'
import { it, named, screenshot, usePagesService, type CampaignItem } from '../support/browser.ts'
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

  type Bar = { planetIndex: number; owner: number | null; libPct: number | null; eventId: number | null; deadline: string | null }
  type Point = { libPct: number; owner: number }
  /** The planet's own bar now (its latest history point), as the planet page's history draws it. */
  const ownBar = async (id: number) => (await api<{ points: Point[] }>(`/planet/${id}/history?hours=24`)).points.at(-1)!

  it(named("planet page of a defended planet: one rule for every figure: the defense's bar named as such (attack beaten, deadline), the planet's own named by its owner (held: health), never \"liberated\""), async () => {
    // A players' planet under attack whose defense's bar is far from its own health (the
    // simulator opens its war with such defenses): /planets/liberation answers it from its event.
    const defended = (await api<{ items: Bar[] }>('/planets/liberation')).items.filter((l) => l.eventId !== null && l.owner === 1 && l.libPct !== null)
    expect(defended.length).toBeGreaterThan(0)
    let chosen: { l: Bar; own: Point } | null = null
    for (const l of defended) {
      const own = await ownBar(l.planetIndex)
      if (own.owner === 1 && Math.abs(own.libPct - l.libPct!) >= 1) chosen ??= { l, own }
    }
    expect(chosen).not.toBeNull()
    const { l, own } = chosen!
    const { page, problems } = await visit(`/planet/${l.planetIndex}`)
    const one = (s: string | null) => (s ?? '').replace(/\s+/g, ' ').trim()
    // As rendered (innerText: a label, its value and its note are separate lines), on one line.
    const text = async (sel: string) => one(await page.locator(sel).innerText({ timeout: 5_000 }))

    // As a player reads it: the Now card names the defense's bar, the history caption the planet's own.
    await page.waitForSelector('#planet-now .stats', { timeout: 10_000 })
    await page.locator('#planet-history .caption', { hasText: 'players' }).waitFor({ timeout: 10_000 })
    const nowText = await text('#planet-now')
    expect(nowText).toContain(`Defense ${l.libPct!.toFixed(1)} % of the attack beaten`)
    expect(nowText).not.toContain('Liberation')
    expect(await text('#planet-history .caption')).toContain(`held: planet health ${own.libPct.toFixed(1)} %`)

    // The Now card: the defense's bar, named "Defense", with its deadline.
    await page.waitForSelector('#planet-now-bar', { timeout: 10_000 })
    expect(await page.getAttribute('#planet-now-bar', 'data-bar')).toBe('defense')
    expect(await text('#planet-now-bar .label')).toBe('Defense')
    expect(await text('#planet-now-bar .value')).toBe(`${l.libPct!.toFixed(1)} %`)
    expect(await text('#planet-now-bar .sub')).toContain('attack beaten')
    expect(await page.getAttribute('#planet-now-deadline .countdown', 'data-until')).toBe(l.deadline)
    expect(await page.$$eval('#planet-now .stat .label', (ls) => ls.map((x) => x.textContent))).not.toContain('Liberation')

    // The history: the planet's own bar, its health, said so, and where the defense's bar is.
    await page.waitForSelector('#planet-history-now', { timeout: 10_000 })
    expect(await page.getAttribute('#planet-lib-chart', 'data-bar')).toBe('planet-health')
    expect(await text('#planet-lib-chart .u-legend')).toContain('Planet health')
    expect(await text('#planet-history-now')).toContain(`held: planet health ${own.libPct.toFixed(1)} %`)
    await page.waitForSelector('#planet-bar-note[data-defended="true"]', { timeout: 10_000 })
    expect(await text('#planet-bar-note')).toContain("the campaign card's chart")

    // The campaign card and its chart: the defense's bar, named.
    await page.waitForSelector('#campaign-progress figcaption', { timeout: 10_000 })
    expect(one(await page.locator('#planet-campaign-card .c-what').textContent({ timeout: 5_000 }))).toBe('attack beaten')
    expect(await text('#campaign-progress figcaption')).toContain("defense's bar")

    // No figure calls the held planet, or its defense, liberated.
    for (const id of ['planet-campaign', 'planet-now', 'planet-history']) expect({ id, text: await text(`#${id}`) }).not.toEqual({ id, text: expect.stringMatching(/liberat(ed|ion)/i) })
    await screenshot(page, 'planet-defended-desktop')
    expect(problems).toEqual([])
  }, 60_000)

  it(named("planet page of an enemy planet in a liberation campaign: its bar named \"Liberation\" / \"liberated\" everywhere, no defense"), async () => {
    const front = (await api<{ items: (CampaignItem & { owner: number | null })[] }>('/campaigns')).items.find((c) => c.type === 'liberation' && c.owner !== 1)!
    expect(front).toBeDefined()
    const own = await ownBar(front.planetIndex)
    const { page, problems } = await visit(`/planet/${front.planetIndex}`)
    await page.locator('#planet-history .caption', { hasText: 'players' }).waitFor({ timeout: 10_000 })
    expect(await page.textContent('#planet-history .caption')).toContain(`${own.libPct.toFixed(1)} % liberated`)
    await page.waitForSelector('#planet-now-bar', { timeout: 10_000 })
    expect(await page.getAttribute('#planet-now-bar', 'data-bar')).toBe('planet-liberation')
    expect(await page.textContent('#planet-now-bar .label')).toBe('Liberation')
    await page.waitForSelector('#planet-history-now', { timeout: 10_000 })
    expect(await page.getAttribute('#planet-lib-chart', 'data-bar')).toBe('planet-liberation')
    expect(await page.textContent('#planet-history-now')).toContain(`${own.libPct.toFixed(1)} % liberated`)
    expect(await page.textContent('#planet-lib-chart .u-legend')).toContain('Liberated %')
    await page.waitForSelector('#planet-campaign-card')
    expect(await page.locator('#planet-campaign-card .c-what').textContent({ timeout: 5_000 })).toBe('liberated')
    expect(await page.getAttribute('#planet-bar-note', 'data-defended')).toBe('false')
    for (const id of ['planet-campaign', 'planet-now', 'planet-history']) expect({ id, text: await page.textContent(`#${id}`) }).not.toEqual({ id, text: expect.stringMatching(/attack beaten|planet health/) })
    expect(problems).toEqual([])
  }, 60_000)

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
