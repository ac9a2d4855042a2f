/**
 * What the page tests (test/pages/*-page*.test.ts, every-page.test.ts) stand on: a real
 * headless Chromium (Debian's `chromium`, driven by playwright-core) against the real
 * service process on a TimescaleDB scratch database, fed by the simulator through
 * collector POSTs, with ten days of diver counts and a month of planet ticks written
 * beforehand so the ranges differ (one planet contested all month: more war events than a
 * chart draws). Each page test file has its own service and browser
 * (usePagesService), so the files run side by side.
 *
 * Screenshots (desktop 1366×900, phone 390×844; each page is also checked at 360 px):
 * - by default none is taken (encoding full-page PNGs is most of the browser's work, and
 *   nobody looks at them): each page is still checked at every width (no overflow, no
 *   console error, no overlapping chart label);
 * - SCREENSHOT_DIR=screenshots keeps them in that folder (`screenshots/` at the repo root
 *   is git-ignored) to look at them;
 * - UPDATE_SCREENSHOTS=1 refreshes the committed ones in docs/screenshots/ (shown by the
 *   README and docs/pages.md), on purpose: a plain `npm test` never touches that folder.
 *
 * Skipped, with the reason in each test's name, only without Chromium (scripts/test.sh
 * installs it with apt when it can) or without a test database. Every API route the pages
 * read must be in the service's route table: a missing one fails (every-page.test.ts), it
 * is not skipped.
 */
import { afterAll, afterEach, beforeAll, expect, test } from 'bun:test'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, type BrowserContext, chromium, type Page, type Request } from 'playwright-core'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { connect, type Sql } from '../../src/db/connect.ts'
import { detectEdition } from '../../src/db/edition.ts'
import { DatabaseGate } from '../../src/db/gate.ts'
import { migrate } from '../../src/db/migrate.ts'
import { createFeeds } from '../../src/feeds/index.ts'
import { PAGE_CSP } from '../../src/http/security.ts'
import { silentLogger } from '../../src/log.ts'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'
import { refreshRollups } from '../../src/storage/rollups.ts'
import { createScratchDatabase, TEST_DATABASE_URL } from './db.ts'
import { startService, type ServiceProcess } from './process.ts'
import { SEED, seedPlanetStatus, seedPlayerCounts, type PlanetRowAt } from './seed.ts'

export { PAGE_CSP }
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
const SKIP =
  process.env.BROWSER_SKIP ||
  (existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (scripts/test.sh installs Debian's chromium with apt)`) ||
  (TEST_DATABASE_URL ? null : 'no TEST_DATABASE_URL')
/** A browser test's name, with the reason when it is skipped. */
export const named = (name: string) => (SKIP ? `${name} (skipped: ${SKIP})` : name)
/** A browser test: skipped, with the reason in its name, without Chromium or a database. */
export const it = SKIP ? test.skip : test
/** Where screenshots go: see the header (never docs/screenshots/ unless UPDATE_SCREENSHOTS=1). */
export const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(import.meta.dir, '../../docs/screenshots') : process.env.SCREENSHOT_DIR || null
/** A screenshot named `name`, when screenshots are kept (SHOTS). */
export const screenshot = async (page: Page, name: string, fullPage = true) => {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage })
}

/**
 * The API routes the pages read (src/pages/client). They must all be in the service's
 * route table, read from the app itself: a missing one fails every-page.test.ts, and the
 * tests of its panel fail too.
 */
export const PAGE_ROUTES = ['/divers/history', '/player-count', '/war', '/war-stats', '/planets', '/factions', '/planet/:planetId/history', '/historical-dispatches', '/major-orders', '/planets/liberation', '/war/trends', '/timeline', '/campaigns', '/campaigns/:campaignId/history'] as const
/** The derived routes: the pages call them `optional` and show "not available" on a 404. */
export const DERIVED_ROUTES = ['/major-orders', '/planets/liberation', '/war/trends', '/timeline', '/campaigns'] as const
const noDatabase = new Proxy({}, { get: () => { throw new Error('database used') } }) as unknown as Sql
/** The GET paths of the service's route table (built without a database). */
export function routeTable(): Set<string> {
  const config = loadConfig({ UPSTREAM_URL: 'http://127.0.0.1:9/api' })
  const app = buildApp({ config, db: { sql: noDatabase, gate: new DatabaseGate(null, silentLogger), info: { edition: 'postgres', timescaledbVersion: null, serverVersion: '', embedded: true } }, log: silentLogger, feeds: createFeeds(config) })
  return new Set(app.routes.filter((r) => r.method === 'GET').map((r) => r.path))
}

