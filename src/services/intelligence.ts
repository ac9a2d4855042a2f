/**
 * The derived war view that is not a single storage read: the active campaigns and
 * defenses, liberation per planet (the maths in war/liberation.ts), whether the war's
 * clock stands still, and the trend deltas of the war summary and the diver count.
 * Routes: routes/intelligence.ts; SQL: storage/fight.ts (campaigns, events),
 * storage/planet-status.ts (windows), storage/ticks.ts (the war clock),
 * storage/war-summary.ts and storage/player-counts.ts.
 */
import { campaignTypeName, lookups, unknownPlanetName } from '../lookups.ts'
import type { EventWindow } from '../storage/fight.ts'
import type { Store } from '../storage/index.ts'
import type { PlanetWindow } from '../storage/planet-status.ts'
import type { WarClock } from '../storage/ticks.ts'
import { CUMULATIVE_KEYS, type WarCounters, type WarSummaryRow } from '../storage/war-summary.ts'
import { ageSeconds, coverageOf } from '../war/data-age.ts'
import { eventPctOf, HUMANS, libPctOf, liberation, project, type Liberation, type Projection } from '../war/liberation.ts'

const HOUR_MS = 3_600_000
/** A war whose latest tick's war time was seen again this much later has a stopped clock (the full-status cadence is 5 minutes). */
export const FROZEN_AFTER_MS = 2 * 60_000

/** When the war's clock stopped: the capture of its latest tick, if that tick's war time was seen again at least FROZEN_AFTER later; else null. */
export function frozenSince(clock: WarClock): Date | null {
  if (!clock.at || !clock.lastSeenAt) return null
  return clock.lastSeenAt.getTime() - clock.at.getTime() >= FROZEN_AFTER_MS ? clock.at : null
}

/**
 * A defense's figures from its event's ticks in the window (the latest tick is its state
 * at the war's latest tick, `at`). Without a tick in the window (a long outage or freeze),
 * from its row at `at`, as a planet's are from its latest row: its health and deadline,
 * with nothing projected (samples 0).
 */
function defenseOf(e: EventWindow, o: { asOf: Date; frozen: boolean; at: Date }) {
  const points = e.ticks.map((t) => ({ t: t.t, pct: eventPctOf(t.health, t.maxHealth) }))
  if (points.length) return project(points, { asOf: o.asOf, deadline: e.expiresAt, zeroIsLoss: false, frozen: o.frozen })!
  const latest = project([{ t: o.at, pct: eventPctOf(e.health, e.maxHealth) }], { asOf: o.asOf, deadline: e.expiresAt, zeroIsLoss: false, frozen: true })!
  return { ...latest, samples: 0 }
}

/** The figures of a planet with no tick in the window: its latest row, at that row's time, and nothing projected. */
function stale(w: PlanetWindow, asOf: Date): Liberation | null {
  if (!w.latest) return null
  const l = liberation([w.latest], w.maxHealth, { asOf, frozen: true })!
  return { ...l, samples: 0 }
}
export const TREND_WINDOWS = { '1h': 1, '24h': 24, '7d': 168 } as const

/**
 * How far before a trend window's start its `from` row may lie: a quarter hour (three
 * missed 5-minute ticks) or a tenth of the window, whichever is longer. Beyond it a gap
 * spans the start, and the window's change would be measured over a longer time.
 */
export const trendTolerance = (windowMs: number) => Math.max(15 * 60_000, windowMs / 10)

const UNKNOWN_PROJECTION = {
  ratePctPerHour: null,
  samples: 0,
  since: null,
  outlook: 'unknown' as const,
  eta: null,
  etaHours: null,
  deadline: null,
  requiredRatePctPerHour: null,
  marginHours: null,
  capturedAt: null,
  ageSeconds: null,
}

/** A planet with no row at all yet: nothing known, nothing invented. */
const UNKNOWN = { ...UNKNOWN_PROJECTION, owner: null, libPct: null, players: null, regenPctPerHour: null, impactPctPerHour: null }

/** A projection as answered: any of its figures may be unknown. */
type Shown = { [K in keyof Projection]: Projection[K] | (K extends 'outlook' | 'samples' ? never : null) }

const withoutProgress = ({ progressPct: _, ...rest }: Projection) => rest
const withoutLiberation = ({ owner: _o, libPct: _l, players: _p, regenPctPerHour: _r, impactPctPerHour: _i, ...rest }: Liberation) => rest

