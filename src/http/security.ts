import { Elysia } from 'elysia'

/** Longest request target we accept; real query strings of this API are far shorter. */
export const MAX_URL_LENGTH = 4096
/** Collectors take no body and reads have none: anything larger is a mistake or an attack. */
export const MAX_BODY_BYTES = 64 * 1024
/**
 * Bun.serve's own body limit (main.ts): none a request can reach. Bun's refusals go out
 * with an empty body and none of these headers, so the app refuses instead (413 and 411
 * `{error}` below, before routing); no route reads a body (tested: a body that never ends
 * is answered, and large ones leave the peak RSS as it was).
 */
export const SERVER_MAX_BODY_BYTES = Number.MAX_SAFE_INTEGER

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
 * Over-long URLs (414), declared bodies over MAX_BODY_BYTES (413) and streamed bodies of
 * unknown length (411) are refused before routing, as `{error}` with these headers: the
 * server itself (main.ts) sets no body limit of its own, whose refusals would go out bare.
 *
 * The headers are added after the handler, not put into `set.headers` before it:
 * - a value (an object, a string) gets them in `set`, like its status;
 * - a ready `Response` from `securedResponse` already carries them, and is passed on as
 *   it is. Headers in `set` would make Elysia copy a returned response and its headers on
 *   every request, and setting them on the response means materialising its `headers`:
 *   either costs ~25 % of the throughput of a kept answer (measured with wrk on
 *   /api/v1/player-count);
 * - any other `Response` (a plugin's) gets them set on its headers;
 * - errors get them in `set`.
 */
export const securityPolicy = () =>
  new Elysia({ name: 'http/security' })
    .onRequest(({ request, set }) => {
      // request.url builds a string on each access: read it once.
      const url = request.url
      if (url.length > MAX_URL_LENGTH) return refuse(set, url, 414, `request URL longer than ${MAX_URL_LENGTH} characters`)
      const method = request.method
      // Reads carry no body: only other methods' bodies are looked at (the headers object is
      // not built on the hot path). The app reads none; refusing them here, before routing
      // and any body parsing, keeps it so whatever a route asks for later.
      if (method !== 'GET' && method !== 'HEAD') {
        const headers = request.headers
        if (Number(headers.get('content-length') ?? 0) > MAX_BODY_BYTES) return refuse(set, url, 413, `request body larger than ${MAX_BODY_BYTES} bytes`)
        if (headers.has('transfer-encoding')) return refuse(set, url, 411, 'a request body must declare its length (Content-Length)')
      }
      if (method === 'OPTIONS') {
        const path = pathOf(url)
        if (COLLECTOR_PATH.test(path)) return refuse(set, url, 403, 'collector routes are not available cross-origin')
        Object.assign(set.headers, headersFor(path).record)
        set.status = 204
        set.headers['access-control-allow-origin'] = '*'
        set.headers['access-control-allow-methods'] = 'GET, HEAD, OPTIONS'
        set.headers['access-control-allow-headers'] = 'If-None-Match, Content-Type'
        set.headers['access-control-max-age'] = '86400'
        return ''
      }
    })
    .onAfterHandle({ as: 'global' }, ({ responseValue, set, path }) => {
      if (!(responseValue instanceof Response)) return void Object.assign(set.headers, headersFor(path).record)
      if (SECURED in responseValue) return
      const headers = responseValue.headers
      for (const [name, value] of headersFor(path).entries) headers.set(name, value)
    })
    .onError({ as: 'global' }, ({ set, path }) => {
      Object.assign(set.headers, headersFor(path).record)
    })

/**
 * The mark of a response built by securedResponse (the hook passes it on untouched): a
 * property on the response itself, where a WeakSet of every response cost a hash insert
 * and weak-reference work for the collector per request (measured: ~5 % of a kept answer).
 */
const SECURED = Symbol('secured')

/** The kinds of answer a route builds itself, by the header set its path gets. */
export type AnswerKind = 'read' | 'page' | 'docs'

type HeaderRecord = Record<string, string>
/** The union of a route's headers and its kind's, by the route's headers object, built once. */
const unions: Record<AnswerKind, WeakMap<HeaderRecord, Headers>> = { read: new WeakMap(), page: new WeakMap(), docs: new WeakMap() }

/**
 * A ready answer with the security headers of its kind of path, built in one go: how a
 * route returns a `Response`. `headers` (content type, caching) are the route's own; pass
 * a constant object where you can: its union with the policy's is then built once, and a
 * response copies a ready `Headers` three times faster than it reads an object (0.25 µs
 * against 0.8 µs, measured).
 */
export function securedResponse(kind: AnswerKind, body: ConstructorParameters<typeof Response>[0], headers: HeaderRecord, status = 200): Response {
  let union = unions[kind].get(headers)
  if (!union) unions[kind].set(headers, (union = new Headers({ ...POLICY[kind].record, ...headers })))
  const response = new Response(body, { status, headers: union })
  ;(response as Response & { [SECURED]?: true })[SECURED] = true
  return response
}

/** An answer before routing: `{error}` with the path's security headers, never cached. */
function refuse(set: { headers: Record<string, string | number>; status?: number | string }, url: string, status: number, error: string) {
  Object.assign(set.headers, headersFor(pathOf(url)).record)
  set.headers['cache-control'] = CACHE_CONTROL.noStore
  set.status = status
  return { error }
}

/** The path of an absolute request URL, without building a URL object on the hot path. */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0) return '/'
  const q = url.indexOf('?', start)
  return q < 0 ? url.slice(start) : url.slice(start, q)
}

/** Cache-Control values, one home each (the HTTP-cached routes' policies are in http/keep.ts). */
export const CACHE_CONTROL = { noStore: 'no-store', revalidate: 'no-cache', immutable: 'public, max-age=31536000, immutable' } as const

const COMMON_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' }
const DATA_ONLY = { 'content-security-policy': "default-src 'none'; frame-ancestors 'none'" }
const READ_CORS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'ETag, Cache-Control' }
const READ_HEADERS = { ...COMMON_HEADERS, ...DATA_ONLY, ...READ_CORS }
const COLLECTOR_HEADERS = { ...COMMON_HEADERS, ...DATA_ONLY }
/**
 * The docs page (routes/openapi.ts) is the one page: it may load scripts, styles, images
 * and the OpenAPI document from the service's own origin and nothing else (its viewer's
 * inline images are data: URLs). Everything else is data.
 */
export const DOCS_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
const DOCS_HEADERS = { ...COMMON_HEADERS, ...READ_CORS, 'content-security-policy': DOCS_PAGE_CSP }

export const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
const PAGE_HEADERS = { ...COMMON_HEADERS, 'content-security-policy': PAGE_CSP }

/** A header set as a record (for `set.headers`) and as entries (to set on a Response). */
const headerSet = (record: Record<string, string>) => ({ record, entries: Object.entries(record) })
const READ = headerSet(READ_HEADERS)
const COLLECTOR = headerSet(COLLECTOR_HEADERS)
const PAGE = headerSet(PAGE_HEADERS)
const DOCS = headerSet(DOCS_HEADERS)
const POLICY = { read: READ, page: PAGE, docs: DOCS } as const

function headersFor(path: string) {
  if (COLLECTOR_PATH.test(path)) return COLLECTOR
  if (PAGE_PATH.test(path)) return PAGE
  return path === '/openapi' || path === '/openapi/' ? DOCS : READ
}
