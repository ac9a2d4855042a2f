/**
 * The dashboard pages in a real headless Chromium (Debian's `chromium`, driven by
 * playwright-core), against the real service process on TimescaleDB, fed by the simulator
 * through collector POSTs, with ten days of diver counts written beforehand so the five
 * ranges differ. The time to first chart is printed (BENCHMARKS.md).
 *
 * Screenshots of every page (desktop 1366×900, phone 390×844; each page is also checked at
 * 360 px):
 * - by default none is taken (encoding full-page PNGs is most of the browser's work here,
 *   and nobody looks at them): each page is still checked at every width (no overflow,
 *   no console error, no overlapping chart label);
 * - SCREENSHOT_DIR=screenshots keeps them in that folder (`screenshots/` at the repo root
 *   is git-ignored) to look at them;
 * - UPDATE_SCREENSHOTS=1 refreshes the committed ones in docs/screenshots/ (shown by the
 *   README and docs/pages.md), on purpose: a plain `npm test` never touches that folder.
 *
 * Skipped, with the reason in each test's name, only without Chromium (scripts/test.sh
 * installs it with apt when it can) or without a test database. Every API route the pages
 * read must be in the service's route table: a missing one fails its tests (it is not
 * skipped). The pages' fallback for a route a server lacks ("not available") is tested by
 * answering the browser's requests for those routes with the real service's 404.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { connect, type Sql } from '../../src/db/connect.ts'
import { DatabaseGate } from '../../src/db/gate.ts'
import { detectEdition } from '../../src/db/edition.ts'
import { migrate } from '../../src/db/migrate.ts'
import { createFeeds } from '../../src/feeds/index.ts'
import { PAGE_CSP } from '../../src/http/security.ts'
import { silentLogger } from '../../src/log.ts'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'
import { refreshRollups } from '../../src/storage/rollups.ts'
import { createScratchDatabase, TEST_DATABASE_URL } from '../support/db.ts'
import { startService, type ServiceProcess } from '../support/process.ts'
import { SEED, seedPlanetStatus, seedPlayerCounts } from '../support/seed.ts'

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
const SKIP =
  process.env.BROWSER_SKIP ||
  (existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (scripts/test.sh installs Debian's chromium with apt)`) ||
  (TEST_DATABASE_URL ? null : 'no TEST_DATABASE_URL')
const named = (name: string) => (SKIP ? `${name} (skipped: ${SKIP})` : name)
/** A browser test: skipped, with the reason in its name, without Chromium or a database. */
const it = SKIP ? test.skip : test
/** Where screenshots go: see the header (never docs/screenshots/ unless UPDATE_SCREENSHOTS=1). */
const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(import.meta.dir, '../../docs/screenshots') : process.env.SCREENSHOT_DIR || null
/** A full-page screenshot named `name`, when screenshots are kept (SHOTS). */
const screenshot = async (page: Page, name: string, fullPage = true) => {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage })
}

/**
 * The API routes the pages read (src/pages/client), issue 14's included. They must all be
 * in the service's route table, read from the app itself: a missing one fails the first
 * test, and the tests of its panel fail too.
 */
const PAGE_ROUTES = ['/divers/history', '/player-count', '/war', '/war-stats', '/planets', '/factions', '/planet/:planetId/history', '/historical-dispatches', '/major-orders', '/planets/liberation', '/war/trends', '/timeline', '/campaigns', '/campaigns/:campaignId/history'] as const
/** The derived routes (issues 14 and 25): the pages call them `optional` and show "not available" on a 404. */
const ISSUE_14 = ['/major-orders', '/planets/liberation', '/war/trends', '/timeline', '/campaigns'] as const
const config = loadConfig({ UPSTREAM_URL: 'http://127.0.0.1:9/api' })
const noDatabase = new Proxy({}, { get: () => { throw new Error('database used') } }) as unknown as Sql
const routeTable = new Set(
  buildApp({ config, db: { sql: noDatabase, gate: new DatabaseGate(null, silentLogger), info: { edition: 'postgres', timescaledbVersion: null, serverVersion: '', embedded: true } }, log: silentLogger, feeds: createFeeds(config) })
    .routes.filter((r) => r.method === 'GET')
    .map((r) => r.path),
)

