/**
 * The game's 2025 surfaces of a full-status tick (feeds/upstream-2025.ts) as stored items
 * (storage/war-items.ts): regions in play, planet positions, space stations with their
 * tactical actions (GET /SpaceStation), global resources, global events with their texts.
 * Read item by item: an item of an unexpected shape is left out, a missing list lists
 * nothing, so no tick fails over them. A 2024 capture has none: its tick lists no kind.
 */
import type { Fetched } from '../feeds/throttle.ts'
import type { WarStatus } from '../feeds/upstream.ts'
import { readGlobalEvents, readGlobalResources, readRegions, readSpaceStations, type SpaceStation } from '../feeds/upstream-2025.ts'
import { regionKey, type Item, type TickItems } from '../storage/war-items.ts'
import type { GlobalEventText } from '../storage/surfaces.ts'
import { COLLECTOR_FETCH, type FetchContext } from './collector.ts'

/** A tick's surfaces as spooled and written. */
export interface SurfaceRows {
  items: TickItems
  /** The global events' texts, in the status's language. */
  eventTexts: GlobalEventText[]
}

const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)
const ints = (v: unknown): number[] => (Array.isArray(v) ? v.filter((x): x is number => Number.isInteger(x)) : [])

/**
 * Each station the status lists, asked at GET /SpaceStation through the feed's throttled
 * client; a station that fails is left out (its tick keeps what the status says of it).
 */
export async function fetchStations(ctx: Pick<FetchContext, 'feeds' | 'warId'>, status: WarStatus): Promise<Fetched<SpaceStation>[]> {
  const ids = readSpaceStations(status.spaceStations).items.map((s) => s.id32)
  const got = await Promise.all([...new Set(ids)].map((id) => ctx.feeds.upstream.spaceStation(ctx.warId, id, COLLECTOR_FETCH).catch(() => null)))
  return got.filter((s): s is Fetched<SpaceStation> => s !== null)
}

/** The surfaces of a status (and its stations' details), texts in `lang`. */
export function surfacesOf(status: WarStatus, stations: readonly Fetched<SpaceStation>[], lang: string): SurfaceRows {
  const items: TickItems = {}
  const raw = status as unknown as Record<string, unknown>
  if (raw.planetRegions !== undefined) {
    items.region = readRegions(raw.planetRegions).items.map((r) => ({
      key: regionKey(r.planetIndex, r.regionIndex),
      state: {
        owner: r.owner, health: r.health, regen: finite(r.regerPerSecond), availability: finite(r.availabilityFactor),
        available: typeof r.isAvailable === 'boolean' ? r.isAvailable : null, players: r.players,
      },
    }))
  }
  const positions = status.planetStatus.flatMap((p): Item[] => {
    const pos = p.position as { x?: unknown; y?: unknown } | undefined
    const x = finite(pos?.x)
    const y = finite(pos?.y)
    return x === null || y === null ? [] : [{ key: p.index, state: { x, y } }]
  })
  if (positions.length) items.position = positions
  if (raw.spaceStations !== undefined) {
    items.station = readSpaceStations(raw.spaceStations).items.map((s) => ({
      key: s.id32,
      state: { planet: s.planetIndex, electionEnd: s.currentElectionEndWarTime ?? null, flags: s.flags ?? null, effects: ints(s.activeEffectIds) },
    }))
  }
  if (stations.length) {
    items.tactical_action = stations.flatMap(({ data }) =>
      data.tacticalActions.map((a) => ({
        key: a.id32,
        state: {
          station: data.id32, name: a.name, status: a.status, expire: a.statusExpireAtWarTimeSeconds,
          costs: a.cost.map((c) => ({ target: c.targetValue, current: c.currentValue, delta: c.deltaPerSecond })),
          effects: ints(a.effectIds), activeEffects: ints(a.activeEffectIds),
        },
      })),
    )
  }
  if (raw.globalResources !== undefined) {
    items.resource = readGlobalResources(raw.globalResources).items.map((r) => ({
      key: r.id32, state: { current: r.currentValue, max: r.maxValue, flags: r.flags ?? null },
    }))
  }
  const eventTexts: GlobalEventText[] = []
  if (raw.globalEvents !== undefined) {
    const events = readGlobalEvents(raw.globalEvents).items
    items.global_event = events.map((e) => ({
      key: e.eventId,
      state: {
        id32: e.id32, race: e.race, flag: e.flag, order: e.assignmentId32 || null, planets: ints(e.planetIndices),
        effects: ints(e.effectIds), expire: e.expireTime ?? null, portraitId32: e.portraitId32, titleId32: e.titleId32, messageId32: e.messageId32,
      },
    }))
    for (const e of events) {
      // An event without words (the fleet's markers) has nothing to store.
      if (e.title || e.message) eventTexts.push({ event_id: e.eventId, lang, title: e.title || null, message: e.message || null })
    }
  }
  return { items, eventTexts }
}
