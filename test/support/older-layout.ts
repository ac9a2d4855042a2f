/**
 * Databases of the layouts before a migration, for the tests of what upgrading does to
 * their rows: migrated up to (not including) a version, and written as the collectors of
 * that layout wrote (the per-tick planet rows of the layout before sql/0021).
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Sql } from '../../src/db/connect.ts'
import { migrate, SQL_DIR } from '../../src/db/migrate.ts'
import type { FightInput } from '../../src/storage/fight.ts'
import type { PlanetStatusInput } from '../../src/storage/planet-status.ts'
import { claimFullStatus } from '../../src/storage/ticks.ts'

/** Apply the migrations before `version` only. */
export async function migrateBefore(sql: Sql, version: number): Promise<void> {
  const older = mkdtempSync(join(tmpdir(), 'gws-sql-before-'))
  try {
    for (const f of readdirSync(SQL_DIR)) if (Number(f.slice(0, 4)) < version) cpSync(join(SQL_DIR, f), join(older, f))
    await migrate(sql, { dir: older })
  } finally {
    rmSync(older, { recursive: true, force: true })
  }
}

/**
 * One tick's planets in the layout before sql/0021: the tick claimed, a row per planet,
 * and its owner changes against each planet's row before (as that layout's writes kept
 * them). Returns whether the tick was new.
 */
export async function writeDenseTick(sql: Sql, warId: number, at: Date, warTime: number, planets: readonly PlanetStatusInput[], also?: (tx: Sql) => Promise<unknown>): Promise<boolean> {
  return sql.begin(async (tx) => {
    if (!(await claimFullStatus(tx, at, warId, warTime, planets.length))) return false
    const json = JSON.stringify(planets)
    await tx`
      INSERT INTO planet_status_snapshots (captured_at, war_id, planet_index, owner, health, regen_per_second, players)
      SELECT ${at}, ${warId}, planet_index, owner, health, regen_per_second, players
      FROM jsonb_to_recordset(${json}::text::jsonb) AS r(planet_index integer, owner smallint, health bigint, regen_per_second float8, players integer)`
    await tx`SELECT planet_owner_changes_rebuild(${warId}, ${at}, ${at})`
    if (also) await also(tx as unknown as Sql)
    return true
  })
}

/**
 * One tick's fight in the layouts before sql/0022: a row per campaign, planet event,
 * attack line and joint operation, and (`effects`) per planet and active effect. Their
 * spans are rebuilt from all such rows by rebuildDenseSpans, as sql/0014 backfilled them.
 */
export async function writeDenseFight(tx: Sql, warId: number, at: Date, f: FightInput, effects: readonly { planet_index: number; effect_id: number }[] = []): Promise<void> {
  await tx`
    INSERT INTO planet_attack_snapshots (captured_at, war_id, source_index, target_index, lanes)
    SELECT ${at}, ${warId}, source_index, target_index, lanes
    FROM jsonb_to_recordset(${JSON.stringify(f.attacks)}::text::jsonb) AS a(source_index integer, target_index integer, lanes integer)`
  await tx`
    INSERT INTO joint_operation_snapshots (captured_at, war_id, operation_id, planet_index, hq_node_index)
    SELECT ${at}, ${warId}, operation_id, planet_index, hq_node_index
    FROM jsonb_to_recordset(${JSON.stringify(f.jointOperations)}::text::jsonb) AS j(operation_id bigint, planet_index integer, hq_node_index integer)`
  await tx`
    INSERT INTO planet_effect_snapshots (captured_at, war_id, planet_index, effect_id)
    SELECT ${at}, ${warId}, planet_index, effect_id FROM jsonb_to_recordset(${JSON.stringify(effects)}::text::jsonb) AS e(planet_index integer, effect_id bigint)`
  await tx`
    INSERT INTO campaign_snapshots (captured_at, war_id, campaign_id, planet_index, type, count, race)
    SELECT ${at}, ${warId}, campaign_id, planet_index, type, count, race
    FROM jsonb_to_recordset(${JSON.stringify(f.campaigns)}::text::jsonb) AS c(campaign_id bigint, planet_index integer, type integer, count integer, race integer)`
  await tx`
    INSERT INTO planet_event_snapshots (captured_at, war_id, event_id, planet_index, event_type, race, health, max_health, start_war_time,
      expire_war_time, starts_at, expires_at, campaign_id, joint_operation_ids)
    SELECT ${at}, ${warId}, event_id, planet_index, event_type, race, health, max_health, start_war_time, expire_war_time, starts_at, expires_at,
           campaign_id, joint_operation_ids
    FROM jsonb_to_recordset(${JSON.stringify(f.events)}::text::jsonb) AS e(event_id bigint, planet_index integer, event_type integer, race integer,
      health bigint, max_health bigint, start_war_time bigint, expire_war_time bigint, starts_at timestamptz, expires_at timestamptz,
      campaign_id bigint, joint_operation_ids bigint[])`
}

/** The event and campaign spans of the rows written by writeDenseFight, as sql/0014 backfilled them. */
export async function rebuildDenseSpans(sql: Sql): Promise<void> {
  await sql`DELETE FROM planet_event_spans`
  await sql`DELETE FROM campaign_spans`
  await sql`
    INSERT INTO planet_event_spans
    SELECT DISTINCT ON (e.war_id, e.event_id)
           e.war_id, e.event_id, e.planet_index, e.event_type, e.race, e.campaign_id, e.max_health,
           min(e.captured_at) OVER w, max(e.captured_at) OVER w,
           e.health, f.upstream_war_time, e.expire_war_time, e.expires_at,
           min(e.captured_at) FILTER (WHERE e.health <= 0) OVER w
    FROM planet_event_snapshots e
    LEFT JOIN full_status_ticks f ON f.war_id = e.war_id AND f.captured_at = e.captured_at
    WINDOW w AS (PARTITION BY e.war_id, e.event_id)
    ORDER BY e.war_id, e.event_id, e.captured_at DESC`
  await sql`
    INSERT INTO campaign_spans
    SELECT DISTINCT ON (war_id, campaign_id)
           war_id, campaign_id, planet_index, type, min(captured_at) OVER w, max(captured_at) OVER w
    FROM campaign_snapshots
    WINDOW w AS (PARTITION BY war_id, campaign_id)
    ORDER BY war_id, campaign_id, captured_at DESC`
}
