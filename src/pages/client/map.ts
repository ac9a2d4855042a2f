/**
 * The galaxy map: an SVG drawn here (no library, no image), planets at their `/planets`
 * positions (−1..1, y up) coloured by their owner in `/war`, supply lines from their
 * waypoints, campaign rings sized by players (a defense dashed), the campaign planets
 * named. Hovering, focusing or tapping a planet shows its name and state; a click (a
 * second tap on a phone) opens its page. Zoom 1×, 2×, 4× scrolls inside the map's box.
 * Attack lines (from /campaigns) are drawn as arrows from the attacking planet.
 */
import { barWord, campaignOrder, outlookText } from './campaigns.ts'
import { countdown, defenseBarText, factionName, fill, h, int, pct, planetBarText, svg } from './common.ts'
import type { Campaign } from './types.ts'

export interface MapPlanet {
  index: number
  name: string
  sector: string | null
  x: number
  y: number
  owner: number
  players: number
  lib: number
  disabled: boolean
  waypoints: number[]
}

const ZOOMS = [1, 2, 4] as const

export class GalaxyMap {
  readonly el: HTMLElement
  private readonly view: HTMLElement
  private readonly tip: HTMLElement
  private readonly legend: HTMLElement
  private readonly note: HTMLElement
  private planets: MapPlanet[] = []
  private campaigns = new Map<number, Campaign>()
  private names = new Map<number, string>()
  private frozen = false
  private zoom = 1
  private selected: number | null = null
  private pointer = 'mouse'
  /** When a pointer last went down: the focus it gives a planet is not a keyboard's. */
  private pointerAt = -Infinity
  private width = 0
  private readonly buttons: HTMLElement[]

  constructor(parent: HTMLElement) {
    this.buttons = ZOOMS.map((z) => h('button', { type: 'button', 'data-zoom': z, 'aria-pressed': String(z === 1), 'aria-label': `Zoom ${z} times`, onclick: () => this.setZoom(z) }, `${z}×`))
    this.view = h('div', { class: 'map-view', id: 'map-view' })
    this.tip = h('div', { class: 'map-tip', id: 'map-tip', role: 'status', hidden: true })
    this.legend = h('div', { class: 'map-legend', 'aria-hidden': 'true' })
    this.note = h('p', { class: 'hint', id: 'map-note' })
    this.el = h('div', { class: 'map' }, h('div', { class: 'map-tools' }, h('div', { class: 'ranges', role: 'group', 'aria-label': 'Map zoom' }, ...this.buttons), this.legend), this.view, this.note)
    parent.append(this.el)
    this.view.addEventListener('pointerdown', (e) => {
      this.pointer = e.pointerType
      this.pointerAt = performance.now()
    })
    this.view.addEventListener('click', (e) => this.onClick(e))
    this.view.addEventListener('pointerover', (e) => {
      if (e.pointerType !== 'mouse') return
      const a = (e.target as Element).closest?.('a.planet')
      if (a) this.show(Number(a.getAttribute('data-planet')), false)
    })
    this.view.addEventListener('pointerout', (e) => {
      if (e.pointerType === 'mouse' && this.selected === null && (e.target as Element).closest?.('a.planet')) this.hide()
    })
    this.view.addEventListener('focusin', (e) => {
      const a = (e.target as Element).closest?.('a.planet')
      // Keyboard focus pins the planet's state; a tap or click is handled by its click.
      if (a && performance.now() - this.pointerAt > 1000) this.show(Number(a.getAttribute('data-planet')), true)
    })
    new ResizeObserver(() => {
      if (this.view.clientWidth !== this.width) this.draw()
    }).observe(this.view)
  }

  private attacks: { source: number; target: number }[] = []

  set(planets: MapPlanet[], campaigns: Campaign[], names: Map<number, string>, frozen: boolean, attacks: { source: number; target: number }[] = []) {
    this.planets = planets
    this.attacks = attacks
    this.campaigns = new Map(campaigns.map((c) => [c.planetIndex, c]))
    this.names = names
    this.frozen = frozen
    this.draw()
  }

  private setZoom(z: number) {
    const v = this.view
    // Keep the centre of what is shown in the centre.
    const cx = (v.scrollLeft + v.clientWidth / 2) / this.zoom
    const cy = (v.scrollTop + v.clientHeight / 2) / this.zoom
    this.zoom = z
    for (const b of this.buttons) b.setAttribute('aria-pressed', String(Number(b.dataset.zoom) === z))
    this.draw()
    v.scrollLeft = cx * z - v.clientWidth / 2
    v.scrollTop = cy * z - v.clientHeight / 2
  }

  private onClick(e: MouseEvent) {
    const a = (e.target as Element).closest?.('a.planet')
    if (!a) {
      if (!(e.target as Element).closest?.('.map-tip')) this.hide()
      return
    }
    const index = Number(a.getAttribute('data-planet'))
    // A tap shows the planet first; a second tap on it (or a click) opens its page.
    if (this.pointer !== 'mouse' && this.pointer !== 'pen' && this.selected !== index) {
      e.preventDefault()
      this.show(index, true)
    }
  }

