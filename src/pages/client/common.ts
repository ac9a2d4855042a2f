/**
 * Shared browser helpers of the pages: reading the public API, polling, DOM building,
 * formatting. No framework: the pages are small and redraw their own sections.
 */
import type { Ready } from './types.ts'

/**
 * An API answer: the body, or why there is none. `absent`: the route itself is not on
 * this server (its 404 says only "not found"); a 404 that names what is missing (an
 * unknown war, planet or an empty database) is not `absent`: the route exists.
 */
export type Got<T> = { ok: true; data: T } | { ok: false; absent: boolean; status: number; message: string }

/** Optional routes  found missing: not asked again until the page is reloaded. */
const missing = new Set<string>()
const routeOf = (path: string) => path.split('?')[0]!

/** Remember that an optional route is not on this server (see `api`'s `optional`). */
export const markMissing = (path: string) => missing.add(routeOf(path))

/**
 * GET an /api/v1 route. `optional`: a route this server may not have yet; once found
 * missing it is not requested again by this page (no request every minute for a route
 * that is not there).
 */
export async function api<T>(path: string, opts: { optional?: boolean } = {}): Promise<Got<T>> {
  if (opts.optional && missing.has(routeOf(path))) return { ok: false, absent: true, status: 404, message: 'not found' }
  return get<T>(`/api/v1${path}`, opts.optional ? path : null)
}

async function get<T>(url: string, optional: string | null): Promise<Got<T>> {
  try {
    const res = await fetch(url, { headers: { accept: 'application/json' } })
    if (res.ok) return { ok: true, data: (await res.json()) as T }
    let message = `HTTP ${res.status}`
    try {
      const body = (await res.json()) as { error?: unknown }
      if (typeof body.error === 'string') message = body.error
    } catch {
      // not JSON: keep the status
    }
    // The service's answer for a path no route has is exactly {"error": "not found"}.
    const absent = res.status === 404 && message === 'not found'
    if (optional && absent) markMissing(optional)
    return { ok: false, absent, status: res.status, message }
  } catch {
    return { ok: false, absent: false, status: 0, message: 'the service could not be reached' }
  }
}

/** What to do when a page has nothing to show (docs/operations.md "Demo and simulator"). */
export const whatToDo = () =>
  h(
    'span',
    { class: 'todo' },
    ' To see these pages with data now, run ',
    h('code', {}, 'npm run demo'),
    ' (the service fed by the simulator); to load archived history into this server, run the importer, ',
    h('code', {}, 'npm run import'),
    ' (docs/operations.md, "Importing history").',
  )

let ready: Promise<Ready | null> | null = null
/** /health/ready (outside /api/v1, public): the database's state and how much history each dataset holds. */
export function readiness(refresh = false): Promise<Ready | null> {
  if (!ready || refresh) {
    ready = fetch('/health/ready', { headers: { accept: 'application/json' } })
      .then((res) => res.json() as Promise<Ready>)
      .catch(() => null)
  }
  return ready
}

/** How soon the data-state line asks /health/ready again after a failed check (otherwise every minute). */
const DATA_STATE_RETRY_MS = 10_000

/**
 * A line under the page's title saying what state the data is in, when it is not the
 * usual: no database, nothing stored yet, collectors not writing, or a young history.
 * `data-state` says which (`none` while all is well: then it is hidden).
 */
