/**
 * The game's 2025 surfaces besides their per-tick items (storage/war-items.ts): the
 * regions' definitions from the war info, the global events' texts per language, the
 * galactic war effects' definitions (sql/0027). Each written only where it changed.
 */
import type { Sql, Tx } from '../db/connect.ts'
import * as warItems from './war-items.ts'

export interface GlobalEventText {
  event_id: number
  lang: string
  title: string | null
  message: string | null
}

/**
 * The global events' texts of ticks of one war, oldest first, in one statement (none
 * without texts), leaving what each tick's upsert one after the other would (a text
 * stored, or replaced where it changed, never by an older tick): per text, the run of
 * ticks that end the batch with the same words, from its first tick; replaced whatever the
 * stored words when the batch changed them on the way. Returns the texts written.
 */
export async function writeEventTexts(tx: Tx, warId: number, ticks: readonly { at: Date; texts: readonly GlobalEventText[] }[]): Promise<number> {
  const last = new Map<string, GlobalEventText & { at: string; changed: boolean }>()
  for (const t of ticks) {
    // A tick listing a text twice: its last, as its own upsert takes it.
    const own = new Map(t.texts.map((x) => [`${x.event_id}:${x.lang}`, x]))
    for (const [key, x] of own) {
      const was = last.get(key)
      if (was && was.title === x.title && was.message === x.message) continue
      last.set(key, { ...x, at: t.at.toISOString(), changed: was !== undefined })
    }
  }
  if (!last.size) return 0
  const [row] = await tx<{ n: number }[]>`
    WITH r AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify([...last.values()])}::text::jsonb)
        AS r(event_id bigint, lang text, title text, message text, at timestamptz, changed boolean)
    ), w AS (
      INSERT INTO global_event_texts AS g (war_id, event_id, lang, title, message, captured_at)
      SELECT ${warId}, r.event_id, r.lang, r.title, r.message, r.at FROM r WHERE NOT r.changed
      ON CONFLICT (war_id, event_id, lang) DO UPDATE SET title = excluded.title, message = excluded.message, captured_at = excluded.captured_at
      WHERE (g.title, g.message) IS DISTINCT FROM (excluded.title, excluded.message) AND g.captured_at <= excluded.captured_at
      RETURNING 1
    ), moved AS (
      INSERT INTO global_event_texts AS g (war_id, event_id, lang, title, message, captured_at)
      SELECT ${warId}, r.event_id, r.lang, r.title, r.message, r.at FROM r WHERE r.changed
      ON CONFLICT (war_id, event_id, lang) DO UPDATE SET title = excluded.title, message = excluded.message, captured_at = excluded.captured_at
      WHERE g.captured_at <= excluded.captured_at
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM w)::int + (SELECT count(*) FROM moved)::int AS n`
  return row!.n
}

/** What a full-status tick's surfaces wrote (counted on the last tick of a group). */
export interface SurfaceCounts {
  warItems: number
  globalEventTexts: number
}
export const NO_SURFACES: SurfaceCounts = { warItems: 0, globalEventTexts: 0 }

/**
 * The surfaces of a group of ticks of one war (full-status writeGroup): one statement per
 * kind of item listed and one for the texts; none when the ticks have none (2024).
 * `next`: the stored tick after a late one; `latest`: the items as the ticks before left
 * them, when compared here (war-items.ts writeTicks). Counts on the group's last tick.
 */
export async function writeTicks(
  tx: Tx, warId: number, ticks: readonly { at: Date; surfaces?: { items: warItems.TickItems; eventTexts: readonly GlobalEventText[] } }[], next: Date | null,
  latest?: warItems.LatestItems,
): Promise<SurfaceCounts[]> {
  const [items, texts] = await Promise.all([
    warItems.writeTicks(tx, warId, ticks.map(({ at, surfaces }) => ({ at, items: surfaces?.items ?? {} })), next, latest),
    writeEventTexts(tx, warId, ticks.map(({ at, surfaces }) => ({ at, texts: surfaces?.eventTexts ?? [] }))),
  ])
  const total = Object.values(items).reduce((a, b) => a + b, 0)
  return ticks.map((_, k) => (k === ticks.length - 1 ? { warItems: total, globalEventTexts: texts } : NO_SURFACES))
}

export interface RegionInfoInput {
  planet_index: number
  region_index: number
  settings_hash: number
  max_health: number | null
  region_size: number | null
  damage_multiplier: number | null
  flags: number | null
}