/** Counter deltas between two war-summary ticks (the cumulative counters only). */
export function deltas(from: WarSummaryRow, to: WarSummaryRow): Partial<WarCounters> {
  const out: Partial<WarCounters> = {}
  for (const key of CUMULATIVE_KEYS) out[key] = to[key] - from[key]
  return out
}

export class IntelligenceService {
  constructor(private readonly store: Pick<Store, 'planetStatus' | 'warSummary' | 'playerCounts' | 'fight' | 'ticks'>) {}

  /** The war's clock: its latest tick and, when its war time stopped advancing, since when. */
  async clock(warId: number) {
    const clock = await this.store.ticks.clock(warId)
    return { clock, frozenSince: frozenSince(clock) }
  }

  /**
   * Every planet in a current campaign (or the one asked for) with its liberation over the
   * `hours` before `asOf`, a defended planet from its event; null when the planet asked
   * for is not known for the war.
   */
  async liberation(f: { warId: number; planetIndex?: number; hours: number; asOf: Date }) {
    const from = new Date(f.asOf.getTime() - f.hours * HOUR_MS)
    const [{ clock, frozenSince }, windows] = await Promise.all([
      this.clock(f.warId),
      this.store.planetStatus.windows({ warId: f.warId, planetIndexes: f.planetIndex === undefined ? undefined : [f.planetIndex], from, to: f.asOf }),
    ])
    if (f.planetIndex !== undefined && !windows.length) return null
    const events = clock.at && windows.length ? await this.store.fight.eventWindows({ warId: f.warId, at: clock.at, planetIndexes: windows.map((w) => w.planetIndex), from, to: f.asOf }) : []
    const eventOf = new Map(events.map((e) => [e.planetIndex, e]))
    const o = { asOf: f.asOf, frozen: frozenSince !== null }
    const items = windows.map((w) => {
      const { ticks, latest: _, ...planet } = w
      const l = liberation(ticks, w.maxHealth, o) ?? stale(w, f.asOf)
      const event = eventOf.get(w.planetIndex)
      if (!l) return { ...planet, ...UNKNOWN, eventId: null }
      if (!event) return { ...planet, ...l, eventId: null }
      // A defended planet: the bar is the event's, the players' planet itself does not move.
      const d = defenseOf(event, { ...o, at: clock.at! })
      return { ...planet, ...l, libPct: d.progressPct, ...withoutProgress(d), regenPctPerHour: null, impactPctPerHour: null, eventId: event.eventId }
    })
    return { frozenSince, items }
  }

  /**
   * The campaigns of the war's latest tick, most players first, each with its bar, rate,
   * ETA and outlook over the `hours` before `asOf` (its own ticks only; a defense from its
   * event, with its deadline).
   */
  async campaigns(f: { warId: number; hours: number; asOf: Date }) {
    const { clock, frozenSince } = await this.clock(f.warId)
    if (!clock.at) return { at: null, frozenSince, items: [], attacks: [] }
    const from = new Date(f.asOf.getTime() - f.hours * HOUR_MS)
    const [campaigns, attacks] = await Promise.all([this.store.fight.campaignsAt(f.warId, clock.at), this.store.fight.attacksAt(f.warId, clock.at)])
    const planetIndexes = [...new Set(campaigns.map((c) => c.planetIndex))]
    const [windows, events] = planetIndexes.length
      ? await Promise.all([
          this.store.planetStatus.windows({ warId: f.warId, planetIndexes, from, to: f.asOf }),
          this.store.fight.eventWindows({ warId: f.warId, at: clock.at, planetIndexes, from, to: f.asOf }),
        ])
      : [[], []]
    const windowOf = new Map(windows.map((w) => [w.planetIndex, w]))
    const eventOf = new Map(events.map((e) => [e.campaignId, e]))
    const { planets, factions } = lookups()
    const o = { asOf: f.asOf, frozen: frozenSince !== null }
    const items = campaigns.map((c) => {
      const w = windowOf.get(c.planetIndex)
      const event = eventOf.get(c.campaignId)
      // The campaign's own ticks: those since it first showed.
      const own = w ? w.ticks.filter((t) => t.t >= c.firstSeenAt) : []
      const planet = w ? liberation(own, w.maxHealth, o) ?? stale(w, f.asOf) : null
      const p: Shown = event
        ? defenseOf({ ...event, ticks: event.ticks.filter((t) => t.t >= c.firstSeenAt) }, { ...o, at: clock.at! })
        : planet
          ? { ...withoutLiberation(planet), progressPct: planet.libPct }
          : { ...UNKNOWN_PROJECTION, progressPct: null }
      const factionId = event?.race ?? c.race ?? (planet && planet.owner !== HUMANS ? planet.owner : null)
      return {
        campaignId: c.campaignId,
        planetIndex: c.planetIndex,
        planetName: w?.planetName ?? planets.get(c.planetIndex)?.name ?? unknownPlanetName(c.planetIndex),
        sectorName: w?.sectorName ?? planets.get(c.planetIndex)?.sector ?? null,
        type: campaignTypeName(c.type, event !== undefined),
        typeId: c.type,
        count: c.count,
        factionId,
        faction: factionId === null ? null : (factions.get(factionId) ?? null),
        owner: planet?.owner ?? null,
        players: planet?.players ?? null,
        eventId: event?.eventId ?? null,
        firstSeenAt: c.firstSeenAt,
        ...p,
      }
    })
    items.sort((a, b) => (b.players ?? -1) - (a.players ?? -1) || a.campaignId - b.campaignId)
    return { at: clock.at, dataAgeSeconds: ageSeconds(clock.at, f.asOf), frozenSince, items, attacks }
  }

