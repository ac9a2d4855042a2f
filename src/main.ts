import { buildApp } from './app.ts'
import { openCollection } from './collect/collection.ts'
import { ConfigError, loadConfig } from './config.ts'
import { openDatabase } from './db/index.ts'
import { createFeeds } from './feeds/index.ts'
import { SERVER_MAX_BODY_BYTES } from './http/security.ts'
import { createLogger, errorText } from './log.ts'
import { Metrics } from './metrics.ts'
import { DataVersions, listenForChanges } from './storage/changes.ts'
import { createStore } from './storage/index.ts'
import { CurrentWar } from './war/current-war.ts'

/** How long in-flight requests may take to finish at shutdown before their connections are closed. */
const DRAIN_MS = 5000
/** Past this, shutdown gives up on the rest and exits (code 1). */
const SHUTDOWN_HARD_LIMIT_MS = 20_000

/** Composition root: config -> database -> feeds -> collection -> app -> schedule -> listen; signals. */
async function main() {
  let config
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`)
      process.exit(2)
    }
    throw err
  }
  const log = createLogger(config.logLevel)
  const db = await openDatabase(config, log)
  const store = createStore(db)
  const feeds = createFeeds(config)
  const war = new CurrentWar(config.warId, feeds.upstream, log)
  // Answers kept ready follow every committed write: this process's own at once, other
  // processes' (replicas, `npm run collect`) through LISTEN on the primary.
  const versions = new DataVersions()
  if (!db.info.embedded) await listenForChanges(db.sql, (changed) => (changed === 'all' ? versions.bumpAll() : versions.bump(changed)))
  // Commits made before LISTEN began were heard of by no one: replica reads wait for them too.
  db.replicas?.fence()
  const metrics = new Metrics({ processMetrics: true })
  const collection = await openCollection({ config, db, store, feeds, log, war, versions, metrics })
  metrics.watch({ collectors: () => collection.counts() })
  let shuttingDown = false

  if (!config.collectorSecret) log.warn('COLLECTOR_SECRET is not set: POST /api/v1/collect/* is open to anyone (development only)')
  const app = buildApp({
    config, db, log, feeds, currentWar: war, runner: collection.runner, versions, metrics,
    collectors: () => collection.counts(), isShuttingDown: () => shuttingDown,
  })
  void collection.start(app, config.scheduleEnabled)
  if (!config.scheduleEnabled) log.info('schedule disabled (SCHEDULE_ENABLED=false): run collectors from an external scheduler')

  app.listen({ hostname: config.host, port: config.port, maxRequestBodySize: SERVER_MAX_BODY_BYTES })
  const base = baseUrl(config.host, app.server?.port ?? config.port)
  log.info('listening', {
    host: config.host, port: app.server?.port, api: `${base}/api/v1`, docs: `${base}/openapi`, metrics: `${base}/metrics`,
    edition: db.info.edition, embedded: db.info.embedded,
  })

  const shutdown = async (signal: string) => {
    if (shuttingDown) return
    shuttingDown = true
    log.info('shutting down', { signal })
    // Whatever hangs (a client that never finishes its request, a database that does not
    // answer), the process exits: a supervisor waiting on it must not wait forever.
    setTimeout(() => {
      log.error('shutdown took too long; exiting', { afterMs: SHUTDOWN_HARD_LIMIT_MS })
      process.exit(1)
    }, SHUTDOWN_HARD_LIMIT_MS).unref()
    await collection.stop(app).catch((err) => log.warn('collection stop failed', { error: errorText(err) }))
    // In-flight requests get DRAIN_MS to finish, then the remaining connections are closed.
    const drained = await Promise.race([app.stop(false).then(() => true), Bun.sleep(DRAIN_MS).then(() => false)]).catch(() => false)
    if (!drained) await app.stop(true).catch((err) => log.warn('server stop failed', { error: errorText(err) }))
    await db.close().catch((err) => log.warn('database close failed', { error: errorText(err) }))
    log.info('stopped')
    process.exit(0)
  }
  process.on('SIGINT', () => void shutdown('SIGINT'))
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
}

/** The URL a person on this machine opens: a wildcard address is reached as localhost. */
function baseUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host
  return `http://${name}:${port}`
}

main().catch((err) => {
  process.stderr.write(`fatal: ${errorText(err)}\n`)
  process.exit(1)
})