export type CampaignItem = { campaignId: number; planetIndex: number; planetName: string; type: string; deadline: string | null; progressPct: number | null; players: number | null }

export interface Visit {
  page: Page
  /** Console errors, and requests that failed or answered >= 400, except the allowed 404s. */
  problems: string[]
}

export interface VisitOptions {
  /** A server with no data answers some API routes 404 (no war yet) or 503 (feed down): expected there. */
  apiErrors?: boolean
  viewport?: { width: number; height: number }
  /** In the shared phone context (touch events, a coarse pointer) instead of `ctx`. */
  touch?: boolean
}

export interface PagesService {
  readonly svc: ServiceProcess
  readonly browser: Browser
  /** A 1280×900 context; the pages visit() opens in it are closed after each test. */
  readonly context: BrowserContext
  /** GET /api/v1`path`, expected 200, its JSON. */
  api<T>(path: string): Promise<T>
  /** POST a collector route, expected 200. */
  post(collector: string): Promise<void>
  /**
   * Open `path` in a tab of `ctx` (default: the shared context; `touch`: a shared phone
   * context with touch), sized to `viewport` first when given. Tabs are reused: a tab a
   * test opened goes back to its context's free tabs after the test (or at once with
   * `release`), and the next visit navigates it. Opening a new tab costs a new renderer
   * process, several times the CPU of navigating one. `withoutRoutes`: the browser's requests
   * for these API routes are answered with the service's own 404 for a path it does not
   * have (a server without them); those 404s, and only they, are not counted as problems.
   */
  visit(path: string, ctx?: BrowserContext, withoutRoutes?: readonly string[], opts?: VisitOptions): Promise<Visit>
  /** Give a visited tab back (blanked) for the next visit before the test ends. */
  release(page: Page): Promise<void>
  /**
   * Every chart of the page: its text labels (peak, low, event names) inside the plot and
   * no two overlapping; each value axis without two equal labels. Returns how many.
   */
  checkCharts(page: Page, where: string): Promise<number>
  /**
   * `path` at 1366, 390 and 360 px (the phone widths in the shared touch context), each
   * visited after `prepare`: nothing wider than the screen (but what scrolls in its own
   * box), the charts checked, no problem; a screenshot `name-desktop` and `name-phone`
   * when they are kept. `views`: parts of the
   * page (element ids) scrolled into view and shot as `name-<id>-…` in the same load.
   */
  shoot(name: string, path: string, prepare: (page: Page) => Promise<void>, o?: { fullPage?: boolean; views?: readonly string[] }): Promise<void>
}

/**
 * A planet of war 801 contested all the seeded month: its owner flips between the players
 * and the Terminids every `everySeconds`, so /timeline holds an owner change each time:
 * over 200 war events (the most a chart draws) in the 30-day and longer ranges, fewer in
 * 24 h and 7 days.
 */
export const CONTESTED = { planet: 3, everySeconds: 6000 } as const

/** The contested planet's rows at the seeded ticks (seedPlanetStatus writes them with the others). */
async function contestedRows(sql: Sql, now: Date): Promise<PlanetRowAt[]> {
  return [...(await sql<PlanetRowAt[]>`
    SELECT ${now}::timestamptz - make_interval(secs => g + 3) AS at, ${CONTESTED.planet}::int AS planet_index,
           CASE WHEN (g / ${CONTESTED.everySeconds}::int) % 2 = 0 THEN 1 ELSE 2 END AS owner, 500000 AS health, 1.25::float8 AS regen_per_second, 300 AS players
    FROM generate_series(0, ${SEED.planetStatusDays * 86_400}::int, 300) AS g`)]
}

