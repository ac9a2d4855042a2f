import { buildApp } from './app.ts'
import { openCollection } from './collect/collection.ts'
import { ConfigError, loadConfig } from './config.ts'
import { openDatabase } from './db/index.ts'
import { createFeeds } from './feeds/index.ts'
import { ClientBudgets } from './http/rate-limit.ts'
import { SERVER_MAX_BODY_BYTES } from './http/security.ts'
import { createLogger, errorText } from './log.ts'
import { Metrics } from './metrics.ts'
import { EventHub, streamLimits } from './push/stream.ts'
import { WebhookDeliverer } from './push/webhooks.ts'
import { watchKeys } from './storage/api-keys.ts'
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
  const feeds = createFeeds(config, { log })
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
  // Fair use (RATE_LIMIT): budgets per client; the API keys follow every change made by
  // any process or `npm run keys` (LISTEN), so a revoked key is refused at once everywhere.
  const budgets = config.rateLimit === 'on' ? new ClientBudgets(config) : undefined
  if (budgets) {
    await watchKeys(db.sql, (keys) => budgets.keys.replace(keys), {
      listen: !db.info.embedded,
      onError: (err) => log.warn('API keys not read (a key counts as its address until they are)', { error: errorText(err) }),
    })
  }
  // Every process streams every event and delivers webhooks, whichever process collected.
  const events = new EventHub(store.events, versions, log, streamLimits(config))
  const deliverer = new WebhookDeliverer(db.sql, versions, log, { allowPrivate: config.webhookAllowPrivate })
  deliverer.start()
  metrics.watch({ webhooks: { attempts: () => deliverer.counts, backlog: () => store.webhooks.backlog() } })
  const app = buildApp({
    config, db, log, feeds, currentWar: war, runner: collection.runner, versions, metrics, events,
    collectors: () => collection.counts(), isShuttingDown: () => shuttingDown, budgets,
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
    // Open event streams would hold the drain: they end now, and their clients resume elsewhere.
    events.stop()
    await deliverer.stop().catch((err) => log.warn('webhook deliverer stop failed', { error: errorText(err) }))
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
