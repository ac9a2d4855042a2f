/**
 * The dashboard pages: `/`, `/war`, `/planet/:planetId`, `/dispatches`, their
 * bundled assets under /assets/ and the icon. The pages read only the public /api/v1 routes
 * from the browser; this plugin serves files and nothing else (no database, no feeds).
 * They declare the `page` security policy (a CSP allowing only this origin, http/security.ts).
 */
import { Elysia } from 'elysia'
import { CACHE_CONTROL, securedResponse, securityPolicy } from '../http/security.ts'
import type { Logger } from '../log.ts'
import { type Asset, type Bundle, pageBundle } from './bundle.ts'
import { FAVICON_SVG, type PageName, pageHtml, unavailableHtml } from './html.ts'

const HTML = 'text/html; charset=utf-8'
// HTML names the hashed assets: always revalidated. Hashed assets never change.
const HTML_HEADERS = { 'content-type': HTML, 'cache-control': CACHE_CONTROL.revalidate }
const UNAVAILABLE_HEADERS = { 'content-type': HTML, 'cache-control': CACHE_CONTROL.noStore }
const FAVICON_HEADERS = { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' }

const acceptsGzip = (request: Request) => /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')

/** Each asset's two header sets (plain, gzip), built once: securedResponse keys its ready headers on the object. */
const assetHeaders = new WeakMap<Asset, { plain: Record<string, string>; gzip: Record<string, string> }>()

function serveAsset(asset: Asset, request: Request): Response {
  let headers = assetHeaders.get(asset)
  if (!headers) {
    const plain = { 'content-type': asset.type, 'cache-control': CACHE_CONTROL.immutable, vary: 'Accept-Encoding' }
    assetHeaders.set(asset, (headers = { plain, gzip: { ...plain, 'content-encoding': 'gzip' } }))
  }
  const gzip = acceptsGzip(request)
  return securedResponse('page', gzip ? asset.gzip : asset.body, gzip ? headers.gzip : headers.plain)
}

const NOT_FOUND_HEADERS = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': CACHE_CONTROL.noStore }
const notFound = () => securedResponse('page', 'not found\n', NOT_FOUND_HEADERS, 404)

/** The pages' paths: what no route answers there is still a page's (security.ts `unrouted`). */
export const PAGE_PATHS = ['/', '/war', '/dispatches', '/planet/*', '/assets/*', '/favicon.svg'] as const

export const pageRoutes = (log: Logger) => {
  const ready = pageBundle()
  // Built at start-up; a failure is logged once and every page answers 503 saying so.
  const bundle: Promise<Bundle | null> = ready.then(
    (b) => {
      log.info('pages built', { js: b.js.name, css: b.css.name, buildMs: b.buildMs })
      return b
    },
    (err: unknown) => {
      log.error('pages could not be built', { error: err instanceof Error ? err.message : String(err) })
      return null
    },
  )
  const page = (name: PageName) => async () => {
    const b = await bundle
    if (!b) return securedResponse('page', unavailableHtml, UNAVAILABLE_HEADERS, 503)
    return securedResponse('page', pageHtml(name, b), HTML_HEADERS)
  }
  const detail = { hide: true }
  return new Elysia({ name: 'pages' })
    .use(securityPolicy())
    .guard({ policy: 'page' }, (app) =>
      app
    .get('/', page('main'), { detail })
    .get('/war', page('war'), { detail })
    .get('/dispatches', page('dispatches'), { detail })
    .get('/planet/:planetId', ({ params }) => (/^\d{1,10}$/.test(params.planetId) ? page('planet')() : notFound()), { detail })
    .get(
      '/assets/:file',
      async ({ params, request }) => {
        const b = await bundle
        const asset = b && [b.js, b.css].find((a) => a.name === params.file)
        return asset ? serveAsset(asset, request) : notFound()
      },
      { detail },
    )
    .get('/favicon.svg', () => securedResponse('page', FAVICON_SVG, FAVICON_HEADERS), { detail }),
    )
}
