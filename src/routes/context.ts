import type { AppDeps } from '../app.ts'
import type { ResponseCache } from '../http/cache.ts'

/** What the read routes need: the app's dependencies plus a clock and the response cache. */
export interface ReadContext {
  sql: AppDeps['sql']
  feeds: AppDeps['feeds']
  /** Default war id (WAR_ID, else 801). */
  warId: number
  now: () => Date
  cache: ResponseCache
}
