/**
 * War page, in the order players read it: the active campaigns (/campaigns: defenses with
 * their countdown and outlook first), the major orders in words (/major-orders), the
 * galaxy map (/planets positions and waypoints, /war owners, campaign rings), the galaxy
 * statistics (every 10 s, the spec's cadence) and every planet of /war with its owner,
 * its own bar (liberation on an enemy planet, health on a players' one), players, rate and
 * ETA (/planets/liberation), sortable and filterable; on a phone each planet is a block with
 * every figure visible. A defended planet's row shows the defense's bar too, named: its rate
 * and ETA are the defense's (/planets/liberation answers a defended planet from its event).
 */
import { campaignCard, campaignOrder } from './campaigns.ts'
import { api, barOf, dataState, defenseBarText, duration, empty, every, factionName, factionNames, fill, h, int, libPct, pct, section, utc } from './common.ts'
import { GalaxyMap, type MapPlanet } from './map.ts'
import { orderCard } from './orders.ts'
import type { Campaign, Campaigns, Liberation, LiberationAnswer, MajorOrders, PlanetRow, PlanetWarInfo, WarState, WarStats } from './types.ts'

// Galaxy counters run to hundreds of billions: shown short ("107.76B"), exact on hover.
const SHORT = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 })
const short = (v: number) => (Math.abs(v) >= 1e6 ? SHORT.format(v) : int(v))

const STATS_MS = 10_000 // spec: the war page polls /war-stats every 10 s
const WAR_MS = 30_000 // /war is revalidated every 30 s; campaigns change per tick
const SLOW_MS = 60_000 // derived routes (orders, liberation rates)
const ROWS_SHOWN = 50 // planets listed before "Show all"

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
  ['bulletsHit', 'Bullets hit', short],
]

/**
 * Figures of the feed that cannot be true as shown, each with what is wrong (the feed's
 * galaxy statistics are known to carry such values).
 */
function doubts(s: Record<string, number>): Map<string, string> {
  const out = new Map<string, string>()
  const { bulletsFired: fired, bulletsHit: hit, accuracy, missionsWon: won, missionsLost: lost, missionSuccessRate: rate } = s
  if (typeof fired === 'number' && typeof hit === 'number' && hit > fired) {
    out.set('accuracy', `Not a real accuracy: the feed counts more hits (${short(hit)}) than shots (${short(fired)})${typeof accuracy === 'number' ? `, and caps the share at ${accuracy} %` : ''}.`)
  } else if (typeof fired === 'number' && typeof hit === 'number' && typeof accuracy === 'number' && fired > 0 && Math.abs((hit / fired) * 100 - accuracy) > 1.5) {
    out.set('accuracy', `The feed's hits and shots give ${((hit / fired) * 100).toFixed(1)} %, not ${accuracy} %.`)
  }
  if (typeof won === 'number' && typeof lost === 'number' && typeof rate === 'number' && won + lost > 0 && Math.abs((won / (won + lost)) * 100 - rate) > 1.5) {
    out.set('missionSuccessRate', `Missions won and lost give ${((won / (won + lost)) * 100).toFixed(1)} %, not ${rate} %.`)
  }
  return out
}

interface Row {
  p: PlanetWarInfo
  /** The planet's own bar (docs/api.md "War intelligence"). */
  lib: number
  /** The defense's bar when the planet is defended (its campaign's, else its liberation answer's event), else null. */
  defense: number | null
  owner: string
  rate: Liberation | undefined
  campaign: Campaign | undefined
}

type SortKey = 'name' | 'sector' | 'owner' | 'lib' | 'players' | 'rate' | 'eta'
const COLUMNS: [SortKey, string][] = [
  ['name', 'Planet'],
  ['sector', 'Sector'],
  ['owner', 'Owner'],
  ['lib', 'Liberated / health'],
  ['players', 'Players'],
  ['rate', 'Rate /h'],
  ['eta', 'ETA'],
]
const FIRST_ASCENDING = new Set<SortKey>(['name', 'sector', 'owner', 'eta'])

