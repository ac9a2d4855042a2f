import { Elysia, t } from 'elysia'
import { isDatabaseUnavailable } from '../db/connect.ts'
import { FeedUnavailableError } from '../feeds/errors.ts'
import { errorText, type Logger } from '../log.ts'
import { NotCurrentWarError } from '../war/current-war.ts'
import { abandonComputation } from './keep.ts'
import { CACHE_CONTROL } from './security.ts'

/** The body of every error answer. */
export const ErrorBody = t.Object({ error: t.String() })

/** The error answers every validated read route can give (response schemas, OpenAPI). */
export const errorResponses = {
  400: t.Object({ error: t.String() }, { description: 'Invalid parameter (the message names it)' }),
  503: t.Object({ error: t.String() }, { description: 'Database or upstream feed unavailable' }),
}

/**
 * The one error plugin, registered once at the root: every failure becomes
 * `{ error: string }` with the spec's status. Validation failures are 400 (not Elysia's
 * 422) and never echo the input; unexpected errors are logged and answered generically.
 */
export const errorHandling = (log: Logger) =>
  new Elysia({ name: 'http/errors' })
    .error({ FeedUnavailableError, NotCurrentWarError })
    .onError({ as: 'global' }, ({ code, error, set, path, request }) => {
      // Before anything answers: a kept answer this request was computing is abandoned.
      abandonComputation(request)
      set.headers['cache-control'] = CACHE_CONTROL.noStore
      switch (code) {
        case 'VALIDATION': {
          // An answer that breaks its own schema is the service's bug, not the caller's.
          if (error.type === 'response') break
          set.status = 400
          const first = error.all[0]
          const field = first && 'path' in first ? first.path.replace(/^\//, '') : ''
          const where = error.type === 'params' ? 'path parameter' : error.type === 'query' ? 'query parameter' : error.type
          const reason = first && 'schema' in first && typeof first.schema.error === 'string' ? first.schema.error : first?.summary ?? first?.message
          return { error: field ? `invalid ${where} "${field}": ${reason ?? 'invalid value'}` : `invalid ${where}` }
        }
        case 'PARSE':
          set.status = 400
          return { error: 'malformed request body' }
        case 'NOT_FOUND':
          set.status = 404
          return { error: 'not found' }
        case 'FeedUnavailableError':
          set.status = 503
          return { error: `${error.feed} feed unavailable: ${error.reason}` }
        case 'NotCurrentWarError':
          set.status = 409
          return { error: error.message }
      }
      if (isDatabaseUnavailable(error)) {
        set.status = 503
        return { error: 'database unavailable' }
      }
      // Errors thrown with status() already carry their own response.
      if (typeof code === 'number') return
      log.error('request failed', { path, error: errorText(error) })
      set.status = 500
      return { error: 'internal error' }
    })
