/** The OpenAPI document lists every read route, each with a summary, and every parameter described. */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { buildApp } from '../../src/app.ts'
import { openapiDocs } from '../../src/routes/openapi.ts'
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
})
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

test('/openapi serves the docs page', async () => {
  const res = await app.handle(new Request('http://localhost/openapi'))
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toContain('text/html')
})
