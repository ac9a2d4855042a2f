/**
 * A time-series chart on uPlot: one or two series, marked points (peak, low) and event
 * lines (timeline events, owner changes) drawn on the canvas. What the chart holds is
 * mirrored on its container for the browser tests: `data-points` (points), `data-lines`
 * (event lines), `data-label-boxes` (the boxes of the text labels drawn on the plot, CSS
 * px, none overlapping) and `data-axis-<n>` (the labels of each value axis, never two alike).
 */
import uPlot from 'uplot'
import { cssVar } from './common.ts'

export interface ChartSeries {
  label: string
  /** CSS custom property holding the colour. */
  color: string
  /** Scale key: series on different scales get their own axis (left, then right). */
  scale: string
  format?: (v: number) => string
  /** Fixed range of the scale (e.g. 0..100 for a percentage). */
  range?: [number, number]
  /** A count (players, divers): the axis steps are whole numbers. */
  count?: boolean
}

/** A marked point: value `v` at time `t` (seconds). */
export interface PointMark {
  t: number
  v: number
  label: string
  series: number
}

/** A vertical event line at `t` (seconds), labelled on the plot when there is room. */
export interface LineMark {
  t: number
  label: string
  /** CSS custom property of its colour (default --event). */
  color?: string
  /** Draw its label on the plot (default: only when there are few lines). */
  labelled?: boolean
}

interface Box {
  x: number
  y: number
  w: number
  h: number
}

const overlaps = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h

/** Whole-number axis steps for counts (uPlot's defaults include fractions: "0.5 players"). */
const COUNT_INCRS = [1, 2, 5].flatMap((m) => [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9].map((p) => m * p)).sort((a, b) => a - b)

let firstChartMarked = false

export class TimeChart {
  readonly el: HTMLElement
  private plot: uPlot | null = null
  private points: PointMark[] = []
  private lines: LineMark[] = []
  private labels: string[]

  constructor(
    parent: HTMLElement,
    private readonly series: ChartSeries[],
    private readonly height = 260,
  ) {
    this.labels = series.map((s) => s.label)
    this.el = document.createElement('div')
    this.el.className = 'chart'
    this.el.dataset.points = '0'
    parent.append(this.el)
    new ResizeObserver(() => this.plot?.setSize(this.size())).observe(this.el)
  }

  private size() {
    return { width: Math.max(200, this.el.clientWidth), height: window.innerWidth < 600 ? Math.round(this.height * 0.8) : this.height }
  }

  /** The time window shown (seconds): the answer's from..to, not just the span of its points. */
  private window: [number, number] | null = null

  private options(): uPlot.Options {
    // A window with one or two points still reads as that window (uPlot would widen it to years).
    const scales: uPlot.Scales = { x: { time: true, range: (_u, min, max) => this.window ?? [min, max] } }
    const axes: uPlot.Axis[] = [{ stroke: cssVar('--muted'), grid: { stroke: cssVar('--grid') }, ticks: { stroke: cssVar('--grid') } }]
    this.series.forEach((s, i) => {
      if (scales[s.scale]) return
      scales[s.scale] = s.range ? { range: s.range } : {}
      const axis = axes.length
      axes.push({
        scale: s.scale,
        side: i === 0 ? 3 : 1,
        stroke: cssVar(s.color),
        grid: { show: i === 0, stroke: cssVar('--grid') },
        ticks: { stroke: cssVar('--grid') },
        size: 60,
        ...(s.count ? { incrs: COUNT_INCRS } : {}),
        values: (_u, vals) => {
          const out = axisLabels(vals, s.format)
          this.el.setAttribute(`data-axis-${axis}`, JSON.stringify(out))
          return out
        },
      })
    })
    return {
      ...this.size(),
      scales,
      axes,
      legend: { show: true, live: true },
      cursor: { points: { size: 6 } },
      series: [
        { value: (_u, v) => (v === null ? '–' : new Date(v * 1000).toISOString().slice(0, 16).replace('T', ' ')) },
        ...this.series.map((s, i) => ({
          label: this.labels[i],
          scale: s.scale,
          stroke: cssVar(s.color),
          width: 2,
          spanGaps: false,
          // Dots only where the line would not show (few points).
          points: { show: (u: uPlot) => (u.data[0]?.length ?? 0) < 40 },
          value: (_u: uPlot, v: number | null) => (v === null ? '–' : s.format ? s.format(v) : compact(v)),
        })),
      ],
      hooks: { draw: [(u) => this.drawMarks(u)] },
    }
  }

  /** Rename series `i` (its legend entry too): the diver chart names the series it draws. */
  setLabel(i: number, label: string) {
    this.labels[i] = label
    if (!this.plot) return
    const s = this.plot.series[i + 1]
    if (s) s.label = label
    const cell = this.el.querySelectorAll('.u-legend .u-series')[i + 1]?.querySelector('.u-label')
    if (cell) cell.textContent = label
  }

  /** Replace the data (x in seconds) and the marks; the chart is created on first use. */
  set(xs: number[], ys: (number | null)[][], marks: { points?: PointMark[]; lines?: LineMark[]; window?: [number, number] } = {}) {
    this.window = marks.window ?? null
    this.points = marks.points ?? []
    this.lines = marks.lines ?? []
    const data = [xs, ...ys] as uPlot.AlignedData
    if (!this.plot) this.plot = new uPlot(this.options(), data, this.el)
    else this.plot.setData(data)
    this.el.dataset.points = String(this.plot.data[0]?.length ?? 0)
    this.el.dataset.lines = String(this.lines.length)
  }

