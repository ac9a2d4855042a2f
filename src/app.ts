import { Elysia } from 'elysia'
import type { Config } from './config.ts'
import type { Sql } from './db/connect.ts'
import type { DatabaseInfo } from './db/edition.ts'
import { errorHandling } from './http/errors.ts'
import { securityPolicy } from './http/security.ts'
import type { Logger } from './log.ts'
import { collectRoutes } from './routes/collect.ts'
import { healthRoutes } from './routes/health.ts'
import { openapiDocs } from './routes/openapi.ts'
import { readRoutes } from './routes/index.ts'
import { throttleRoutes } from './routes/throttle.ts'
import type { Feeds } from './upstream/feeds.ts'
import { CurrentWar } from './collectors/current-war.ts'

export interface AppDeps {
  config: Config
  sql: Sql
  db: DatabaseInfo & { embedded: boolean }
  log: Logger
  feeds: Feeds
  /** The upstream's current war (main.ts shares the schedule's); one is made when absent. */
  currentWar?: CurrentWar
  isShuttingDown?: () => boolean
}

/**
 * The whole HTTP surface, built from plugins, with no timers and no listen(): tests call
 * `buildApp(deps).handle(request)`; main.ts adds the schedule and listens.
 */
export function buildApp(deps: AppDeps) {
  const { sql, db, log, feeds, config } = deps
  const currentWar = deps.currentWar ?? new CurrentWar(config.warId, feeds.upstream, log)
  return new Elysia()
    .use(securityPolicy())
    .use(errorHandling(log))
    .use(openapiDocs())
    .use(healthRoutes({ sql, db, isShuttingDown: deps.isShuttingDown ?? (() => false) }))
    .use(
      new Elysia({ prefix: '/api/v1' })
        .use(throttleRoutes(feeds.upstream))
        .use(readRoutes(deps))
        .use(collectRoutes({ sql, feeds, log, config, currentWar, collectorSecret: config.collectorSecret })),
    )
}

export type App = ReturnType<typeof buildApp>
