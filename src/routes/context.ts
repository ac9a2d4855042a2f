/**
 * The dependencies of the routes, decorated onto their handlers' context once per app:
 * every route plugin `.use`s it and reads what it needs from the context (one way to pass
 * them). It also brings `at` (the request's moment, from the routes' clock), the `keep`
 * route option (http/keep.ts) and the `policy` route option (http/security.ts).
 */
import { Elysia } from 'elysia'
import type { CollectorRunner } from '../collect/runner.ts'
import type { Database } from '../db/index.ts'
import type { ReadReplicas } from '../db/replicas.ts'
import type { Feeds } from '../feeds/index.ts'
import { securityPolicy } from '../http/security.ts'
import type { Metrics } from '../metrics.ts'
import type { Keeper } from '../http/keep.ts'
import type { DiverHistoryService } from '../services/divers.ts'
import type { IntelligenceService } from '../services/intelligence.ts'
import type { LiveService } from '../services/live.ts'
import type { PlanetHistoryService } from '../services/planet-history.ts'
import type { EventHub } from '../push/stream.ts'
import type { NewWebhook, Webhook } from '../storage/webhooks.ts'
import type { Store } from '../storage/index.ts'

export type RouteDeps = {
  /** The storage layer's reads, through the database gate (on the read replicas when there are any). */
  storage: Store
  feeds: Feeds
  /** Default war id (WAR_ID, else 801). */
  warId: number
  /** The languages whose texts are collected (FEED_LANGUAGES), the primary first: what `lang` accepts. */
  languages: readonly string[]
  /** The kept answers (the `keep` route option). */
  keeper: Keeper
  divers: DiverHistoryService
  planetHistory: PlanetHistoryService
  intelligence: IntelligenceService
  live: LiveService
  /** The primary database (readiness), and the read replicas, if any. */
  db: Pick<Database, 'sql' | 'gate' | 'info'>
  replicas: ReadReplicas | null
  /** The collectors' runner (POST /collect/*) and the secret those routes require (COLLECTOR_SECRET). */
  runner: CollectorRunner
  collectorSecret: string | undefined
  metrics: Metrics
  /** Set when shutdown begins, so load balancers drain this instance first. */
  isShuttingDown: () => boolean
  /** Ticks of the collectors: kept, written, dropped (the spool), fired, failed, skipped (the schedule). */
  collectors?: () => unknown
  /** The event stream's hub (GET /events/stream). */
  events: EventHub
  /** Webhook subscriptions, on the primary (routes/webhooks.ts). */
  webhooks: WebhookAdmin
  /** The client behind a request as the budgets count it (its address; an IPv6 address's /64): streams are counted per client. */
  clientAddress: (request: Request, server: { requestIP(r: Request): { address: string } | null } | null) => string
}

export interface WebhookAdmin {
  /** WEBHOOK_ALLOW_PRIVATE: loopback and private targets accepted. */
  allowPrivate: boolean
  create(w: NewWebhook): Promise<Webhook>
  list(): Promise<Webhook[]>
  one(id: number): Promise<Webhook | null>
  remove(id: number): Promise<boolean>
}

export const routeContext = (deps: RouteDeps) => new Elysia({ name: 'routes/context' }).decorate(deps).use(securityPolicy()).use(deps.keeper.plugin())

export type RouteContext = ReturnType<typeof routeContext>

/**
 * The context the functions of a `keep` rule see (http/keep.ts): the dependencies, the
 * request's moment, its validated query and params. Annotate them with it: a rule's
 * functions left to be typed by inference would take the route's handler types with them.
 */
export type KeepContext<Q = Record<string, string | undefined>, P = Record<string, string>> = RouteDeps & { at: Date; query: Q; params: P; request: Request }
