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

/** Where a request's policy is kept once its route is known (the `policy` route option). */
const POLICY_OF = Symbol('policy')
type WithPolicy = { [POLICY_OF]?: AnswerKind }

/**
 * Security headers and the CORS policy, for every response. Each plugin declares the
 * policy of its routes with the `policy` route option (usually in a guard around them):
 * - `read` (the default): public data any origin may GET (no credentials); the CSP allows
 *   nothing to run; a value answered without a Cache-Control of its own is `no-store`;
 * - `collector`: data without CORS headers: the POST collector routes, whose preflight
 *   (routes/collect.ts) is refused, so browsers never send the secret-bearing POST;
 * - `page`: the dashboard pages (src/pages), with a CSP that allows scripts, styles,
 *   images and fetches from this origin only (no inline code, no CDN);
 * - `docs`: the API docs page (routes/openapi.ts).
 * An answer no route gave (an unknown path, a refusal before routing) takes the policy the
 * app declares for its path's prefix (`unrouted`: the collectors' and the pages' paths),
 * else `read`.
 *
 * `securityPolicy()` brings the `policy` option to a plugin; `securityHeaders()`, used once
 * at the root, applies the headers to every answer.
 *
 * Over-long URLs (414), declared bodies over MAX_BODY_BYTES (413) and streamed bodies of
 * unknown length (411) are refused before routing, as `{error}`: the server itself
 * (main.ts) sets no body limit of its own, whose refusals would go out bare.
 *
 * The headers are added after the handler, not put into `set.headers` before it:
 * - a value (an object, a string) gets them in `set`, like its status;
 * - a ready `Response` from `securedResponse` already carries them, and is passed on as
 *   it is: headers in `set` would make Elysia copy a returned response and its headers on
 *   every request;
 * - any other `Response` (a plugin's) gets them set on its headers;
 * - errors get them in `set`.
 */
export const securityPolicy = () =>
  new Elysia({ name: 'http/security-policy' }).macro({
    policy: (kind: AnswerKind) => ({
      // Before validation, so that a refused parameter is answered under the route's policy too.
      transform(c: object) {
        ;(c as WithPolicy)[POLICY_OF] = kind
      },
    }),
  })

/** Whole paths, or prefixes (ending in `/*`), and the policy of the answers no route gives there. */
export type UnroutedPolicies = ReadonlyArray<readonly [path: string, kind: AnswerKind]>

export const securityHeaders = (opts: { unrouted?: UnroutedPolicies } = {}) => {
  const unrouted = opts.unrouted ?? []
  const unroutedPolicy = (path: string) => {
    for (const [p, kind] of unrouted) if (p.endsWith('/*') ? path.startsWith(p.slice(0, -1)) : path === p) return POLICY[kind]
    return READ
  }
  return new Elysia({ name: 'http/security' })
    // Elysia awaits a request hook whose text shows a returned call (`return f(...)`) and
    // then makes every route's request handler async: the refusal is read by a function
    // and answered here.
    .onRequest(({ request, set }) => {
      const refusal = refusalOf(request)
      if (refusal === undefined) return
      Object.assign(set.headers, unroutedPolicy(pathOf(request.url)).record)
      set.headers['cache-control'] = CACHE_CONTROL.noStore
      set.status = refusal.status
      return { error: refusal.error }
    })
    // The hooks name the context's fields they read and never hand the context itself to a
    // function: Elysia reads a hook's text to decide what to prepare for every request
    // (cookies, headers, query...), and a context passed whole makes it prepare everything.
    .onAfterHandle({ as: 'global' }, (c) => {
      const responseValue = c.responseValue
      const set = c.set
      // Answered by a route: its declared policy, else data.
      const policy = POLICY[(c as WithPolicy)[POLICY_OF] ?? 'read']
      if (!(responseValue instanceof Response)) {
        Object.assign(set.headers, policy.record)
        if (policy.noStore) set.headers['cache-control'] ??= CACHE_CONTROL.noStore
        return
      }
      if (SECURED in responseValue) return
      const headers = responseValue.headers
      for (const [name, value] of policy.entries) headers.set(name, value)
    })
    .onError({ as: 'global' }, (c) => {
      const kind = (c as WithPolicy)[POLICY_OF]
      // No route's policy yet (an unknown path, a refusal before routing): the path's.
      const policy = kind ? POLICY[kind] : unroutedPolicy(c.path ?? '/')
      Object.assign(c.set.headers, policy.record)
    })
}

