/**
 * The game's 2025 surfaces as the read routes serve them (docs/api.md "Regions, the space
 * station, global resources and events"): regions with their liberation and outlook,
 * the space stations with their tactical actions, the global resources with their rate,
 * the global events with their texts. Rules here; rows from storage/war-items.ts and
 * storage/surfaces.ts; the bar's rate, outlook and ETA from war/liberation.ts.
 */
import { lookups, unknownPlanetName, worldTables } from '../lookups.ts'
import type { Store } from '../storage/index.ts'
import { carriedItems, regionOfKey, type ItemState } from '../storage/war-items.ts'
import { HUMANS, libPctOf, project, slope, type ProgressPoint } from '../war/liberation.ts'

const HOUR_MS = 3_600_000
export const RATE_WINDOW_HOURS = { default: 6, min: 1, max: 48 }
export const REGION_SIZES = ['settlement', 'town', 'city', 'megacity'] as const
export const ACTION_STATUS = { 1: 'preparing', 2: 'active', 3: 'cooldown' } as const
export const RESOURCE_RANGES = { '24h': 24, '7d': 168, '30d': 720, '90d': 2160 } as const
export type ResourceRange = keyof typeof RESOURCE_RANGES | 'all'
/** About this many points in a resource's history, whatever the range. */
const HISTORY_POINTS = 200

type Reads = Pick<Store, 'warItems' | 'surfaces'>
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)
const round = (x: number | null, digits: number) => (x === null ? null : Math.round(x * 10 ** digits) / 10 ** digits)
const planetName = (index: number) => lookups().planets.get(index)?.name ?? unknownPlanetName(index)

/** A war time as wall-clock time by the latest tick's clock: capturedAt + (value − Status.time). */
function clockOf(tick: { at: Date; warTime: number } | null) {
  return (warTime: unknown): Date | null => {
    const v = num(warTime)
    return tick && v !== null && v > 0 ? new Date(tick.at.getTime() + (v - tick.warTime) * 1000) : null
  }
}

/** Per hour, from (t, value) points: the least-squares slope; null with fewer than two ticks. */
export function ratePerHour(points: readonly { t: Date; v: number }[]): number | null {
  if (points.length < 2) return null
  const t0 = points[0]!.t.getTime()
  return slope(points.map((p) => (p.t.getTime() - t0) / HOUR_MS), points.map((p) => p.v))
}

export async function regions(store: Reads, q: { warId: number; planetIndex?: number; asOf: Date; hours: number }) {
  const [items, infos] = await Promise.all([store.warItems.latest(q.warId, 'region'), store.surfaces.regionInfos(q.warId, q.planetIndex)])
  const listed = items.filter((i) => q.planetIndex === undefined || regionOfKey(i.key).planetIndex === q.planetIndex)
  const from = new Date(q.asOf.getTime() - q.hours * HOUR_MS)
  const history = listed.length ? await store.warItems.window(q.warId, 'region', from, q.asOf, listed.map((i) => i.key)) : { ticks: [], changes: [] }
  const curves = carriedItems(history)
  const info = new Map(infos.map((r) => [r.planetIndex * 1000 + r.regionIndex, r]))
  return listed.map(({ key, state }) => {
    const { planetIndex, regionIndex } = regionOfKey(key)
    const def = info.get(key)
    const described = def ? worldTables().region(def.settingsHash) : null
    const maxHealth = def?.maxHealth ?? null
    const owner = state.owner as number
    const health = state.health as number
    const libPct = maxHealth ? libPctOf(owner, health, maxHealth) : null
    // The front began at the region's last owner change in the window.
    const curve = curves.get(key) ?? []
    const since = curve.findLastIndex((p, i) => i > 0 && p.state.owner !== curve[i - 1]!.state.owner)
    const points: ProgressPoint[] = maxHealth
      ? curve.slice(Math.max(0, since)).map((p) => ({ t: p.t, pct: libPctOf(p.state.owner as number, p.state.health as number, maxHealth) }))
      : []
    const projection = project(points, { asOf: q.asOf, deadline: null, zeroIsLoss: owner === HUMANS, frozen: false })
    return {
      planetIndex, planetName: planetName(planetIndex), regionIndex,
      name: described?.name ?? null, type: described?.type ?? null, faction: described?.faction ?? null,
      size: def?.regionSize != null ? (REGION_SIZES[def.regionSize] ?? null) : null, sizeId: def?.regionSize ?? null,
      owner, health, maxHealth, libPct: round(libPct, 4), regenPerSecond: num(state.regen),
      ratePctPerHour: projection?.ratePctPerHour ?? null, outlook: projection?.outlook ?? 'unknown',
      eta: projection?.eta ?? null, etaHours: projection?.etaHours ?? null,
      players: state.players as number, available: typeof state.available === 'boolean' ? state.available : null,
      availabilityFactor: num(state.availability),
    }
  })
}

