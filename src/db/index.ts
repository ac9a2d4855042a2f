import { readUrlsOf, type Config } from '../config.ts'
import type { Logger } from '../log.ts'
import { connect, probeConnection, type Sql } from './connect.ts'
import { detectEdition, type DatabaseInfo } from './edition.ts'
import { startEmbeddedDatabase, type EmbeddedDatabase } from './embedded.ts'
import { maintainEmbedded } from './embedded-maintenance.ts'
import { DatabaseGate, GATE_DEFAULTS, type GateOptions } from './gate.ts'
import { migrate } from './migrate.ts'
import { ReadReplicas } from './replicas.ts'

export type { Fragment, Sql, Tx } from './connect.ts'

export interface Database {
  sql: Sql
  /** Every statement goes through it: fail fast while the database is unreachable. */
  gate: DatabaseGate
  info: DatabaseInfo & { embedded: boolean }
  /** The read replicas (DATABASE_READ_URL) the read routes use; null without any. */
  replicas: ReadReplicas | null
  close(): Promise<void>
}

export type DatabaseConfig = Pick<Config, 'databaseUrl' | 'dataDir' | 'dbPoolMax' | 'dbStatementTimeoutMs'> &
  Partial<Pick<Config, 'databaseReadUrl' | 'readReplicaMaxLagMs'>>

/**
 * Connect (starting the embedded database when no DATABASE_URL is set), apply pending
 * migrations, and report the edition. The caller owns `close()`. `embeddedFrom`: start the
 * embedded database from an image of another's data folder (EmbeddedDatabase.image).
 */
export async function openDatabase(
  config: DatabaseConfig,
  log: Logger,
  opts: { migrate?: boolean; gate?: GateOptions; embeddedFrom?: Blob } = {},
): Promise<Database> {
  let embedded: EmbeddedDatabase | null = null
  let url = config.databaseUrl
  if (!url) {
    embedded = await startEmbeddedDatabase(config.dataDir || null, { from: opts.embeddedFrom }) // "" = in memory (tests)
    url = embedded.url
    log.info('embedded database started', { dataDir: config.dataDir, origin: embedded.origin })
  }
  // PGlite is a single session: one connection keeps transactions from interleaving.
  const sql = connect({ url, max: embedded ? 1 : config.dbPoolMax, statementTimeoutMs: config.dbStatementTimeoutMs })
  // The gate's probe has a connection of its own, so a pool full of stuck queries cannot
  // delay the answer. The embedded database runs in-process: nothing to probe.
  const probe = embedded ? null : probeConnection(url, 'galactic-war-stats/probe')
  const gate = new DatabaseGate(probe ? probe.ask : null, log, opts.gate ?? GATE_DEFAULTS)
  const readUrls = embedded ? [] : readUrlsOf(config)
  const replicas = readUrls.length
    ? new ReadReplicas(readUrls, url, { sql, gate }, {
        maxLagMs: config.readReplicaMaxLagMs ?? 5000,
        poolMax: config.dbPoolMax,
        statementTimeoutMs: config.dbStatementTimeoutMs,
        gate: opts.gate,
      }, log)
    : null
  // What autovacuum does on a server (the embedded database has no background workers).
  const maintenance = embedded ? maintainEmbedded(url, log) : null
  const closeAll = async (timeoutS: number) => {
    gate.stop()
    await Promise.all([sql.end({ timeout: timeoutS }), probe?.end(1), replicas?.close(), maintenance?.stop()])
    await embedded?.close()
  }
  try {
    if (opts.migrate !== false) {
      const { applied, steps } = await migrate(sql, { progress: (step, line) => log.info('data migration', { step, progress: line }) })
      if (applied.length) log.info('migrations applied', { applied })
      if (steps.length) log.info('data migrations done', { steps })
    }
    // The probe's connection opened now, while the database answers (kept open: probeConnection).
    const [info] = await Promise.all([detectEdition(sql), probe?.ask()])
    await replicas?.start()
    log.info('database ready', { ...info, embedded: embedded !== null, ...(replicas ? { replicas: replicas.status().replicas.map((r) => ({ name: r.name, inRotation: r.inRotation, reason: r.reason })) } : {}) })
    return { sql, gate, info: { ...info, embedded: embedded !== null }, replicas, close: () => closeAll(5) }
  } catch (err) {
    await closeAll(1).catch(() => {})
    throw err
  }
}