  private drawMarks(u: uPlot) {
    const ctx = u.ctx
    const { left, top, width, height } = u.bbox
    const px = devicePixelRatio || 1
    const placed: Box[] = []
    const shown: Box[] = []
    const fits = (b: Box) => b.x >= left && b.x + b.w <= left + width && b.y >= top && b.y + b.h <= top + height && !placed.some((p) => overlaps(p, b))
    const lineHeight = 13 * px
    ctx.save()
    ctx.font = `${11 * px}px system-ui, sans-serif`
    ctx.textBaseline = 'top'
    ctx.textAlign = 'left'
    ctx.lineWidth = px
    // Event lines, then their labels along the top rows of the plot where there is room.
    const labelAll = this.lines.length <= 12
    for (const line of this.lines) {
      const x = u.valToPos(line.t, 'x', true)
      if (x < left || x > left + width) continue
      const color = cssVar(line.color ?? '--event')
      ctx.strokeStyle = color
      ctx.setLineDash([4 * px, 4 * px])
      ctx.beginPath()
      ctx.moveTo(x, top)
      ctx.lineTo(x, top + height)
      ctx.stroke()
      ctx.setLineDash([])
      if (!(line.labelled ?? labelAll)) continue
      const w = ctx.measureText(line.label).width + 4 * px
      for (let row = 0; row < 3; row++) {
        const y = top + 2 * px + row * lineHeight
        const box = [{ x: x + 3 * px, y, w, h: lineHeight }, { x: x - 3 * px - w, y, w, h: lineHeight }].find(fits)
        if (!box) continue
        placed.push(box)
        shown.push(box)
        ctx.fillStyle = color
        ctx.fillText(line.label, box.x + 2 * px, box.y + px)
        break
      }
    }
    // Marked points (peak, low): the label beside its dot, inside the plot, never on another label.
    for (const p of this.points) {
      const s = this.series[p.series]
      if (!s) continue
      const x = u.valToPos(p.t, 'x', true)
      const y = u.valToPos(p.v, s.scale, true)
      if (x < left - 1 || x > left + width + 1) continue
      ctx.fillStyle = cssVar(s.color)
      ctx.beginPath()
      ctx.arc(x, y, 4 * px, 0, 2 * Math.PI)
      ctx.fill()
      const w = ctx.measureText(p.label).width + 4 * px
      const gap = 7 * px
      const clampX = (v: number) => Math.max(left, Math.min(left + width - w, v))
      const clampY = (v: number) => Math.max(top, Math.min(top + height - lineHeight, v))
      const candidates: Box[] = [
        { x: x + gap, y: y - lineHeight / 2 },
        { x: x - gap - w, y: y - lineHeight / 2 },
        { x: x - w / 2, y: y - gap - lineHeight },
        { x: x - w / 2, y: y + gap },
        { x: x + gap, y: y - gap - lineHeight },
        { x: x - gap - w, y: y + gap },
        { x: x + gap, y: y + gap },
        { x: x - gap - w, y: y - gap - lineHeight },
      ].map((c) => ({ x: clampX(c.x), y: clampY(c.y), w, h: lineHeight }))
      // A clamped box may sit on its own dot: keep the dot clear too.
      const dot: Box = { x: x - 4 * px, y: y - 4 * px, w: 8 * px, h: 8 * px }
      const box = candidates.find((b) => fits(b) && !overlaps(b, dot))
      placed.push(dot)
      if (!box) continue
      placed.push(box)
      shown.push(box)
      ctx.fillStyle = cssVar('--fg')
      ctx.fillText(p.label, box.x + 2 * px, box.y + px)
    }
    ctx.restore()
    this.el.dataset.labelBoxes = JSON.stringify(shown.map((b) => [b.x, b.y, b.w, b.h].map((v) => Math.round((v / px) * 10) / 10)))
    this.el.dataset.plotBox = JSON.stringify([left, top, width, height].map((v) => Math.round((v / px) * 10) / 10))
    // Time to first chart (BENCHMARKS.md): the first draw with data.
    if (!firstChartMarked && (u.data[0]?.length ?? 0) > 0) {
      firstChartMarked = true
      performance.mark('first-chart')
    }
  }
}

/** 123456 → "123k"; axis labels stay short on a phone. `digits`: decimals of the short forms. */
export function compact(v: number, digits = 1): string {
  const a = Math.abs(v)
  const f = (n: number, d: number) => `${+n.toFixed(d)}`
  if (a >= 1e9) return `${f(v / 1e9, digits)}G`
  if (a >= 1e6) return `${f(v / 1e6, digits)}M`
  if (a >= 1e4) return `${f(v / 1e3, Math.max(0, digits - 1))}k`
  if (a >= 1e3) return `${f(v / 1e3, digits)}k`
  return f(v, 2)
}

/**
 * An axis' labels, never two alike: short forms with as many decimals as it takes
 * (3,750 and 3,800 are "3.75k" and "3.8k", not "3.8k" twice).
 */
export function axisLabels(vals: number[], format?: (v: number) => string): string[] {
  const unique = (out: string[]) => new Set(out).size === out.length
  if (format) {
    const out = vals.map((v) => format(v))
    if (unique(out)) return out
  }
  for (let digits = 1; digits <= 4; digits++) {
    const out = vals.map((v) => compact(v, digits))
    if (unique(out)) return out
  }
  return vals.map((v) => new Intl.NumberFormat('en-US').format(v))
}
