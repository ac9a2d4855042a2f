/**
 * War page: galaxy statistics (every 10 s, the spec's cadence), the major orders with
 * their status and tasks (/major-orders), and every planet of /war with its
 * owner, liberation bar, players and, where /planets/liberation exists, rate and ETA;
 * sortable and filterable by sector, faction and name.
 */
import { api, barOf, duration, empty, every, factionName, factionNames, fill, h, int, libPct, pct, section, utc } from './common.ts'

// Galaxy counters run to hundreds of billions: shown short ("107.76B"), exact on hover.
const SHORT = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 })
const short = (v: number) => (Math.abs(v) >= 1e6 ? SHORT.format(v) : int(v))
import type { Liberation, LiberationAnswer, MajorOrder, PlanetWarInfo, WarState, WarStats } from './types.ts'

const STATS_MS = 10_000 // spec: the war page polls /war-stats every 10 s
const WAR_MS = 30_000 // /war is revalidated every 30 s
const SLOW_MS = 60_000 // derived routes (orders, liberation rates)

const STAT_LABELS: [string, string, (v: number) => string][] = [
  ['missionsWon', 'Missions won', short],
  ['missionsLost', 'Missions lost', short],
  ['missionSuccessRate', 'Mission success', (v) => `${v} %`],
  ['bugKills', 'Terminid kills', short],
  ['automatonKills', 'Automaton kills', short],
  ['illuminateKills', 'Illuminate kills', short],
  ['deaths', 'Deaths', short],
  ['friendlies', 'Friendly kills', short],
  ['revives', 'Revives', short],
  ['accuracy', 'Accuracy', (v) => `${v} %`],
  ['bulletsFired', 'Bullets fired', short],
]

interface Row {
  p: PlanetWarInfo
  lib: number
  owner: string
  rate: Liberation | undefined
}

type SortKey = 'name' | 'sector' | 'owner' | 'lib' | 'players' | 'rate' | 'eta'
const COLUMNS: [SortKey, string][] = [
  ['name', 'Planet'],
  ['sector', 'Sector'],
  ['owner', 'Owner'],
  ['lib', 'Liberation'],
  ['players', 'Players'],
  ['rate', 'Rate /h'],
  ['eta', 'ETA'],
]

