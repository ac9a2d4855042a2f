import type { Logger } from '../log.ts'
import { connect, type Sql } from './connect.ts'

/**
 * What autovacuum does on a PostgreSQL server, for the embedded database, which has no
 * background workers: a table whose size has grown by a fifth since PostgreSQL last
 * counted it (or that was never counted and now holds rows) is vacuumed and analyzed.
 *
 * Without it a table is planned as the empty table it was at its creation, whatever it now
 * holds: an import into a new embedded database checked each batch's war times against the
 * upstream player counts by reading every stored one (an index on both values was there,
 * but with no statistics the planner expected one row), and slowed down with every capture
 * stored, to a fifth of its speed at a year. Vacuuming also clears the dead rows of the
 * tables every tick updates.
 *
 * Runs on a connection of its own, which the embedded socket serves when the other is idle
 * (between transactions); VACUUM holds the session while it runs.
 */
export interface EmbeddedMaintenance {
  /** Checks now and runs what is due (also called by the timer); resolves with the tables done. */
  run(): Promise<string[]>
  stop(): Promise<void>
}

/** Growth since the last count that makes a table due, as a fraction of its pages then, plus a few pages. */
const GROWTH = 0.2
const MIN_PAGES = 8

export function maintainEmbedded(url: string, log: Logger, everyMs = 30_000): EmbeddedMaintenance {
  const sql: Sql = connect({ url, max: 1, statementTimeoutMs: 0, idleTimeoutS: null, applicationName: 'galactic-war-stats/maintenance' })
  let running: Promise<string[]> | null = null
  let stopped = false
  const run = () => {
    running ??= due(sql)
      .then(async (tables) => {
        for (const t of tables) {
          if (stopped) break
          const t0 = performance.now()
          await sql.unsafe(`VACUUM (ANALYZE) ${t.name}`)
          log.debug('embedded maintenance', { table: t.name, pages: t.pages, countedPages: t.relpages, ms: Math.round(performance.now() - t0) })
        }
        return tables.map((t) => t.name)
      })
      .finally(() => {
        running = null
      })
    return running
  }
  const timer = setInterval(() => {
    run().catch((err: unknown) => {
      if (!stopped) log.warn('embedded maintenance failed', { error: err instanceof Error ? err.message : String(err) })
    })
  }, everyMs)
  timer.unref()
  return {
    run,
    async stop() {
      stopped = true
      clearInterval(timer)
      await running?.catch(() => {})
      await sql.end({ timeout: 1 })
    },
  }
}

/** The tables (and materialized views) of the database's own schemas whose size has outgrown their last count. */
async function due(sql: Sql): Promise<{ name: string; pages: number; relpages: number }[]> {
  const rows = await sql<{ name: string; pages: number; relpages: number; reltuples: number }[]>`
    SELECT format('%I.%I', n.nspname, c.relname) AS name, c.relpages, c.reltuples::float8 AS reltuples,
           (pg_relation_size(c.oid) / current_setting('block_size')::int)::int AS pages
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'm') AND c.relpersistence = 'p'
      AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'`
  return rows.filter((r) => r.pages > 0 && (r.reltuples < 0 || r.pages > r.relpages * (1 + GROWTH) + MIN_PAGES))
}
