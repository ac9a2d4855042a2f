import { buildApp } from './app.ts'
import { MAX_BODY_BYTES } from './http/security.ts'
import { scheduledRun, WriteBacklog } from './collectors/backlog.ts'
import { collectors, type CollectorName } from './collectors/index.ts'
import { CurrentWar } from './collectors/current-war.ts'
import { ConfigError, loadConfig } from './config.ts'
import { openDatabase } from './db/index.ts'
import { refreshRollups } from './db/rollups.ts'
import { createLogger, errorText } from './log.ts'
import { SCHEDULE_PATTERNS, schedulePlugin, stopSchedule, type ScheduledJob } from './schedule.ts'
import { createFeeds } from './upstream/feeds.ts'

/** Composition root: config -> database -> feeds -> app -> schedule -> listen; signals. */
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
  const feeds = createFeeds(config)
  let shuttingDown = false

  // Scheduled ticks that found the database down are kept (bounded) and written first
  // at the next run of the same collector.
  const backlog = new WriteBacklog(config.backlogMaxTicks, log)
  // The schedule follows the upstream's current war; the check is one request, made at
  // start-up, before the minutely war-info run and before planet-stats (whose feed has no
  // war id, so its rows must go to the war checked just now).
  const war = new CurrentWar(config.warId, feeds.upstream, log)
  const collectorDeps = { sql: db.sql, feeds, log, config, backlog }
  // Never rejects; bounded by FEED_TIMEOUT_MS. No scheduled run starts before it settles.
  let firstWarCheck: Promise<number> | undefined
  const collect = (name: CollectorName, checkWar = false) => async () => {
    await firstWarCheck
    if (checkWar) await war.refresh()
    return scheduledRun(collectors[name], name, collectorDeps, { warId: war.id })
  }
  const jobs: ScheduledJob[] = [
    { name: 'player-count', pattern: SCHEDULE_PATTERNS['player-count'], run: collect('player-count') },
    { name: 'war-info', pattern: SCHEDULE_PATTERNS['war-info'], run: collect('war-info', true) },
    { name: 'full-status', pattern: config.fullStatusCron, run: collect('full-status') },
    { name: 'planet-stats', pattern: SCHEDULE_PATTERNS['planet-stats'], run: collect('planet-stats', true) },
    { name: 'rollup-refresh', pattern: SCHEDULE_PATTERNS['rollup-refresh'], run: () => refreshRollups(db.sql, db.info.edition) },
  ]
  if (!config.collectorSecret) log.warn('COLLECTOR_SECRET is not set: POST /api/v1/collect/* is open to anyone (development only)')
  const app = buildApp({ config, sql: db.sql, db: db.info, log, feeds, currentWar: war, isShuttingDown: () => shuttingDown })
  if (config.scheduleEnabled) {
    firstWarCheck = war.refresh()
    app.use(schedulePlugin(jobs, log))
  } else log.info('schedule disabled (SCHEDULE_ENABLED=false): run collectors from an external scheduler')

  app.listen({ hostname: config.host, port: config.port, maxRequestBodySize: MAX_BODY_BYTES })
  log.info('listening', { host: config.host, port: app.server?.port, edition: db.info.edition, embedded: db.info.embedded })

  const shutdown = async (signal: string) => {
    if (shuttingDown) return
    shuttingDown = true
    log.info('shutting down', { signal })
    stopSchedule(app)
    // stop(false) lets in-flight requests finish before the server closes.
    await app.stop(false).catch((err) => log.warn('server stop failed', { error: errorText(err) }))
    await db.close().catch((err) => log.warn('database close failed', { error: errorText(err) }))
    log.info('stopped')
    process.exit(0)
  }
  process.on('SIGINT', () => void shutdown('SIGINT'))
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
}

main().catch((err) => {
  process.stderr.write(`fatal: ${errorText(err)}\n`)
  process.exit(1)
})
