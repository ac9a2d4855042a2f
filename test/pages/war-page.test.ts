/**
 * The war page (/war) in headless Chromium: the planets of /war with their liberation, rate
 * and ETA; filters, sorting and the /war-stats poll; the campaigns, the major orders in
 * words and the galaxy map against their routes; on a phone and with the keyboard.
 * The service, simulator and browser: test/support/browser.ts.
 */
import { describe, expect } from 'bun:test'
import { it, named, usePagesService, type CampaignItem } from '../support/browser.ts'

describe('war page in headless Chromium', () => {
  const pages = usePagesService()
  const { api, visit, release } = pages

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
    const ctx = await pages.browser.newContext({ viewport: { width: 1280, height: 900 } })
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
    const lib = await api<{ items: { planetIndex: number; ratePctPerHour: number | null; eventId: number | null }[] }>('/planets/liberation')
    const { page, problems } = await visit('/war')
    await page.waitForSelector('#planets-table tbody tr')
    await page.locator('#planets-summary', { hasText: 'Rates over' }).waitFor()
    if (await page.isVisible('#planets-more')) await page.click('#planets-more')
    for (const l of lib.items.slice(0, 10)) {
      const rate = await page.textContent(`#planets-table tr[data-planet="${l.planetIndex}"] td:nth-child(6)`)
      // A defended planet's rate is its defense's (its event's bar), and says so.
      expect(rate).toBe(`${l.ratePctPerHour === null ? '–' : `${l.ratePctPerHour > 0 ? '+' : ''}${l.ratePctPerHour.toFixed(2)} %`}${l.eventId !== null ? ' defense' : ''}`)
    }
    expect(problems).toEqual([])
  })

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

  it(named("war page: a defended planet's two bars are named wherever shown: its campaign card (attack beaten), its planet row (health, and the defense's bar), the map (held: planet health; the defense's share beaten)"), async () => {
    const answer = await api<{ items: (CampaignItem & { owner: number | null })[] }>('/campaigns')
    const war = await api<{ planets: { indexID: number; owner: number; health: number; maxHealth: number }[] }>('/war')
    const defenses = answer.items.filter((c) => c.type === 'defense' && c.owner === 1)
    expect(defenses.length).toBeGreaterThan(0)
    const { page, problems } = await visit('/war')
    await page.waitForSelector('#campaigns-list li.campaign')
    await page.waitForSelector('#planets-table tbody tr')
    await page.waitForSelector('#map-svg a.planet.campaign')
    await page.locator('#planets-summary', { hasText: 'Rates over' }).waitFor()
    const one = (s: string | null) => (s ?? '').replace(/\s+/g, ' ').trim()
    for (const c of answer.items) {
      const card = page.locator(`#campaigns-list li.campaign[data-planet="${c.planetIndex}"]`)
      expect({ planet: c.planetIndex, what: await card.locator('.c-what').textContent({ timeout: 5_000 }) }).toEqual({ planet: c.planetIndex, what: c.type === 'defense' ? 'attack beaten' : c.owner === 1 ? 'held (health)' : 'liberated' })
    }
    for (const d of defenses) {
      const p = war.planets.find((q) => q.indexID === d.planetIndex)!
      const health = Math.round((p.health / p.maxHealth) * 100 * 10_000) / 10_000
      const row = page.locator(`#planets-table tr[data-planet="${d.planetIndex}"]`)
      await row.locator('.lib-defense').waitFor({ timeout: 5_000 })
      expect(one(await row.locator('.c-lib').textContent())).toBe(`${health.toFixed(1)} % health defense: ${d.progressPct!.toFixed(1)} % of the attack beaten`)
      await page.locator(`#map-svg a.planet[data-planet="${d.planetIndex}"]`).hover()
      const tip = page.locator('#map-tip', { hasText: d.planetName })
      await tip.waitFor()
      expect(one(await tip.locator('.tip-planet').textContent({ timeout: 5_000 }))).toStartWith(`held: planet health ${health.toFixed(1)} %`)
      expect(one(await tip.locator('.tip-campaign').textContent())).toContain(`${d.progressPct!.toFixed(1)} % of the attack beaten`)
      expect(await page.getAttribute(`#map-svg a.planet[data-planet="${d.planetIndex}"]`, 'aria-label')).not.toContain('liberated')
    }
    // No players' planet is called liberated in the list.
    const held = await page.$$eval('#planets-table td.c-lib[data-bar="planet-health"] .lib-what', (els) => els.map((e) => e.textContent))
    expect(held.length).toBeGreaterThan(0)
    expect(new Set(held)).toEqual(new Set(['health']))
    expect(problems).toEqual([])
  }, 60_000)

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
      const { page, problems } = await visit('/war', undefined, [], { viewport: { width, height }, touch: true })
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
      await release(page)
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
})
