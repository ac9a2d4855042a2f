/**
 * The OpenAPI 3 document (/openapi/json) and its docs page (/openapi), mounted at the root.
 * The page is self-contained: its viewer (Swagger UI) comes from the pinned npm package
 * swagger-ui-dist, served by the service under a versioned path, so the page neither
 * depends on a CDN nor runs whatever a CDN publishes that day, and works offline. Its
 * Content-Security-Policy (http/security.ts) allows the service's own origin only.
 *
 * Why not Scalar (@elysiajs/openapi's default viewer, from a CDN at @latest): its npm
 * npm package pulls a large tree of dependencies into the runtime install.
 */
import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CACHE_CONTROL, securedResponse, securityPolicy } from '../http/security.ts'

export const DOCS_PATH = '/openapi'
const SPEC_PATH = `${DOCS_PATH}/json`

export const openapiDocs = () =>
  openapi({
    path: DOCS_PATH,
    specPath: SPEC_PATH,
    // The page is ours (docsPage below); the plugin serves the document only.
    provider: null,
    documentation: {
      info: {
        title: 'Galactic war statistics',
        version: '1',
        description:
          'Live and historical statistics of the galactic war. Every read route is a GET under /api/v1; errors are `{error: string}` (400 invalid parameter, 404 unknown resource, 429 over the client\'s budget, 503 database or feed unavailable). Each client address has a budget, stated by the RateLimit-Policy and RateLimit headers of every answer (a kept answer costs 1 unit, a computed one 10 by default; 429 with Retry-After when spent); an X-API-Key header gives a larger one (401 when the key is unknown or revoked). Dates in are YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (UTC); dates out are ISO-8601. Paged routes return {items, page, limit, totalResults, totalPages}.',
      },
      tags: [
        { name: 'live', description: 'Live figures from the feeds and the diver history' },
        { name: 'war', description: 'Current war state (cached 30 s)' },
        { name: 'lookups', description: 'Lookup tables (cached 1 hour)' },
        { name: 'history', description: 'Stored snapshots, paged (not cached)' },
        { name: 'health', description: 'Liveness, readiness and upstream client diagnostics' },
      ],
    },
  })

const VIEWER_DIR = dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')))
const VIEWER_VERSION = (JSON.parse(readFileSync(join(VIEWER_DIR, 'package.json'), 'utf8')) as { version: string }).version
/** The viewer's files live under its version: a new version is a new URL, so they can be cached for good. */
export const VIEWER_ASSETS = `${DOCS_PATH}/assets/swagger-ui-dist@${VIEWER_VERSION}`
const VIEWER_FILES = { 'swagger-ui-bundle.js': 'text/javascript; charset=utf-8', 'swagger-ui.css': 'text/css; charset=utf-8', 'index.css': 'text/css; charset=utf-8' }

// The viewer's start-up, as a script of the service (the CSP allows no inline script).
// No validator badge: Swagger UI would send the document to validator.swagger.io.
const START_SCRIPT = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(SPEC_PATH)}, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null })\n`

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Galactic war statistics: API reference</title>
<link rel="stylesheet" href="${VIEWER_ASSETS}/swagger-ui.css">
<link rel="stylesheet" href="${VIEWER_ASSETS}/index.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${VIEWER_ASSETS}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/start.js"></script>
</body>
</html>
`

// Constant header objects: securedResponse builds each one's union with the policy once.
const PAGE_HEADERS = { 'content-type': 'text/html; charset=utf-8', 'cache-control': CACHE_CONTROL.revalidate }
const SCRIPT_HEADERS = { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': CACHE_CONTROL.revalidate }

/** The docs page, its start script and the viewer's files, all from this service. */
export const docsPage = () => {
  const app = new Elysia({ name: 'routes/docs-page' })
    .use(securityPolicy())
    .get(DOCS_PATH, () => securedResponse('docs', PAGE, PAGE_HEADERS), {
      policy: 'docs',
      detail: { hide: true },
    })
    .get(`${DOCS_PATH}/start.js`, () => securedResponse('read', START_SCRIPT, SCRIPT_HEADERS), {
      detail: { hide: true },
    })
  for (const [file, type] of Object.entries(VIEWER_FILES)) {
    const path = join(VIEWER_DIR, file)
    const headers = { 'content-type': type, 'cache-control': CACHE_CONTROL.immutable }
    app.get(`${VIEWER_ASSETS}/${file}`, () => securedResponse('read', Bun.file(path), headers), {
      detail: { hide: true },
    })
  }
  return app
}
