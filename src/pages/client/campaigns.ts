/**
 * Campaigns as players read them (/campaigns): each front with its bar, rate, ETA and, for
 * a defense, the live countdown to its deadline and whether the players make it in time.
 * Shared by the war page (every campaign) and the planet page (its own).
 */
import { barOf, countdown, duration, h, int, planetBarWord, svg, utc } from './common.ts'
import type { Campaign } from './types.ts'

const TYPE_LABEL: Record<string, string> = { defense: 'Defense', liberation: 'Liberation' }

/** Defenses first, the nearest deadline first; then the other fronts, most players first. */
export function campaignOrder(a: Campaign, b: Campaign): number {
  const da = a.type === 'defense' ? 0 : 1
  const db = b.type === 'defense' ? 0 : 1
  if (da !== db) return da - db
  if (da === 0) return Date.parse(a.deadline ?? '9999') - Date.parse(b.deadline ?? '9999')
  return (b.players ?? 0) - (a.players ?? 0)
}

export const rateText = (rate: number | null) => (rate === null ? '–' : `${rate > 0 ? '+' : rate < 0 ? '−' : '±'}${Math.abs(rate).toFixed(2)} %/h`)

/**
 * The outlook in words, players' side. `frozen`: the war's clock stands still, nothing is
 * projected (docs/api.md "The war clock").
 */
export function outlookText(c: Pick<Campaign, 'outlook' | 'deadline' | 'marginHours' | 'requiredRatePctPerHour' | 'ratePctPerHour' | 'samples' | 'etaHours'>, frozen: boolean): string {
  if (frozen) return 'no outlook while the war clock stands still'
  const defense = c.deadline !== null
  switch (c.outlook) {
    case 'winning':
      if (defense) return c.marginHours === null ? 'winning: held in time' : `winning, ${duration(c.marginHours * 3600)} to spare`
      return c.etaHours === null ? 'winning' : `winning: liberated in ${duration(c.etaHours * 3600)}`
    case 'losing': {
      const need = c.requiredRatePctPerHour !== null && c.requiredRatePctPerHour !== undefined ? ` (needs ${c.requiredRatePctPerHour.toFixed(2)} %/h)` : ''
      if (defense) return c.marginHours === null ? `losing: not in time at this rate${need}` : `losing: ${duration(-c.marginHours * 3600)} short at this rate${need}`
      return c.etaHours === null ? 'losing ground' : `losing: lost in ${duration(c.etaHours * 3600)}`
    }
    case 'stalemate':
      return 'stalemate: the bar is not moving'
    default:
      return c.samples < 2 ? 'too early to tell' : 'unknown'
  }
}

/** Which bar a campaign's `progressPct` is (docs/api.md "War intelligence"), in a word or two: said next to the figure. */
export const barWord = (c: Pick<Campaign, 'type' | 'owner'>) => (c.type === 'defense' ? 'attack beaten' : planetBarWord(c.owner))
const barTitle = (c: Pick<Campaign, 'type' | 'owner'>) =>
  c.type === 'defense'
    ? "The defense's bar: the share of the attack event's health taken (100 % = the attack is beaten). The planet's own health is another figure."
    : c.owner === 1
      ? "The planet's bar: its health (100 % = fully held, 0 = lost)"
      : "The planet's bar: liberation (100 % = liberated)"

const fact = (label: string, value: Node | string, whole = false) => h('div', { class: `fact${whole ? ' whole' : ''}` }, h('dt', {}, label), h('dd', {}, value))

/** One campaign: a card with its bar and figures (`li.campaign`, `data-planet`, `data-type`). */
export function campaignCard(c: Campaign, frozen: boolean, link = true): HTMLElement {
  const defense = c.type === 'defense'
  const pct = c.progressPct ?? 0
  const outlook = outlookText(c, frozen)
  return h(
    'li',
    { class: `campaign ${defense ? 'defense' : 'attack'} o-${frozen ? 'unknown' : c.outlook}`, 'data-planet': c.planetIndex, 'data-type': c.type, 'data-outlook': c.outlook },
    h(
      'div',
      { class: 'c-head' },
      link ? h('a', { class: 'c-name', href: `/planet/${c.planetIndex}` }, c.planetName) : h('strong', { class: 'c-name' }, c.planetName),
      h('span', { class: `badge type ${defense ? 'defense' : ''}` }, TYPE_LABEL[c.type] ?? c.type),
      h('span', { class: `c-sub f${c.factionId ?? 0}` }, `${c.faction ? `vs ${c.faction}` : ''}${c.sectorName ? ` · ${c.sectorName}` : ''}`),
    ),
    h(
      'div',
      { class: 'c-bar', 'data-bar': defense ? 'defense' : 'planet', title: barTitle(c) },
      barOf(pct, 'wide players'),
      h('span', { class: 'c-pct' }, c.progressPct === null ? '–' : `${pct.toFixed(pct >= 99.95 || pct < 10 ? 2 : 1)} %`),
      ' ',
      h('span', { class: 'c-what' }, barWord(c)),
    ),
    h(
      'dl',
      { class: 'facts' },
      defense && c.deadline ? fact('Deadline', countdown(c.deadline, 'ends in ', 'ended'), true) : null,
      fact('Outlook', h('span', { class: 'outlook' }, outlook), true),
      fact('Players', int(c.players)),
      fact('Rate', c.ratePctPerHour === null ? h('span', { class: 'muted', title: 'A rate needs two ticks at least 5 minutes apart' }, '–') : rateText(c.ratePctPerHour)),
      fact('ETA', c.etaHours === null || frozen ? '–' : h('span', { title: utc(c.eta) }, `${c.outlook === 'losing' && !defense ? 'lost in ' : 'in '}${duration(c.etaHours * 3600)}${defense && c.outlook === 'losing' ? ', after the deadline' : ''}`)),
    ),
  )
}

/** A campaign's bar over its life (/campaigns/:id/history) as a small chart: 0–100 % against time, its first and last tick named. */
export function progressChart(points: { t: string; progressPct: number }[], label: string): HTMLElement {
  if (points.length === 0) return h('p', { class: 'hint' }, 'No tick of it is stored yet.')
  const W = 600
  const H = 120
  const t0 = Date.parse(points[0]!.t)
  // One tick: drawn at the right edge, alone.
  const span = Math.max(1, Date.parse(points.at(-1)!.t) - t0)
  const xy = points.map((p) => `${(((Date.parse(p.t) - t0) / span) * W).toFixed(1)},${(H - (Math.max(0, Math.min(100, p.progressPct)) / 100) * H).toFixed(1)}`)
  const first = points[0]!
  const last = points.at(-1)!
  return h(
    'figure',
    { class: 'progress-chart', id: 'campaign-progress' },
    svg(
      'svg',
      { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': `${label}: ${first.progressPct.toFixed(1)} % at ${utc(first.t)} to ${last.progressPct.toFixed(1)} % at ${utc(last.t)}`, 'data-points': points.length },
      svg('line', { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: 'mid' }),
      points.length > 1 ? svg('polyline', { points: xy.join(' '), class: 'line' }) : svg('circle', { cx: W - 4, cy: xy[0]!.split(',')[1]!, r: 4, class: 'dot' }),
    ),
    h('figcaption', {}, `${label}, ${points.length} ${points.length === 1 ? 'tick' : 'ticks'}: ${first.progressPct.toFixed(1)} % (${utc(first.t)}) → ${last.progressPct.toFixed(1)} % (${utc(last.t)}); scale 0–100 %.`),
  )
}
