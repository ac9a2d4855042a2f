/**
 * Planet page: its world (biome, hazards, effects, regions from /planets), its campaign or
 * defense now (/campaigns: bar, countdown, outlook), its bar's rate and outlook
 * (/planets/liberation), and the planet's own bar and players over 24 h, 7 days or 30 days
 * (/planet/:id/history) with the owner changes and the campaign and defense events
 * (/timeline) marked on the charts.
 *
 * A defended planet has two bars (docs/api.md "War intelligence"): the defense's (the share
 * of the attack event's health taken: /campaigns, /planets/liberation while `eventId` is
 * set, /campaigns/:id/history) and the planet's own (its health while the players hold it:
 * /planet/:id/history). Every figure says which it is (common.ts `planetBarText`).
 */
import { campaignCard, progressChart } from './campaigns.ts'
import { TimeChart, type LineMark } from './chart.ts'
import { api, countdown, dataState, defenseBarText, duration, empty, every, factionName, factionNames, fill, h, int, pct, planetBarText, section, utc } from './common.ts'
import type { CampaignHistory, Campaigns, LiberationAnswer, Paged, PlanetHistory, PlanetRow, TimelineItem } from './types.ts'

const HOURS = [
  [24, '24 h'],
  [168, '7 days'],
  [720, '30 days'],
] as const
const REFRESH_MS = 60_000
/** The route's largest page (/timeline `limit`, docs/api.md). */
const TIMELINE_PAGE = 1000

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
  const lib = new TimeChart(hist, [{ label: "Planet's bar %", color: '--series1', scale: '%', range: [0, 100], format: (v) => `${+v.toFixed(1)}` }], 220)
  lib.el.id = 'planet-lib-chart'
  const players = new TimeChart(hist, [{ label: 'Players', color: '--series2', scale: 'players', count: true }], 180)
  players.el.id = 'planet-players-chart'
  const caption = h('div', { class: 'caption', id: 'planet-history-caption' })
  // Which bar the chart is, and where the defense's is when the planet is defended.
  const barNote = h('p', { class: 'hint', id: 'planet-bar-note' })
  hist.append(caption, barNote)
  /** The owners over the drawn window (null before the first draw), and whether a defense is on (from /campaigns or /planets/liberation). */
  let owners: { held: boolean; enemy: boolean } | null = null
  const defense = { campaign: false, event: false }
  const drawBarNote = () => {
    const defended = defense.campaign || defense.event
    if (!owners) return fill(barNote)
    const what = owners.held && owners.enemy
      ? "This chart is the planet's own bar: its health while the players hold it (100 % = fully held, 0 = lost), its liberation while an enemy holds it (100 % = liberated)."
      : owners.held
        ? "This chart is the planet's own bar: the players hold it, so it is the planet's health (100 % = fully held, 0 = lost)."
        : "This chart is the planet's own bar: its liberation (100 % = liberated from its enemy owner)."
    fill(barNote, what, defended ? ` It is not the defense's bar: that one (the share of the attack beaten, against its deadline) is ${defense.campaign ? "the campaign card's chart" : 'the Now card'} above.` : '')
    barNote.dataset.defended = String(defended)
  }
  const buttons = HOURS.map(([n, label]) => h('button', { type: 'button', 'data-hours': n, 'aria-pressed': String(n === hours), onclick: () => select(n) }, label))
  bar.append(...buttons)

  /**
   * The campaign and defense events of this planet in the window (none when /timeline is
   * absent), up to the route's largest page; `cut`: the time before which events were not
   * read, when the planet has more.
   */
  const frontEvents = async (from: string): Promise<{ lines: LineMark[]; cut: string | null }> => {
    const got = await api<Paged<TimelineItem>>(`/timeline?planetId=${id}&type=${Object.keys(FRONT_EVENTS).join(',')}&from=${encodeURIComponent(from)}&limit=${TIMELINE_PAGE}`, { optional: true })
    if (!got.ok) return { lines: [], cut: null }
    const lines = got.data.items.map((e) => ({ t: Date.parse(e.at) / 1000, label: FRONT_EVENTS[e.type] ?? e.type, color: e.type.startsWith('defense') ? '--f3' : '--accent' }))
    return { lines, cut: got.data.totalPages > 1 ? (got.data.items.at(-1)?.at ?? null) : null }
  }

  const draw = async () => {
    const shown = hours
    const got = await api<PlanetHistory>(`/planet/${id}/history?hours=${shown}`)
    if (shown !== hours) return
    if (!got.ok) {
      lib.el.hidden = players.el.hidden = true
      fill(note, empty(got.status === 404 ? `No history: ${got.message}.` : `Planet history unavailable: ${got.message}.`, got.status === 404 ? 'absent' : 'error'))
      fill(caption)
      owners = null
      drawBarNote()
      return
    }
    const d = got.data
    if (d.points.length === 0) {
      lib.set([], [[]])
      players.set([], [[]])
      lib.el.hidden = players.el.hidden = true
      fill(note, empty(`No status recorded for this planet between ${utc(d.from)} and ${utc(d.to)}: the full-status collector writes one every 5 minutes while the upstream answers.`))
      fill(caption)
      owners = null
      drawBarNote()
      return
    }
    lib.el.hidden = players.el.hidden = false
    const xs = d.points.map((p) => Date.parse(p.t) / 1000)
    // Owner changes: a line where a point's owner differs from the one before it.
    const changes: LineMark[] = d.points.flatMap((p, i) => (i > 0 && p.owner !== d.points[i - 1]!.owner ? [{ t: xs[i]!, label: `→ ${factionName(names, p.owner)}` }] : []))
    const { lines: events, cut } = await frontEvents(d.from)
    if (shown !== hours) return
    const window: [number, number] = [Date.parse(d.from) / 1000, Date.parse(d.to) / 1000]
    // The planet's own bar: its health while the players hold it, its liberation while an enemy does (the API's libPct).
    owners = { held: d.points.some((p) => p.owner === 1), enemy: d.points.some((p) => p.owner !== 1) }
    // Short (the legend is one line on a phone): the caption and the note below say it in full.
    lib.setLabel(0, owners.held && owners.enemy ? 'Health / liberated %' : owners.held ? 'Planet health %' : 'Liberated %')
    lib.el.dataset.bar = owners.held && owners.enemy ? 'planet-mixed' : owners.held ? 'planet-health' : 'planet-liberation'
    lib.set(xs, [d.points.map((p) => p.libPct)], { lines: [...changes, ...events], window })
    players.set(xs, [d.points.map((p) => p.players)], { lines: [...changes, ...events].map((l) => ({ ...l, labelled: false })), window })
    lib.el.dataset.ownerChanges = String(changes.length)
    fill(
      note,
      changes.length ? h('p', { class: 'hint', id: 'owner-changes' }, `Owner changes (dashed lines): ${changes.map((c) => `${utc(c.t * 1000)} ${c.label}`).join('; ')}.`) : null,
      events.length ? h('p', { class: 'hint', id: 'front-events' }, `Campaign and defense events: ${events.map((e) => `${utc(e.t * 1000)} ${e.label}`).join('; ')}.`) : null,
      cut ? h('p', { class: 'hint', id: 'front-events-cut' }, `This planet has more campaign and defense events in this window than the ${int(TIMELINE_PAGE)} read: those before ${utc(cut)} are not marked.`) : null,
    )
    const last = d.points[d.points.length - 1]!
    const young = Date.parse(d.points[0]!.t) - Date.parse(d.from) > (Date.parse(d.to) - Date.parse(d.from)) / 2
    fill(
      caption,
      h('span', { id: 'planet-history-now', 'data-bar': last.owner === 1 ? 'planet-health' : 'planet-liberation' }, `${d.points.length} point${d.points.length === 1 ? '' : 's'} from ${utc(d.from)} to ${utc(d.to)}; owner now ${factionName(names, last.owner)}, ${planetBarText(last.owner, last.libPct)}, ${int(last.players)} players.`),
      young ? h('span', { class: 'young' }, `Recorded since ${utc(d.points[0]!.t)} only: the rest of the window has no tick stored.`) : null,
    )
    drawBarNote()
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
    if (defense.campaign !== (c?.type === 'defense')) {
      defense.campaign = c?.type === 'defense'
      drawBarNote()
    }
    const history = c ? await api<CampaignHistory>(`/campaigns/${c.campaignId}/history`, { optional: true }) : null
    fill(
      front,
      c
        ? [
            h('ul', { class: 'campaigns single', id: 'planet-campaign-card' }, campaignCard(c, !!got.data.frozenSince, false)),
            history?.ok
              ? progressChart(history.data.points, c.type === 'defense' ? "The defense's bar (share of the attack beaten) over the defense" : c.owner === 1 ? "The planet's health over the campaign" : 'Liberation over the campaign')
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
    // A defended planet (its event at the latest tick): every figure here is the defense's bar, named so.
    const defending = l.eventId !== null
    if (defense.event !== defending) {
      defense.event = defending
      drawBarNote()
    }
    const frozen = !!got.data.frozenSince
    const done = defending ? 'the attack beaten' : l.owner === 1 ? 'back to full health' : 'liberated'
    const [outlook, outlookSub] = frozen
      ? ['clock stopped', 'nothing is projected while the war clock stands still']
      : l.outlook === 'unknown'
        ? ['unknown', l.samples < 2 ? 'a rate needs two ticks 5 minutes apart' : '']
        : l.outlook === 'stalemate'
          ? ['stalemate', 'the bar is not moving']
          : [l.outlook, l.deadline ? (l.marginHours === null ? '' : l.marginHours >= 0 ? `${duration(l.marginHours * 3600)} before the deadline` : `${duration(-l.marginHours * 3600)} short of the deadline`) : l.etaHours !== null ? `${l.outlook === 'winning' ? done : 'lost'} in ${duration(l.etaHours * 3600)} (${utc(l.eta)})` : '']
    const stat = (label: string, value: Node | string, sub: Node | string | null = null, attrs: Record<string, string> = {}) =>
      h('div', { class: 'stat', ...attrs }, h('span', { class: 'label' }, label), h('span', { class: 'value' }, value), sub ? h('span', { class: 'sub' }, sub) : null)
    const barStat = defending
      ? stat('Defense', pct(l.libPct), 'of the attack beaten (100 % = won)', { id: 'planet-now-bar', 'data-bar': 'defense' })
      : l.owner === 1
        ? stat('Held', pct(l.libPct), 'planet health (100 % = fully held)', { id: 'planet-now-bar', 'data-bar': 'planet-health' })
        : stat('Liberation', pct(l.libPct), 'liberated (100 % = freed)', { id: 'planet-now-bar', 'data-bar': 'planet-liberation' })
    fill(
      now,
      h(
        'div',
        { class: 'stats' },
        stat('Owner', h('span', { class: `owner f${l.owner ?? 0}` }, l.owner === null ? '–' : factionName(names, l.owner))),
        barStat,
        defending && l.deadline ? stat('Deadline', countdown(l.deadline, 'ends in ', 'ended'), utc(l.deadline), { id: 'planet-now-deadline' }) : null,
        stat('Players', int(l.players)),
        stat(defending ? 'Defense rate' : 'Rate', l.ratePctPerHour === null ? '–' : `${l.ratePctPerHour.toFixed(2)} %/h`),
        h('div', { class: 'stat' }, h('span', { class: 'label' }, defending ? 'Defense outlook' : 'Outlook'), h('span', { class: 'value', id: 'planet-outlook' }, outlook), outlookSub ? h('span', { class: 'sub' }, outlookSub) : null),
      ),
      defending
        ? h(
            'p',
            { class: 'hint', id: 'planet-now-which' },
            `Under attack: these figures are of the defense's bar, the share of the attack event's health taken (${defenseBarText(l.libPct)}), not of the planet's own. The planet's own bar, its health, is the History chart below.`,
          )
        : null,
      h('p', { class: 'age' }, `Over the last ${got.data.windowHours} h (${l.samples} tick${l.samples === 1 ? '' : 's'}); data age ${l.ageSeconds === null ? 'unknown' : duration(l.ageSeconds)}.${l.regenPctPerHour ? ` The enemy regenerates ${l.regenPctPerHour.toFixed(2)} %/h.` : ''}`),
    )
  })
}