/**
 * The service, simulator and browser of one page test file, started in its beforeAll and
 * stopped in its afterAll (call at the top of a describe). Seeded history: ten days of
 * upstream diver counts and 120 of store counts, a month of 5-minute ticks of a few planets
 * (their owner in the history may differ from the simulator's: an owner change for the
 * planet page to mark), a contested planet (CONTESTED), then two rounds of the live
 * collectors.
 */
export function usePagesService(): PagesService {
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
  const post = async (collector: string) => {
    expect((await fetch(`${svc.baseUrl}/api/v1/collect/${collector}`, { method: 'POST' })).status).toBe(200)
  }

  /** A visit as its tab holds it: its problems, and the error answers it expects. */
  type Held = { problems: string[]; allowedAbsent: (url: string, status: number) => boolean }
  /** Free tabs per context; the tabs of the current test; each tab's current visit. */
  const free = new Map<BrowserContext, Page[]>()
  const taken: Page[] = []
  const visits = new WeakMap<Page, Held>()
  let touch: BrowserContext | undefined
  /** The size each tab was made with (its context's). */
  const sizes = new WeakMap<Page, { width: number; height: number }>()

  /** A new tab of `ctx`, its problems reported to whichever visit it holds. */
  async function newTab(ctx: BrowserContext): Promise<Page> {
    const page = await ctx.newPage()
    const size = page.viewportSize()
    if (size) sizes.set(page, size)
    const report = (problem: string) => visits.get(page)?.problems.push(problem)
    // A request's problems are its own visit's: the previous document's requests, aborted
    // by the next visit's navigation, are reported after that visit began.
    const owner = new WeakMap<Request, Held>()
    page.on('request', (req) => {
      const v = visits.get(page)
      if (v) owner.set(req, v)
    })
    page.on('console', (msg) => {
      if (msg.type() !== 'error') return
      const at = msg.location().url
      const status = /status of (\d+)/.exec(msg.text())?.[1]
      if (status && at && visits.get(page)?.allowedAbsent(at, Number(status))) return
      report(`console: ${msg.text()} (${at})`)
    })
    page.on('pageerror', (err) => report(`page error: ${err.message}`))
    // A request the browser cancelled itself (net::ERR_ABORTED) is no failure of the
    // service's: its failures show as an HTTP status, a connection error or a console error.
    // Chromium cancelled the war page's own /api/v1/war poll now and then, with no
    // navigation and nothing on the page (about one full run in four).
    page.on('requestfailed', (req) => {
      const error = req.failure()?.errorText
      if (error !== 'net::ERR_ABORTED') owner.get(req)?.problems.push(`request failed: ${req.url()} ${error}`)
    })
    page.on('response', (res) => {
      const v = owner.get(res.request())
      if (v && res.status() >= 400 && !v.allowedAbsent(res.url(), res.status())) v.problems.push(`HTTP ${res.status()}: ${res.url()}`)
    })
    return page
  }

  async function release(page: Page) {
    const i = taken.indexOf(page)
    if (i < 0) return
    taken.splice(i, 1)
    if (page.isClosed()) return
    // Blank at once: its document's timers and polls stop, and the requests it still had
    // end (aborted) while they are its own visit's, well before the next visit begins.
    await page.unrouteAll({ behavior: 'ignoreErrors' })
    await page.goto('about:blank')
    free.get(page.context())?.push(page) ?? free.set(page.context(), [page])
  }

  async function visit(path: string, ctx = context, withoutRoutes: readonly string[] = [], opts: VisitOptions = {}): Promise<Visit> {
    if (opts.touch) ctx = touch ??= await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, hasTouch: true })
    const pool = free.get(ctx) ?? []
    let page = pool.pop()
    while (page?.isClosed()) page = pool.pop()
    // A free tab is blank already (release).
    page ??= await newTab(ctx)
    taken.push(page)
    // A reused tab is back at its context's size unless the visit asks for another.
    const size = opts.viewport ?? sizes.get(page)
    if (size && (page.viewportSize()?.width !== size.width || page.viewportSize()?.height !== size.height)) await page.setViewportSize(size)
    const problems: string[] = []
    const removed = new Set(withoutRoutes.map((r) => `/api/v1${r}`))
    const allowedAbsent = (url: string, status: number) => (status === 404 && removed.has(new URL(url).pathname)) || (!!opts.apiErrors && (status === 404 || status === 503) && new URL(url).pathname.startsWith('/api/v1/'))
    visits.set(page, { problems, allowedAbsent })
    if (removed.size > 0) {
      await page.route(
        (url) => removed.has(url.pathname),
        async (route) => route.fulfill({ response: await route.fetch({ url: `${svc.baseUrl}/api/v1/no-such-route` }) }),
      )
    }
    const res = await page.goto(`${svc.baseUrl}${path}`)
    expect(res?.status()).toBe(200)
    expect(res?.headers()['content-security-policy']).toBe(PAGE_CSP)
    return { page, problems }
  }

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

  const shoot: PagesService['shoot'] = async (name, path, prepare, { fullPage = true, views = [] } = {}) => {
    for (const [label, width, height] of [
      ['desktop', 1366, 900],
      ['phone', 390, 844],
      ['phone-360', 360, 780],
    ] as const) {
      const { page, problems } = await visit(path, undefined, [], { viewport: { width, height }, touch: width < 500 })
      await prepare(page)
      // Works at 360 px: nothing wider than the screen but what scrolls in its own box (tables, the zoomed map).
      const wide = await page.evaluate<string[]>(`[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > ${width} + 0.5 && !(e.parentElement && e.parentElement.closest('.scroll, .map-view'))).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`)
      expect(wide).toEqual([])
      expect(await page.evaluate<number>('document.scrollingElement.scrollWidth')).toBeLessThanOrEqual(width)
      await checkCharts(page, `${name} at ${width} px`)
      // The 360-px pass is a check only; the committed screenshots are the desktop and phone ones.
      if (label !== 'phone-360') {
        await screenshot(page, `${name}-${label}`, fullPage)
        for (const id of SHOTS ? views : []) {
          await page.evaluate(`document.getElementById('${id}').scrollIntoView()`)
          await screenshot(page, `${name}-${id}-${label}`, false)
        }
      }
      expect(problems).toEqual([])
      await release(page)
    }
  }

  beforeAll(async () => {
    if (SKIP) return
    if (SHOTS) mkdirSync(SHOTS, { recursive: true })
    scratch = await createScratchDatabase('pages_browser')
    sql = connect({ url: scratch.url, max: 2 })
    await migrate(sql)
    // The live POSTs below come after the seeded history, which ends a minute ago.
    const seeded = new Date(Date.now() - 60_000)
    await seedPlayerCounts(sql, seeded)
    await seedPlanetStatus(sql, seeded, await contestedRows(sql, seeded))
    await refreshRollups(sql, (await detectEdition(sql)).edition, seeded)
    sim = startSimulator({ port: 0, seed: 15, speed: 1 })
    ;[svc, browser] = await Promise.all([
      startService({
        DATABASE_URL: scratch.url,
        UPSTREAM_URL: sim.upstreamUrl,
        COMMUNITY_API_URL: sim.communityUrl,
        PCSTORE_API_URL: sim.pcstoreUrl,
        SCHEDULE_ENABLED: 'false',
      }),
      chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }),
    ])
    for (const collector of ['war-info', 'full-status', 'player-count', 'planet-stats', 'full-status', 'player-count']) await post(collector)
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 })
  }, 120_000)

  // A tab a test opened is free again for the next test.
  afterEach(async () => {
    await Promise.all([...taken].map(release))
  })

  afterAll(async () => {
    await browser?.close()
    await svc?.stop()
    await sim?.stop()
    await sql?.end()
    await scratch?.drop()
  })

  return {
    get svc() { return svc },
    get browser() { return browser },
    get context() { return context },
    api,
    post,
    visit,
    release,
    checkCharts,
    shoot,
  }
}
