import { Elysia } from 'elysia'
import { CollectorRunner } from './collect/runner.ts'
import type { Config } from './config.ts'
import type { Database } from './db/index.ts'
import { feedRequestStats, feedUnknownFields, type Feeds } from './feeds/index.ts'
import { errorHandling } from './http/errors.ts'
import { Keeper } from './http/keep.ts'
import { ClientAddresses, clientKeyOf } from './http/client-address.ts'
import { httpMetrics } from './http/metrics.ts'
import { rateLimit, type ClientBudgets } from './http/rate-limit.ts'
import { readPreflight, securityHeaders } from './http/security.ts'
import type { Logger } from './log.ts'
import { PAGE_PATHS, pageRoutes } from './pages/index.ts'
import { Metrics } from './metrics.ts'
import { COLLECT_PATH, collectRoutes } from './routes/collect.ts'
import { routeContext } from './routes/context.ts'
import { diverRoutes } from './routes/divers.ts'
import { healthRoutes } from './routes/health.ts'
import { intelligenceRoutes } from './routes/intelligence.ts'
import { historyRoutes } from './routes/history.ts'
import { liveRoutes } from './routes/live.ts'
import { lookupRoutes } from './routes/lookups.ts'
import { metricsRoutes } from './routes/metrics.ts'
import { docsPage, openapiDocs } from './routes/openapi.ts'
import { planetHistoryRoutes } from './routes/planet-history.ts'
import { surfaceRoutes } from './routes/surfaces.ts'
import { throttleRoutes } from './routes/throttle.ts'
import { warRoutes } from './routes/war.ts'
import { EventHub, streamLimits } from './push/stream.ts'
import { eventRoutes } from './routes/events.ts'
import { webhookRoutes } from './routes/webhooks.ts'
import { DiverHistoryService } from './services/divers.ts'
import { IntelligenceService } from './services/intelligence.ts'
import { LiveService } from './services/live.ts'
import { PlanetHistoryService } from './services/planet-history.ts'
import { DataVersions } from './storage/changes.ts'
import { createStore } from './storage/index.ts'
import * as webhookStore from './storage/webhooks.ts'
import { CurrentWar } from './war/current-war.ts'

export interface AppDeps {
  config: Config
  db: Pick<Database, 'sql' | 'gate' | 'info'> & Partial<Pick<Database, 'replicas'>>
  log: Logger
  feeds: Feeds
  /** The upstream's current war (main.ts shares the schedule's); one is made when absent. */
  currentWar?: CurrentWar
  /** The collectors' runner (main.ts shares the schedule's); one is made when absent. */
  runner?: CollectorRunner
  /** Collector tick counts for the readiness answer. */
  collectors?: () => unknown
  isShuttingDown?: () => boolean
  /** Clock of the read routes (each request's moment `at`: windows, defaults, kept answers); tests move it. */
  now?: () => Date
  /**
   * This process's data versions (main.ts moves them on writes and on notifications from
   * other processes); one is made when absent. Tests that write rows with SQL move them.
   */
  versions?: DataVersions
  /**
   * The process's metrics (main.ts shares them with the collection); one is made when
   * absent. buildApp points them at the feeds and the database gate.
   */
  metrics?: Metrics
  /** The event stream's hub (main.ts stops it at shutdown); one is made when absent. */
  events?: EventHub
  /**
   * The clients' budgets (http/rate-limit.ts; main.ts makes them unless RATE_LIMIT=off and
   * keeps their API keys current). Absent: no request is metered (the app of most tests).
   */
  budgets?: ClientBudgets
}

/**
 * The whole HTTP surface, every plugin mounted here and only here, with no timers and no
 * listen(): tests call `buildApp(deps).handle(request)`; main.ts adds the schedule and
 * listens.
 */