  /**
   * A campaign's bar at each of its ticks (its latest `limit`): a defense's event health
   * taken, else its planet's liberation %. Null for a campaign never stored.
   */
  async campaignHistory(f: { warId: number; campaignId: number; limit: number }) {
    const found = await this.store.fight.campaignHistory(f)
    if (!found) return null
    const { ticks, type, ...span } = found
    const pctOf = (p: (typeof ticks)[number]) => (p.owner === null ? eventPctOf(p.health, p.maxHealth) : libPctOf(p.owner, p.health, p.maxHealth))
    return {
      ...span,
      type: campaignTypeName(type, span.eventId !== null),
      points: ticks.map((p) => ({ t: p.t, progressPct: Math.round(pctOf(p) * 1e4) / 1e4, players: p.players })),
    }
  }

  /**
   * The deltas over 1 h, 24 h and 7 d back from the latest tick and the latest diver row;
   * `since`: the war's oldest summary tick, what each window's coverage is measured from.
   */
  async trends(warId: number) {
    const [{ latest, since }, diverNow] = await Promise.all([this.store.warSummary.latestTick(warId), this.store.playerCounts.valueAtOrBefore('api', null, warId)])
    const [h1, h24, d7] = await Promise.all([TREND_WINDOWS['1h'], TREND_WINDOWS['24h'], TREND_WINDOWS['7d']].map((hours) => this.trendWindow(warId, latest, since, diverNow, hours)))
    return { since, windows: { '1h': h1!, '24h': h24!, '7d': d7! } }
  }

  private async trendWindow(warId: number, latest: WarSummaryRow | null, since: Date | null, diverNow: { at: Date; v: number } | null, hours: number) {
    const span = hours * HOUR_MS
    const tolerance = trendTolerance(span)
    const start = latest ? new Date(latest.timestamp.getTime() - span) : null
    const diverStart = diverNow ? new Date(diverNow.at.getTime() - span) : null
    const [found, diverFound] = await Promise.all([
      start ? this.store.warSummary.tickAtOrBefore(warId, start) : null,
      diverStart ? this.store.playerCounts.valueAtOrBefore('api', diverStart, warId) : null,
    ])
    // A row further before the start than the tolerance: a gap spans the start, and the
    // window is covered only from the first tick after it, as a young history is.
    const older = found && start!.getTime() - found.timestamp.getTime() <= tolerance ? found : null
    const diverThen = diverFound && diverStart!.getTime() - diverFound.at.getTime() <= tolerance ? diverFound : null
    const gap = found !== null && older === null
    const coveredFrom = gap ? await this.store.warSummary.firstTickAfter(warId, start!) : since
    return {
      from: older?.timestamp ?? null,
      to: older ? latest!.timestamp : null,
      // The share of [latest - window, latest] the stored summary ticks span (0 without any).
      coverage: start ? coverageOf(coveredFrom, start, latest!.timestamp, gap) : 0,
      deltas: older && latest ? deltas(older, latest) : null,
      divers: diverNow && diverThen
        ? { from: diverThen.at, to: diverNow.at, fromValue: diverThen.v, toValue: diverNow.v, change: diverNow.v - diverThen.v }
        : null,
    }
  }
}