  /** Pixel position of a planet in the drawn SVG. */
  private pos(p: { x: number; y: number }, size: number) {
    const pad = 14
    const half = size / 2 - pad
    return { x: size / 2 + p.x * half, y: size / 2 - p.y * half }
  }

  private draw() {
    this.width = this.view.clientWidth
    const base = Math.max(200, Math.min(this.width || 320, 680, Math.round(window.innerHeight * 0.8)))
    const size = base * this.zoom
    const byIndex = new Map(this.planets.map((p) => [p.index, p]))
    const r = (base < 500 ? 2.6 : 3.2) * Math.sqrt(this.zoom)
    // Supply lines, each pair once.
    const lanes: SVGElement[] = []
    const seen = new Set<string>()
    for (const p of this.planets) {
      for (const w of p.waypoints) {
        const q = byIndex.get(w)
        const key = p.index < w ? `${p.index}-${w}` : `${w}-${p.index}`
        if (!q || seen.has(key)) continue
        seen.add(key)
        const a = this.pos(p, size)
        const b = this.pos(q, size)
        lanes.push(svg('line', { x1: a.x.toFixed(1), y1: a.y.toFixed(1), x2: b.x.toFixed(1), y2: b.y.toFixed(1), class: p.owner !== q.owner ? 'lane front' : 'lane' }))
      }
    }
    // Attack lines: from the attacker to the planet it attacks, stopping short of the target's dot.
    const attackLines: SVGElement[] = []
    for (const { source, target } of this.attacks) {
      const p = byIndex.get(source)
      const q = byIndex.get(target)
      if (!p || !q) continue
      const a = this.pos(p, size)
      const b = this.pos(q, size)
      const len = Math.hypot(b.x - a.x, b.y - a.y) || 1
      const end = { x: b.x - ((b.x - a.x) / len) * (r + 3), y: b.y - ((b.y - a.y) / len) * (r + 3) }
      attackLines.push(svg('line', { x1: a.x.toFixed(1), y1: a.y.toFixed(1), x2: end.x.toFixed(1), y2: end.y.toFixed(1), class: 'attack', 'marker-end': 'url(#map-arrow)' }))
    }
    const maxPlayers = Math.max(1, ...[...this.campaigns.values()].map((c) => c.players ?? 0))
    // Campaign planets last: on top, and their rings and names readable.
    const ordered = [...this.planets].sort((a, b) => Number(this.campaigns.has(a.index)) - Number(this.campaigns.has(b.index)) || a.players - b.players)
    const dots = ordered.map((p) => {
      const { x, y } = this.pos(p, size)
      const c = this.campaigns.get(p.index)
      const ring = c ? 5 + 13 * Math.sqrt((c.players ?? 0) / maxPlayers) : 0
      const label = `${p.name}: ${factionName(this.names, p.owner)}, ${planetBarText(p.owner, p.lib)}, ${int(p.players)} players${c ? (c.type === 'defense' ? `, defense: ${defenseBarText(c.progressPct)}` : `, campaign ${pct(c.progressPct)} ${barWord(c)}`) : ''}`
      return svg(
        'a',
        { href: `/planet/${p.index}`, class: `planet o${p.owner}${c ? ` campaign ${c.type === 'defense' ? 'defense' : 'attack'}` : ''}${p.disabled ? ' disabled' : ''}`, 'data-planet': p.index, 'aria-label': label, tabindex: c ? 0 : -1 },
        svg('circle', { class: 'hit', cx: x.toFixed(1), cy: y.toFixed(1), r: 8 }),
        c ? svg('circle', { class: 'ring', cx: x.toFixed(1), cy: y.toFixed(1), r: ring.toFixed(1) }) : '',
        svg('circle', { class: 'dot', cx: x.toFixed(1), cy: y.toFixed(1), r: c ? r * 1.3 : r }),
      )
    })
    // Names of the campaign planets, where they fit (never on another name).
    const boxes: [number, number, number, number][] = []
    const labels: SVGElement[] = []
    for (const c of [...this.campaigns.values()].sort(campaignOrder)) {
      const p = byIndex.get(c.planetIndex)
      if (!p) continue
      const { x, y } = this.pos(p, size)
      const w = p.name.length * 6.4 + 4
      const ring = 5 + 13 * Math.sqrt((c.players ?? 0) / maxPlayers)
      const spots: [number, number, string][] = [
        [x + ring + 3, y - 7, 'start'],
        [x - ring - 3 - w, y - 7, 'end'],
        [x - w / 2, y - ring - 16, 'middle'],
        [x - w / 2, y + ring + 2, 'middle'],
      ]
      const spot = spots.find(([bx, by]) => bx >= 0 && bx + w <= size && by >= 0 && by + 14 <= size && !boxes.some(([ox, oy, ow, oh]) => bx < ox + ow && ox < bx + w && by < oy + oh && oy < by + 14))
      if (!spot) continue
      boxes.push([spot[0], spot[1], w, 14])
      const tx = spot[2] === 'start' ? spot[0] : spot[2] === 'end' ? spot[0] + w : spot[0] + w / 2
      labels.push(svg('text', { x: tx.toFixed(1), y: (spot[1] + 11).toFixed(1), 'text-anchor': spot[2], class: 'map-label' }, p.name))
    }
    const root = svg(
      'svg',
      { id: 'map-svg', width: size, height: size, viewBox: `0 0 ${size} ${size}`, role: 'group', 'aria-label': `Galaxy map: ${this.planets.length} planets` },
      svg('circle', { class: 'galaxy', cx: size / 2, cy: size / 2, r: size / 2 - 2 }),
      svg('defs', {}, svg('marker', { id: 'map-arrow', viewBox: '0 0 6 6', refX: 5, refY: 3, markerWidth: 5, markerHeight: 5, orient: 'auto' }, svg('path', { d: 'M0,0 L6,3 L0,6 z', class: 'attack-head' }))),
      svg('g', { class: 'lanes' }, ...lanes),
      svg('g', { class: 'attacks' }, ...attackLines),
      svg('g', { class: 'planets' }, ...dots),
      svg('g', { class: 'labels', 'aria-hidden': 'true' }, ...labels),
    )
    root.dataset.planets = String(this.planets.length)
    root.dataset.attacks = String(attackLines.length)
    // The tip is placed in the drawn map's own box (centred in the view at 1×).
    const canvas = h('div', { class: 'map-canvas' }, root, this.tip)
    canvas.style.width = canvas.style.height = `${size}px`
    fill(this.view, canvas)
    const owners = [...new Set(this.planets.map((p) => p.owner))].sort()
    fill(
      this.legend,
      ...owners.map((o) => h('span', { class: 'key' }, h('span', { class: `swatch o${o}` }), factionName(this.names, o))),
      h('span', { class: 'key' }, h('span', { class: 'swatch ring' }), 'campaign (size: players)'),
      h('span', { class: 'key' }, h('span', { class: 'swatch lane attack' }), 'attack line'),
      h('span', { class: 'key' }, h('span', { class: 'swatch ring defense' }), 'defense'),
      h('span', { class: 'key' }, h('span', { class: 'swatch lane' }), 'supply line'),
    )
    fill(this.note, `${this.planets.length} planets, ${seen.size} supply lines, ${this.campaigns.size} campaigns. Hover, focus or tap a planet for its state; click it (tap twice on a phone) for its page. ${this.attacks.length} attack lines.`)
    if (this.selected !== null) this.show(this.selected, true)
  }