interface Visit {
  page: Page
  /** Console errors, and requests that failed or answered >= 400, except the allowed 404s. */
  problems: string[]
}

describe('dashboard pages in headless Chromium', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>
  let sql: Sql
  let sim: Simulator
  let svc: ServiceProcess
  let browser: Browser
  let context: BrowserContext
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${svc.baseUrl}/api/v1${path}`)
    expect(res.status).toBe(200)
    return (await res.json()) as T
  }
  const post = async (collector: string) => expect((await fetch(`${svc.baseUrl}/api/v1/collect/${collector}`, { method: 'POST' })).status).toBe(200)

  /**
   * Open `path` in a new page of `ctx`. `withoutRoutes`: the browser's requests for these
   * API routes are answered with the service's own 404 for a path it does not have (a
   * server without them); those 404s, and only they, are not counted as problems.
   */
  async function visit(path: string, ctx = context, withoutRoutes: readonly string[] = [], opts: { apiErrors?: boolean } = {}): Promise<Visit> {
    const page = await ctx.newPage()
    const problems: string[] = []
    const removed = new Set(withoutRoutes.map((r) => `/api/v1${r}`))
    // apiErrors: a server with no data answers some API routes 404 (no war yet) or 503 (feed down): expected there.
    const allowedAbsent = (url: string, status: number) => (status === 404 && removed.has(new URL(url).pathname)) || (!!opts.apiErrors && (status === 404 || status === 503) && new URL(url).pathname.startsWith('/api/v1/'))
    if (removed.size > 0) {
      await page.route(
        (url) => removed.has(url.pathname),
        async (route) => route.fulfill({ response: await route.fetch({ url: `${svc.baseUrl}/api/v1/no-such-route` }) }),
      )
    }
    page.on('console', (msg) => {
      if (msg.type() !== 'error') return
      const at = msg.location().url
      const status = /status of (\d+)/.exec(msg.text())?.[1]
      if (status && at && allowedAbsent(at, Number(status))) return
      problems.push(`console: ${msg.text()} (${at})`)
    })
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`))
    page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`))
    page.on('response', (res) => {
      if (res.status() >= 400 && !allowedAbsent(res.url(), res.status())) problems.push(`HTTP ${res.status()}: ${res.url()}`)
    })
    const res = await page.goto(`${svc.baseUrl}${path}`)
    expect(res?.status()).toBe(200)
    expect(res?.headers()['content-security-policy']).toBe(PAGE_CSP)
    return { page, problems }
  }

  /**
   * Every chart of the page: its text labels (peak, low, event names) inside the plot and
   * no two overlapping; each value axis without two equal labels.
   */
  const checkCharts = async (page: Page, where: string) => {
    const charts = await page.$$eval('.chart:not([hidden])', (els) =>
      els.map((el) => ({
        id: el.id,
        boxes: JSON.parse(el.getAttribute('data-label-boxes') ?? '[]') as number[][],
        plot: JSON.parse(el.getAttribute('data-plot-box') ?? 'null') as number[] | null,
        axes: [...el.attributes].filter((a) => a.name.startsWith('data-axis-')).map((a) => JSON.parse(a.value) as string[]),
      })),
    )
    for (const c of charts) {
      const label = `${where} #${c.id}`
      for (const [i, a] of c.boxes.entries()) {
        const [x, y, w, hh] = a as [number, number, number, number]
        const [l, t, pw, ph] = c.plot as [number, number, number, number]
        expect({ label, inside: x >= l - 0.5 && y >= t - 0.5 && x + w <= l + pw + 0.5 && y + hh <= t + ph + 0.5 }).toEqual({ label, inside: true })
        for (const b of c.boxes.slice(i + 1)) {
          const [bx, by, bw, bh] = b as [number, number, number, number]
          expect({ label, overlap: x < bx + bw && bx < x + w && y < by + bh && by < y + hh }).toEqual({ label, overlap: false })
        }
      }
      for (const axis of c.axes) expect({ label, axis }).toEqual({ label, axis: [...new Set(axis)] })
    }
    return charts.length
  }

  const shoot = async (name: string, path: string, prepare: (page: Page) => Promise<void>, fullPage = true) => {
    for (const [label, width, height] of [
      ['desktop', 1366, 900],
      ['phone', 390, 844],
      ['phone-360', 360, 780],
    ] as const) {
      const ctx = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1, hasTouch: width < 500 })
      const { page, problems } = await visit(path, ctx)
      await prepare(page)
      // Works at 360 px: nothing wider than the screen but what scrolls in its own box (tables, the zoomed map).
      const wide = await page.evaluate<string[]>(`[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > ${width} + 0.5 && !(e.parentElement && e.parentElement.closest('.scroll, .map-view'))).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`)
      expect(wide).toEqual([])
      expect(await page.evaluate<number>('document.scrollingElement.scrollWidth')).toBeLessThanOrEqual(width)
      await checkCharts(page, `${name} at ${width} px`)
      // The 360-px pass is a check only; the committed screenshots are the desktop and phone ones.
      if (label !== 'phone-360') await screenshot(page, `${name}-${label}`, fullPage)
      expect(problems).toEqual([])
      await ctx.close()
    }
  }

  beforeAll(async () => {
    if (SKIP) return
    if (SHOTS) mkdirSync(SHOTS, { recursive: true })
    scratch = await createScratchDatabase('pages_browser')
    sql = connect({ url: scratch.url, max: 2 })
    await migrate(sql)
    // Ten days of upstream counts (and 120 of store counts) ending a minute ago: the ranges
    // then have different bucket counts. The live POSTs below come after them.
    const seeded = new Date(Date.now() - 60_000)
    await seedPlayerCounts(sql, seeded)
    // A month of 5-minute status ticks of a few planets (their owner in the history may
    // differ from the simulator's: an owner change for the planet page to mark).
    await seedPlanetStatus(sql, seeded)
    await refreshRollups(sql, (await detectEdition(sql)).edition, seeded)
    sim = startSimulator({ port: 0, seed: 15, speed: 1 })
    svc = await startService({
      DATABASE_URL: scratch.url,
      UPSTREAM_URL: sim.upstreamUrl,
      COMMUNITY_API_URL: sim.communityUrl,
      PCSTORE_API_URL: sim.pcstoreUrl,
      SCHEDULE_ENABLED: 'false',
    })
    await post('war-info')
    await post('full-status')
    await post('player-count')
    await post('planet-stats')
    await post('full-status')
    await post('player-count')
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await svc?.stop()
    await sim?.stop()
    await sql?.end()
    await scratch?.drop()
  })

  it(named('every API route the pages read is in the service (a missing one fails, it is not skipped)'), () => {
    expect(PAGE_ROUTES.filter((r) => !routeTable.has(`/api/v1${r}`))).toEqual([])
    for (const page of ['/', '/war', '/planet/:planetId', '/dispatches']) expect(routeTable.has(page)).toBe(true)
    // The pages' data-state line reads how much history the server holds there.
    expect(routeTable.has('/health/ready')).toBe(true)
  })

  it(named('every page answers with the page CSP (self only) and the security headers; assets are served from here'), async () => {
    for (const path of ['/', '/war', '/planet/1', '/dispatches']) {
      const res = await fetch(`${svc.baseUrl}${path}`)
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

  it(named('war page: every planet of /war, with the same liberation %; filters and sorting work; galaxy stats shown'), async () => {
    const war = await api<{ planets: { indexID: number; owner: number; health: number; maxHealth: number; players: number; sectorName: string | null; planetName: string }[] }>('/war')
    expect(war.planets.length).toBeGreaterThan(0)
    const { page, problems } = await visit('/war')
    await page.waitForSelector('#planets-table tbody tr')
    await page.waitForSelector('[data-stat="missionsWon"]')
    // The first 50 planets are listed, the rest behind "Show all".
    expect(await page.locator('#planets-table tbody tr').count()).toBe(Math.min(50, war.planets.length))
    if (war.planets.length > 50) await page.click('#planets-more')
    await page.waitForSelector(`#planets-table tbody tr:nth-child(${war.planets.length})`)
    const rows = await page.$$eval('#planets-table tbody tr', (trs) => trs.map((tr) => ({ id: Number(tr.getAttribute('data-planet')), lib: Number(tr.getAttribute('data-lib-pct')), text: tr.querySelector('.lib')!.textContent })))
    const expected = new Map(
      war.planets.map((p) => {
        const raw = p.maxHealth <= 0 ? 0 : p.owner === 1 ? (p.health / p.maxHealth) * 100 : ((p.maxHealth - p.health) / p.maxHealth) * 100
        return [p.indexID, Math.round(raw * 10_000) / 10_000]
      }),
    )
    expect(rows.map((r) => r.id).sort((a, b) => a - b)).toEqual([...expected.keys()].sort((a, b) => a - b))
    for (const r of rows) {
      expect(r.lib).toBe(expected.get(r.id)!)
      expect(r.text).toBe(`${expected.get(r.id)!.toFixed(1)} %`)
    }
    // Default order: players, most first.
    const players = new Map(war.planets.map((p) => [p.indexID, p.players]))
    const shownPlayers = rows.map((r) => players.get(r.id)!)
    expect(shownPlayers).toEqual([...shownPlayers].sort((a, b) => b - a))
    // Sort by name.
    await page.click('button[data-sort="name"]')
    const byName = await page.$$eval('#planets-table tbody tr td:first-child a', (as) => as.map((a) => a.textContent!))
    expect(byName).toEqual([...byName].sort((a, b) => a.localeCompare(b)))
    // Filter by sector, then by name.
    const sector = war.planets.find((p) => p.sectorName)!.sectorName!
    await page.selectOption('#filter-sector', sector)
    const inSector = await page.$$eval('#planets-table tbody tr', (trs) => trs.map((tr) => Number(tr.getAttribute('data-planet'))))
    expect(inSector.sort((a, b) => a - b)).toEqual(war.planets.filter((p) => p.sectorName === sector).map((p) => p.indexID).sort((a, b) => a - b))
    await page.selectOption('#filter-sector', '')
    const name = war.planets[0]!.planetName
    await page.fill('#filter-name', name.toLowerCase())
    const byNameFilter = await page.$$eval('#planets-table tbody tr', (trs) => trs.map((tr) => Number(tr.getAttribute('data-planet'))))
    expect(byNameFilter).toEqual(war.planets.filter((p) => p.planetName.toLowerCase().includes(name.toLowerCase())).map((p) => p.indexID).sort((a, b) => byNameFilter.indexOf(a) - byNameFilter.indexOf(b)))
    expect(byNameFilter).toContain(war.planets[0]!.indexID)
    expect(problems).toEqual([])
  }, 60_000)

  it(named('war page polls /war-stats every 10 s (on the fake clock of the page: no wall-time wait)'), async () => {
    // Playwright's clock drives the page's timers and Date; a pass-through wrapper of fetch
    // notes the page's clock at each /war-stats request (synchronously, in the page).
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    await ctx.addInitScript(`{
      const fetch0 = window.fetch.bind(window)
      window.__warStatsAt = []
      window.fetch = (input, init) => {
        if (String(input).split('?')[0] === '/api/v1/war-stats') window.__warStatsAt.push(Date.now())
        return fetch0(input, init)
      }
    }`)
    await ctx.clock.install()
    const { page, problems } = await visit('/war', ctx)
    const at = () => page.evaluate<number[]>('window.__warStatsAt')
    // The first poll, at load, has been drawn.
    await page.waitForSelector('#galaxy [data-stat="missionsWon"]')
    // With the page's problems: a failure shows what else happened.
    const polls = async () => ({ polls: (await at()).length, problems })
    expect(await polls()).toEqual({ polls: 1, problems: [] })
    // Paused soon after the first poll (the page's load can take a while on a busy machine:
    // never in its past; the clock runs on while the time is read, so again if it passed it).
    for (let margin = 250; ; margin *= 2) {
      const target = Math.max((await at())[0]! + 1_000, (await page.evaluate<number>('Date.now()')) + margin)
      const paused = await page.clock.pauseAt(target).then(() => true, (e: Error) => {
        if (!/past/.test(e.message) || margin > 4_000) throw e
        return false
      })
      if (paused) break
    }
    for (let n = 1; n <= 3; n++) {
      // Mark the drawn stats; the next poll replaces them.
      await page.evaluate(`document.querySelector('#galaxy .stats').setAttribute('data-seen', '')`)
      const first = (await at())[0]!
      await page.clock.runFor(first + n * 10_000 - 1 - (await page.evaluate<number>('Date.now()')))
      expect(await polls()).toEqual({ polls: n, problems: [] }) // not before 10 s
      await page.clock.runFor(1)
      expect(await polls()).toEqual({ polls: n + 1, problems: [] }) // at 10 s
      await page.waitForSelector('#galaxy .stats:not([data-seen]) [data-stat="missionsWon"]')
    }
    const times = await at()
    expect(times.slice(1).map((t, i) => t - times[i]!)).toEqual([10_000, 10_000, 10_000])
    expect(problems).toEqual([])
    await ctx.close()
  }, 60_000)

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

  it(named('pages read in light and dark (prefers-color-scheme)'), async () => {
    const colors: string[] = []
    for (const colorScheme of ['light', 'dark'] as const) {
      const ctx = await browser.newContext({ colorScheme })
      const { page } = await visit('/', ctx)
      colors.push(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor + "/" + getComputedStyle(document.body).color'))
      await ctx.close()
    }
    expect(colors[0]).not.toBe(colors[1])
  })

  it(
    named(`panels of issue 14's routes say "not available" on a server without them (${ISSUE_14.join(', ')} answered 404)`),
    async () => {
      const main = await visit('/', context, ISSUE_14)
      await main.page.waitForSelector('#divers-chart:not([data-points="0"])')
      await main.page.locator('#trends .empty.absent', { hasText: 'not available' }).waitFor()
      await main.page.locator('#history .hint, #history .empty', { hasText: 'not available' }).waitFor()
      expect(main.problems).toEqual([])
      const war = await visit('/war', context, ISSUE_14)
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

  it(named('war page: the MO panel matches /major-orders (status, N of M tasks)'), async () => {
    const orders = await api<{ items: { orderId32: number; status: string; tasksDone: number; tasksTotal: number }[] }>('/major-orders?limit=10')
    const { page, problems } = await visit('/war')
    if (orders.items.length === 0) await page.waitForSelector('#orders .empty')
    else {
      await page.waitForSelector('#orders-list li.order')
      const shown = await page.$$eval('#orders-list li.order', (lis) =>
        lis.map((li) => ({ id: Number(li.getAttribute('data-order')), status: li.querySelector('.badge')!.getAttribute('data-status'), tasks: li.querySelector('.tasks-count')!.textContent })),
      )
      expect(shown).toEqual(orders.items.map((o) => ({ id: o.orderId32, status: o.status, tasks: `${o.tasksDone} of ${o.tasksTotal} tasks` })))
    }
    expect(problems).toEqual([])
  })

  it(named('war page: rate and ETA of /planets/liberation in the planet rows'), async () => {
    const lib = await api<{ items: { planetIndex: number; ratePctPerHour: number | null }[] }>('/planets/liberation')
    const { page, problems } = await visit('/war')
    await page.waitForSelector('#planets-table tbody tr')
    await page.locator('#planets-summary', { hasText: 'Rates over' }).waitFor()
    if (await page.isVisible('#planets-more')) await page.click('#planets-more')
    for (const l of lib.items.slice(0, 10)) {
      const rate = await page.textContent(`#planets-table tr[data-planet="${l.planetIndex}"] td:nth-child(6)`)
      expect(rate).toBe(l.ratePctPerHour === null ? '–' : `${l.ratePctPerHour > 0 ? '+' : ''}${l.ratePctPerHour.toFixed(2)} %`)
    }
    expect(problems).toEqual([])
  })

  it(named('main page: the trend deltas of /war/trends'), async () => {
    const { page, problems } = await visit('/')
    await page.waitForSelector('#trends-table, #trends .empty')
    expect(await page.textContent('#trends')).not.toContain('not available')
    expect(problems).toEqual([])
  })

  it(named('main page: timeline events are drawn on the chart'), async () => {
    const events = await api<{ items: unknown[] }>(`/timeline?limit=200&from=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}`)
    const { page, problems } = await visit('/')
    await page.waitForSelector('#divers-chart:not([data-points="0"])')
    expect(Number(await page.getAttribute('#divers-chart', 'data-lines'))).toBe(events.items.length)
    expect(problems).toEqual([])
  })

  type CampaignItem = { campaignId: number; planetIndex: number; planetName: string; type: string; deadline: string | null; progressPct: number | null; players: number | null }

  it(named('war page: the campaigns of /campaigns come first, each with its bar; a defense with its live countdown and outlook'), async () => {
    const answer = await api<{ items: CampaignItem[] }>('/campaigns')
    expect(answer.items.length).toBeGreaterThan(0)
    const defenses = answer.items.filter((c) => c.type === 'defense')
    // The simulator's war opens with defenses: the countdown is tested on one.
    expect(defenses.length).toBeGreaterThan(0)
    const { page, problems } = await visit('/war')
    await page.waitForSelector('#campaigns-list li.campaign')
    // Above everything else on the page (the data-state line aside).
    expect(await page.evaluate<string>("[...document.querySelectorAll('main > section.card')][0].id")).toBe('campaigns')
    const shown = await page.$$eval('#campaigns-list li.campaign', (lis) => lis.map((li) => ({ planet: Number(li.getAttribute('data-planet')), type: li.getAttribute('data-type'), bar: !!li.querySelector('.bar .fill'), pct: li.querySelector('.c-pct')!.textContent })))
    expect(shown.map((c) => c.planet).sort((a, b) => a - b)).toEqual(answer.items.map((c) => c.planetIndex).sort((a, b) => a - b))
    for (const c of shown) expect(c.bar).toBe(true)
    // Defenses first.
    expect(shown.slice(0, defenses.length).every((c) => c.type === 'defense')).toBe(true)
    for (const d of defenses) {
      const card = page.locator(`#campaigns-list li.campaign[data-planet="${d.planetIndex}"]`)
      const clock = card.locator('.countdown')
      expect(await clock.getAttribute('data-until')).toBe(d.deadline)
      expect(await card.locator('.outlook').textContent()).toMatch(/\w/)
      if (Date.parse(d.deadline!) - Date.now() > 5_000) {
        const before = await clock.textContent()
        expect(before).toMatch(/^ends in (\d+ d )?\d+:\d\d:\d\d$/)
        // The countdown ticks (the page's CSP forbids string evaluation: a function, typed loosely).
        await page.waitForFunction((a: { sel: string; text: string | null }) => (globalThis as any).document.querySelector(a.sel)?.textContent !== a.text, { sel: `#campaigns-list li.campaign[data-planet="${d.planetIndex}"] .countdown`, text: before })
      } else expect(await clock.textContent()).toMatch(/ends in|ended/)
    }
    expect(problems).toEqual([])
  })

  it(named('war page: each major order in words: tasks with their descriptions and planets, progress, projection, reward, countdown'), async () => {
    type Task = { description: string; progressPct: number; targets: { planetIndex: number; name: string }[] }
    const orders = await api<{ items: { orderId32: number; status: string; expiresAt: string; tasks: Task[]; rewards: { amount: number; kind: string }[] }[] }>('/major-orders?limit=10')
    expect(orders.items.length).toBeGreaterThan(0)
    const { page, problems } = await visit('/war')
    await page.waitForSelector('#orders-list li.order')
    for (const o of orders.items) {
      const card = page.locator(`#orders-list li.order[data-order="${o.orderId32}"]`)
      const words = await card.locator('.task-words').allTextContents()
      expect(words.length).toBe(o.tasks.length)
      o.tasks.forEach((t, i) => expect(words[i]).toContain(t.description))
      for (const t of o.tasks) for (const target of t.targets) expect(await card.locator(`.task-words a[href="/planet/${target.planetIndex}"]`).count()).toBeGreaterThan(0)
      const pcts = await card.locator('.task-pct').allTextContents()
      o.tasks.forEach((t, i) => expect(pcts[i]).toBe(`${t.progressPct.toFixed(t.progressPct > 0 && t.progressPct < 10 ? 2 : 1)} %`))
      expect((await card.locator('.task-proj').allTextContents()).every((p) => p.length > 3)).toBe(true)
      const medals = o.rewards.filter((r) => r.kind === 'medals')
      for (const r of medals) expect(await card.locator('.reward').textContent()).toContain(`${r.amount.toLocaleString('en-US')} medal`)
      if (o.status === 'active') expect(await card.locator('.countdown').getAttribute('data-until')).toBe(o.expiresAt)
      // The bars are visible: a real height and a filled part of the progress' width.
      const bar = await card.locator('.task .bar').first().boundingBox()
      expect(bar!.height).toBeGreaterThanOrEqual(10)
    }
    expect(problems).toEqual([])
  })

  it(named('war page: the galaxy map draws one element per planet of /war and the attack lines of /campaigns; hovering shows its state; a click opens its page'), async () => {
    const war = await api<{ planets: { indexID: number; planetName: string }[] }>('/war')
    const campaigns = await api<{ items: CampaignItem[]; attacks: { source: number; target: number }[] }>('/campaigns')
    const { page, problems } = await visit('/war')
    await page.waitForSelector('#map-svg a.planet.campaign')
    const drawn = await page.$$eval('#map-svg a.planet', (as) => as.map((a) => Number(a.getAttribute('data-planet'))))
    expect(drawn.sort((a, b) => a - b)).toEqual(war.planets.map((p) => p.indexID).sort((a, b) => a - b))
    expect(await page.locator('#map-svg a.planet.campaign').count()).toBe(campaigns.items.length)
    expect(await page.locator('#map-svg line.lane').count()).toBeGreaterThan(0)
    // Every attack line of /campaigns between two drawn planets, as an arrow.
    const known = new Set(drawn)
    expect(campaigns.attacks.length).toBeGreaterThan(0)
    expect(await page.locator('#map-svg line.attack').count()).toBe(campaigns.attacks.filter((a) => known.has(a.source) && known.has(a.target)).length)
    const target = campaigns.items[0]!
    const planet = page.locator(`#map-svg a.planet[data-planet="${target.planetIndex}"]`)
    await planet.hover()
    await page.locator('#map-tip', { hasText: target.planetName }).waitFor()
    await planet.click()
    await page.waitForURL(`**/planet/${target.planetIndex}`)
    await page.locator('h1', { hasText: target.planetName }).waitFor()
    expect(problems).toEqual([])
  })

  it(named('war page on a phone (390×844, and 360 px): no horizontal overflow, every important column of the planets visible, owners whole'), async () => {
    for (const [width, height] of [[390, 844], [360, 780]] as const) {
      const ctx = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1, hasTouch: true })
      const { page, problems } = await visit('/war', ctx)
      await page.waitForSelector('#planets-table tbody tr')
      await page.waitForSelector('#campaigns-list li.campaign')
      await page.waitForSelector('#map-svg a.planet.campaign')
      expect(await page.evaluate<number>('document.scrollingElement.scrollWidth')).toBeLessThanOrEqual(await page.evaluate<number>('innerWidth'))
      // The list does not scroll sideways in its box either.
      expect(await page.$eval('#planets-table', (t) => t.parentElement!.scrollWidth <= t.parentElement!.clientWidth)).toBe(true)
      const cells = await page.evaluate<{ cls: string; visible: boolean; whole: boolean }[]>(`[...document.querySelectorAll('#planets-table tbody tr')].slice(0, 12).flatMap((tr) =>
        ['c-name', 'c-owner', 'c-lib', 'c-players', 'c-rate', 'c-eta'].map((cls) => {
          const td = tr.querySelector('.' + cls)
          const r = td.getBoundingClientRect()
          return { cls, visible: r.width > 0 && r.height > 0 && getComputedStyle(td).display !== 'none' && r.left >= 0 && r.right <= innerWidth, whole: td.scrollWidth <= td.clientWidth + 1 }
        }))`)
      expect(cells.filter((c) => !c.visible || !c.whole)).toEqual([])
      // The filters are labelled and filled.
      for (const id of ['filter-name', 'filter-sector', 'filter-faction', 'filter-show', 'sort-by']) {
        expect(await page.evaluate<string>(`document.getElementById('${id}').labels?.[0]?.textContent?.trim() ?? ''`)).not.toBe('')
      }
      expect(await page.locator('#filter-sector option').count()).toBeGreaterThan(1)
      expect(await page.locator('#filter-faction option').count()).toBeGreaterThan(1)
      // A tap shows the planet's state; a second tap opens its page.
      const c = (await api<{ items: CampaignItem[] }>('/campaigns')).items[0]!
      await page.tap(`#map-svg a.planet[data-planet="${c.planetIndex}"]`)
      await page.locator('#map-tip.pinned', { hasText: c.planetName }).waitFor()
      expect(new URL(page.url()).pathname).toBe('/war')
      await page.tap(`#map-svg a.planet[data-planet="${c.planetIndex}"]`)
      await page.waitForURL(`**/planet/${c.planetIndex}`)
      expect(problems).toEqual([])
      await ctx.close()
    }
  }, 60_000)

  it(named('keyboard: every control of the war page is reachable with Tab and labelled'), async () => {
    const { page, problems } = await visit('/war')
    await page.waitForSelector('#planets-table tbody tr')
    await page.waitForSelector('#campaigns-list li.campaign')
    await page.waitForSelector('#map-svg a.planet.campaign')
    const unlabelled = await page.evaluate<string[]>(`[...document.querySelectorAll('main button, main select, main input')]
      .filter((el) => el.offsetParent !== null)
      .filter((el) => {
        const name = (el.labels && el.labels.length ? el.labels[0].textContent : '') || el.getAttribute('aria-label') || (el.tagName === 'BUTTON' ? el.textContent : '')
        return !name.trim() || el.tabIndex < 0
      })
      .map((el) => el.outerHTML.slice(0, 80))`)
    expect(unlabelled).toEqual([])
    const reached = new Set<string>()
    for (let i = 0; i < 200 && !reached.has('filter-show'); i++) {
      await page.keyboard.press('Tab')
      reached.add(await page.evaluate<string>('document.activeElement?.id || document.activeElement?.getAttribute("data-zoom") || ""'))
    }
    for (const id of ['1', '2', '4', 'filter-name', 'filter-sector', 'filter-faction', 'filter-show']) expect([...reached]).toContain(id)
    // A campaign planet of the map is a tab stop too: its state shows when it has focus.
    await page.focus('#map-svg a.planet.campaign')
    await page.waitForSelector('#map-tip:not([hidden])')
    expect(problems).toEqual([])
  }, 60_000)

  it(named('charts: peak and low labels never overlap and stay in the plot, axis labels never repeat (every range, 1366 and 360 px)'), async () => {
    for (const width of [1366, 360]) {
      const ctx = await browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: 1 })
      const { page, problems } = await visit('/', ctx)
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
      const planet = await visit(`/planet/${SEED.trackedPlanets[1]}`, ctx)
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
      await ctx.close()
    }
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
    const unknown = await visit('/planet/99999', context, [], { apiErrors: true })
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
      const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, baseURL: off.baseUrl })
      for (const path of ['/', '/war', '/planet/125', '/dispatches']) {
        const page = await ctx.newPage()
        const errors: string[] = []
        page.on('pageerror', (e) => errors.push(e.message))
        page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`))
        page.on('response', (r) => {
          // A server with nothing stored answers 404 (no war yet) and 503 (feed down) on some API routes: nothing else.
          if (r.status() >= 400 && !((r.status() === 404 || r.status() === 503) && new URL(r.url()).pathname.startsWith('/api/v1/'))) errors.push(`HTTP ${r.status()} ${r.url()}`)
        })
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
        await page.close()
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
    await shoot('war', '/war', warReady, false)
    for (const part of ['orders', 'map', 'planets']) {
      await shoot(`war-${part}`, '/war', async (page) => {
        await warReady(page)
        await page.evaluate(`document.getElementById('${part}').scrollIntoView()`)
      }, false)
    }
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

  it(named('time to first chart on loopback (printed; BENCHMARKS.md)'), async () => {
    const times: number[] = []
    for (let i = 0; i < 7; i++) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } })
      const { page, problems } = await visit('/', ctx)
      // The page marks its first draw with data (src/pages/client/chart.ts).
      await page.waitForFunction(() => performance.getEntriesByName('first-chart').length > 0)
      const ms = await page.evaluate<number>("performance.getEntriesByName('first-chart')[0].startTime")
      times.push(ms)
      expect(problems).toEqual([])
      await ctx.close()
    }
    times.sort((a, b) => a - b)
    console.log(`time to first chart (navigation start → first draw with data, 7 fresh loads): median ${times[3]!.toFixed(0)} ms, min ${times[0]!.toFixed(0)} ms, max ${times[6]!.toFixed(0)} ms`)
    expect(times[3]).toBeLessThan(10_000)
  }, 120_000)
})
