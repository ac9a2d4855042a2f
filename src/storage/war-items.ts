/**
 * The keyed items a full-status tick lists besides its planets (sql/0027): regions, planet
 * positions, space stations, tactical actions, global resources, global events. Stored as
 * what changed, like planet status (sql/0021): an item's row where its state differs from
 * its state at the war's tick before, a null state where it leaves the feed; its state at
 * any tick is its latest row at or before it. A tick that does not list a kind (a 2024
 * capture) says nothing about it and writes nothing.
 */
import type { Sql, Tx } from '../db/connect.ts'
import { numbers } from './model.ts'

export const ITEM_KINDS = ['region', 'position', 'station', 'tactical_action', 'resource', 'global_event'] as const
export type ItemKind = (typeof ITEM_KINDS)[number]

/** An item's state: a small JSON object (its fields per kind in storage/surfaces.ts). */
export type ItemState = Record<string, unknown>

export interface Item {
  key: number
  state: ItemState
}

/** A tick's items of one kind; absent kinds are not listed (nothing said about them). */
export type TickItems = Partial<Record<ItemKind, readonly Item[]>>

/** A region's key: its planet and its index on the planet. */
export const regionKey = (planetIndex: number, regionIndex: number) => planetIndex * 1000 + regionIndex
export const regionOfKey = (key: number) => ({ planetIndex: Math.floor(key / 1000), regionIndex: key % 1000 })

/**
 * The items of ticks of one war, oldest first, one statement per kind listed (none when no
 * tick lists any): ticks later than every stored one compared one after the other with the
 * latest states, or one tick before a stored one (`next`, the stored tick after it; sql/0027
 * war_item_write finds the one after it that listed each kind). An
 * item listed twice in a tick counts once (its first). Returns the change rows written
 * per kind.
 */
export async function writeTicks(
  tx: Tx, warId: number, ticks: readonly { at: Date; items: TickItems }[], next: Date | null, latest?: LatestItems,
): Promise<Partial<Record<ItemKind, number>>> {
  if (next !== null && ticks.length > 1) throw new Error('war items: ticks written before a stored one go one at a time')
  if (latest && next === null) return writeChanges(tx, warId, ticks, latest)
  const writes = ITEM_KINDS.flatMap((kind) => {
    const listing = ticks.filter((t) => t.items[kind])
    if (!listing.length) return []
    const starts = [1]
    const keys: number[] = []
    const states: string[] = []
    for (const t of listing) {
      const seen = new Set<number>()
      for (const { key, state } of t.items[kind]!) {
        if (seen.has(key)) continue
        seen.add(key)
        keys.push(key)
        states.push(JSON.stringify(state))
      }
      starts.push(keys.length + 1)
    }
    const n = tx<{ n: number }[]>`
      SELECT war_item_write(${warId}, ${kind}, ${next !== null}, ${listing.map((t) => t.at.toISOString())}::timestamptz[],
                            ${numbers(starts)}::int[], ${numbers(keys)}::bigint[], ${states}::text[]::jsonb[]) AS n`
    return [n.then(([row]) => [kind, row!.n] as const)]
  })
  return Object.fromEntries(await Promise.all(writes))
}

/** Each kind's items as war_item_latest keeps them (null: out of the feed), by key. */
export type LatestItems = Map<ItemKind, Map<number, ItemState | null>>

/** The latest items of these wars (war_item_latest), by war: what an in-order batch compares its ticks with (writeTicks). */
export async function latestItems(tx: Tx, warIds: readonly number[]): Promise<Map<number, LatestItems>> {
  const out = new Map<number, LatestItems>(warIds.map((w) => [w, new Map()]))
  if (!warIds.length) return out
  const rows = await tx<{ warId: number; kind: ItemKind; key: number; state: ItemState | null }[]>`
    SELECT war_id AS "warId", kind, item_key::float8 AS key, state FROM war_item_latest WHERE war_id = ANY (${numbers(warIds)}::int[])`
  for (const { warId, kind, key, state } of rows) {
    const byKind = out.get(warId)!
    const items = byKind.get(kind) ?? byKind.set(kind, new Map()).get(kind)!
    items.set(key, state)
  }
  return out
}

