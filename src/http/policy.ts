/**
 * The collectors' secret as an Elysia macro, switched on for their route group:
 * - `collectorSecret: { secret }`: POST collector routes. With a secret configured the
 *   `x-collector-secret` header must match (constant-time comparison) or the answer is
 *   401; checked before validation, so a caller without the secret learns nothing about
 *   parameters. The spec's collectors take no body: one is refused (400).
 */
import { Elysia, status } from 'elysia'
import { badRequest } from './params.ts'
import { secretMatches } from './secret.ts'

export const httpPolicy = new Elysia({ name: 'http/policy' }).macro({
  collectorSecret: {
    transform(c) {
      const { headers, request } = c
      // The route's context decorates the configured secret (routes/context.ts).
      const secret = (c as unknown as { collectorSecret?: string }).collectorSecret
      if (secret !== undefined && !secretMatches(headers['x-collector-secret'], secret)) {
        throw status(401, { error: 'missing or wrong x-collector-secret header' })
      }
      // A streamed body never gets here (security.ts answers it 411 before routing).
      if (Number(request.headers.get('content-length') ?? 0) > 0) {
        throw badRequest('collector routes take no request body')
      }
    },
  },
})
