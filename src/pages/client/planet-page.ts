/**
 * Planet page: its world (biome, hazards, effects, regions from /planets), its campaign or
 * defense now (/campaigns: bar, countdown, outlook), its liberation rate and outlook
 * (/planets/liberation), and liberation % and players over 24 h, 7 days or 30 days
 * (/planet/:id/history) with the owner changes and the campaign and defense events
 * (/timeline) marked on the charts.
 */
import { campaignCard, progressChart } from './campaigns.ts'
import { TimeChart, type LineMark } from './chart.ts'
import { api, dataState, duration, empty, every, factionName, factionNames, fill, h, int, pct, section, utc } from './common.ts'
import type { CampaignHistory, Campaigns, LiberationAnswer, Paged, PlanetHistory, PlanetRow, TimelineItem } from './types.ts'

const HOURS = [
  [24, '24 h'],
  [168, '7 days'],
  [720, '30 days'],
] as const
const REFRESH_MS = 60_000

const FRONT_EVENTS: Record<string, string> = {
  campaign_started: 'campaign began',
  campaign_ended: 'campaign ended',
  defense_started: 'defense began',
  defense_won: 'defense won',
  defense_lost: 'defense lost',
}

export function planetPage(app: HTMLElement) {
  const id = Number(location.pathname.split('/')[2])
  fill(app)
  const title = h('h1', {}, `Planet ${id}`)
  const worldLine = h('p', { class: 'world-line', id: 'planet-world-line' })
  app.append(title, worldLine)
  dataState(app)
  const front = section(app, 'planet-campaign', 'Campaign')
  const now = section(app, 'planet-now', 'Now')
  const hist = section(app, 'planet-history', 'History')
  const world = section(app, 'planet-world', 'World')
  let names = new Map<number, string>()
  let hours = 24

  const bar = h('div', { class: 'ranges', role: 'group', 'aria-label': 'Range' })
  const note = h('div', { class: 'chart-note' })
  hist.append(bar, note)
  const lib = new TimeChart(hist, [{ label: 'Liberation %', color: '--series1', scale: '%', range: [0, 100], format: (v) => `${+v.toFixed(1)}` }], 220)
  lib.el.id = 'planet-lib-chart'
  const players = new TimeChart(hist, [{ label: 'Players', color: '--series2', scale: 'players', count: true }], 180)
  players.el.id = 'planet-players-chart'
  const caption = h('div', { class: 'caption' })
  hist.append(caption)
  const buttons = HOURS.map(([n, label]) => h('button', { type: 'button', 'data-hours': n, 'aria-pressed': String(n === hours), onclick: () => select(n) }, label))
  bar.append(...buttons)

  /** The campaign and defense events of this planet in the window (none when /timeline is absent). */
  const frontEvents = async (from: string): Promise<LineMark[]> => {
    const got = await api<Paged<TimelineItem>>(`/timeline?type=${Object.keys(FRONT_EVENTS).join(',')}&from=${encodeURIComponent(from)}&limit=1000`, { optional: true })
    if (!got.ok) return []
    return got.data.items.filter((e) => e.planetIndex === id).map((e) => ({ t: Date.parse(e.at) / 1000, label: FRONT_EVENTS[e.type] ?? e.type, color: e.type.startsWith('defense') ? '--f3' : '--accent' }))
  }

  const draw = async () => {
    const shown = hours
    const got = await api<PlanetHistory>(`/planet/${id}/history?hours=${shown}`)
    if (shown !== hours) return
    if (!got.ok) {
      lib.el.hidden = players.el.hidden = true
      fill(note, empty(got.status === 404 ? `No history: ${got.message}.` : `Planet history unavailable: ${got.message}.`, got.status === 404 ? 'absent' : 'error'))
      fill(caption)
      return
    }
    const d = got.data
    if (d.points.length === 0) {
      lib.set([], [[]])
      players.set([], [[]])
      lib.el.hidden = players.el.hidden = true
      fill(note, empty(`No status recorded for this planet between ${utc(d.from)} and ${utc(d.to)}: the full-status collector writes one every 5 minutes while the upstream answers.`))
      fill(caption)
      return
    }
    lib.el.hidden = players.el.hidden = false
    const xs = d.points.map((p) => Date.parse(p.t) / 1000)
    // Owner changes: a line where a point's owner differs from the one before it.
    const changes: LineMark[] = d.points.flatMap((p, i) => (i > 0 && p.owner !== d.points[i - 1]!.owner ? [{ t: xs[i]!, label: `→ ${factionName(names, p.owner)}` }] : []))
    const events = await frontEvents(d.from)
    if (shown !== hours) return
    const window: [number, number] = [Date.parse(d.from) / 1000, Date.parse(d.to) / 1000]
    lib.set(xs, [d.points.map((p) => p.libPct)], { lines: [...changes, ...events], window })
    players.set(xs, [d.points.map((p) => p.players)], { lines: [...changes, ...events].map((l) => ({ ...l, labelled: false })), window })
    lib.el.dataset.ownerChanges = String(changes.length)
    fill(
      note,
      changes.length ? h('p', { class: 'hint', id: 'owner-changes' }, `Owner changes (dashed lines): ${changes.map((c) => `${utc(c.t * 1000)} ${c.label}`).join('; ')}.`) : null,
      events.length ? h('p', { class: 'hint', id: 'front-events' }, `Campaign and defense events: ${events.map((e) => `${utc(e.t * 1000)} ${e.label}`).join('; ')}.`) : null,
    )
    const last = d.points[d.points.length - 1]!
    const young = Date.parse(d.points[0]!.t) - Date.parse(d.from) > (Date.parse(d.to) - Date.parse(d.from)) / 2
    fill(
      caption,
      h('span', {}, `${d.points.length} point${d.points.length === 1 ? '' : 's'} from ${utc(d.from)} to ${utc(d.to)}; owner now ${factionName(names, last.owner)}, ${pct(last.libPct)} liberated, ${int(last.players)} players.`),
      young ? h('span', { class: 'young' }, `Recorded since ${utc(d.points[0]!.t)} only: the rest of the window has no tick stored.`) : null,
    )
  }
  const poller = every(REFRESH_MS, draw)
  function select(n: number) {
    hours = n
    for (const b of buttons) b.setAttribute('aria-pressed', String(Number(b.dataset.hours) === n))
    poller.now()
  }

  let figures: { now(): void } | null = null
  void factionNames().then((n) => {
    names = n
    poller.now()
    figures?.now()
  })

  // ---- the world: a lookup table, read once
  void api<PlanetRow[]>('/planets').then((got) => {
    if (!got.ok) {
      fill(world, empty(`The planet's world is unavailable: ${got.message}.`, 'error'))
      return
    }
    // The current war's row: the highest war id that has this planet.
    const row = got.data.filter((p) => p.index === id).sort((a, b) => b.warID - a.warID)[0]
    if (!row) {
      fill(world, empty(`Planet ${id} is not in the planet table of any stored war${got.data.length === 0 ? ' (nothing is stored yet: the war-info collector fills it)' : ''}.`))
      return
    }
    fill(title, `${row.name}${row.sector ? ` · ${row.sector}` : ''}`)
    document.title = `${row.name} · galactic war stats`
    const biome = row.world?.biome
    const hazards = row.world?.hazards ?? []
    const effects = row.effects ?? []
    const regions = row.world?.regions ?? []
    fill(
      worldLine,
      biome ? h('span', { class: 'chip biome', id: 'planet-biome' }, biome.name ?? biome.key) : null,
      ...hazards.map((z) => h('span', { class: 'chip hazard', title: z.description ?? '' }, z.name ?? z.key)),
    )
    const item = (name: string | null, key: string | number, description: string | null) => h('li', {}, h('strong', {}, name ?? String(key)), description ? ` · ${description.replace(/<[^>]*>/g, '')}` : '')
    fill(
      world,
      h(
        'dl',
        { class: 'world' },
        h('dt', {}, 'Biome'),
        h('dd', {}, biome ? [h('strong', {}, biome.name ?? biome.key), biome.description ? ` · ${biome.description}` : ''] : 'not known'),
        h('dt', {}, 'Hazards'),
        h('dd', { id: 'planet-hazards' }, hazards.length ? h('ul', {}, ...hazards.map((z) => item(z.name, z.key, z.description))) : 'none known'),
        effects.length ? [h('dt', {}, 'Active effects'), h('dd', {}, h('ul', {}, ...effects.map((e) => item(e.name, e.id, e.description))))] : null,
        regions.length ? [h('dt', {}, 'Regions'), h('dd', {}, h('ul', {}, ...regions.map((r) => item(r.name, r.hash, r.description))))] : null,
        h('dt', {}, 'Position'),
        h('dd', {}, row.position ? `x ${row.position.x.toFixed(3)}, y ${row.position.y.toFixed(3)} on the galaxy map; ${row.waypoints.length} supply line${row.waypoints.length === 1 ? '' : 's'}` : 'not known'),
      ),
    )
  })

  // ---- its campaign or defense now
  every(REFRESH_MS, async () => {
    const got = await api<Campaigns>('/campaigns', { optional: true })
    if (!got.ok) {
      fill(front, empty(got.absent ? 'Campaigns are not available on this server (no /campaigns route).' : got.status === 404 ? `No campaign recorded yet: ${got.message}.` : `Campaigns unavailable: ${got.message}.`, got.absent ? 'absent' : got.status === 404 ? 'info' : 'error'))
      return
    }
    const c = got.data.items.find((i) => i.planetIndex === id)
    const history = c ? await api<CampaignHistory>(`/campaigns/${c.campaignId}/history`, { optional: true }) : null
    fill(
      front,
      c
        ? [
            h('ul', { class: 'campaigns single', id: 'planet-campaign-card' }, campaignCard(c, !!got.data.frozenSince, false)),
            history?.ok
              ? progressChart(history.data.points, c.type === 'defense' ? 'The attack beaten over the defense' : 'Liberation over the campaign')
              : empty(history?.absent ? 'Campaign history is not available on this server (no /campaigns/:id/history route).' : `Campaign history unavailable: ${history?.ok === false ? history.message : ''}.`, history?.absent ? 'absent' : 'error'),
          ]
        : empty(got.data.at ? `No campaign on this planet in the latest full-status tick (${utc(got.data.at)}).` : 'No full-status tick is stored yet, so no campaign is known.'),
    )
  })

  // ---- rate and outlook
  figures = every(REFRESH_MS, async () => {
    const got = await api<LiberationAnswer>(`/planets/liberation?planetId=${id}`, { optional: true })
    if (!got.ok) {
      // Absent: the route is not on this server. A 404 naming the planet or war: the route is here, the planet is not known.
      fill(now, empty(got.absent ? 'Liberation rate and outlook are not available on this server (no /planets/liberation route).' : got.status === 404 ? `No liberation figures: ${got.message}.` : `Liberation rate unavailable: ${got.message}.`, got.absent ? 'absent' : got.status === 404 ? 'info' : 'error'))
      return
    }
    const l = got.data.items[0]
    if (!l) {
      fill(now, empty('No liberation figures for this planet yet.'))
      return
    }
    const frozen = !!got.data.frozenSince
    const [outlook, outlookSub] = frozen
      ? ['clock stopped', 'nothing is projected while the war clock stands still']
      : l.outlook === 'unknown'
        ? ['unknown', l.samples < 2 ? 'a rate needs two ticks 5 minutes apart' : '']
        : l.outlook === 'stalemate'
          ? ['stalemate', 'the bar is not moving']
          : [l.outlook, l.deadline ? (l.marginHours === null ? '' : l.marginHours >= 0 ? `${duration(l.marginHours * 3600)} before the deadline` : `${duration(-l.marginHours * 3600)} short of the deadline`) : l.etaHours !== null ? `${l.outlook === 'winning' ? 'liberated' : 'lost'} in ${duration(l.etaHours * 3600)} (${utc(l.eta)})` : '']
    fill(
      now,
      h(
        'div',
        { class: 'stats' },
        h('div', { class: 'stat' }, h('span', { class: 'label' }, 'Owner'), h('span', { class: `value owner f${l.owner ?? 0}` }, l.owner === null ? '–' : factionName(names, l.owner))),
        h('div', { class: 'stat' }, h('span', { class: 'label' }, 'Liberation'), h('span', { class: 'value' }, pct(l.libPct))),
        h('div', { class: 'stat' }, h('span', { class: 'label' }, 'Players'), h('span', { class: 'value' }, int(l.players))),
        h('div', { class: 'stat' }, h('span', { class: 'label' }, 'Rate'), h('span', { class: 'value' }, l.ratePctPerHour === null ? '–' : `${l.ratePctPerHour.toFixed(2)} %/h`)),
        h('div', { class: 'stat' }, h('span', { class: 'label' }, 'Outlook'), h('span', { class: 'value', id: 'planet-outlook' }, outlook), outlookSub ? h('span', { class: 'sub' }, outlookSub) : null),
      ),
      h('p', { class: 'age' }, `Over the last ${got.data.windowHours} h (${l.samples} tick${l.samples === 1 ? '' : 's'}); data age ${l.ageSeconds === null ? 'unknown' : duration(l.ageSeconds)}.${l.regenPctPerHour ? ` The enemy regenerates ${l.regenPctPerHour.toFixed(2)} %/h.` : ''}`),
    )
  })
}
