/**
 * Planet page: liberation % and players over 24 h, 7 days or 30 days from the planet
 * history route, owner changes marked; rate and ETA from /planets/liberation when present.
 */
import { TimeChart } from './chart.ts'
import { api, duration, empty, every, factionName, factionNames, fill, h, int, pct, section, utc } from './common.ts'
import type { LiberationAnswer, PlanetHistory } from './types.ts'

const HOURS = [
  [24, '24 h'],
  [168, '7 days'],
  [720, '30 days'],
] as const
const REFRESH_MS = 60_000

export function planetPage(app: HTMLElement) {
  const id = Number(location.pathname.split('/')[2])
  fill(app)
  const title = h('h1', {}, `Planet ${id}`)
  app.append(title)
  const now = section(app, 'planet-now', 'Now')
  const hist = section(app, 'planet-history', 'History')
  let names = new Map<number, string>()
  let hours = 24

  const bar = h('div', { class: 'ranges', role: 'group', 'aria-label': 'Range' })
  const note = h('div', { class: 'chart-note' })
  hist.append(bar, note)
  const lib = new TimeChart(hist, [{ label: 'Liberation %', color: '--series1', scale: '%', range: [0, 100], format: (v) => `${+v.toFixed(1)}` }], 220)
  lib.el.id = 'planet-lib-chart'
  const players = new TimeChart(hist, [{ label: 'Players', color: '--series2', scale: 'players' }], 180)
  players.el.id = 'planet-players-chart'
  const caption = h('div', { class: 'caption' })
  hist.append(caption)
  const buttons = HOURS.map(([n, label]) => h('button', { type: 'button', 'data-hours': n, 'aria-pressed': String(n === hours), onclick: () => select(n) }, label))
  bar.append(...buttons)

  const draw = async () => {
    const shown = hours
    const got = await api<PlanetHistory>(`/planet/${id}/history?hours=${shown}`)
    if (shown !== hours) return
    if (!got.ok) {
      lib.el.hidden = players.el.hidden = true
      fill(note, empty(got.absent ? `Planet ${id} is not known for this war.` : `Planet history unavailable: ${got.message}.`, got.absent ? 'absent' : 'error'))
      fill(caption)
      return
    }
    const d = got.data
    if (d.points.length === 0) {
      lib.set([], [[]])
      players.set([], [[]])
      lib.el.hidden = players.el.hidden = true
      fill(note, empty(`No status recorded for this planet between ${utc(d.from)} and ${utc(d.to)}: the full-status collector writes one every 5 minutes.`))
      fill(caption)
      return
    }
    lib.el.hidden = players.el.hidden = false
    const xs = d.points.map((p) => Date.parse(p.t) / 1000)
    // Owner changes: a line where a point's owner differs from the one before it.
    const changes = d.points.flatMap((p, i) => (i > 0 && p.owner !== d.points[i - 1]!.owner ? [{ t: xs[i]!, label: `→ ${factionName(names, p.owner)}` }] : []))
    const window: [number, number] = [Date.parse(d.from) / 1000, Date.parse(d.to) / 1000]
    lib.set(xs, [d.points.map((p) => p.libPct)], { lines: changes, window })
    players.set(xs, [d.points.map((p) => p.players)], { lines: changes, window })
    fill(note, changes.length ? h('p', { class: 'hint', id: 'owner-changes' }, `Owner changes (dashed lines): ${changes.map((c) => `${utc(c.t * 1000)} ${c.label}`).join('; ')}.`) : null)
    const last = d.points[d.points.length - 1]!
    fill(caption, h('span', {}, `${d.points.length} points from ${utc(d.from)} to ${utc(d.to)}; owner now ${factionName(names, last.owner)}, ${pct(last.libPct)} liberated, ${int(last.players)} players.`))
  }
  const poller = every(REFRESH_MS, draw)
  function select(n: number) {
    hours = n
    for (const b of buttons) b.setAttribute('aria-pressed', String(Number(b.dataset.hours) === n))
    poller.now()
  }

  void factionNames().then((n) => {
    names = n
    poller.now()
  })
  void api<{ warID: number; index: number; name: string; sector: string | null }[]>('/planets').then((got) => {
    if (!got.ok) return
    // The current war's row: the highest war id that has this planet.
    const rows = got.data.filter((p) => p.index === id).sort((a, b) => b.warID - a.warID)
    if (rows[0]) {
      fill(title, `${rows[0].name}${rows[0].sector ? ` · ${rows[0].sector}` : ''}`)
      document.title = `${rows[0].name} · galactic war stats`
    }
  })
  every(REFRESH_MS, async () => {
    const got = await api<LiberationAnswer>(`/planets/liberation?planetId=${id}`)
    const l = got.ok ? got.data.items[0] : undefined
    if (!l) {
      fill(now, empty(!got.ok && got.absent ? 'Liberation rate and ETA are not available on this server (no /planets/liberation route), or the planet is not known.' : `Liberation rate unavailable${got.ok ? ': the planet is not in a campaign' : `: ${got.message}`}.`, 'absent'))
      return
    }
    const outlook = l.outlook === 'winning' || l.outlook === 'losing' ? `${l.outlook}${l.etaHours !== null ? ` in ${duration(l.etaHours * 3600)} (${utc(l.eta)})` : ''}` : l.outlook
    fill(
      now,
      h(
        'div',
        { class: 'stats' },
        h('div', { class: 'stat' }, h('span', { class: 'label' }, 'Liberation'), h('span', { class: 'value' }, pct(l.libPct))),
        h('div', { class: 'stat' }, h('span', { class: 'label' }, 'Players'), h('span', { class: 'value' }, int(l.players))),
        h('div', { class: 'stat' }, h('span', { class: 'label' }, 'Rate'), h('span', { class: 'value' }, l.ratePctPerHour === null ? '–' : `${l.ratePctPerHour.toFixed(2)} %/h`)),
        h('div', { class: 'stat' }, h('span', { class: 'label' }, 'Outlook'), h('span', { class: 'value small' }, outlook)),
      ),
      h('p', { class: 'age' }, `Over the last ${got.ok ? got.data.windowHours : '?'} h (${l.samples} samples); data age ${l.ageSeconds === null ? 'unknown' : duration(l.ageSeconds)}.`),
    )
  })
}
