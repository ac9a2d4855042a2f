import { describe, expect, test } from 'bun:test'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import type { Sql } from '../../src/db/connect.ts'
import { DatabaseGate } from '../../src/db/gate.ts'
import { Elysia } from 'elysia'
import { MAX_URL_LENGTH, PAGE_CSP, securityHeaders, securityPolicy } from '../../src/http/security.ts'
import { silentLogger } from '../../src/log.ts'
import { createFeeds } from '../../src/feeds/index.ts'

// These requests never reach the database: a pool that would throw if used proves it.
const noDatabase = new Proxy({}, { get: () => { throw new Error('database used') } }) as unknown as Sql
const config = loadConfig({ UPSTREAM_URL: 'http://127.0.0.1:9/api' })
const db = { sql: noDatabase, gate: new DatabaseGate(null, silentLogger), info: { edition: 'postgres' as const, timescaledbVersion: null, serverVersion: '', embedded: true } }
const app = buildApp({ config, db, log: silentLogger, feeds: createFeeds(config) })
const req = (method: string, path: string, headers: Record<string, string> = {}) => app.handle(new Request(`http://localhost${path}`, { method, headers }))

describe('security headers and CORS', () => {
  test('every response, errors included, carries the security headers', async () => {
    // A value (/health/live), errors, a response built by securedResponse (/metrics), the OpenAPI plugin's document.
    for (const path of ['/health/live', '/api/v1/nope', '/metrics', '/openapi/json']) {
      const res = await req('GET', path)
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'")
    }
    for (const res of [await req('GET', '/health/live'), await req('GET', '/api/v1/nope'), await req('POST', '/api/v1/collect/war-info?warId=x'), await req('GET', '/metrics'), await req('GET', '/openapi/json')]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('x-frame-options')).toBe('DENY')
      expect(res.headers.get('referrer-policy')).toBe('no-referrer')
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'")
    }
  })

  test('a route gets the headers of the policy it declares (read when it declares none), on a plugin\'s own Response and on its errors', async () => {
    const raw = new Elysia()
      .use(securityHeaders())
      .use(securityPolicy())
      .get('/api/v1/raw', () => new Response('x', { headers: { 'content-type': 'text/plain' } }))
      .get('/war', () => new Response('<p>'), { policy: 'page' })
      .get('/page-error', () => {
        throw new Error('boom')
      }, { policy: 'page' })
    const read = await raw.handle(new Request('http://localhost/api/v1/raw'))
    expect(read.headers.get('content-type')).toBe('text/plain')
    expect(read.headers.get('access-control-allow-origin')).toBe('*')
    expect(read.headers.get('x-frame-options')).toBe('DENY')
    const page = await raw.handle(new Request('http://localhost/war'))
    expect(page.headers.get('content-security-policy')).toBe(PAGE_CSP)
    expect(page.headers.get('access-control-allow-origin')).toBeNull()
    expect((await raw.handle(new Request('http://localhost/page-error'))).headers.get('content-security-policy')).toBe(PAGE_CSP)
    // A path no route serves is data.
    expect((await raw.handle(new Request('http://localhost/war/nope'))).headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'")
  })

  test('the pages, the docs page and the collectors declare their policies', async () => {
    expect((await req('GET', '/planet/abc')).headers.get('content-security-policy')).toBe(PAGE_CSP)
    expect((await req('GET', '/openapi')).headers.get('content-security-policy')).toContain("script-src 'self'")
    const collector = await req('POST', '/api/v1/collect/war-info?warId=x')
    expect(collector.headers.get('access-control-allow-origin')).toBeNull()
    expect(collector.headers.get('cache-control')).toBe('no-store')
  })

  test('reads are public to any origin, collectors get no CORS headers', async () => {
    expect((await req('GET', '/health/live', { origin: 'https://example.org' })).headers.get('access-control-allow-origin')).toBe('*')
    const collector = await req('POST', '/api/v1/collect/war-info?warId=x', { origin: 'https://example.org' })
    expect(collector.headers.get('access-control-allow-origin')).toBeNull()
  })

  test('preflight: allowed for reads, refused for collectors', async () => {
    const read = await req('OPTIONS', '/api/v1/war', { origin: 'https://example.org', 'access-control-request-method': 'GET' })
    expect(read.status).toBe(204)
    expect(read.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS')
    const collect = await req('OPTIONS', '/api/v1/collect/full-status', { origin: 'https://example.org', 'access-control-request-method': 'POST' })
    expect(collect.status).toBe(403)
    expect(collect.headers.get('access-control-allow-origin')).toBeNull()
    expect(await collect.json()).toEqual({ error: 'collector routes are not available cross-origin' })
  })

  test(`URLs longer than ${MAX_URL_LENGTH} characters are refused with 414 {error}`, async () => {
    const res = await req('GET', `/api/v1/historical-dispatches?q=${'a'.repeat(MAX_URL_LENGTH)}`)
    expect(res.status).toBe(414)
    expect(Object.keys((await res.json()) as object)).toEqual(['error'])
  })
})
