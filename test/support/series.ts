/**
 * The real series: 1,000 consecutive captures of the game's status feed, 1–8 March 2024
 * (assets/upstream-samples/arrowhead/series, compacted; its `_note` says how). Each row
 * rebuilt here as the status payload the feed served, and written through the collectors'
 * runner as a live tick (with its event-log appends) or an import batch would be.
 */
import { fullStatus } from '../../src/collect/full-status.ts'
import type { CollectorRunner } from '../../src/collect/runner.ts'
import { parseWarStatus, type WarStatus } from '../../src/feeds/upstream.ts'
import { statusTick } from './collect.ts'
import { loadSample } from './samples.ts'

const FILE = 'arrowhead/series/DERIVED_warstatus_timeseries_2024-03_first1000_sector-hq.json'

type Campaign = [id: number, planetIndex: number, type: number, count: number]
type Event = [id: number, planetIndex: number, eventType: number, race: number, health: number, maxHealth: number, startTime: number, expireTime: number, campaignId: number]
type Planet = [owner: number, health: number, regenPerSecond: number, players: number]
type Row = [fetchedAtUnix: number, commit: string, time: number, impactMultiplier: number, playersTotal: number, campaigns: Campaign[], events: Event[], planets: Record<string, Planet>]

/** One capture of the series, as read. */
export interface Capture {
  /** Position in the series (0..999). */
  k: number
  at: Date
  warTime: number
  campaigns: { id: number; planetIndex: number; type: number; count: number }[]
  events: { id: number; planetIndex: number; eventType: number; race: number; health: number; maxHealth: number; startTime: number; expireTime: number; campaignId: number }[]
  /** Every planet's [owner, health, regenPerSecond, players] (those the row leaves out at their defaults). */
  owner(planetIndex: number): number
}

const TEMPLATE = loadSample('arrowhead/warstatus_801_2024-03-08_sector-hq.json') as WarStatus & Record<string, unknown>
const REGEN = new Map(TEMPLATE.planetStatus.map((p) => [p.index, p.regenPerSecond]))

let rows: Row[] | null = null
const seriesRows = () => (rows ??= (loadSample(FILE) as { rows: Row[] }).rows)

/** The planets of a row: every planet of the template, those the row lists with their values. */
function planetsOf(row: Row) {
  return TEMPLATE.planetStatus.map(({ index }) => {
    const p = row[7][String(index)]
    return p ? { index, owner: p[0], health: p[1], regenPerSecond: p[2], players: p[3] } : { index, owner: 1, health: 1_000_000, regenPerSecond: REGEN.get(index)!, players: 0 }
  })
}

export const SERIES_LENGTH = 1000

export function capture(k: number): Capture {
  const row = seriesRows()[k]!
  return {
    k,
    at: new Date(row[0] * 1000),
    warTime: row[2],
    campaigns: row[5].map(([id, planetIndex, type, count]) => ({ id, planetIndex, type, count })),
    events: row[6].map(([id, planetIndex, eventType, race, health, maxHealth, startTime, expireTime, campaignId]) => ({
      id, planetIndex, eventType, race, health, maxHealth, startTime, expireTime, campaignId,
    })),
    owner: (planetIndex) => row[7][String(planetIndex)]?.[0] ?? 1,
  }
}

/**
 * The status payload of capture `k`, as the feed served it (the template's other parts:
 * attack lines, effects); `noEvents`: as a capture that lists no planet event (a defense
 * that leaves the feed for a tick).
 */
export function statusPayload(k: number, warId = 801, noEvents = false): unknown {
  const row = seriesRows()[k]!
  const c = capture(k)
  if (noEvents) c.events = []
  return {
    ...TEMPLATE,
    warId,
    time: row[2],
    impactMultiplier: row[3],
    planetStatus: planetsOf(row),
    campaigns: c.campaigns,
    planetEvents: c.events.map((e) => ({ ...e, jointOperationIds: [] })),
    jointOperations: [],
    planetAttacks: [],
    globalEvents: [],
  }
}

/** Capture `k` as a full-status tick of war `warId` (status only, as an archive holds it). */
export const seriesTick = (k: number, warId = 801, noEvents = false) => statusTick(parseWarStatus(statusPayload(k, warId, noEvents)).data, capture(k).at, warId)

/** Write captures as live ticks, one transaction each, in the order given (the runner's write: rows, then the event log). */
export async function writeLive(runner: CollectorRunner, ks: readonly number[], warId = 801): Promise<void> {
  for (const k of ks) await runner.write(fullStatus, seriesTick(k, warId))
}

/** Write captures as one import batch would (in order, no event-log appends), in one transaction; those of `noEvents` without their planet events. */
export async function writeImported(sql: { begin<T>(fn: (tx: never) => Promise<T>): Promise<T> }, ks: readonly number[], warId = 801, noEvents: ReadonlySet<number> = new Set()): Promise<void> {
  const ticks = ks.map((k) => seriesTick(k, warId, noEvents.has(k)))
  await sql.begin((tx) => fullStatus.writeBatch!(tx, ticks.map((tick) => ({ at: new Date(tick.capturedAt), tick }))))
}

/**
 * How each defense of the captures `ks` ended by the rules of docs/api.md, worked out
 * here from the captures alone (the first capture, in time order, at which a rule
 * decides it): its health at 0 → won; a capture at or past its expiry → lost; the first
 * capture without it → won if the players hold the planet, else lost. Running: absent.
 */
export function defenseEnds(ks: readonly number[]): Map<number, { type: 'defense_won' | 'defense_lost'; k: number }> {
  const caps = [...ks].sort((a, b) => a - b).map(capture)
  const out = new Map<number, { type: 'defense_won' | 'defense_lost'; k: number }>()
  const ids = new Set(caps.flatMap((c) => c.events.map((e) => e.id)))
  for (const id of ids) {
    const first = caps.findIndex((c) => c.events.some((e) => e.id === id))
    let expiry = 0
    for (let i = first; i < caps.length; i++) {
      const c = caps[i]!
      const e = c.events.find((x) => x.id === id)
      if (e) expiry = e.expireTime
      if (e && e.health <= 0) {
        out.set(id, { type: 'defense_won', k: c.k })
        break
      }
      if (i > first && c.warTime >= expiry) {
        out.set(id, { type: 'defense_lost', k: c.k })
        break
      }
      if (!e) {
        const planet = caps[first]!.events.find((x) => x.id === id)!.planetIndex
        out.set(id, { type: c.owner(planet) === 1 ? 'defense_won' : 'defense_lost', k: c.k })
        break
      }
    }
  }
  return out
}
