import { Elysia } from 'elysia'
import type { Metrics } from '../metrics.ts'

/** The label of requests no route matched: one series, whatever paths are tried. */
const UNMATCHED = '(unmatched)'

type Timed = { startedAt?: number }

const statusOf = (value: unknown, setStatus: unknown): number => {
  if (value instanceof Response) return value.status
  // A handler may return status(...) (an ElysiaCustomStatusResponse).
  if (value && typeof value === 'object' && 'code' in value && typeof value.code === 'number') return value.code
  return typeof setStatus === 'number' ? setStatus : 200
}

/**
 * HTTP requests and latency by method, route pattern and status, for every route, in one
 * place. Cheap on purpose, because kept answers take microseconds:
 * - onRequest keeps one number, the start time, on the request's context;
 * - onAfterHandle observes every answer a handler gave (200, 304, a returned status);
 *   it runs in line, where onAfterResponse would schedule a task per request;
 * - onError observes the rest (thrown errors, validation, unknown paths) once the one
 *   error plugin (errors.ts) has set their status: it runs before it (it is registered
 *   first and returns nothing) and reads the status in a microtask.
 * Requests refused by security.ts before routing (414, 413, 411) are not observed.
 */
export const httpMetrics = (metrics: Metrics) =>
  new Elysia({ name: 'http/metrics' })
    // onRequest hooks are global whatever their scope.
    .onRequest((c) => {
      ;(c as Timed).startedAt = performance.now()
    })
    .onAfterHandle({ as: 'global' }, (c) => {
      const { startedAt } = c as Timed
      metrics.observeHttp(c.request.method, c.route || UNMATCHED, statusOf(c.responseValue, c.set.status), startedAt === undefined ? 0 : (performance.now() - startedAt) / 1000)
    })
    .onError({ as: 'global' }, (c) => {
      const { startedAt } = c as Timed
      const code = c.code
      queueMicrotask(() => {
        const status = typeof code === 'number' ? code : typeof c.set.status === 'number' ? c.set.status : 500
        metrics.observeHttp(c.request.method, c.route || UNMATCHED, status, startedAt === undefined ? 0 : (performance.now() - startedAt) / 1000)
      })
    })
