/**
 * Shared browser helpers of the pages: reading the public API, polling, DOM building,
 * formatting. No framework: the pages are small and redraw their own sections.
 */

/** An API answer: the body, or why there is none (`absent`: the route answered 404). */
export type Got<T> = { ok: true; data: T } | { ok: false; absent: boolean; status: number; message: string }

/** Optional routes  found missing: not asked again until the page is reloaded. */
const missing = new Set<string>()
const routeOf = (path: string) => path.split('?')[0]!

/** Remember that an optional route is not on this server (see `api`'s `optional`). */
export const markMissing = (path: string) => missing.add(routeOf(path))

/**
 * GET an /api/v1 route. `optional`: a route this server may not have yet; after a 404 it
 * is not requested again by this page (no request every minute for a route that is not there).
 */
export async function api<T>(path: string, opts: { optional?: boolean } = {}): Promise<Got<T>> {
  if (opts.optional && missing.has(routeOf(path))) return { ok: false, absent: true, status: 404, message: 'not found' }
  try {
    const res = await fetch(`/api/v1${path}`, { headers: { accept: 'application/json' } })
    if (res.ok) return { ok: true, data: (await res.json()) as T }
    let message = `HTTP ${res.status}`
    try {
      const body = (await res.json()) as { error?: unknown }
      if (typeof body.error === 'string') message = body.error
    } catch {
      // not JSON: keep the status
    }
    if (opts.optional && res.status === 404) markMissing(path)
    return { ok: false, absent: res.status === 404, status: res.status, message }
  } catch {
    return { ok: false, absent: false, status: 0, message: 'the service could not be reached' }
  }
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

export const ageOf = (iso: string) => (Date.now() - new Date(iso).getTime()) / 1000

/** Liberation % as the API's planet history defines it (docs/api.md "Planet history"). */
export function libPct(owner: number, health: number, maxHealth: number): number {
  if (maxHealth <= 0) return 0
  const v = owner === 1 ? (health / maxHealth) * 100 : ((maxHealth - health) / maxHealth) * 100
  return Math.round(v * 10_000) / 10_000
}

/**
 * A percentage bar (decorative: the figure is in the text next to it). Its width is set
 * through the CSSOM, which the page CSP allows, unlike inline style attributes.
 */
export function barOf(value: number, cls = ''): HTMLElement {
  const fillEl = h('span', { class: 'fill' })
  fillEl.style.width = `${Math.max(0, Math.min(100, value))}%`
  return h('span', { class: `bar ${cls}`.trim(), 'aria-hidden': 'true' }, fillEl)
}

/** Faction names from /factions (fallback: "faction N"). */
export async function factionNames(): Promise<Map<number, string>> {
  const got = await api<{ id: number; name: string }[]>('/factions')
  return new Map(got.ok ? got.data.map((f) => [f.id, f.name]) : [])
}

export const factionName = (names: Map<number, string>, id: number) => names.get(id) ?? `faction ${id}`

/** Read a CSS custom property of the page (chart colours follow light/dark). */
export const cssVar = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888'
