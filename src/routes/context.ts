/**
 * The dependencies of the routes, decorated onto their handlers' context once per app:
 * every route plugin `.use`s it and reads what it needs from the context. It also brings
 * `at` (the request's moment, from the routes' clock) and the `keep` route option
 * (http/keep.ts).
 */
import { Elysia } from 'elysia'
import type { Feeds } from '../feeds/index.ts'
import type { Keeper } from '../http/keep.ts'
import type { DiverHistoryService } from '../services/divers.ts'
import type { LiveService } from '../services/live.ts'
import type { PlanetHistoryService } from '../services/planet-history.ts'
import type { Store } from '../storage/index.ts'

export type ReadDeps = {
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
  live: LiveService
}

export const readContext = (deps: ReadDeps) => new Elysia({ name: 'routes/context' }).decorate(deps).use(deps.keeper.plugin())

export type ReadContext = ReturnType<typeof readContext>

/**
 * The context the functions of a `keep` rule see (http/keep.ts): the dependencies, the
 * request's moment, its validated query and params. Annotate them with it: a rule's
 * functions left to be typed by inference would take the route's handler types with them.
 */
export type KeepContext<Q = Record<string, string | undefined>, P = Record<string, string>> = ReadDeps & { at: Date; query: Q; params: P; request: Request }
