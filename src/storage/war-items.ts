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
export async function writeTicks(tx: Tx, warId: number, ticks: readonly { at: Date; items: TickItems }[], next: Date | null): Promise<Partial<Record<ItemKind, number>>> {
  if (next !== null && ticks.length > 1) throw new Error('war items: ticks written before a stored one go one at a time')
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