/** Whether two values are the same JSON (jsonb's equality: object keys in any order, a key whose value is undefined absent as JSON.stringify leaves it). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i] ?? null, b[i] ?? null)) return false
    return true
  }
  const x = a as Record<string, unknown>
  const y = b as Record<string, unknown>
  let n = 0
  for (const k in x) {
    if (x[k] === undefined) continue
    n++
    if (!sameJson(x[k], y[k])) return false
  }
  for (const k in y) if (y[k] !== undefined) n--
  return n === 0
}

/**
 * In-order ticks compared with `latest` as war_item_write compares them in the database,
 * kind by kind: an item listed (its first listing in a tick) whose state differs from its
 * latest one, or that was not known, gets a row; an item known in the feed that a tick
 * listing its kind does not list gets a row with a null state. `latest` moves with each
 * tick. One statement: the ticks that list each kind, the change rows and the states they
 * end at.
 */
async function writeChanges(tx: Tx, warId: number, ticks: readonly { at: Date; items: TickItems }[], latest: LatestItems): Promise<Partial<Record<ItemKind, number>>> {
  const counts: Partial<Record<ItemKind, number>> = {}
  const listed: { kind: string[]; at: string[] } = { kind: [], at: [] }
  const rows: { kind: string[]; key: number[]; at: string[]; state: (string | null)[] } = { kind: [], key: [], at: [], state: [] }
  const ends = new Map<string, { kind: ItemKind; key: number; state: ItemState | null }>()
  const changed: [number, ItemState | null][] = []
  for (const kind of ITEM_KINDS) {
    const known = latest.get(kind) ?? latest.set(kind, new Map()).get(kind)!
    // The tick each item was last listed at, and how many known items are in the feed.
    const listedAt = new Map<number, number>()
    let inFeed = 0
    for (const was of known.values()) if (was !== null) inFeed++
    ticks.forEach((t, k) => {
      const items = t.items[kind]
      if (!items) return
      const at = t.at.toISOString()
      listed.kind.push(kind)
      listed.at.push(at)
      changed.length = 0
      let listedInFeed = 0
      for (const { key, state } of items) {
        if (listedAt.get(key) === k) continue
        listedAt.set(key, k)
        const was = known.get(key)
        if (was != null) listedInFeed++
        if (was === undefined || !sameJson(state, was)) changed.push([key, state])
      }
      if (listedInFeed < inFeed) for (const [key, was] of known) if (was !== null && listedAt.get(key) !== k) changed.push([key, null])
      for (const [key, state] of changed) {
        rows.kind.push(kind)
        rows.key.push(key)
        rows.at.push(at)
        rows.state.push(state === null ? null : JSON.stringify(state))
        inFeed += (state !== null ? 1 : 0) - (known.get(key) != null ? 1 : 0)
        known.set(key, state)
        ends.set(`${kind}:${key}`, { kind, key, state })
      }
      counts[kind] = (counts[kind] ?? 0) + changed.length
    })
  }
  if (!listed.kind.length) return counts
  const end = [...ends.values()]
  await tx`
    WITH listed AS (
      INSERT INTO war_item_ticks (war_id, kind, captured_at)
      SELECT ${warId}, kind, at FROM unnest(${listed.kind}::text[], ${listed.at}::timestamptz[]) AS t(kind, at)
      ON CONFLICT DO NOTHING
    ), changes AS (
      INSERT INTO war_item_changes (war_id, kind, item_key, captured_at, state)
      SELECT ${warId}, kind, item_key, at, state
      FROM unnest(${rows.kind}::text[], ${numbers(rows.key)}::bigint[], ${rows.at}::timestamptz[], ${rows.state}::text[]::jsonb[]) AS c(kind, item_key, at, state)
    )
    INSERT INTO war_item_latest AS l (war_id, kind, item_key, state)
    SELECT ${warId}, kind, item_key, state
    FROM unnest(${end.map((e) => e.kind)}::text[], ${numbers(end.map((e) => e.key))}::bigint[], ${end.map((e) => (e.state === null ? null : JSON.stringify(e.state)))}::text[]::jsonb[])
      AS x(kind, item_key, state)
    ON CONFLICT (war_id, kind, item_key) DO UPDATE SET state = excluded.state`
  return counts
}

