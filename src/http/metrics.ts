import { Elysia } from 'elysia'
import type { Metrics } from '../metrics.ts'

/** The label of requests no route matched: one series, whatever paths are tried. */
const UNMATCHED = '(unmatched)'

/**
 * HTTP requests and latency by method, route pattern and status, for every route, in
 * one place. Cheap on purpose (the cached routes answer in microseconds): the start
 * time is one number stored on the request's context, the observation happens after
 * the response has gone out (onAfterResponse), and it allocates nothing once a
 * method/route/status combination has been seen.
 */
export const httpMetrics = (metrics: Metrics) =>
  new Elysia({ name: 'http/metrics' })
    // onRequest hooks are global whatever their scope.
    .onRequest((c) => {
      ;(c as { startedAt?: number }).startedAt = performance.now()
    })
    .onAfterResponse({ as: 'global' }, (c) => {
      const { startedAt } = c as { startedAt?: number }
      const response = c.responseValue
      const status = response instanceof Response ? response.status : typeof c.set.status === 'number' ? c.set.status : 200
      metrics.observeHttp(c.request.method, c.route || UNMATCHED, status, startedAt === undefined ? 0 : (performance.now() - startedAt) / 1000)
    })