export async function spaceStations(store: Reads, q: { warId: number; asOf: Date; hours: number }) {
  const [stations, actions, tick] = await Promise.all([
    store.warItems.latest(q.warId, 'station'), store.warItems.latest(q.warId, 'tactical_action'), store.warItems.latestTick(q.warId),
  ])
  const clock = clockOf(tick)
  const from = new Date(q.asOf.getTime() - q.hours * HOUR_MS)
  const history = actions.length ? carriedItems(await store.warItems.window(q.warId, 'tactical_action', from, q.asOf, actions.map((a) => a.key))) : new Map()
  const effectIds = [...new Set([...stations, ...actions].flatMap(({ state }) => [...ids(state.effects), ...ids(state.activeEffects)]))]
  const definitions = new Map((effectIds.length ? await store.surfaces.effects(effectIds) : []).map((e) => [e.id, e]))
  const effect = (id: number) => ({ id, name: worldTables().effect(id).name, effectType: definitions.get(id)?.effectType ?? null, valueTypes: definitions.get(id)?.valueTypes ?? [], values: definitions.get(id)?.values ?? [] })
  return stations.map(({ key, state }) => ({
    id32: key,
    planetIndex: state.planet as number,
    planetName: planetName(state.planet as number),
    nextMoveAt: clock(state.electionEnd),
    flags: num(state.flags),
    effects: ids(state.effects).map(effect),
    tacticalActions: actions.filter((a) => a.state.station === key).map(({ key: id, state: a }) => {
      const curve: { t: Date; state: ItemState }[] = history.get(id) ?? []
      const statusId = a.status as number
      return {
        id32: id,
        name: String(a.name ?? ''),
        status: ACTION_STATUS[statusId as keyof typeof ACTION_STATUS] ?? 'unknown',
        statusId,
        statusExpiresAt: clock(a.expire),
        effects: ids(a.effects).map(effect),
        activeEffectIds: ids(a.activeEffects),
        costs: costsOf(a, curve, q.asOf, statusId),
      }
    }),
  }))
}

const ids = (v: unknown): number[] => (Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [])
type Cost = { target: number; current: number; delta: number }
const costList = (s: ItemState): Cost[] => (Array.isArray(s.costs) ? (s.costs as Cost[]) : [])

/** Each cost's progress; its rate per hour over the window's ticks since it last fell (a new round of donations), and the ETA to full while preparing. */
function costsOf(a: ItemState, curve: readonly { t: Date; state: ItemState }[], asOf: Date, statusId: number) {
  return costList(a).map((c, i) => {
    const points = curve.flatMap((p) => {
      const v = num(costList(p.state)[i]?.current)
      return v === null ? [] : [{ t: p.t, v }]
    })
    const fell = points.findLastIndex((p, k) => k > 0 && p.v < points[k - 1]!.v)
    const rate = ratePerHour(points.slice(Math.max(0, fell)))
    const full = c.current >= c.target
    const etaHours = statusId === 1 && !full && rate !== null && rate > 0 ? (c.target - c.current) / rate : null
    return {
      current: c.current, target: c.target, pct: c.target > 0 ? round((c.current / c.target) * 100, 4) : null,
      deltaPerSecond: num(c.delta), ratePerHour: round(rate, 4),
      etaFull: etaHours === null ? null : new Date(asOf.getTime() + etaHours * HOUR_MS), etaHours: round(etaHours, 4),
    }
  })
}