/** Each item of `kind` in the feed at the war's latest tick that listed it. */
export function latest(sql: Sql, warId: number, kind: ItemKind): Promise<Item[]> {
  return sql<Item[]>`
    SELECT item_key::float8 AS key, state FROM war_item_latest
    WHERE war_id = ${warId} AND kind = ${kind} AND state IS NOT NULL ORDER BY item_key`
}

export interface ItemChange {
  key: number
  t: Date
  state: ItemState | null
}

/** A window of one kind's items: its ticks, and each item's changes in it with its latest one before it first. */
export interface ItemWindow {
  ticks: Date[]
  changes: ItemChange[]
}

/**
 * The ticks in [from, to] that listed `kind` and the changes of `kind` (of `keys` when given)
 * in that window, each item's latest change before `from` first: what the window's ticks
 * carry forward (carriedItems). Two statements, sent together.
 */
export async function window(sql: Sql, warId: number, kind: ItemKind, from: Date, to: Date, keys?: readonly number[]): Promise<ItemWindow> {
  const only = keys ? numbers(keys) : null
  const [ticks, changes] = await Promise.all([
    sql<{ t: Date }[]>`
      SELECT captured_at AS t FROM war_item_ticks
      WHERE war_id = ${warId} AND kind = ${kind} AND captured_at >= ${from} AND captured_at <= ${to} ORDER BY captured_at`,
    sql<ItemChange[]>`
      WITH k AS (
        SELECT item_key FROM war_item_latest
        WHERE war_id = ${warId} AND kind = ${kind} AND (${only}::bigint[] IS NULL OR item_key = ANY (${only}::bigint[]))
      )
      SELECT k.item_key::float8 AS key, b.t, b.state FROM k CROSS JOIN LATERAL (
        SELECT captured_at AS t, state FROM war_item_changes c
        WHERE c.war_id = ${warId} AND c.kind = ${kind} AND c.item_key = k.item_key AND c.captured_at < ${from}
        ORDER BY captured_at DESC LIMIT 1) b
      UNION ALL
      SELECT c.item_key::float8, c.captured_at, c.state FROM k JOIN war_item_changes c
        ON c.war_id = ${warId} AND c.kind = ${kind} AND c.item_key = k.item_key AND c.captured_at >= ${from} AND c.captured_at <= ${to}
      ORDER BY 1, 2`,
  ])
  return { ticks: ticks.map((r) => r.t), changes }
}

/** Each item's states at the window's ticks (oldest first), where it is in the feed. */
export function carriedItems({ ticks, changes }: ItemWindow): Map<number, { t: Date; state: ItemState }[]> {
  const byKey = new Map<number, ItemChange[]>()
  for (const c of changes) {
    const list = byKey.get(c.key) ?? []
    list.push(c)
    byKey.set(c.key, list)
  }
  const out = new Map<number, { t: Date; state: ItemState }[]>()
  for (const [key, list] of byKey) {
    const points: { t: Date; state: ItemState }[] = []
    let i = 0
    let state: ItemState | null = null
    for (const t of ticks) {
      while (i < list.length && list[i]!.t <= t) state = list[i++]!.state
      if (state) points.push({ t, state })
    }
    if (points.length) out.set(key, points)
  }
  return out
}

/** The items of `kind` at tick `at` (each one's latest row at or before it, where it is in the feed). */
export async function at(sql: Sql, warId: number, kind: ItemKind, tick: Date): Promise<Item[]> {
  return sql<Item[]>`
    SELECT key, state FROM (
      SELECT DISTINCT ON (item_key) item_key::float8 AS key, state FROM war_item_changes
      WHERE war_id = ${warId} AND kind = ${kind} AND captured_at <= ${tick}
      ORDER BY item_key, captured_at DESC) x
    WHERE state IS NOT NULL ORDER BY key`
}

/** The war's latest tick with planets: its capture time and war time (what a war time is placed by). */
export async function latestTick(sql: Sql, warId: number): Promise<{ at: Date; warTime: number } | null> {
  const [row] = await sql<{ at: Date; warTime: number }[]>`
    SELECT captured_at AS at, upstream_war_time::float8 AS "warTime" FROM full_status_ticks
    WHERE war_id = ${warId} AND planets_written > 0 ORDER BY captured_at DESC LIMIT 1`
  return row ?? null
}

export const reads = { latest, window, at, latestTick }
