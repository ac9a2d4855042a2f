/**
 * Main page: the live diver count (cross-platform and per store, with its age), the 24 h
 * and all-time peaks, the diver-history chart over five ranges (source, peak and low,
 * timeline events) and the war's trend deltas.
 */
import { TimeChart, type LineMark } from './chart.ts'
import { api, dataState, duration, empty, every, fill, h, int, markMissing, section, signed, utc } from './common.ts'
import type { DiverHistory, Paged, PlayerCount, TimelineItem, Trends } from './types.ts'

const RANGES = ['24h', '7d', '30d', '90d', 'all'] as const
type Range = (typeof RANGES)[number]

const SOURCE_TEXT: Record<string, string> = {
  api: 'upstream cross-platform total (a row every ~15 s)',
  pcstore: 'PC store total, PC players only (a row every ~10 min)',
}
/** The series' name in the chart's legend. */
const SERIES_LABEL: Record<string, string> = { api: 'Divers, all platforms (upstream)', pcstore: 'Divers on PC only (PC store)' }

// Cadences: /player-count answers from 15 s feed caches; the history moves by one bucket
// (≥ 10 min) at most, so a minute is plenty.
const LIVE_MS = 15_000
const HISTORY_MS = 60_000
const TRENDS_MS = 60_000

export function mainPage(app: HTMLElement) {
  fill(app)
  app.append(h('h1', {}, 'Divers online'))
  dataState(app)
  const live = section(app, 'live', 'Live count')
  const peaks = section(app, 'peaks', 'Peaks')
  const history = section(app, 'history', 'Diver history')
  const trends = section(app, 'trends', 'Trends')

  // ---- live count
  let lastLive: PlayerCount | null = null
  const drawLive = () => {
    if (!lastLive) return
    const p = lastLive
    const down = (k: keyof PlayerCount['sources']) => p.sources[k] === 'unavailable'
    const store = (label: string, value: number, source: string) =>
      h('div', { class: 'stat' }, h('span', { class: 'label' }, label), h('span', { class: 'value', 'data-testid': `live-${label}` }, source === 'unavailable' ? 'unavailable' : int(value)))
    const allDown = down('gameActive') && down('game1') && down('game2')
    const failed = [down('gameActive') ? 'the upstream war status' : null, down('game1') && down('game2') ? 'the PC store' : down('game1') ? "the PC store's count of Game" : down('game2') ? "the PC store's count of Game 2" : null].filter(Boolean)
    // Data age: only of data that was fetched. With every feed down there is none: nothing is "live".
    const age = allDown
      ? h('p', { class: 'age', id: 'live-age', 'data-state': 'down' }, `No live figures: no feed answered (upstream war status, PC store). Retrying every ${LIVE_MS / 1000} s; the history below is what was stored before.`)
      : h(
          'p',
          { class: 'age', id: 'live-age', 'data-state': failed.length ? 'partial' : 'ok' },
          p.dataAgeSeconds != null && p.dataCapturedAt
            ? `Data age ${duration(p.dataAgeSeconds)} (fetched ${utc(p.dataCapturedAt)}); refreshed every ${LIVE_MS / 1000} s.`
            : `Answered ${utc(p.capturedAt)} from feeds cached at most 15 s; refreshed every ${LIVE_MS / 1000} s.`,
          failed.length ? ` Unavailable now: ${failed.join(' and ')} (retrying).` : '',
        )
    fill(
      live,
      h(
        'div',
        { class: 'hero' },
        h('span', { class: 'big', id: 'live-total' }, down('gameActive') ? '–' : int(p.gameActive)),
        h('span', { class: 'label' }, down('gameActive') ? 'cross-platform count unavailable: the upstream feed did not answer' : 'cross-platform, from the upstream war status'),
      ),
      h('div', { class: 'stats' }, store('Game 2 (PC store)', p.game2.pcstore, p.sources.game2), store('Game (PC store)', p.game1.pcstore, p.sources.game1), store('PC stores together', p.all.pcstore, down('game1') && down('game2') ? 'unavailable' : 'pcstore')),
      age,
    )
  }
  every(LIVE_MS, async () => {
    const got = await api<PlayerCount>('/player-count')
    if (got.ok) {
      lastLive = got.data
      drawLive()
    } else fill(live, empty(`Live count unavailable: ${got.message}. Retrying every ${LIVE_MS / 1000} s.`, 'error'))
  })

  // ---- chart
  const bar = h('div', { class: 'ranges', role: 'group', 'aria-label': 'Range' })
  const caption = h('div', { class: 'caption', id: 'history-caption' })
  const note = h('div', { class: 'chart-note' })
  // Which series the chart draws, always said; a switch of series between ranges is announced.
  const series = h('p', { class: 'series', id: 'history-series', 'aria-live': 'polite' })
  history.append(bar, series, note)
  const chart = new TimeChart(history, [{ label: 'Divers', color: '--series1', scale: 'divers', count: true }])
  chart.el.id = 'divers-chart'
  history.append(caption)
  const initial = new URLSearchParams(location.search).get('range')
  let range: Range = (RANGES as readonly string[]).includes(initial ?? '') ? (initial as Range) : '24h'
  let allTime: DiverHistory | null = null
  /** The range and series drawn last: switching to a range of the other series says so. */
  let drawn: { range: string; source: string; avg: number | null } | null = null
  const buttons = RANGES.map((r) =>
    h('button', { type: 'button', 'data-range': r, 'aria-pressed': String(r === range), onclick: () => select(r) }, r),
  )
  bar.append(...buttons)

  const drawHistory = async () => {
    const shown = range
    // One event line per EVENT_LINE_PX of the chart's width at most (a phone's chart is not a solid block of lines).
    const most = Math.max(MIN_EVENT_LINES, Math.min(MAX_EVENT_LINES, Math.floor(chart.el.clientWidth / EVENT_LINE_PX)))
    const [got, events] = await Promise.all([api<DiverHistory>(`/divers/history?range=${shown}`), timelineFor(shown, most)])
    if (shown !== range) return // a newer selection is loading
    if (!got.ok) {
      chart.el.hidden = true
      fill(note, empty(`Diver history unavailable: ${got.message}.`, 'error'))
      fill(caption)
      return
    }
    const d = got.data
    chart.el.dataset.range = d.range
    const switched = drawn && drawn.source !== d.source && drawn.range !== d.range ? drawn : null
    fill(
      series,
      h('span', { class: `badge source ${d.source}`, id: 'history-source', 'data-source': d.source }, d.source === 'api' ? 'all platforms' : 'PC only'),
      ` Drawn from the ${SOURCE_TEXT[d.source] ?? d.source}.`,
      switched
        ? h(
            'strong',
            { class: 'switched', id: 'series-switch' },
            ` Not the series of ${switched.range}: ${switched.range} was drawn from the ${switched.source === 'api' ? 'upstream count of every platform' : 'PC store count (PC only)'}, ${d.range} from the ${d.source === 'api' ? 'upstream count of every platform' : 'PC store count (PC only)'}${d.source === 'pcstore' ? ', because the upstream series does not cover this range' : ''}. The two are not comparable${switched.avg && d.stats.avg ? ` (averages ${int(switched.avg)} and ${int(d.stats.avg)})` : ''}.`,
          )
        : null,
    )
    chart.setLabel(0, SERIES_LABEL[d.source] ?? 'Divers')
    if (d.points.length === 0) {
      chart.set([], [[]])
      chart.el.hidden = true
      const since = allTime?.points.length ? ` Collecting since ${utc(allTime.from)}.` : ''
      fill(note, empty(`No diver counts in this range yet: the player-count collector has stored nothing between ${utc(d.from)} and ${utc(d.to)}.${since}`))
      fill(caption)
      return
    }
    drawn = { range: d.range, source: d.source, avg: d.stats.avg }
    chart.el.hidden = false
    const xs = d.points.map((p) => Date.parse(p.t) / 1000)
    const ys = d.points.map((p) => p.v)
    const marks = []
    if (d.stats.peak) marks.push({ t: Date.parse(d.stats.peak.at) / 1000, v: d.stats.peak.value, label: `peak ${int(d.stats.peak.value)}`, series: 0 })
    if (d.stats.low) marks.push({ t: Date.parse(d.stats.low.at) / 1000, v: d.stats.low.value, label: `low ${int(d.stats.low.value)}`, series: 0 })
    chart.set(xs, [ys], { points: marks, lines: events.lines, window: [Date.parse(d.from) / 1000, Date.parse(d.to) / 1000] })
    const young = d.coverage !== undefined && d.coverage < 0.5
    fill(
      note,
      events.note ? h('p', { class: 'hint', id: 'events-note', 'data-shown': events.shown, 'data-total': events.total, 'data-oldest': events.oldest ?? '' }, events.note) : null,
      young ? h('p', { class: 'hint young', id: 'history-young' }, `This series covers ${Math.round((d.coverage ?? 0) * 100)} % of the ${d.range} window: it starts ${utc(d.points[0]!.t)}, so the rest of the chart is empty, not zero.`) : null,
    )
    const coverage = d.coverage === undefined ? null : `coverage ${Math.round(d.coverage * 100)} %`
    fill(
      caption,
      h('span', {}, `${d.points.length} points, ${duration(d.bucketSeconds)} buckets${coverage ? `, ${coverage}` : ''}`),
      h('span', {}, `Peak ${d.stats.peak ? `${int(d.stats.peak.value)} at ${utc(d.stats.peak.at)}` : '–'}; low ${d.stats.low ? `${int(d.stats.low.value)} at ${utc(d.stats.low.at)}` : '–'}; average ${int(d.stats.avg)}`),
    )
  }
  const poller = every(HISTORY_MS, drawHistory)
  function select(r: Range) {
    range = r
    for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.range === r))
    const url = new URL(location.href)
    url.searchParams.set('range', r)
    window.history.replaceState(null, '', url)
    poller.now()
  }

  // ---- peaks: 24 h and all time (the "all" answer also says since when data is collected)
  every(HISTORY_MS, async () => {
    const [day, all] = await Promise.all([api<DiverHistory>('/divers/history?range=24h'), api<DiverHistory>('/divers/history?range=all')])
    if (all.ok) allTime = all.data
    const peak = (label: string, id: string, got: typeof day) =>
      h(
        'div',
        { class: 'stat' },
        h('span', { class: 'label' }, label),
        h('span', { class: 'value', id }, got.ok ? (got.data.stats.peak ? int(got.data.stats.peak.value) : 'no data yet') : 'unavailable'),
        h('span', { class: 'sub' }, got.ok && got.data.stats.peak ? `${utc(got.data.stats.peak.at)} · ${got.data.source === 'api' ? 'upstream' : 'PC store'} series` : ''),
      )
    fill(
      peaks,
      h('div', { class: 'stats' }, peak('24-hour peak', 'peak-24h', day), peak('All-time peak', 'peak-all', all)),
      all.ok && all.data.points.length > 0 ? h('p', { class: 'age' }, `Collecting since ${utc(all.data.from)}.`) : null,
      // Each peak is of its range's series: say so when they differ (they are not comparable).
      day.ok && all.ok && day.data.stats.peak && all.data.stats.peak && day.data.source !== all.data.source
        ? h('p', { class: 'hint', id: 'peaks-series' }, `The two peaks are of different series: the 24-hour one of the ${day.data.source === 'api' ? 'upstream count of every platform' : 'PC store count (PC only)'}, the all-time one of the ${all.data.source === 'api' ? 'upstream count of every platform' : 'PC store count (PC only)'}, the series with the longest history. They are not comparable.`)
        : null,
    )
  })

  // ---- trend deltas of the war summary (/war/trends; "not available" before it)
  every(TRENDS_MS, async () => {
    const got = await api<Trends>('/war/trends', { optional: true })
    if (!got.ok) {
      // Without the route, /war/:warId takes the path and refuses "trends" as a war id.
      const absent = got.absent || (got.status === 400 && got.message.includes('warId'))
      if (absent) markMissing('/war/trends')
      fill(trends, empty(absent ? 'Trend deltas are not available on this server (no /war/trends route).' : `Trends unavailable: ${got.message}.`, absent ? 'absent' : 'error'))
      return
    }
    const names = Object.keys(got.data.windows)
    const rows: [string, (w: Trends['windows'][string]) => number | null | undefined][] = [
      ['Divers', (w) => w.divers?.change],
      ['Missions won', (w) => w.deltas?.missionsWon],
      ['Missions lost', (w) => w.deltas?.missionsLost],
      ['Terminid kills', (w) => w.deltas?.bugKills],
      ['Automaton kills', (w) => w.deltas?.automatonKills],
      ['Illuminate kills', (w) => w.deltas?.illuminateKills],
      ['Deaths', (w) => w.deltas?.deaths],
    ]
    const anyData = names.some((n) => got.data.windows[n]?.deltas || got.data.windows[n]?.divers)
    if (!anyData) {
      // A trend compares the latest war summary with one a whole window earlier: the first needs an hour of history.
      const oldest = got.data.since
      const ready = oldest ? Date.parse(oldest) + 3600_000 : null
      fill(
        trends,
        h(
          'p',
          { class: 'empty', id: 'trends-empty' },
          'No trend yet: a trend compares the war summary with its value a whole window earlier, so the 1-hour column needs an hour of history, the 24-hour one a day and the 7-day one a week. ',
          oldest ? `War summaries are stored since ${utc(oldest)}; the 1-hour trend appears ${ready && ready > Date.now() ? `in about ${duration((ready - Date.now()) / 1000)}` : 'with the next tick'}.` : 'No war summary is stored yet.',
        ),
      )
      return
    }
    const missingWindows = names.filter((n) => !got.data.windows[n]?.deltas)
    fill(
      trends,
      h(
        'div',
        { class: 'scroll' },
        h(
          'table',
          { class: 'trends', id: 'trends-table' },
          h('thead', {}, h('tr', {}, h('th', {}, 'Change over'), ...names.map((n) => h('th', { class: 'num' }, n)))),
          h('tbody', {}, ...rows.map(([label, f]) => h('tr', {}, h('th', {}, label), ...names.map((n) => h('td', { class: 'num' }, signed(f(got.data.windows[n]!))))))),
        ),
      ),
      missingWindows.length
        ? h(
            'p',
            { class: 'age', id: 'trends-young' },
            `–: not enough history yet for ${missingWindows.map((n) => `${n} (${Math.floor(got.data.windows[n]!.coverage * 100)} % of it stored)`).join(', ')}: a window needs that long of stored war summaries${got.data.since ? `, stored since ${utc(got.data.since)}` : ''}.`,
          )
        : null,
    )
  })
}

