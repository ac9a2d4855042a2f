/** GET /metrics: the Prometheus text format, outside /api/v1 and outside the OpenAPI document. */
import { Elysia } from 'elysia'
import { CACHE_CONTROL, securedResponse } from '../http/security.ts'
import type { RouteContext } from './context.ts'

/** Headers per registry content type: securedResponse builds each union with the policy once. */
const headersOf = new Map<string, Record<string, string>>()
const headersFor = (type: string) => {
  let headers = headersOf.get(type)
  if (!headers) headersOf.set(type, (headers = { 'content-type': type, 'cache-control': CACHE_CONTROL.noStore }))
  return headers
}

export const metricsRoutes = (context: RouteContext) =>
  new Elysia({ name: 'routes/metrics' })
    .use(context)
    .get('/metrics', async ({ metrics }) => securedResponse('read', await metrics.text(), headersFor(metrics.contentType)), { detail: { hide: true } })
