/**
 * Elysia reads the text of a route's hooks and handler to decide what to prepare for each
 * request. A hook that hands the request context itself to a function makes it prepare
 * everything (a cookie jar among it), and then every early Response (a kept answer) is
 * rebuilt with merged headers: it halved the throughput of kept answers once. No route
 * of the app may be compiled that way.
 */
import { expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { createBunRouteHandler } from 'elysia/adapter/bun/compose'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import type { Sql } from '../../src/db/connect.ts'
import { DatabaseGate } from '../../src/db/gate.ts'
import { createFeeds } from '../../src/feeds/index.ts'
import { silentLogger } from '../../src/log.ts'

// Compiling the routes touches no database: a pool that would throw if used proves it.
const noDatabase = new Proxy({}, { get: () => { throw new Error('database used') } }) as unknown as Sql
const config = loadConfig({ UPSTREAM_URL: 'http://127.0.0.1:9/api' })
const db = { sql: noDatabase, gate: new DatabaseGate(null, silentLogger), info: { edition: 'postgres' as const, timescaledbVersion: null, serverVersion: '', embedded: true } }

type Route = { method: string; path: string; compile(): unknown }
const compiledWithCookies = (app: { routes: unknown[] }) =>
  (app.routes as Route[]).filter((r) => /cookie/i.test(String(r.compile()))).map((r) => `${r.method} ${r.path}`)

test('the check sees a hook that hands the context to a function', () => {
  const use = (x: unknown) => x
  const app = new Elysia().get('/a', () => 'a', { beforeHandle(c) { use(c) } }).get('/b', () => 'b')
  expect(compiledWithCookies(app)).toEqual(['GET /a'])
})

test('no route of the app prepares cookies (no hook hands the context itself to a function)', () => {
  const app = buildApp({ config, db, log: silentLogger, feeds: createFeeds(config) })
  expect(app.routes.length).toBeGreaterThan(30)
  expect(compiledWithCookies(app)).toEqual([])
})

/**
 * Elysia also awaits a hook whose text shows `async` or a returned call (`return f(...)`,
 * which Bun's transpiler can make of `const a = f(); return a`). A request hook read so
 * makes the server's handler of every route async, and an awaited after-handle hook
 * delays every answer, kept ones included: neither may wait when it never does.
 */
const waiting = (app: { routes: unknown[] }) =>
  (app.routes as (Route & { handler: unknown })[])
    .filter((r) => typeof r.handler === 'function')
    .flatMap((r) => [
      ...(String(createBunRouteHandler(app as never, r as never)).startsWith('async') ? [`${r.method} ${r.path}: request hook`] : []),
      ...(/await e\.afterHandle/.test(String(r.compile())) ? [`${r.method} ${r.path}: after-handle hook`] : []),
    ])

test('the check sees hooks that return a call', () => {
  const f = (x: unknown) => x
  const app = new Elysia()
    .onRequest(({ request }) => {
      if (request.method === 'PUT') return f(request.method)
    })
    .get('/a', () => 'a', { afterHandle: ({ responseValue }) => f(responseValue) })
  expect(waiting(app)).toEqual(['GET /a: request hook', 'GET /a: after-handle hook'])
})

test('no request of the app waits for a hook that never waits', () => {
  const app = buildApp({ config, db, log: silentLogger, feeds: createFeeds(config) })
  expect(waiting(app)).toEqual([])
})
