/**
 * A time-series chart on uPlot: one or two series, marked points (peak, low) and event
 * lines (timeline events, owner changes) drawn on the canvas. The number of points the
 * chart holds is mirrored in `data-points` of its container (read by the browser tests).
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
}

/** A marked point: value `v` at time `t` (seconds). */
export interface PointMark {
  t: number
  v: number
  label: string
  series: number
}

/** A vertical event line at `t` (seconds). */
export interface LineMark {
  t: number
  label: string
}

let firstChartMarked = false

export class TimeChart {
  readonly el: HTMLElement
  private plot: uPlot | null = null
  private points: PointMark[] = []
  private lines: LineMark[] = []

  constructor(
    parent: HTMLElement,
    private readonly series: ChartSeries[],
    private readonly height = 260,
  ) {
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
      const fmt = s.format
      axes.push({
        scale: s.scale,
        side: i === 0 ? 3 : 1,
        stroke: cssVar(s.color),
        grid: { show: i === 0, stroke: cssVar('--grid') },
        ticks: { stroke: cssVar('--grid') },
        size: 60,
        values: (_u, vals) => vals.map((v) => (fmt ? fmt(v) : compact(v))),
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
        ...this.series.map((s) => ({
          label: s.label,
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
    ctx.save()
    ctx.font = `${11 * px}px system-ui, sans-serif`
    ctx.strokeStyle = cssVar('--event')
    ctx.fillStyle = cssVar('--event')
    ctx.setLineDash([4 * px, 4 * px])
    ctx.lineWidth = px
    for (const line of this.lines) {
      const x = u.valToPos(line.t, 'x', true)
      if (x < left || x > left + width) continue
      ctx.beginPath()
      ctx.moveTo(x, top)
      ctx.lineTo(x, top + height)
      ctx.stroke()
    }
    ctx.setLineDash([])
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
      ctx.fillStyle = cssVar('--fg')
      ctx.textAlign = x > left + width * 0.75 ? 'right' : 'left'
      ctx.fillText(p.label, x + (ctx.textAlign === 'right' ? -6 : 6) * px, Math.max(top + 12 * px, Math.min(top + height - 4 * px, y - 6 * px)))
    }
    ctx.restore()
    // Time to first chart (BENCHMARKS.md): the first draw with data.
    if (!firstChartMarked && (u.data[0]?.length ?? 0) > 0) {
      firstChartMarked = true
      performance.mark('first-chart')
    }
  }
}

/** 123456 → "123k"; axis labels stay short on a phone. */
export function compact(v: number): string {
  const a = Math.abs(v)
  if (a >= 1e9) return `${+(v / 1e9).toFixed(1)}G`
  if (a >= 1e6) return `${+(v / 1e6).toFixed(1)}M`
  if (a >= 1e4) return `${+(v / 1e3).toFixed(0)}k`
  if (a >= 1e3) return `${+(v / 1e3).toFixed(1)}k`
  return `${+v.toFixed(2)}`
}