export function buildApp(deps: AppDeps) {
  const { db, log, feeds, config } = deps
  // Collectors read and write on the primary; the read routes read on the replicas, if any.
  const storage = createStore(db)
  const reads = createStore(db, { onReplicas: true })
  const versions = deps.versions ?? new DataVersions()
  // A commit this process hears of fences the replicas before any answer for it is computed.
  if (db.replicas) versions.onBump(() => db.replicas!.fence())
  const currentWar = deps.currentWar ?? new CurrentWar(config.warId, feeds.upstream, log)
  const now = deps.now ?? (() => new Date())
  const metrics = (deps.metrics ?? new Metrics()).watch({
    feeds: () => feedRequestStats(feeds),
    unknownFields: () => feedUnknownFields(feeds),
    pool: { max: () => db.sql.options.max, inUse: () => db.gate.inFlight, available: () => db.gate.available },
  })
  const runner = deps.runner ?? new CollectorRunner({ db, store: storage, feeds, log, config, currentWar, versions, metrics })
  const keeper = new Keeper(versions, now)
  // Events are read on the primary: a replica may not have the commit that announced them yet.
  // Who a request comes from, as the budgets see it (never what a client writes in a header).
  const addresses = new ClientAddresses(config.trustedProxies, config.trustedProxyHeader)
  const events = deps.events ?? new EventHub(storage.events, versions, log, streamLimits(config))
  metrics.watch({ stream: () => ({ clients: events.size, ...events.counts }) })
  const context = routeContext({
    storage: reads,
    feeds,
    warId: config.warId,
    languages: config.feedLanguages,
    keeper,
    divers: new DiverHistoryService(reads.playerCounts, keeper),
    planetHistory: new PlanetHistoryService(reads),
    intelligence: new IntelligenceService(reads),
    live: new LiveService(feeds),
    db,
    replicas: db.replicas ?? null,
    runner,
    collectorSecret: config.collectorSecret,
    metrics,
    isShuttingDown: deps.isShuttingDown ?? (() => false),
    collectors: deps.collectors,
    events,
    webhooks: {
      allowPrivate: config.webhookAllowPrivate,
      create: (w) => db.gate.run(() => webhookStore.create(db.sql, w)),
      list: () => storage.webhooks.list(),
      one: (id) => storage.webhooks.one(id),
      remove: (id) => db.gate.run(() => webhookStore.remove(db.sql, id)),
    },
    clientAddress: (request, server) => clientKeyOf(addresses.of(server?.requestIP(request)?.address ?? null, request.headers) ?? 'local'),
  })
  return new Elysia()
    // First, so that every request is timed, those the security policy answers included.
    .use(httpMetrics(metrics))
    .use(securityHeaders({ unrouted: [[`/api/v1${COLLECT_PATH}`, 'collector'], ['/api/v1/webhooks', 'collector'], ['/api/v1/webhooks/*', 'collector'], ...PAGE_PATHS.map((p) => [p, 'page'] as const), ['/openapi', 'docs']] }))
    // Before routing: a client over its budget costs no more than this.
    .use(rateLimit(deps.budgets ?? null))
    .use(errorHandling(log))
    .use(openapiDocs())
    .use(pageRoutes(log))
    .use(docsPage())
    .use(metricsRoutes(context))
    .use(healthRoutes(context))
    // Any origin may GET the public reads: their CORS preflight (the collectors refuse theirs).
    .options('/*', readPreflight, { detail: { hide: true } })
    .use(
      new Elysia({ prefix: '/api/v1' })
        .use(throttleRoutes(context))
        .use(liveRoutes(context))
        .use(diverRoutes(context))
        .use(warRoutes(context))
        .use(lookupRoutes(context))
        .use(historyRoutes(context))
        .use(planetHistoryRoutes(context))
        .use(intelligenceRoutes(context))
        .use(surfaceRoutes(context))
        .use(eventRoutes(context))
        .use(webhookRoutes(context))
        .use(collectRoutes(context)),
    )
}

export type App = ReturnType<typeof buildApp>
