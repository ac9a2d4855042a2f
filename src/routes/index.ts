/**
 * Every GET read route of the spec (except /health/throttle), as one prefix-free plugin;
 * app.ts mounts it under /api/v1.
 */
import { Elysia } from 'elysia'
import type { AppDeps } from '../app.ts'
import { ResponseCache } from '../http/cache.ts'
import type { ReadContext } from './context.ts'
import { diverRoutes } from './divers.ts'
import { historyRoutes } from './history.ts'
import { liveRoutes } from './live.ts'
import { lookupRoutes } from './lookups.ts'
import { planetHistoryRoutes } from './planet-history.ts'
import { warRoutes } from './war.ts'

export interface ReadRoutesOptions {
  /** Clock of the routes (defaults, windows) and of the response cache. Default: the system clock. */
  now?: () => Date
  /** Response cache of /war* and the lookups; pass one to observe hits and loads. */
  cache?: ResponseCache
}

export function readRoutes(deps: AppDeps, opts: ReadRoutesOptions = {}) {
  const now = opts.now ?? (() => new Date())
  const ctx: ReadContext = {
    sql: deps.sql,
    feeds: deps.feeds,
    warId: deps.config.warId,
    now,
    cache: opts.cache ?? new ResponseCache({ now: () => now().getTime() }),
  }
  return new Elysia({ name: 'routes/read' })
    .use(liveRoutes(ctx))
    .use(diverRoutes(ctx))
    .use(warRoutes(ctx))
    .use(lookupRoutes(ctx))
    .use(historyRoutes(ctx))
    .use(planetHistoryRoutes(ctx))
}

export type { ReadContext } from './context.ts'
export { ResponseCache } from '../http/cache.ts'