/**
 * The most event lines a chart draws (more are thinned evenly): 200, and one per 5 px of the
 * chart's width (a 360-px phone: about 60), never fewer than 20; the route's largest page
 * (/timeline `limit`); pages read at most.
 */
const MAX_EVENT_LINES = 200
const MIN_EVENT_LINES = 20
const EVENT_LINE_PX = 5
const TIMELINE_PAGE = 1000
const TIMELINE_PAGES = 5

/** `n` of `items` (n ≥ 2) picked evenly by position, the first and the last always among them. */
function thinEvenly<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items]
  return Array.from({ length: n }, (_, k) => items[Math.round((k * (items.length - 1)) / (n - 1))]!)
}

interface EventMarks {
  lines: LineMark[]
  note: string | null
  /** Events drawn, and in the range (the route's `totalResults`). */
  shown: number
  total: number
  /** The oldest event drawn (ISO), when any. */
  oldest: string | null
}

/**
 * Timeline events in the window of a range, as chart lines (none, with a note, when the
 * route is absent). At most `most` are drawn: with more in the range they are
 * thinned evenly over it (not the newest only), and the note says how many of how many.
 * Up to one page of the route's largest limit holds every event of the range; beyond it,
 * pages spread over the range are read (TIMELINE_PAGES at most) and thinned together.
 */
