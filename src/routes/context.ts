/** The dependencies of the read routes, decorated onto their handlers' context once per app. */
import { Elysia } from 'elysia'
import type { Feeds } from '../feeds/index.ts'
import type { Answers } from '../http/answers.ts'
import type { ResponseCache } from '../http/response-cache.ts'
import type { Store } from '../storage/index.ts'

export type ReadDeps = {
  /** The storage layer's reads, through the database gate. */
  storage: Store
  feeds: Feeds
  /** Default war id (WAR_ID, else 801). */
  warId: number
  /** The languages whose texts are collected (FEED_LANGUAGES), the primary first: what `lang` accepts. */
  languages: readonly string[]
  /** The routes' clock (windows, defaults, the response cache). */
  now: () => Date
  /** Response cache of /war* and the lookups. */
  cache: ResponseCache
  /** Answers kept ready per data version (diver and planet history, live counts). */
  answers: Answers
  /** Page bodies of the historical routes kept ready per data version (routes/history.ts). */
  keptPages: Answers
}

export const readContext = (deps: ReadDeps) => new Elysia({ name: 'routes/context' }).decorate(deps)

export type ReadContext = ReturnType<typeof readContext>