/** Why a request is refused before routing (414, 413, 411), if it is. */
function refusalOf(request: Request): { status: number; error: string } | undefined {
  if (request.url.length > MAX_URL_LENGTH) return { status: 414, error: `request URL longer than ${MAX_URL_LENGTH} characters` }
  const method = request.method
  // Reads carry no body: only other methods' bodies are looked at (the headers object is
  // not built on the hot path). The app reads none; refusing them here, before routing
  // and any body parsing, keeps it so whatever a route asks for later.
  if (method !== 'GET' && method !== 'HEAD') {
    const headers = request.headers
    if (Number(headers.get('content-length') ?? 0) > MAX_BODY_BYTES) return { status: 413, error: `request body larger than ${MAX_BODY_BYTES} bytes` }
    if (headers.has('transfer-encoding')) return { status: 411, error: 'a request body must declare its length (Content-Length)' }
  }
  return undefined
}

/** A CORS preflight: answered for the public reads (any origin may GET them). */
export const readPreflight = () =>
  securedResponse('read', null, PREFLIGHT_HEADERS, 204)

/**
 * The mark of a response built by securedResponse (the hook passes it on untouched): a
 * property on the response itself, where a WeakSet of every response would cost a hash
 * insert and weak-reference work for the collector per request.
 */
const SECURED = Symbol('secured')

/** The security policies a route can declare (its `policy` option), each a set of headers. */
export type AnswerKind = 'read' | 'collector' | 'page' | 'docs'

type HeaderRecord = Record<string, string>
/** The union of a route's headers and its kind's, by the route's headers object, built once. */
const unions: Record<AnswerKind, WeakMap<HeaderRecord, Headers>> = { read: new WeakMap(), collector: new WeakMap(), page: new WeakMap(), docs: new WeakMap() }

/**
 * A ready answer with the security headers of its policy, built in one go: how a route
 * returns a `Response`. `headers` (content type, caching) are the route's own; pass a
 * constant object where you can: its union with the policy's is then built once (a
 * response copies a ready `Headers` faster than it reads an object).
 */
export function securedResponse(kind: AnswerKind, body: ConstructorParameters<typeof Response>[0], headers: HeaderRecord, status = 200): Response {
  let union = unions[kind].get(headers)
  if (!union) unions[kind].set(headers, (union = new Headers({ ...POLICY[kind].record, ...headers })))
  const response = new Response(body, { status, headers: union })
  ;(response as Response & { [SECURED]?: true })[SECURED] = true
  return response
}

/** The path of an absolute request URL, without building a URL object. */
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
const READ_CORS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'ETag, Cache-Control, RateLimit, RateLimit-Policy, Retry-After' }
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

/** A header set as a record (for `set.headers`) and as entries (to set on a Response); data answers are no-store unless they say otherwise. */
const headerSet = (record: Record<string, string>, noStore: boolean) => ({ record, entries: Object.entries(record), noStore })
const READ = headerSet(READ_HEADERS, true)
const POLICY = {
  read: READ,
  collector: headerSet(COLLECTOR_HEADERS, true),
  page: headerSet(PAGE_HEADERS, false),
  docs: headerSet(DOCS_HEADERS, false),
} as const

const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'If-None-Match, Content-Type, X-API-Key',
  'access-control-max-age': '86400',
}