async function timelineFor(range: Range, most: number): Promise<EventMarks> {
  const spanDays: Record<Range, number | null> = { '24h': 1, '7d': 7, '30d': 30, '90d': 90, all: null }
  const days = spanDays[range]
  const from = days === null ? '' : `&from=${encodeURIComponent(new Date(Date.now() - days * 86_400_000).toISOString())}`
  const url = (page: number) => `/timeline?limit=${TIMELINE_PAGE}&page=${page}${from}`
  const got = await api<Paged<TimelineItem>>(url(1), { optional: true })
  if (!got.ok) return { lines: [], note: got.absent ? 'Event markers are not available on this server (no /timeline route).' : `Event markers unavailable: ${got.message}.`, shown: 0, total: 0, oldest: null }
  const total = got.data.totalResults
  const pages = got.data.totalPages
  let items = got.data.items
  let read = items.length
  if (pages > 1) {
    // The newest page is read; the others are picked evenly down to the oldest.
    const picks = [...new Set(Array.from({ length: Math.min(pages, TIMELINE_PAGES) - 1 }, (_, k) => Math.round(1 + ((k + 1) * (pages - 1)) / (Math.min(pages, TIMELINE_PAGES) - 1))))]
    const more = await Promise.all(picks.map((p) => api<Paged<TimelineItem>>(url(p), { optional: true })))
    for (const m of more) if (m.ok) items = items.concat(m.data.items)
    read = items.length
  }
  const drawn = thinEvenly(items, most)
  const lines = drawn.map((e) => ({ t: Date.parse(e.at) / 1000, label: e.title ?? e.planetName ?? e.type }))
  const oldest = drawn.at(-1)?.at ?? null
  const kinds = '(liberations, losses, defenses, campaigns, major orders, dispatches)'
  const note = !lines.length
    ? null
    : lines.length === total
      ? `Dashed lines: all ${int(total)} war events in this range ${kinds}.`
      : `Dashed lines: ${int(lines.length)} of the ${int(total)} war events in this range ${kinds}, picked evenly over it${read < total ? ` from ${int(read)} read across it` : ''} so the chart stays readable; the others are left out.`
  return { lines, note, shown: lines.length, total, oldest }
}
