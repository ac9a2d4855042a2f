/** GET /metrics: the Prometheus text format, outside /api/v1 and outside the OpenAPI document. */
import { Elysia } from 'elysia'
import type { Metrics } from '../metrics.ts'

export const metricsRoutes = (metrics: Metrics) =>
  new Elysia({ name: 'routes/metrics' }).get(
    '/metrics',
    async () =>
      new Response(await metrics.text(), {
        headers: { 'content-type': metrics.contentType, 'cache-control': 'no-store' },
      }),
    { detail: { hide: true } },
  )