export function dataState(app: HTMLElement): void {
  const el = h('p', { class: 'notice', id: 'data-state', 'data-state': 'none', hidden: true, role: 'status' })
  app.append(el)
  // An unanswered or failed check is asked again sooner: a busy service may answer the next one.
  let retry: ReturnType<typeof setTimeout> | undefined
  const check = every(60_000, async () => {
    clearTimeout(retry)
    const r = await readiness(true)
    const show = (state: string, ...children: (Node | string)[]) => {
      el.dataset.state = state
      el.hidden = state === 'none'
      fill(el, ...children)
    }
    if (!r || (r.checks && r.checks.database !== 'ok')) retry = setTimeout(() => check.now(), DATA_STATE_RETRY_MS)
    if (!r) return show('unreachable', `The service did not answer its health check: the figures below may be missing. Checking again in ${DATA_STATE_RETRY_MS / 1000} s.`)
    if (r.checks && r.checks.database !== 'ok') return show('no-database', `The database is unavailable (${r.checks.database}): figures that need it are missing until it is back. Checking again in ${DATA_STATE_RETRY_MS / 1000} s.`)
    const spans = Object.values(r.history ?? {})
    if (!r.history) return show('none')
    const newest = Math.max(0, ...spans.map((s) => (s.newest ? Date.parse(s.newest) : 0)))
    const war = r.history['full-status']
    if (newest === 0) return show('empty', 'This server has stored no data yet: its collectors write as the feeds answer, and none has so far (feeds unreachable, or the schedule is off).', whatToDo())
    const warNewest = war?.newest ? Date.parse(war.newest) : 0
    if (!warNewest || Date.now() - warNewest > 20 * 60_000) {
      return show(
        'stale',
        warNewest
          ? `The newest war status stored is from ${utc(warNewest)} (${duration(ageOf(warNewest))} ago): the collectors are not writing now (feeds unreachable, or the schedule is off). The figures below are as of then.`
          : 'No war status is stored yet: the full-status collector has not written (upstream unreachable, or the schedule is off).',
        whatToDo(),
      )
    }
    const oldest = war?.oldest ? Date.parse(war.oldest) : warNewest
    if (Date.now() - oldest < 3600_000) return show('young', `War status collected since ${utc(oldest)} (${duration(ageOf(oldest))}): rates and outlooks need 5 minutes of ticks, trends an hour, so some figures below are still empty.`)
    return show('none')
  })
}

/**
 * Run `fn` now and then every `ms` (the spec's cadences), one run at a time; runs due
 * while the tab is hidden are skipped, and one runs as soon as it is visible again.
 */
export function every(ms: number, fn: () => Promise<void> | void): { now(): void } {
  let running = false
  let missed = false
  const run = async () => {
    if (document.hidden) {
      missed = true
      return
    }
    if (running) return
    running = true
    try {
      await fn()
    } finally {
      running = false
    }
  }
  void run()
  setInterval(() => void run(), ms)
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && missed) {
      missed = false
      void run()
    }
  })
  return { now: () => void run() }
}

type Child = Node | string | number | null | undefined | false
type Attrs = Record<string, string | number | boolean | undefined | null | ((ev: Event) => void)>

/** Build an element; text children become text nodes (never parsed as HTML). */
export function h(tag: string, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElement {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v)
    else if (v === true) el.setAttribute(k, '')
    else el.setAttribute(k, String(v))
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue
    el.append(typeof c === 'object' ? c : String(c))
  }
  return el
}

/** Replace the content of a section. */
export const fill = (el: Element, ...children: (Child | Child[])[]) => el.replaceChildren(...children.flat().filter((c): c is Node | string | number => c !== null && c !== undefined && c !== false).map((c) => (typeof c === 'object' ? c : String(c))))

/** An empty state that says what is going on. */
export const empty = (text: string, kind: 'info' | 'absent' | 'error' = 'info') => h('p', { class: `empty ${kind}` }, text)

/** A section with a heading; returns the section and its body. */
export function section(parent: Element, id: string, title: string): HTMLElement {
  const body = h('div', { class: 'body', id: `${id}-body` })
  parent.append(h('section', { class: 'card', id }, h('h2', {}, title), body))
  return body
}

const NUM = new Intl.NumberFormat('en-US')
export const int = (n: number | null | undefined) => (n === null || n === undefined ? '–' : NUM.format(Math.round(n)))
export const pct = (n: number | null | undefined, digits = 1) => (n === null || n === undefined ? '–' : `${n.toFixed(digits)} %`)
export const signed = (n: number | null | undefined) => (n === null || n === undefined ? '–' : `${n > 0 ? '+' : n < 0 ? '−' : '±'}${NUM.format(Math.abs(Math.round(n)))}`)

