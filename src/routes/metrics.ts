/** GET /metrics: the Prometheus text format, outside /api/v1 and outside the OpenAPI document. */
import { Elysia } from 'elysia'
import { securedResponse } from '../http/security.ts'
import type { Metrics } from '../metrics.ts'

export const metricsRoutes = (metrics: Metrics) => {
  const headers = { 'content-type': metrics.contentType, 'cache-control': 'no-store' }
  return new Elysia({ name: 'routes/metrics' }).get('/metrics', async () => securedResponse('read', await metrics.text(), headers), { detail: { hide: true } })
}
