/** Lookup tables, cached in the process and by clients for an hour (spec: revalidated every 3600 s). */
import { Elysia, t } from 'elysia'
import { errorResponses } from '../http/errors.ts'
import { CACHE_POLICIES } from '../http/response-cache.ts'
import { FactionRow, PlanetLookupRow, SectorRow } from '../storage/war.ts'
import type { ReadContext } from './context.ts'

const cacheNote = 'Cached 1 hour; ETag / If-None-Match supported.'

export const lookupRoutes = (context: ReadContext) =>
  new Elysia({ name: 'routes/lookups', detail: { tags: ['lookups'] } })
    .use(context)
    .get('/planets', async ({ request, cache, storage }) => cache.respond(request, 'planets', CACHE_POLICIES.lookup, ['war'], () => storage.war.planets()), {
      response: { 200: t.Array(PlanetLookupRow, { description: 'Planet lookup rows of every stored war, by war then index' }), 503: errorResponses[503] },
      detail: { summary: 'Planet lookup table', description: `Name, sector, biome, coordinates and base values of every planet of every war ever stored. ${cacheNote}` },
    })
    .get('/sectors', async ({ request, cache, storage }) => cache.respond(request, 'sectors', CACHE_POLICIES.lookup, ['war'], () => storage.war.sectors()), {
      response: { 200: t.Array(SectorRow, { description: 'Every sector, by name' }), 503: errorResponses[503] },
      detail: { summary: 'Sector lookup table', description: `The full sector table. ${cacheNote}` },
    })
    .get('/factions', async ({ request, cache, storage }) => cache.respond(request, 'factions', CACHE_POLICIES.lookup, ['war'], () => storage.war.factions()), {
      response: { 200: t.Array(FactionRow, { description: 'Every faction, by id' }), 503: errorResponses[503] },
      detail: { summary: 'Faction lookup table', description: `The full faction table. ${cacheNote}` },
    })