/** "2026-11-23 18:04 UTC": the pages show UTC, like the API. */
export const utc = (iso: string | number | Date | null | undefined) => {
  if (iso === null || iso === undefined) return '–'
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? '–' : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

/** A duration in words: "45 s", "12 min", "3 h 5 min", "2 d 4 h". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  if (s < 90) return `${s} s`
  if (s < 3600) return `${Math.round(s / 60)} min`
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`
  return `${Math.floor(s / 86_400)} d ${Math.round((s % 86_400) / 3600)} h`
}

export const ageOf = (iso: string | number) => (Date.now() - new Date(iso).getTime()) / 1000

/** Liberation % as the API's planet history defines it (docs/api.md "Planet history"). */
export function libPct(owner: number, health: number, maxHealth: number): number {
  if (maxHealth <= 0) return 0
  const v = owner === 1 ? (health / maxHealth) * 100 : ((maxHealth - health) / maxHealth) * 100
  return Math.round(v * 10_000) / 10_000
}

/**
 * The bars of docs/api.md "War intelligence", each figure named by its bar, everywhere on
 * the pages (one rule): a planet's own bar is its liberation on an enemy planet ("12.3 %
 * liberated") and its health on a players' planet ("held: planet health 100.0 %"); a
 * defense's bar (a planet event's) is the share of the attack beaten. A defended planet
 * has both: its own health and the defense's bar, never one under the other's name.
 */
export const planetBarText = (owner: number | null | undefined, v: number | null | undefined) => (owner === 1 ? `held: planet health ${pct(v)}` : `${pct(v)} liberated`)
/** The planet's own bar as a short label: "held (health)" on a players' planet, "liberated" else. */
export const planetBarWord = (owner: number | null | undefined) => (owner === 1 ? 'held (health)' : 'liberated')
/** A defense's bar in words. */
export const defenseBarText = (v: number | null | undefined) => `${pct(v)} of the attack beaten`

/**
 * A percentage bar (decorative: the figure is in the text next to it). Its width is set
 * through the CSSOM, which the page CSP allows, unlike inline style attributes.
 */
export function barOf(value: number, cls = ''): HTMLElement {
  const fillEl = h('span', { class: 'fill' })
  fillEl.style.width = `${Math.max(0, Math.min(100, value))}%`
  return h('span', { class: `bar ${cls}`.trim(), 'aria-hidden': 'true' }, fillEl)
}

/** "2 d 03:04:05", "3:04:05", "0:04:05": a countdown's clock. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds))
  const d = Math.floor(s / 86_400)
  const hh = Math.floor((s % 86_400) / 3600)
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0')
  const ss = String(s % 60).padStart(2, '0')
  return d > 0 ? `${d} d ${String(hh).padStart(2, '0')}:${mm}:${ss}` : `${hh}:${mm}:${ss}`
}

let ticking = false
/** Redraw every live countdown of the page (`.countdown[data-until]`), once a second. */
function tickCountdowns() {
  for (const el of document.querySelectorAll<HTMLElement>('.countdown[data-until]')) {
    const left = (Date.parse(el.dataset.until!) - Date.now()) / 1000
    el.textContent = left > 0 ? `${el.dataset.before ?? ''}${clock(left)}` : `${el.dataset.after ?? 'passed'} ${duration(-left)} ago`
    el.classList.toggle('passed', left <= 0)
  }
}

/**
 * A live countdown to `iso`: "ends in 3:59:12", then "ended 2 min ago". One timer for
 * the page updates every countdown each second.
 */
export function countdown(iso: string, before = 'in ', after = 'passed'): HTMLElement {
  const el = h('time', { class: 'countdown', datetime: iso, 'data-until': iso, 'data-before': before, 'data-after': after, title: utc(iso) })
  if (!ticking) {
    ticking = true
    setInterval(tickCountdowns, 1000)
  }
  queueMicrotask(tickCountdowns)
  const left = (Date.parse(iso) - Date.now()) / 1000
  el.textContent = left > 0 ? `${before}${clock(left)}` : `${after} ${duration(-left)} ago`
  return el
}

/** Faction names from /factions (fallback: "faction N"). */
export async function factionNames(): Promise<Map<number, string>> {
  const got = await api<{ id: number; name: string }[]>('/factions')
  return new Map(got.ok ? got.data.map((f) => [f.id, f.name]) : [])
}

export const factionName = (names: Map<number, string>, id: number) => names.get(id) ?? `faction ${id}`

/** Read a CSS custom property of the page (chart colours follow light/dark). */
export const cssVar = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888'

const SVG_NS = 'http://www.w3.org/2000/svg'

/** An SVG element with its attributes and children. */
export function svg(tag: string, attrs: Record<string, string | number>, ...children: (Node | string)[]): SVGElement {
  const el = document.createElementNS(SVG_NS, tag)
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v))
  el.append(...children)
  return el
}
