/**
 * The collectors' secret as an Elysia macro, switched on for their route group:
 * - `collectorSecret: { secret }`: POST collector routes. With a secret configured the
 *   `x-collector-secret` header must match (constant-time comparison) or the answer is
 *   401; checked before validation, so a caller without the secret learns nothing about
 *   parameters. The spec's collectors take no body: one is refused (400).
 * - `adminSecret`: the same secret for the other administrative routes (webhooks), which
 *   take a body.
 */
import { Elysia, status } from 'elysia'
import { badRequest } from './params.ts'
import { secretMatches } from './secret.ts'

/** 401 unless `given` is the configured secret (the route's context decorates it: routes/context.ts). */
function requireSecret(given: string | undefined, secret: string | undefined): void {
  if (secret !== undefined && !secretMatches(given, secret)) throw status(401, { error: 'missing or wrong x-collector-secret header' })
}

export const httpPolicy = new Elysia({ name: 'http/policy' }).macro({
  collectorSecret: {
    // The hooks name the fields they read: a context handed whole to a function makes Elysia
    // prepare everything for every request (http/security.ts).
    transform(c) {
      requireSecret(c.headers['x-collector-secret'], (c as unknown as { collectorSecret?: string }).collectorSecret)
      // A streamed body never gets here (security.ts answers it 411 before routing).
      if (Number(c.request.headers.get('content-length') ?? 0) > 0) {
        throw badRequest('collector routes take no request body')
      }
    },
  },
  /** Routes gated like the collectors that do take a body (webhook subscriptions). */
  adminSecret: {
    transform(c) {
      requireSecret(c.headers['x-collector-secret'], (c as unknown as { collectorSecret?: string }).collectorSecret)
    },
  },
})
