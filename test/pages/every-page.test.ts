/**
 * Every page in headless Chromium: the routes they read exist, their security headers, light
 * and dark, panels of a server without the derived routes, honest states (no data, an
 * unknown planet, a fresh offline start), and screenshots at desktop and phone widths
 * with no overflow, console error or overlapping chart label.
 * The service, simulator and browser: test/support/browser.ts.
 */
import { describe, expect } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { connect } from '../../src/db/connect.ts'
import { migrate } from '../../src/db/migrate.ts'
import { it, named, usePagesService, PAGE_CSP, PAGE_ROUTES, DERIVED_ROUTES, routeTable, screenshot, SHOTS, type CampaignItem } from '../support/browser.ts'
import { createScratchDatabase } from '../support/db.ts'
import { startService } from '../support/process.ts'
import { SEED } from '../support/seed.ts'

describe('every page in headless Chromium', () => {
  const pages = usePagesService()
  const { api, visit, shoot } = pages

  it(named('every API route the pages read is in the service (a missing one fails, it is not skipped)'), () => {
    const table = routeTable()
    expect(PAGE_ROUTES.filter((r) => !table.has(`/api/v1${r}`))).toEqual([])
    for (const page of ['/', '/war', '/planet/:planetId', '/dispatches']) expect(table.has(page)).toBe(true)
    // The pages' data-state line reads how much history the server holds there.
    expect(table.has('/health/ready')).toBe(true)
  })

  it(named('every page answers with the page CSP (self only) and the security headers; assets are served from here'), async () => {
    for (const path of ['/', '/war', '/planet/1', '/dispatches']) {
      const res = await fetch(`${pages.svc.baseUrl}${path}`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toContain('text/html')
      expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP)
      expect(res.headers.get('x-frame-options')).toBe('DENY')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      const html = await res.text()
      // Every asset the page names is on this origin.
      for (const [, src] of html.matchAll(/(?:src|href)="([^"]+)"/g)) expect(src!.startsWith('/')).toBe(true)
    }
  })

  it(named('pages read in light and dark (prefers-color-scheme)'), async () => {
    const colors: string[] = []
    for (const colorScheme of ['light', 'dark'] as const) {
      const ctx = await pages.browser.newContext({ colorScheme })
      const { page } = await visit('/', ctx)
      colors.push(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor + "/" + getComputedStyle(document.body).color'))
      await ctx.close()
    }
    expect(colors[0]).not.toBe(colors[1])
  })

  it(
    named(`panels of the derived routes say "not available" on a server without them (${DERIVED_ROUTES.join(', ')} answered 404)`),
    async () => {
      const main = await visit('/', pages.context, DERIVED_ROUTES)
      await main.page.waitForSelector('#divers-chart:not([data-points="0"])')
      await main.page.locator('#trends .empty.absent', { hasText: 'not available' }).waitFor()
      await main.page.locator('#history .hint, #history .empty', { hasText: 'not available' }).waitFor()
      expect(main.problems).toEqual([])
      const war = await visit('/war', pages.context, DERIVED_ROUTES)
      await war.page.waitForSelector('#planets-table tbody tr')
      await war.page.locator('#orders .empty.absent', { hasText: 'not available' }).waitFor()
      await war.page.locator('#planets-summary', { hasText: 'not available' }).waitFor()
      await war.page.locator('#campaigns .empty.absent', { hasText: 'not available' }).waitFor()
      expect(war.problems).toEqual([])
      await main.page.close()
      await war.page.close()
    },
    30_000,
  )

  it(named('states: no "two ticks" trend text; an impossible accuracy is commented; the planet page blames no route that exists'), async () => {
    const main = await visit('/')
    await main.page.waitForSelector('#trends-table, #trends-empty')
    const trends = (await main.page.textContent('#trends'))!
    expect(trends).not.toContain('two ticks')
    if (await main.page.isVisible('#trends-empty')) expect(trends).toContain('an hour')
    const stats = await api<{ stats: { bulletsFired: number; bulletsHit: number; accuracy: number } }>('/war-stats')
    const war = await visit('/war')
    await war.page.waitForSelector('[data-stat="accuracy"]')
    if (stats.stats.bulletsHit > stats.stats.bulletsFired) {
      // The simulator's figures, like the real feed's: more hits than shots, accuracy 100 %.
      expect(await war.page.textContent('#note-accuracy')).toContain('more hits')
    } else expect(await war.page.isVisible('#note-accuracy')).toBe(false)
    const known = await visit(`/planet/${SEED.trackedPlanets[1]}`)
    await known.page.waitForSelector('#planet-now .stats, #planet-now .empty')
    expect(await known.page.textContent('#planet-now')).not.toContain('/planets/liberation')
    expect(await known.page.isVisible('#planet-outlook')).toBe(true)
    // An unknown planet: the route answers 404 naming the planet; the page says that, not "no route".
    const unknown = await visit('/planet/99999', pages.context, [], { apiErrors: true })
    await unknown.page.waitForSelector('#planet-now .empty')
    const text = (await unknown.page.textContent('#planet-now'))!
    expect(text).toContain('99999')
    expect(text).not.toContain('not available on this server')
    for (const v of [main, war, known, unknown]) {
      expect(v.problems).toEqual([])
      await v.page.close()
    }
  }, 60_000)

  it(named('fresh offline start: every page says what is true (no data, feeds down) and what to do, and claims nothing live'), async () => {
    const empty = await createScratchDatabase('pages_offline')
    const db = connect({ url: empty.url, max: 1 })
    await migrate(db)
    await db.end()
    const dead = 'http://127.0.0.1:9'
    const off = await startService({ DATABASE_URL: empty.url, UPSTREAM_URL: `${dead}/api`, COMMUNITY_API_URL: `${dead}/c`, PCSTORE_API_URL: `${dead}/p`, SCHEDULE_ENABLED: 'false' })
    try {
      const ctx = await pages.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, baseURL: off.baseUrl })
      // One tab, navigated to each page (a new tab costs a renderer process); `errors` are the current page's.
      const page = await ctx.newPage()
      let errors: string[] = []
      page.on('pageerror', (e) => errors.push(e.message))
      page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`))
      page.on('response', (r) => {
        // A server with nothing stored answers 404 (no war yet) and 503 (feed down) on some API routes: nothing else.
        if (r.status() >= 400 && !((r.status() === 404 || r.status() === 503) && new URL(r.url()).pathname.startsWith('/api/v1/'))) errors.push(`HTTP ${r.status()} ${r.url()}`)
      })
      for (const path of ['/', '/war', '/planet/125', '/dispatches']) {
        await page.goto('about:blank')
        errors = []
        await page.goto(`${off.baseUrl}${path}`)
        await page.waitForSelector('#data-state[data-state="empty"]')
        expect(await page.textContent('#data-state')).toContain('npm run demo')
        if (path === '/') {
          await page.waitForSelector('#live-age[data-state="down"]')
          await page.waitForSelector('#history .empty')
          await page.waitForSelector('#trends-empty')
        }
        if (path === '/war') {
          await page.waitForSelector('#campaigns-empty')
          await page.waitForSelector('#orders .empty')
          await page.waitForSelector('#planets .empty')
          await page.waitForSelector('#galaxy .empty.error')
          // The selects say they have nothing yet, and are labelled.
          expect(await page.textContent('#filter-sector')).toContain('No sectors yet')
        }
        if (path === '/planet/125') await page.waitForSelector('#planet-now .empty')
        await page.waitForTimeout(300)
        const text = (await page.textContent('main'))!
        expect(text).not.toMatch(/\blive\b[^.]*\bago\b|Data age: live|Data age \d/i)
        expect(await page.evaluate<number>('document.scrollingElement.scrollWidth')).toBeLessThanOrEqual(390)
        await screenshot(page, `offline-${path === '/' ? 'main' : path.split('/')[1]}-phone`)
        expect(errors).toEqual([])
      }
      await ctx.close()
    } finally {
      await off.stop()
      await empty.drop()
    }
  }, 90_000)

  it(named('screenshots of every page at 1366×900 and 390×844 (checked at 360 px too): no console error, no failed request, no overflow, no overlapping chart label'), async () => {
    await shoot('main', '/?range=7d', async (page) => {
      await page.waitForSelector('#divers-chart[data-range="7d"]:not([data-points="0"])')
      await page.waitForSelector('#peak-all')
    })
    // The war page is long: its top (campaigns), the map, and the planets.
    const warReady = async (page: Page) => {
      await page.waitForSelector('#planets-table tbody tr')
      await page.waitForSelector('#campaigns-list li.campaign')
      await page.waitForSelector('#orders-list li.order')
      await page.waitForSelector('#map-svg a.planet')
      await page.waitForSelector('[data-stat="missionsWon"]')
    }
    await shoot('war', '/war', warReady, { fullPage: false, views: ['orders', 'map', 'planets'] })
    // The 7-day view, drawn (its point count against the route is the planet-page test's;
    // here the count is only read again until it settles, since the window moves with the clock).
    await shoot('planet', `/planet/${SEED.trackedPlanets[1]}`, async (page) => {
      await page.waitForSelector('#planet-lib-chart:not([data-points="0"])')
      await page.click('button[data-hours="168"]')
      await page.waitForSelector('button[data-hours="168"][aria-pressed="true"]')
      for (let i = 0; i < 100; i++) {
        const week = (await api<{ points: unknown[] }>(`/planet/${SEED.trackedPlanets[1]}/history?hours=168`)).points.length
        if ((await page.getAttribute('#planet-lib-chart', 'data-points')) === String(week)) break
        await Bun.sleep(100)
      }
    })
    // A planet with a campaign (a defense when there is one): its card, world and charts.
    const fronts = (await api<{ items: CampaignItem[] }>('/campaigns')).items
    const front = fronts.find((c) => c.type === 'defense') ?? fronts[0]!
    await shoot('planet-campaign', `/planet/${front.planetIndex}`, async (page) => {
      await page.waitForSelector('#planet-campaign-card li.campaign')
      await page.waitForSelector('#planet-world dl')
      await page.waitForSelector('#planet-lib-chart:not([data-points="0"])')
    })
    await shoot('dispatches', '/dispatches', async (page) => {
      await page.waitForSelector('#dispatch-list li, #dispatch-list .empty')
    })
    if (SHOTS) for (const name of ['main', 'war', 'war-orders', 'war-map', 'war-planets', 'planet', 'planet-campaign', 'dispatches']) for (const w of ['desktop', 'phone']) expect(existsSync(join(SHOTS, `${name}-${w}.png`))).toBe(true)
  }, 240_000)
})
