/**
 * The pages plugin in process (no browser, no database): what it serves, with which
 * headers, and the main page's weight against the budget (≤ 150 KB of JS+CSS
 * gzipped). The browser tests are the other files here.
 */
import { describe, expect, test } from 'bun:test'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import type { Sql } from '../../src/db/connect.ts'
import { DatabaseGate } from '../../src/db/gate.ts'
import { createFeeds } from '../../src/feeds/index.ts'
import { PAGE_CSP } from '../../src/http/security.ts'
import { silentLogger } from '../../src/log.ts'

// Pages never touch the database: a pool that would throw if used proves it.
const noDatabase = new Proxy({}, { get: () => { throw new Error('database used') } }) as unknown as Sql
const config = loadConfig({ UPSTREAM_URL: 'http://127.0.0.1:9/api' })
const db = { sql: noDatabase, gate: new DatabaseGate(null, silentLogger), info: { edition: 'postgres' as const, timescaledbVersion: null, serverVersion: '', embedded: true } }
const app = buildApp({ config, db, log: silentLogger, feeds: createFeeds(config) })
const get = (path: string, headers: Record<string, string> = {}) => app.handle(new Request(`http://localhost${path}`, { headers }))

const BUDGET_BYTES = 150 * 1024

/** The assets a page's HTML names (script and stylesheet). */
async function assetsOf(path: string): Promise<string[]> {
  const html = await (await get(path)).text()
  return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!)
}

describe('pages', () => {
  test('each page is HTML with the page CSP (self only) and the common security headers; API routes keep theirs', async () => {
    for (const path of ['/', '/war', '/dispatches', '/planet/12']) {
      const res = await get(path)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP)
      expect(res.headers.get('x-frame-options')).toBe('DENY')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('referrer-policy')).toBe('no-referrer')
      const html = await res.text()
      expect(html).toContain(`data-page="${path === '/' ? 'main' : path.split('/')[1]}"`)
      // No inline script or style (the CSP would refuse them) and nothing from elsewhere.
      expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/)
      expect(html).not.toMatch(/<style|\sstyle=/)
      for (const [, url] of html.matchAll(/(?:src|href)="([^"]+)"/g)) expect(url!.startsWith('/')).toBe(true)
    }
    expect(PAGE_CSP).toContain("default-src 'self'")
    expect(PAGE_CSP).not.toMatch(/unsafe|https?:|\*/)
    // The API keeps its data-only CSP.
    expect((await get('/api/v1/nope')).headers.get('content-security-policy')).toContain("default-src 'none'")
  })

  test('assets: hashed names, cached for good, gzipped when accepted; unknown ones are 404', async () => {
    const assets = await assetsOf('/')
    expect(assets).toHaveLength(2)
    for (const path of assets) {
      expect(path).toMatch(/^\/assets\/app\.[0-9a-f]{12}\.(js|css)$/)
      const plain = await get(path)
      expect(plain.status).toBe(200)
      expect(plain.headers.get('cache-control')).toContain('immutable')
      expect(plain.headers.get('content-encoding')).toBeNull()
      expect(plain.headers.get('content-security-policy')).toBe(PAGE_CSP)
      const body = new Uint8Array(await plain.arrayBuffer())
      const zipped = await get(path, { 'accept-encoding': 'gzip, br' })
      expect(zipped.headers.get('content-encoding')).toBe('gzip')
      expect(Bun.gunzipSync(new Uint8Array(await zipped.arrayBuffer()))).toEqual(body)
    }
    const css = await (await get(assets.find((a) => a.endsWith('.css'))!)).text()
    expect(css).toContain('.uplot') // uPlot's stylesheet, from node_modules
    expect(css).toContain('prefers-color-scheme: dark')
    expect(css).not.toMatch(/@import|url\(\s*['"]?https?:/)
    expect((await get('/assets/app.000000000000.js')).status).toBe(404)
    expect((await get('/planet/abc')).status).toBe(404)
    const icon = await get('/favicon.svg')
    expect(icon.headers.get('content-type')).toBe('image/svg+xml')
  })

  test(`main page weight: JS + CSS gzipped ≤ ${BUDGET_BYTES / 1024} KB (README "Pages")`, async () => {
    let gz = 0
    let raw = 0
    for (const path of await assetsOf('/')) {
      gz += (await (await get(path, { 'accept-encoding': 'gzip' })).arrayBuffer()).byteLength
      raw += (await (await get(path)).arrayBuffer()).byteLength
    }
    console.log(`main page weight: ${(gz / 1024).toFixed(1)} KB gzipped (${(raw / 1024).toFixed(1)} KB raw) of JS + CSS`)
    expect(gz).toBeGreaterThan(10 * 1024) // uPlot alone is more: the bundle holds it
    expect(gz).toBeLessThanOrEqual(BUDGET_BYTES)
  })
})