export function warPage(app: HTMLElement) {
  fill(app)
  app.append(h('h1', {}, 'The galactic war'))
  const stats = section(app, 'galaxy', 'Galaxy statistics')
  const orders = section(app, 'orders', 'Major orders')
  const planets = section(app, 'planets', 'Planets')

  every(STATS_MS, async () => {
    const got = await api<WarStats>('/war-stats')
    if (!got.ok) {
      fill(stats, empty(`Galaxy statistics unavailable: ${got.message}. Retrying every ${STATS_MS / 1000} s.`, 'error'))
      return
    }
    const s = got.data.stats
    fill(
      stats,
      h('div', { class: 'stats' }, ...STAT_LABELS.filter(([k]) => typeof s[k] === 'number').map(([k, label, f]) => h('div', { class: 'stat' }, h('span', { class: 'label' }, label), h('span', { class: 'value', 'data-stat': k, title: int(s[k]!) }, f(s[k]!))))),
      h('p', { class: 'age' }, `As of ${utc(got.data.dataCapturedAt ?? got.data.at)}; refreshed every ${STATS_MS / 1000} s.`),
    )
  })

  every(SLOW_MS, async () => {
    const got = await api<{ items: MajorOrder[] }>('/major-orders?limit=10', { optional: true })
    if (!got.ok) {
      fill(orders, empty(got.absent ? 'Major-order status is not available on this server (no /major-orders route).' : `Major orders unavailable: ${got.message}.`, got.absent ? 'absent' : 'error'))
      return
    }
    if (got.data.items.length === 0) {
      fill(orders, empty('No major order recorded for this war yet: the full-status collector stores them as the upstream issues them.'))
      return
    }
    fill(orders, h('ul', { class: 'orders', id: 'orders-list' }, ...got.data.items.map(orderItem)))
  })

  // ---- planets
  const controls = h('form', { class: 'filters', role: 'search', onsubmit: (e: Event) => e.preventDefault() })
  const nameInput = h('input', { type: 'search', id: 'filter-name', placeholder: 'Planet name', 'aria-label': 'Filter by planet name' }) as HTMLInputElement
  const sectorSelect = h('select', { id: 'filter-sector', 'aria-label': 'Filter by sector' }) as HTMLSelectElement
  const factionSelect = h('select', { id: 'filter-faction', 'aria-label': 'Filter by owner' }) as HTMLSelectElement
  controls.append(nameInput, sectorSelect, factionSelect)
  const summary = h('p', { class: 'age', id: 'planets-summary' })
  const tableWrap = h('div', { class: 'scroll' })
  planets.append(controls, summary, tableWrap)

  let war: WarState | null = null
  let warError: string | null = null
  let rates = new Map<number, Liberation>()
  let ratesNote: string | null = null
  let names = new Map<number, string>()
  let sort: { key: SortKey; dir: 1 | -1 } = { key: 'players', dir: -1 }
  for (const el of [nameInput, sectorSelect, factionSelect]) el.addEventListener('input', () => draw())

  const options = (select: HTMLSelectElement, all: string, values: [string, string][]) => {
    const keep = select.value
    fill(select, h('option', { value: '' }, all), ...values.map(([v, label]) => h('option', { value: v }, label)))
    select.value = values.some(([v]) => v === keep) ? keep : ''
  }

  const draw = () => {
    if (!war) {
      fill(tableWrap, empty(warError ?? 'Loading planets…', warError ? 'error' : 'info'))
      fill(summary)
      return
    }
    const rows: Row[] = war.planets.map((p) => ({ p, lib: libPct(p.owner, p.health, p.maxHealth), owner: factionName(names, p.owner), rate: rates.get(p.indexID) }))
    options(sectorSelect, 'All sectors', [...new Set(rows.map((r) => r.p.sectorName ?? ''))].filter(Boolean).sort().map((s) => [s, s]))
    options(factionSelect, 'All owners', [...new Set(rows.map((r) => r.p.owner))].sort((a, b) => a - b).map((o) => [String(o), factionName(names, o)]))
    const q = nameInput.value.trim().toLowerCase()
    const shown = rows
      .filter((r) => (!q || r.p.planetName.toLowerCase().includes(q)) && (!sectorSelect.value || r.p.sectorName === sectorSelect.value) && (!factionSelect.value || String(r.p.owner) === factionSelect.value))
      .sort((a, b) => compare(a, b, sort.key) * sort.dir || a.p.indexID - b.p.indexID)
    const age = war.dataAgeSeconds != null ? ` Data age ${duration(war.dataAgeSeconds)}.` : ''
    fill(summary, `Showing ${shown.length} of ${rows.length} planets of war ${war.war.warID}.${age} ${ratesNote ?? ''}`)
    if (rows.length === 0) {
      fill(tableWrap, empty('The war has no planets recorded yet: the war-info collector fills them.'))
      return
    }
    const head = h(
      'tr',
      {},
      ...COLUMNS.map(([key, label]) =>
        h(
          'th',
          { scope: 'col', class: ['lib', 'players', 'rate'].includes(key) ? 'num' : '', 'aria-sort': sort.key === key ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none' },
          h('button', { type: 'button', 'data-sort': key, onclick: () => { sort = { key, dir: sort.key === key ? (-sort.dir as 1 | -1) : key === 'name' || key === 'sector' || key === 'owner' || key === 'eta' ? 1 : -1 }; draw() } }, label),
        ),
      ),
    )
    fill(
      tableWrap,
      h(
        'table',
        { class: 'planets', id: 'planets-table' },
        h('thead', {}, head),
        h(
          'tbody',
          {},
          ...shown.map((r) =>
            h(
              'tr',
              { 'data-planet': r.p.indexID, 'data-lib-pct': r.lib },
              h('td', {}, h('a', { href: `/planet/${r.p.indexID}` }, r.p.planetName)),
              h('td', {}, r.p.sectorName ?? '–'),
              h('td', { class: `owner f${r.p.owner}` }, r.owner),
              h('td', { class: 'num libcell' }, barOf(r.lib, `f${r.p.owner}`), h('span', { class: 'lib' }, pct(r.lib))),
              h('td', { class: 'num' }, int(r.p.players)),
              h('td', { class: 'num' }, r.rate?.ratePctPerHour == null ? '–' : `${r.rate.ratePctPerHour > 0 ? '+' : ''}${r.rate.ratePctPerHour.toFixed(2)} %`),
              h('td', {}, etaText(r.rate)),
            ),
          ),
        ),
      ),
    )
  }

  void factionNames().then((n) => {
    names = n
    draw()
  })
  every(WAR_MS, async () => {
    const got = await api<WarState>('/war')
    if (got.ok) {
      war = got.data
      warError = null
    } else {
      war = null
      warError = got.absent ? 'No war recorded yet: the war-info collector has not run (or not reached the upstream) so far.' : `Planets unavailable: ${got.message}.`
    }
    draw()
  })
  every(SLOW_MS, async () => {
    const got = await api<LiberationAnswer>('/planets/liberation', { optional: true })
    if (got.ok) {
      rates = new Map(got.data.items.map((l) => [l.planetIndex, l]))
      ratesNote = `Rates over the last ${got.data.windowHours} h.`
    } else {
      rates = new Map()
      ratesNote = got.absent ? 'Liberation rates and ETAs are not available on this server (no /planets/liberation route).' : `Liberation rates unavailable: ${got.message}.`
    }
    draw()
  })
}

function compare(a: Row, b: Row, key: SortKey): number {
  switch (key) {
    case 'name':
      return a.p.planetName.localeCompare(b.p.planetName)
    case 'sector':
      return (a.p.sectorName ?? '').localeCompare(b.p.sectorName ?? '')
    case 'owner':
      return a.owner.localeCompare(b.owner)
    case 'lib':
      return a.lib - b.lib
    case 'players':
      return a.p.players - b.p.players
    case 'rate':
      return (a.rate?.ratePctPerHour ?? -Infinity) - (b.rate?.ratePctPerHour ?? -Infinity)
    case 'eta':
      return (a.rate?.etaHours ?? Infinity) - (b.rate?.etaHours ?? Infinity)
  }
}

function etaText(l: Liberation | undefined): string {
  if (!l) return '–'
  switch (l.outlook) {
    case 'winning':
      return l.etaHours === null ? 'winning' : `in ${duration(l.etaHours * 3600)}`
    case 'losing':
      return l.etaHours === null ? 'losing' : `lost in ${duration(l.etaHours * 3600)}`
    case 'stalemate':
      return 'stalemate'
    default:
      return '–'
  }
}

function orderItem(o: MajorOrder): HTMLElement {
  const expires = Date.parse(o.expiresAt) - Date.now()
  const when =
    o.status === 'completed'
      ? `completed ${utc(o.completedAt)}`
      : o.status === 'active'
        ? `expires in ${duration(expires / 1000)}`
        : o.status === 'failed'
          ? `expired ${utc(o.expiresAt)}`
          : `withdrawn (last seen ${utc(o.lastSeenAt)})`
  return h(
    'li',
    { class: `order ${o.status}`, 'data-order': o.orderId32 },
    h('div', { class: 'order-head' }, h('strong', {}, o.title || `Order ${o.orderId32}`), h('span', { class: `badge ${o.status}`, 'data-status': o.status }, o.status)),
    o.briefing ? h('p', { class: 'brief' }, o.briefing) : null,
    h('p', { class: 'age' }, h('span', { class: 'tasks-count' }, `${o.tasksDone} of ${o.tasksTotal} tasks`), ` · ${when}`),
    h(
      'ol',
      { class: 'tasks' },
      ...o.tasks.map((t) =>
        h(
          'li',
          { class: t.done ? 'done' : '' },
          barOf(t.done ? 100 : (t.fraction ?? 0) * 100, 'task'),
          h('span', {}, t.target !== null && t.value !== null ? `${int(t.value)} / ${int(t.target)}` : t.done ? 'done' : t.fraction !== null ? pct(t.fraction * 100) : 'in progress'),
        ),
      ),
    ),
  )
}