export async function globalResources(store: Reads, q: { warId: number; asOf: Date; hours: number }) {
  const items = await store.warItems.latest(q.warId, 'resource')
  const from = new Date(q.asOf.getTime() - q.hours * HOUR_MS)
  const curves = items.length ? carriedItems(await store.warItems.window(q.warId, 'resource', from, q.asOf, items.map((i) => i.key))) : new Map()
  return items.map(({ key, state }) => {
    const current = state.current as number
    const max = state.max as number
    const curve: { t: Date; state: ItemState }[] = curves.get(key) ?? []
    return {
      id32: key, current, max, pct: max > 0 ? round((current / max) * 100, 4) : null, flags: num(state.flags),
      ratePerHour: round(ratePerHour(curve.map((p) => ({ t: p.t, v: p.state.current as number }))), 4), samples: curve.length,
    }
  })
}

/** A resource's value over a range, about HISTORY_POINTS points (each the last tick of its bucket); null when the resource is not known. */
export async function resourceHistory(store: Reads, q: { warId: number; id32: number; range: ResourceRange; asOf: Date }) {
  const known = (await store.warItems.latest(q.warId, 'resource')).some((i) => i.key === q.id32)
  const from = q.range === 'all' ? new Date(0) : new Date(q.asOf.getTime() - RESOURCE_RANGES[q.range] * HOUR_MS)
  const curve = carriedItems(await store.warItems.window(q.warId, 'resource', from, q.asOf, [q.id32])).get(q.id32) ?? []
  if (!known && !curve.length) return null
  const span = curve.length ? q.asOf.getTime() - (q.range === 'all' ? curve[0]!.t.getTime() : from.getTime()) : 0
  const bucketSeconds = Math.max(300, Math.ceil(span / HISTORY_POINTS / 1000 / 300) * 300)
  const buckets = new Map<number, { t: Date; current: number; max: number }>()
  for (const p of curve) buckets.set(Math.floor(p.t.getTime() / 1000 / bucketSeconds), { t: p.t, current: p.state.current as number, max: p.state.max as number })
  return { id32: q.id32, range: q.range, bucketSeconds, from: q.range === 'all' ? (curve[0]?.t ?? q.asOf) : from, to: q.asOf, points: [...buckets.values()] }
}

export async function globalEvents(store: Reads, q: { warId: number; lang: string | undefined; primary: string }) {
  const [items, tick] = await Promise.all([store.warItems.latest(q.warId, 'global_event'), store.warItems.latestTick(q.warId)])
  const texts = items.length ? await store.surfaces.eventTexts(q.warId, items.map((i) => i.key)) : []
  const clock = clockOf(tick)
  const factions = lookups().factions
  return items.map(({ key, state }) => {
    const all = texts.filter((x) => x.eventId === key)
    const chosen = all.find((x) => x.lang === (q.lang ?? q.primary)) ?? all.find((x) => x.lang === q.primary) ?? null
    const race = state.race as number
    return {
      eventId: key, id32: state.id32 as number, lang: chosen?.lang ?? null, title: chosen?.title ?? null, message: chosen?.message ?? null,
      texts: all.map(({ lang, title, message }) => ({ lang, title, message })),
      race, raceName: factions.get(race) ?? null, flag: state.flag as number,
      orderId32: num(state.order), planets: ids(state.planets).map((index) => ({ index, name: planetName(index) })),
      effectIds: ids(state.effects), expiresAt: clock(state.expire),
    }
  })
}
