/** The OpenAPI 3 document (/openapi/json) and its docs page (/openapi), mounted at the root. */
import { openapi } from '@elysiajs/openapi'

export const openapiDocs = () =>
  openapi({
    path: '/openapi',
    specPath: '/openapi/json',
    documentation: {
      info: {
        title: 'Galactic war statistics',
        version: '1',
        description:
          'Live and historical statistics of the galactic war. Every read route is a GET under /api/v1; errors are `{error: string}` (400 invalid parameter, 404 unknown resource, 503 database or feed unavailable). Dates in are YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (UTC); dates out are ISO-8601. Paged routes return {items, page, limit, totalResults, totalPages}.',
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