export function warPage(app: HTMLElement) {
  fill(app)
  app.append(h('h1', {}, 'The galactic war'))
  dataState(app)
  const campaignsBody = section(app, 'campaigns', 'Campaigns')
  const orders = section(app, 'orders', 'Major orders')
  const mapBody = section(app, 'map', 'Galaxy map')
  const stats = section(app, 'galaxy', 'Galaxy statistics')
  const planets = section(app, 'planets', 'Planets')

  let war: WarState | null = null
  let warError: HTMLElement | null = null
  let lookups: PlanetRow[] | null = null
  let lookupsError: string | null = null
  let campaigns: Campaigns | null = null
  let rates = new Map<number, Liberation>()
  let ratesNote: string | null = null
  let names = new Map<number, string>()
  const frozen = () => !!campaigns?.frozenSince

  // ---- galaxy statistics
  every(STATS_MS, async () => {
    const got = await api<WarStats>('/war-stats')
    if (!got.ok) {
      fill(stats, empty(`Galaxy statistics unavailable: ${got.status === 503 ? 'the upstream feed does not answer' : got.message}. Retrying every ${STATS_MS / 1000} s.`, 'error'))
      return
    }
    const s = got.data.stats
    const doubt = doubts(s)
    fill(
      stats,
      h(
        'div',
        { class: 'stats' },
        ...STAT_LABELS.filter(([k]) => typeof s[k] === 'number').map(([k, label, f]) =>
          h(
            'div',
            { class: `stat${doubt.has(k) ? ' doubtful' : ''}` },
            h('span', { class: 'label' }, label),
            h('span', { class: 'value', 'data-stat': k, title: int(s[k]!) }, f(s[k]!), doubt.has(k) ? h('span', { class: 'flag', 'aria-hidden': 'true' }, ' ?') : null),
            doubt.has(k) ? h('span', { class: 'stat-note', id: `note-${k}` }, doubt.get(k)!) : null,
          ),
        ),
      ),
      h('p', { class: 'age' }, `From the upstream feed as of ${utc(got.data.dataCapturedAt ?? got.data.at)}${got.data.dataAgeSeconds != null ? ` (${duration(got.data.dataAgeSeconds)} old)` : ''}; refreshed every ${STATS_MS / 1000} s.`),
    )
  })

  // ---- campaigns
  const drawCampaigns = (got: Awaited<ReturnType<typeof api<Campaigns>>>) => {
    if (!got.ok) {
      campaigns = null
      if (got.absent) fill(campaignsBody, empty('Campaigns are not available on this server (no /campaigns route).', 'absent'))
      else if (got.status === 404) fill(campaignsBody, empty(`No campaign recorded yet: ${got.message} (no full-status tick of it is stored; the full-status collector writes one every 5 minutes once the upstream answers).`))
      else fill(campaignsBody, empty(`Campaigns unavailable: ${got.message}. Retrying every ${WAR_MS / 1000} s.`, 'error'))
      return
    }
    campaigns = got.data
    const d = got.data
    const items = [...d.items].sort(campaignOrder)
    const defenses = items.filter((c) => c.type === 'defense').length
    const divers = items.reduce((n, c) => n + (c.players ?? 0), 0)
    const tick = d.at ? `As of the full-status tick of ${utc(d.at)}${d.dataAgeSeconds != null ? ` (${duration(d.dataAgeSeconds)} ago)` : ''}.` : ''
    fill(
      campaignsBody,
      d.frozenSince ? h('p', { class: 'notice', id: 'frozen' }, `The war's clock has stood still since ${utc(d.frozenSince)} (the upstream reports the same war time again): no outlook, ETA or margin is projected while it lasts.`) : null,
      items.length === 0
        ? d.at
          ? empty(`No active campaign in the latest full-status tick. ${tick}`)
          : h('p', { class: 'empty', id: 'campaigns-empty' }, 'No full-status tick is stored yet, so no campaign: campaigns and defenses appear with the first tick (the full-status collector writes one every 5 minutes while the upstream answers).')
        : [
            h(
              'p',
              { class: 'age', id: 'campaigns-summary' },
              `${items.length} campaign${items.length === 1 ? '' : 's'}: ${defenses} defense${defenses === 1 ? '' : 's'}, ${items.length - defenses} other; ${int(divers)} divers on them. ${tick}`,
              items.some((c) => c.samples < 2) && !d.frozenSince ? ' A rate, ETA and outlook need two ticks at least 5 minutes apart: "too early to tell" until then.' : '',
            ),
            h('ul', { class: 'campaigns', id: 'campaigns-list' }, ...items.map((c) => campaignCard(c, !!d.frozenSince))),
          ],
    )
  }
  every(WAR_MS, async () => {
    drawCampaigns(await api<Campaigns>('/campaigns', { optional: true }))
    drawOrders()
    drawMap()
    draw()
  })

  // ---- major orders (drawn again when the campaigns change: a planet task shows its front)
  let orderAnswer: Awaited<ReturnType<typeof api<MajorOrders>>> | null = null
  const drawOrders = () => {
    const got = orderAnswer
    if (!got) return
    if (!got.ok) {
      if (got.absent) fill(orders, empty('Major-order status is not available on this server (no /major-orders route).', 'absent'))
      else if (got.status === 404) fill(orders, empty(`No major order recorded yet: ${got.message} (no full-status tick of it is stored).`))
      else fill(orders, empty(`Major orders unavailable: ${got.message}. Retrying every ${SLOW_MS / 1000} s.`, 'error'))
      return
    }
    if (got.data.items.length === 0) {
      fill(orders, empty('No major order recorded for this war yet: the full-status collector stores them as the upstream issues them.'))
      return
    }
    const fronts = new Map((campaigns?.items ?? []).map((c) => [c.planetIndex, c]))
    const items = [...got.data.items].sort((a, b) => Number(b.status === 'active') - Number(a.status === 'active'))
    fill(orders, h('ul', { class: 'orders', id: 'orders-list' }, ...items.map((o) => orderCard(o, !!got.data.frozenSince, fronts))))
  }
  every(SLOW_MS, async () => {
    orderAnswer = await api<MajorOrders>('/major-orders?limit=10', { optional: true })
    drawOrders()
  })

  // ---- map
  const map = new GalaxyMap(mapBody)
  const mapNote = h('div', { class: 'map-empty' })
  mapBody.prepend(mapNote)
  const drawMap = () => {
    if (!war || !lookups) {
      map.el.hidden = true
      fill(mapNote, warError ? warError.cloneNode(true) : lookupsError ? empty(`The map needs the planets' positions from /planets: ${lookupsError}.`, 'error') : empty('Loading the map…'))
      return
    }
    const warId = war.war.warID
    const where = new Map(lookups.filter((p) => p.warID === warId).map((p) => [p.index, p]))
    const drawn: MapPlanet[] = []
    for (const p of war.planets) {
      const row = where.get(p.indexID)
      if (!row?.position) continue
      drawn.push({ index: p.indexID, name: p.planetName, sector: p.sectorName, x: row.position.x, y: row.position.y, owner: p.owner, players: p.players, lib: libPct(p.owner, p.health, p.maxHealth), disabled: row.disabled, waypoints: row.waypoints })
    }
    if (drawn.length === 0) {
      map.el.hidden = true
      fill(mapNote, empty(war.planets.length === 0 ? 'No planet to draw: the war has no planets recorded yet (the war-info collector fills them).' : 'No planet of this war has a position in /planets yet.'))
      return
    }
    map.el.hidden = false
    const missing = war.planets.length - drawn.length
    fill(mapNote, missing > 0 ? h('p', { class: 'hint' }, `${missing} planets have no position in /planets and are not drawn.`) : null)
    map.set(drawn, campaigns?.items ?? [], names, frozen(), campaigns?.attacks ?? [])
  }

  // ---- planets
  const label = (forId: string, text: string, control: HTMLElement) => h('label', { class: 'field', for: forId }, h('span', {}, text), control)
  const controls = h('form', { class: 'filters', role: 'search', 'aria-label': 'Filter the planets', onsubmit: (e: Event) => e.preventDefault() })
  const nameInput = h('input', { type: 'search', id: 'filter-name', placeholder: 'Any planet' }) as HTMLInputElement
  const sectorSelect = h('select', { id: 'filter-sector' }) as HTMLSelectElement
  const factionSelect = h('select', { id: 'filter-faction' }) as HTMLSelectElement
  const showSelect = h('select', { id: 'filter-show' }, h('option', { value: '' }, 'All planets'), h('option', { value: 'campaign' }, 'In a campaign'), h('option', { value: 'players' }, 'With players')) as HTMLSelectElement
  const sortSelect = h('select', { id: 'sort-by' }, ...COLUMNS.map(([k, l]) => h('option', { value: k }, l))) as HTMLSelectElement
  controls.append(label('filter-name', 'Planet', nameInput), label('filter-sector', 'Sector', sectorSelect), label('filter-faction', 'Owner', factionSelect), label('filter-show', 'Show', showSelect), h('label', { class: 'field sort-field', for: 'sort-by' }, h('span', {}, 'Sort by'), sortSelect))
  const summary = h('p', { class: 'age', id: 'planets-summary' })
  const tableWrap = h('div', { class: 'table-wrap' })
  const more = h('button', { type: 'button', id: 'planets-more', hidden: true, onclick: () => ((showAll = true), draw()) })
  planets.append(controls, summary, tableWrap, more)

  let sort: { key: SortKey; dir: 1 | -1 } = { key: 'players', dir: -1 }
  let showAll = false
  sortSelect.value = sort.key
  for (const el of [nameInput, sectorSelect, factionSelect, showSelect]) el.addEventListener('input', () => draw())
  const sortBy = (key: SortKey) => {
    sort = { key, dir: sort.key === key ? (-sort.dir as 1 | -1) : FIRST_ASCENDING.has(key) ? 1 : -1 }
    sortSelect.value = key
    draw()
  }
  sortSelect.addEventListener('change', () => {
    const key = sortSelect.value as SortKey
    sort = { key, dir: FIRST_ASCENDING.has(key) ? 1 : -1 }
    draw()
  })

  /** Fill a select with its choices; with none yet it says so and is disabled. */
  const options = (select: HTMLSelectElement, all: string, none: string, values: [string, string][]) => {
    const keep = select.value
    fill(select, h('option', { value: '' }, values.length ? all : none), ...values.map(([v, l]) => h('option', { value: v }, l)))
    select.value = values.some(([v]) => v === keep) ? keep : ''
    select.disabled = values.length === 0
  }

  const draw = () => {
    const sectors = [...new Set([...(war?.planets ?? []).map((p) => p.sectorName ?? ''), ...(lookups ?? []).filter((p) => !war || p.warID === war.war.warID).map((p) => p.sector ?? '')])].filter(Boolean).sort()
    options(sectorSelect, `All ${sectors.length} sectors`, 'No sectors yet', sectors.map((s) => [s, s]))
    const owners = [...new Set([...(war?.planets ?? []).map((p) => p.owner), ...names.keys()])].sort((a, b) => a - b)
    options(factionSelect, 'All owners', 'No factions yet', owners.map((o) => [String(o), factionName(names, o)]))
    if (!war) {
      fill(tableWrap, warError ?? empty('Loading planets…'))
      fill(summary)
      more.hidden = true
      return
    }
    const byPlanet = new Map((campaigns?.items ?? []).map((c) => [c.planetIndex, c]))
    const rows: Row[] = war.planets.map((p) => {
      const campaign = byPlanet.get(p.indexID)
      const rate = rates.get(p.indexID)
      const defense = campaign?.type === 'defense' ? campaign.progressPct : rate && rate.eventId !== null ? rate.libPct : null
      return { p, lib: libPct(p.owner, p.health, p.maxHealth), defense, owner: factionName(names, p.owner), rate, campaign }
    })
    const q = nameInput.value.trim().toLowerCase()
    const show = showSelect.value
    const shown = rows
      .filter(
        (r) =>
          (!q || r.p.planetName.toLowerCase().includes(q)) &&
          (!sectorSelect.value || r.p.sectorName === sectorSelect.value) &&
          (!factionSelect.value || String(r.p.owner) === factionSelect.value) &&
          (show !== 'campaign' || r.campaign) &&
          (show !== 'players' || r.p.players > 0),
      )
      .sort((a, b) => compare(a, b, sort.key) * sort.dir || a.p.indexID - b.p.indexID)
    const listed = showAll ? shown : shown.slice(0, ROWS_SHOWN)
    const age = war.dataAgeSeconds != null ? ` Data age ${duration(war.dataAgeSeconds)}.` : ''
    fill(summary, `Showing ${listed.length} of ${shown.length === rows.length ? '' : `${shown.length} matching, `}${rows.length} planets of war ${war.war.warID}.${age} ${ratesNote ?? ''}`)
    more.hidden = listed.length === shown.length
    fill(more, `Show all ${shown.length} planets`)
    if (rows.length === 0) {
      fill(tableWrap, empty('The war has no planets recorded yet: the war-info collector fills them.'))
      return
    }
    const head = h(
      'tr',
      {},
      ...COLUMNS.map(([key, text]) =>
        h(
          'th',
          { scope: 'col', class: `c-${key}${['lib', 'players', 'rate'].includes(key) ? ' num' : ''}`, 'aria-sort': sort.key === key ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none' },
          h('button', { type: 'button', 'data-sort': key, onclick: () => sortBy(key) }, text),
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
          ...listed.map((r) =>
            h(
              'tr',
              { 'data-planet': r.p.indexID, 'data-lib-pct': r.lib, class: r.campaign ? `in-campaign ${r.campaign.type === 'defense' ? 'defense' : ''}` : '' },
              h('td', { class: 'c-name' }, h('a', { href: `/planet/${r.p.indexID}` }, r.p.planetName), r.campaign ? h('span', { class: `mark ${r.campaign.type === 'defense' ? 'defense' : ''}`, title: r.campaign.type === 'defense' ? 'Under attack: a defense campaign' : 'A campaign is on' }, r.campaign.type === 'defense' ? 'defense' : 'campaign') : null),
              h('td', { class: 'c-sector' }, r.p.sectorName ?? '–'),
              h('td', { class: `c-owner owner f${r.p.owner}` }, r.owner),
              h(
                'td',
                { class: 'num c-lib libcell', 'data-bar': r.p.owner === 1 ? 'planet-health' : 'planet-liberation' },
                barOf(r.lib, `f${r.p.owner}`),
                h('span', { class: 'lib' }, pct(r.lib)),
                ' ',
                h('span', { class: 'lib-what' }, r.p.owner === 1 ? 'health' : 'liberated'),
                r.defense !== null ? [' ', h('span', { class: 'lib-defense', 'data-bar': 'defense' }, `defense: ${defenseBarText(r.defense)}`)] : null,
              ),
              h('td', { class: 'num c-players', 'data-label': 'Players' }, int(r.p.players)),
              h(
                'td',
                { class: 'num c-rate', 'data-label': 'Rate /h' },
                r.rate?.ratePctPerHour == null ? '–' : `${r.rate.ratePctPerHour > 0 ? '+' : ''}${r.rate.ratePctPerHour.toFixed(2)} %`,
                // A defended planet's rate is of the defense's bar (its event), not of the planet's.
                r.rate && r.rate.eventId !== null ? h('span', { class: 'rate-what' }, ' defense') : null,
              ),
              h('td', { class: 'c-eta', 'data-label': 'ETA' }, etaText(r.rate)),
            ),
          ),
        ),
      ),
    )
  }

  void factionNames().then((n) => {
    names = n
    draw()
    drawMap()
  })
  every(WAR_MS, async () => {
    const got = await api<WarState>('/war')
    if (got.ok) {
      war = got.data
      warError = null
    } else {
      war = null
      warError =
        got.status === 404
          ? empty(`No war recorded yet: the war-info collector has not reached the upstream so far (the API says "${got.message}"); the planets appear once it has.`)
          : empty(`Planets unavailable: ${got.message}. Retrying every ${WAR_MS / 1000} s.`, 'error')
    }
    draw()
    drawMap()
  })
  // Positions and supply lines: a lookup table (cached an hour by the browser).
  every(3_600_000, async () => {
    const got = await api<PlanetRow[]>('/planets')
    if (got.ok) [lookups, lookupsError] = [got.data, null]
    else [lookups, lookupsError] = [null, got.message]
    draw()
    drawMap()
  })
  every(SLOW_MS, async () => {
    const got = await api<LiberationAnswer>('/planets/liberation', { optional: true })
    if (got.ok) {
      rates = new Map(got.data.items.map((l) => [l.planetIndex, l]))
      ratesNote = `Rates over the last ${got.data.windowHours} h (campaign planets).`
    } else {
      rates = new Map()
      ratesNote = got.absent ? 'Liberation rates and ETAs are not available on this server (no /planets/liberation route).' : got.status === 404 ? 'No liberation rates yet: no full-status tick of this war is stored.' : `Liberation rates unavailable: ${got.message}.`
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
  // A defended planet: its event decides, against its deadline.
  if (l.deadline) {
    switch (l.outlook) {
      case 'winning':
        return l.etaHours === null ? 'defense winning' : `defense won in ${duration(l.etaHours * 3600)}`
      case 'losing':
        return l.marginHours === null ? 'defense losing' : `defense ${duration(-l.marginHours * 3600)} short`
      default:
        return l.samples < 2 ? 'too early' : 'defense'
    }
  }
  switch (l.outlook) {
    case 'winning':
      return l.etaHours === null ? 'winning' : `in ${duration(l.etaHours * 3600)}`
    case 'losing':
      return l.etaHours === null ? 'losing' : `lost in ${duration(l.etaHours * 3600)}`
    case 'stalemate':
      return 'stalemate'
    default:
      return l.samples < 2 ? 'too early' : '–'
  }
}
