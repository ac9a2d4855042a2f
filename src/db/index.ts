import type { Config } from '../config.ts'
import type { Logger } from '../log.ts'
import { connect, type Sql } from './connect.ts'
import { detectEdition, type DatabaseInfo } from './edition.ts'
import { startEmbeddedDatabase, type EmbeddedDatabase } from './embedded.ts'
import { migrate } from './migrate.ts'

export type { Sql } from './connect.ts'

export interface Database {
  sql: Sql
  info: DatabaseInfo & { embedded: boolean }
  close(): Promise<void>
}

/**
 * Connect (starting the embedded database when no DATABASE_URL is set), apply pending
 * migrations, and report the edition. The caller owns `close()`.
 */
export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'dbPoolMax' | 'dbStatementTimeoutMs'>,
  log: Logger,
  opts: { migrate?: boolean } = {},
): Promise<Database> {
  let embedded: EmbeddedDatabase | null = null
  let url = config.databaseUrl
  if (!url) {
    embedded = await startEmbeddedDatabase(config.dataDir || null) // "" = in memory (tests)
    url = embedded.url
    log.info('embedded database started', { dataDir: config.dataDir })
  }
  // PGlite is a single session: one connection keeps transactions from interleaving.
  const sql = connect({ url, max: embedded ? 1 : config.dbPoolMax, statementTimeoutMs: config.dbStatementTimeoutMs })
  try {
    if (opts.migrate !== false) {
      const { applied } = await migrate(sql)
      if (applied.length) log.info('migrations applied', { applied })
    }
    const info = await detectEdition(sql)
    log.info('database ready', { ...info, embedded: embedded !== null })
    return {
      sql,
      info: { ...info, embedded: embedded !== null },
      async close() {
        await sql.end({ timeout: 5 })
        await embedded?.close()
      },
    }
  } catch (err) {
    await sql.end({ timeout: 1 }).catch(() => {})
    await embedded?.close().catch(() => {})
    throw err
  }
}
