/** The OpenAPI document lists every read route, each with a summary, and every parameter described. */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { buildApp } from '../../src/app.ts'
import { readFileSync } from 'node:fs'
import { DOCS_PAGE_CSP } from '../../src/http/security.ts'
import { openapiDocs, VIEWER_ASSETS } from '../../src/routes/openapi.ts'
import { openHarness, type Harness } from './helpers.ts'

const READ_ROUTES = [
  '/player-count',
  '/divers/history',
  '/war',
  '/war/{warId}',
  '/planets',
  '/sectors',
  '/factions',
  '/war-stats',
  '/historical-player-count',
  '/planet/{planetId}/history',
  '/historical-planet-status',
  '/historical-war-summary',
  '/historical-major-orders',
  '/historical-major-orders/{orderId}/progress',
  '/historical-dispatches',
  '/campaigns',
  '/campaigns/{campaignId}/history',
  '/major-orders',
  '/planets/liberation',
  '/war/trends',
  '/timeline',
]

let h: Harness
let app: ReturnType<typeof buildApp>
beforeAll(async () => {
  h = await openHarness()
  app = buildApp(h.deps).use(openapiDocs()) as unknown as ReturnType<typeof buildApp>
}, 30_000) // migrating the embedded database takes seconds on a busy machine
afterAll(() => h?.close())

test('/openapi/json documents every read route with a summary, tags, described parameters and responses', async () => {
  const res = await app.handle(new Request('http://localhost/openapi/json'))
  expect(res.status).toBe(200)
  const doc = (await res.json()) as any
  expect(doc.openapi).toMatch(/^3\./)
  for (const route of READ_ROUTES) {
    const op = doc.paths[`/api/v1${route}`]?.get
    expect(op, route).toBeDefined()
    expect(op.summary, route).toBeString()
    expect(op.description?.length, route).toBeGreaterThan(10)
    expect(op.tags?.length, route).toBeGreaterThan(0)
    expect(op.responses['200'], route).toBeDefined()
    for (const p of op.parameters ?? []) {
      // @elysiajs/openapi turns a union of literals into a bare enum and drops its
      // description: those parameters are described in the operation's description.
      if (p.schema?.enum) expect(op.description, `${route} ${p.name}`).toContain(p.name)
      else expect(p.schema?.description?.length, `${route} ${p.name}`).toBeGreaterThan(5)
    }
    for (const name of route.match(/\{(\w+)\}/g) ?? []) {
      expect(op.parameters.some((p: any) => p.in === 'path' && `{${p.name}}` === name), `${route} ${name}`).toBe(true)
    }
  }
  const dispatches = doc.paths['/api/v1/historical-dispatches'].get.parameters.map((p: any) => p.name)
  expect(dispatches.sort()).toEqual(['lang', 'limit', 'page', 'q', 'since', 'warID', 'warId'])
  // lang (issue 14): on the dispatch and major-order routes, described with its languages and "all".
  for (const route of ['/historical-dispatches', '/historical-major-orders']) {
    const lang = doc.paths[`/api/v1${route}`].get.parameters.find((p: any) => p.name === 'lang')
    expect(lang, route).toMatchObject({ in: 'query', required: false })
    expect(lang.schema.description, route).toContain('de-DE')
    expect(lang.schema.description, route).toContain('"all"')
  }
})

const get = (path: string) => app.handle(new Request(`http://localhost${path}`))

test('/openapi serves the docs page; everything it loads comes from the service', async () => {
  const res = await get('/openapi')
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toContain('text/html')
  const html = await res.text()
  // No origin but the page's own: every reference is a path of this service.
  expect(html).not.toMatch(/https?:|\/\/[a-z]/i)
  const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
  expect(refs.sort()).toEqual([`${VIEWER_ASSETS}/index.css`, `${VIEWER_ASSETS}/swagger-ui-bundle.js`, `${VIEWER_ASSETS}/swagger-ui.css`, '/openapi/start.js'].sort())
  expect(html).not.toMatch(/<script>|<script [^>]*>[^<]+<\/script>|<style|style=/) // nothing inline: the CSP allows none
  for (const ref of refs) {
    const asset = await get(ref)
    expect(asset.status, ref).toBe(200)
    expect(asset.headers.get('content-type'), ref).toMatch(ref.endsWith('.css') ? /^text\/css/ : /^text\/javascript/)
  }
  // The start script points the viewer at the document, without Swagger's online validator.
  const start = await (await get('/openapi/start.js')).text()
  expect(start).toContain('"/openapi/json"')
  expect(start).toContain('validatorUrl: null')
})

test('the viewer is the pinned npm package, served under its version with a long cache', async () => {
  const pkg = JSON.parse(readFileSync('node_modules/swagger-ui-dist/package.json', 'utf8')) as { version: string }
  const pinned = (JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> }).dependencies['swagger-ui-dist']
  expect(pinned).toMatch(/^\d+\.\d+\.\d+$/) // an exact version
  expect(pkg.version).toBe(pinned!)
  expect(VIEWER_ASSETS).toBe(`/openapi/assets/swagger-ui-dist@${pinned}`)
  const res = await get(`${VIEWER_ASSETS}/swagger-ui-bundle.js`)
  expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
  expect(await res.text()).toBe(readFileSync('node_modules/swagger-ui-dist/swagger-ui-bundle.js', 'utf8'))
  // Only the files the page uses, and only under the installed version.
  expect((await get(`${VIEWER_ASSETS}/package.json`)).status).toBe(404)
  expect((await get('/openapi/assets/swagger-ui-dist@0.0.1/swagger-ui-bundle.js')).status).toBe(404)
})

test('the docs page has a Content-Security-Policy allowing its own origin only; the data routes keep theirs', async () => {
  const csp = (await get('/openapi')).headers.get('content-security-policy')
  expect(csp).toBe(DOCS_PAGE_CSP)
  const sources = csp!.split(';').flatMap((d) => d.trim().split(/\s+/).slice(1))
  expect(new Set(sources)).toEqual(new Set(["'none'", "'self'", 'data:']))
  expect(csp).toContain("script-src 'self'")
  expect(csp).toContain("default-src 'none'")
  expect(csp).not.toContain('unsafe')
  for (const path of ['/openapi/json', '/api/v1/planets']) {
    expect((await get(path)).headers.get('content-security-policy'), path).toBe("default-src 'none'; frame-ancestors 'none'")
  }
})
