import { Elysia } from 'elysia'

/** Longest request target we accept; real query strings of this API are far shorter. */
export const MAX_URL_LENGTH = 4096
/** Collectors take no body and reads have none: anything larger is a mistake or an attack. */
export const MAX_BODY_BYTES = 64 * 1024

const COLLECTOR_PATH = /^\/api\/v1\/collect\//
/** The paths src/pages serves: its HTML pages, their bundled assets and the icon. */
const PAGE_PATH = /^\/(?:$|war$|dispatches$|planet\/|assets\/|favicon\.svg$)/

/**
 * Security headers and the CORS policy, for every response:
 * - reads are public: any origin may GET them (no credentials);
 * - collectors are not callable cross-origin: no CORS headers on them, and their
 *   preflight is refused, so browsers never send the secret-bearing POST;
 * - JSON responses forbid sniffing, framing and referrers;
 * - the dashboard pages (src/pages) get the same headers with a CSP that allows scripts,
 *   styles, images and fetches from this origin only (no inline code, no CDN).
 * Over-long URLs are refused before routing.
 */
export const securityPolicy = () =>
  new Elysia({ name: 'http/security' })
    .onRequest(({ request, set }) => {
      // request.url builds a string on each access: once per request (measured: reading it
      // twice and setting headers one by one cost ~30 % of the throughput of a cached route).
      const url = request.url
      const path = pathOf(url)
      // Set before routing so error responses carry them too.
      Object.assign(set.headers, headersFor(path))
      if (url.length > MAX_URL_LENGTH) {
        set.headers['cache-control'] = 'no-store'
        set.status = 414
        return { error: `request URL longer than ${MAX_URL_LENGTH} characters` }
      }
      if (request.method === 'OPTIONS') {
        if (COLLECTOR_PATH.test(path)) {
          set.headers['cache-control'] = 'no-store'
          set.status = 403
          return { error: 'collector routes are not available cross-origin' }
        }
        set.status = 204
        set.headers['access-control-allow-origin'] = '*'
        set.headers['access-control-allow-methods'] = 'GET, HEAD, OPTIONS'
        set.headers['access-control-allow-headers'] = 'If-None-Match, Content-Type'
        set.headers['access-control-max-age'] = '86400'
        return ''
      }
    })

/** The path of an absolute request URL, without building a URL object on the hot path. */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0) return '/'
  const q = url.indexOf('?', start)
  return q < 0 ? url.slice(start) : url.slice(start, q)
}

const COMMON_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' }
const DATA_ONLY = { 'content-security-policy': "default-src 'none'; frame-ancestors 'none'" }
const READ_CORS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'ETag, Cache-Control' }
const READ_HEADERS = { ...COMMON_HEADERS, ...DATA_ONLY, ...READ_CORS }
const COLLECTOR_HEADERS = { ...COMMON_HEADERS, ...DATA_ONLY }
// The OpenAPI page loads its own scripts; everything else is data.
const DOCS_HEADERS = { ...COMMON_HEADERS, ...READ_CORS }
export const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
const PAGE_HEADERS = { ...COMMON_HEADERS, 'content-security-policy': PAGE_CSP }

function headersFor(path: string): Record<string, string> {
  if (COLLECTOR_PATH.test(path)) return COLLECTOR_HEADERS
  if (PAGE_PATH.test(path)) return PAGE_HEADERS
  return path.startsWith('/openapi') ? DOCS_HEADERS : READ_HEADERS
}