/** The war info's regions, upserted where a value changed. Returns the rows written. */
export async function writeRegionInfos(tx: Tx, at: Date, warId: number, regions: readonly RegionInfoInput[]): Promise<number> {
  if (!regions.length) return 0
  const rows = await tx`
    INSERT INTO planet_regions AS p (war_id, planet_index, region_index, settings_hash, max_health, region_size, damage_multiplier, flags, updated_at)
    SELECT ${warId}, r.planet_index, r.region_index, r.settings_hash, r.max_health, r.region_size, r.damage_multiplier, r.flags, ${at}
    FROM jsonb_to_recordset(${JSON.stringify(regions)}::text::jsonb) AS r(
      planet_index integer, region_index integer, settings_hash bigint, max_health bigint, region_size integer, damage_multiplier double precision, flags integer)
    ON CONFLICT (war_id, planet_index, region_index) DO UPDATE SET
      settings_hash = excluded.settings_hash, max_health = excluded.max_health, region_size = excluded.region_size,
      damage_multiplier = excluded.damage_multiplier, flags = excluded.flags, updated_at = excluded.updated_at
    WHERE (p.settings_hash, p.max_health, p.region_size, p.damage_multiplier, p.flags)
      IS DISTINCT FROM (excluded.settings_hash, excluded.max_health, excluded.region_size, excluded.damage_multiplier, excluded.flags)
    RETURNING 1`
  return rows.length
}

export interface EffectInput {
  effect_id: number
  effect_type: number
  value_types: number[]
  values: number[]
  definition: unknown
}

/** The galactic war effects' definitions, upserted where one changed. Returns the rows written. */
export async function writeEffects(tx: Tx, at: Date, effects: readonly EffectInput[]): Promise<number> {
  if (!effects.length) return 0
  const rows = await tx`
    INSERT INTO galactic_war_effects AS e (effect_id, effect_type, value_types, "values", definition, updated_at)
    SELECT r.effect_id, r.effect_type, ARRAY(SELECT jsonb_array_elements_text(r.value_types)::integer),
           ARRAY(SELECT jsonb_array_elements_text(r."values")::float8), r.definition, ${at}
    FROM jsonb_to_recordset(${JSON.stringify(effects)}::text::jsonb) AS r(effect_id bigint, effect_type integer, value_types jsonb, "values" jsonb, definition jsonb)
    ON CONFLICT (effect_id) DO UPDATE SET
      effect_type = excluded.effect_type, value_types = excluded.value_types, "values" = excluded."values", definition = excluded.definition, updated_at = excluded.updated_at
    WHERE e.definition IS DISTINCT FROM excluded.definition
    RETURNING 1`
  return rows.length
}

// ---------------------------------------------------------------- reads

export interface RegionInfoRow {
  planetIndex: number
  regionIndex: number
  settingsHash: number
  maxHealth: number | null
  regionSize: number | null
}

/** The war's regions as the war info defines them (of one planet when given). */
export function regionInfos(sql: Sql, warId: number, planetIndex?: number): Promise<RegionInfoRow[]> {
  return sql<RegionInfoRow[]>`
    SELECT planet_index AS "planetIndex", region_index AS "regionIndex", settings_hash::float8 AS "settingsHash",
           max_health::float8 AS "maxHealth", region_size AS "regionSize"
    FROM planet_regions WHERE war_id = ${warId} AND (${planetIndex ?? null}::int IS NULL OR planet_index = ${planetIndex ?? null}::int)
    ORDER BY planet_index, region_index`
}

export interface EventTextRow {
  eventId: number
  lang: string
  title: string | null
  message: string | null
}

/** The texts of global events of the war, every language. */
export function eventTexts(sql: Sql, warId: number, eventIds: readonly number[]): Promise<EventTextRow[]> {
  return sql<EventTextRow[]>`
    SELECT event_id::float8 AS "eventId", lang, title, message FROM global_event_texts
    WHERE war_id = ${warId} AND event_id = ANY (${eventIds as number[]}::bigint[]) ORDER BY event_id, lang`
}

export interface EffectRow {
  id: number
  effectType: number
  valueTypes: number[]
  values: number[]
}

/** Effect definitions by id. */
export function effects(sql: Sql, ids: readonly number[]): Promise<EffectRow[]> {
  return sql<EffectRow[]>`
    SELECT effect_id::float8 AS id, effect_type AS "effectType", value_types AS "valueTypes", "values"
    FROM galactic_war_effects WHERE effect_id = ANY (${ids as number[]}::bigint[]) ORDER BY effect_id`
}

export const reads = { regionInfos, eventTexts, effects }
