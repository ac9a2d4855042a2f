/**
 * Dispatches: the archive, newest first, with the `q` search and paging, and a language
 * switch over the languages the service collects (the keys of a `lang=all` answer; hidden
 * when the route does not take `lang` or nothing is stored yet).
 */
import { api, dataState, empty, every, fill, h, int, utc } from './common.ts'
import type { Dispatch, Paged } from './types.ts'

const LIMIT = 20
const REFRESH_MS = 60_000

export function dispatchesPage(app: HTMLElement) {
  const params = new URLSearchParams(location.search)
  const state = { q: params.get('q') ?? '', page: Math.max(1, Number(params.get('page')) || 1), lang: params.get('lang') ?? '' }
  fill(app)
  app.append(h('h1', {}, 'Dispatches'))
  dataState(app)
  const form = h('form', { class: 'filters', role: 'search', id: 'dispatch-search' }) as HTMLFormElement
  const input = h('input', { type: 'search', name: 'q', id: 'dispatch-q', placeholder: 'Search the messages', 'aria-label': 'Search dispatches', maxlength: 200, value: state.q }) as HTMLInputElement
  const langSelect = h('select', { id: 'dispatch-lang', 'aria-label': 'Language', hidden: true }) as HTMLSelectElement
  form.append(input, h('button', { type: 'submit' }, 'Search'), langSelect)
  const summary = h('p', { class: 'age', id: 'dispatch-summary' })
  const list = h('div', { id: 'dispatch-list' })
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages' })
  app.append(h('section', { class: 'card' }, form, summary, list, pager))

  form.addEventListener('submit', (e) => {
    e.preventDefault()
    state.q = input.value.trim()
    state.page = 1
    void load()
  })
  langSelect.addEventListener('change', () => {
    state.lang = langSelect.value
    state.page = 1
    void load()
  })

  // The collected languages, once: the text fields of a lang=all answer are keyed by them.
  const languages = (async () => {
    const probe = await api<Paged<{ message: unknown }>>('/historical-dispatches?lang=all&limit=1')
    const message = probe.ok ? probe.data.items[0]?.message : null
    const codes = message && typeof message === 'object' ? Object.keys(message) : []
    if (codes.length > 1) {
      fill(langSelect, ...codes.map((l) => h('option', { value: l }, l)))
      langSelect.value = state.lang || codes[0]!
      langSelect.hidden = false
    }
  })()

  const load = async () => {
    await languages
    const qs = new URLSearchParams({ page: String(state.page), limit: String(LIMIT) })
    if (state.q) qs.set('q', state.q)
    if (state.lang) qs.set('lang', state.lang)
    const url = new URL(location.href)
    url.search = new URLSearchParams([...qs].filter(([k]) => k !== 'limit' && !(k === 'page' && state.page === 1))).toString()
    window.history.replaceState(null, '', url)
    const got = await api<Paged<Dispatch>>(`/historical-dispatches?${qs}`)
    if (!got.ok) {
      fill(list, empty(`Dispatches unavailable: ${got.message}.`, 'error'))
      fill(summary)
      fill(pager)
      return
    }
    const d = got.data
    fill(summary, state.q ? `${int(d.totalResults)} dispatches contain “${state.q}”.` : `${int(d.totalResults)} dispatches in the archive.`)
    if (d.items.length === 0) {
      fill(list, empty(state.q ? `No dispatch contains “${state.q}”.` : d.totalResults > 0 ? 'No dispatch on this page.' : 'No dispatch stored yet: the full-status collector archives the upstream newsfeed as it answers.'))
    } else {
      fill(list, h('ol', { class: 'dispatches' }, ...d.items.map((i) => h('li', { 'data-dispatch': i.id }, h('time', { datetime: i.publishedAt }, utc(i.publishedAt)), h('div', { class: 'message' }, ...(i.message === null ? [empty('No text in this language was collected.')] : hdml(i.message)))))))
    }
    const go = (page: number) => () => {
      state.page = page
      void load()
    }
    fill(
      pager,
      d.totalPages > 1
        ? [
            h('button', { type: 'button', disabled: d.page <= 1, onclick: go(d.page - 1) }, '← Newer'),
            h('span', {}, `page ${d.page} of ${d.totalPages}`),
            h('button', { type: 'button', disabled: d.page >= d.totalPages, onclick: go(d.page + 1) }, 'Older →'),
          ]
        : [],
    )
  }
  // New dispatches arrive with the full-status collector (every 5 min): a minute is enough.
  every(REFRESH_MS, load)
}

/**
 * The upstream's markup, `<i=N>…</i>` for highlighted text and newlines: rendered as text
 * nodes and <strong>, never as HTML.
 */
function hdml(message: string): Node[] {
  const out: Node[] = []
  const lines = message.split('\n')
  lines.forEach((line, n) => {
    if (n > 0) out.push(document.createElement('br'))
    const re = /<i=\d+>(.*?)<\/i>/g
    let at = 0
    for (let m = re.exec(line); m; m = re.exec(line)) {
      if (m.index > at) out.push(document.createTextNode(line.slice(at, m.index)))
      out.push(h('strong', {}, m[1]!))
      at = m.index + m[0].length
    }
    if (at < line.length) out.push(document.createTextNode(line.slice(at)))
  })
  return out
}
