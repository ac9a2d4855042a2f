import type { Queryable } from './connect.ts'

/**
 * The three kinds of PostgreSQL the service runs on:
 * - `timescale`: TimescaleDB Community (continuous aggregates with refresh policies);
 * - `apache`:    TimescaleDB Apache-2 edition (hypertables, no continuous aggregates);
 * - `postgres`:  plain PostgreSQL or the embedded PGlite (no TimescaleDB at all).
 * The last two keep their rollups in tables the service refreshes itself.
 */
export type Edition = 'timescale' | 'apache' | 'postgres'

export interface DatabaseInfo {
  edition: Edition
  timescaledbVersion: string | null
  serverVersion: string
}

export async function detectEdition(sql: Queryable): Promise<DatabaseInfo> {
  const [row] = await sql<{ ext: string | null; license: string | null; server: string }[]>`
    SELECT (SELECT extversion FROM pg_extension WHERE extname = 'timescaledb') AS ext,
           current_setting('timescaledb.license', true) AS license,
           current_setting('server_version') AS server`
  const ext = row?.ext ?? null
  const edition: Edition = ext === null ? 'postgres' : row?.license === 'timescale' ? 'timescale' : 'apache'
  return { edition, timescaledbVersion: ext, serverVersion: row?.server ?? 'unknown' }
}

/** Rollups materialized by the service itself (not by TimescaleDB policies). */
export const refreshesOwnRollups = (edition: Edition) => edition !== 'timescale'
