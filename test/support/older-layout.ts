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