  private show(index: number, pinned: boolean) {
    const p = this.planets.find((q) => q.index === index)
    const svgEl = this.view.querySelector('svg')
    if (!p || !svgEl) return this.hide()
    if (pinned) this.selected = index
    const c = this.campaigns.get(index)
    const size = Number(svgEl.getAttribute('width'))
    const { x, y } = this.pos(p, size)
    fill(
      this.tip,
      h('strong', {}, p.name),
      h('span', { class: 'muted' }, `${p.sector ?? 'no sector'} · ${factionName(this.names, p.owner)}`),
      h('span', { class: 'tip-planet' }, `${planetBarText(p.owner, p.lib)} · ${int(p.players)} players`),
      c ? h('span', { class: 'tip-campaign' }, `${c.type === 'defense' ? 'Defense' : 'Campaign'}${c.faction ? ` vs ${c.faction}` : ''}: ${c.type === 'defense' ? defenseBarText(c.progressPct) : `${pct(c.progressPct)} ${barWord(c)}`}`, c.type === 'defense' && c.deadline ? [', ', countdown(c.deadline, 'ends in ', 'ended')] : '') : null,
      c ? h('span', { class: 'muted' }, outlookText(c, this.frozen)) : null,
      h('a', { href: `/planet/${index}`, class: 'tip-link' }, `Open ${p.name} →`),
    )
    this.tip.hidden = false
    this.tip.classList.toggle('pinned', pinned)
    // Beside the planet (never on it), inside the drawn map: right, left, else below or above.
    // Measured at the map's left edge, where nothing narrows it.
    this.tip.style.left = this.tip.style.top = '0px'
    this.tip.style.maxWidth = ''
    let w = this.tip.offsetWidth
    let ht = this.tip.offsetHeight
    const gap = 16
    let left: number
    let top: number
    if (x + gap + w <= size || x - gap - w >= 0) {
      left = x + gap + w <= size ? x + gap : x - gap - w
      top = Math.max(0, Math.min(size - ht, y - ht / 2))
    } else {
      // No room beside it (a phone): as wide as the map, below it, else above; never over it.
      this.tip.style.maxWidth = `${size - 8}px`
      w = this.tip.offsetWidth
      ht = this.tip.offsetHeight
      left = Math.max(0, Math.min(size - w, x - w / 2))
      top = y + gap + ht <= size || y - gap - ht < 0 ? y + gap : y - gap - ht
    }
    this.tip.style.left = `${left}px`
    this.tip.style.top = `${top}px`
  }

  private hide() {
    this.selected = null
    this.tip.hidden = true
  }
}
