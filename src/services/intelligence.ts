/**
 * The derived war view that is not a single storage read: liberation rate and ETA per
 * planet (the maths in war/liberation.ts) and the trend deltas of the war summary and
 * the diver count. Routes: routes/intelligence.ts; SQL: storage/planet-status.ts
 * (windows), storage/war-summary.ts and storage/player-counts.ts.
 */
import type { Store } from '../storage/index.ts'
import { CUMULATIVE_KEYS, type WarCounters, type WarSummaryRow } from '../storage/war-summary.ts'
import { liberation } from '../war/liberation.ts'

const HOUR_MS = 3_600_000
export const TREND_WINDOWS = { '1h': 1, '24h': 24, '7d': 168 } as const

/** Counter deltas between two war-summary ticks (the cumulative counters only). */
export function deltas(from: WarSummaryRow, to: WarSummaryRow): Partial<WarCounters> {
  const out: Partial<WarCounters> = {}
  for (const key of CUMULATIVE_KEYS) out[key] = to[key] - from[key]
  return out
}

export class IntelligenceService {
  constructor(private readonly store: Pick<Store, 'planetStatus' | 'warSummary' | 'playerCounts'>) {}

  /**
   * Every planet in a current campaign (or the one asked for) with its liberation over the
   * `hours` before `asOf`; null when the planet asked for is not known for the war.
   */
  async liberation(f: { warId: number; planetIndex?: number; hours: number; asOf: Date }) {
    const windows = await this.store.planetStatus.windows({ warId: f.warId, planetIndex: f.planetIndex, from: new Date(f.asOf.getTime() - f.hours * HOUR_MS), to: f.asOf })
    if (f.planetIndex !== undefined && !windows.length) return null
    return windows.map(({ ticks, ...planet }) => {
      const l = liberation(ticks, planet.maxHealth, f.asOf)
      return l
        ? { ...planet, ...l }
        : { ...planet, owner: 0, libPct: 0, players: 0, ratePctPerHour: null, regenPctPerHour: 0, impactPctPerHour: null, samples: 0, since: null, outlook: 'unknown' as const, eta: null, etaHours: null, capturedAt: null, ageSeconds: null }
    })
  }

  /** The deltas over 1 h, 24 h and 7 d back from the latest tick and the latest diver row. */
  async trends(warId: number) {
    const [latest, diverNow] = await Promise.all([this.store.warSummary.tickAtOrBefore(warId, null), this.store.playerCounts.valueAtOrBefore('api', null)])
    const [h1, h24, d7] = await Promise.all([TREND_WINDOWS['1h'], TREND_WINDOWS['24h'], TREND_WINDOWS['7d']].map((hours) => this.trendWindow(warId, latest, diverNow, hours)))
    return { '1h': h1!, '24h': h24!, '7d': d7! }
  }

  private async trendWindow(warId: number, latest: WarSummaryRow | null, diverNow: { at: Date; v: number } | null, hours: number) {
    const span = hours * HOUR_MS
    const [older, diverThen] = await Promise.all([
      latest ? this.store.warSummary.tickAtOrBefore(warId, new Date(latest.timestamp.getTime() - span)) : null,
      diverNow ? this.store.playerCounts.valueAtOrBefore('api', new Date(diverNow.at.getTime() - span)) : null,
    ])
    return {
      from: older?.timestamp ?? null,
      to: older ? latest!.timestamp : null,
      deltas: older && latest ? deltas(older, latest) : null,
      divers: diverNow && diverThen
        ? { from: diverThen.at, to: diverNow.at, fromValue: diverThen.v, toValue: diverNow.v, change: diverNow.v - diverThen.v }
        : null,
    }
  }
}
