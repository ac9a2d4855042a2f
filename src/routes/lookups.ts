/** GET /planets, /sectors, /factions: lookup tables, kept and cached by clients for an hour (spec: revalidated every 3600 s). SQL: storage/war.ts. */
import { Elysia, t } from 'elysia'
import { errorResponses } from '../http/errors.ts'
import { FactionRow, PlanetLookupRow, SectorRow } from '../storage/war.ts'
import type { RouteContext } from './context.ts'

const cacheNote = 'Cached 1 hour; ETag / If-None-Match supported.'
const keep = { datasets: ['war'], http: 'lookup' } as const

export const lookupRoutes = (context: RouteContext) =>
  new Elysia({ name: 'routes/lookups', detail: { tags: ['lookups'] } })
    .use(context)
    .get('/planets', ({ storage }) => storage.war.planets(), {
      response: { 200: t.Array(PlanetLookupRow, { description: 'Planet lookup rows of every stored war, by war then index' }), 503: errorResponses[503] },
      keep,
      detail: { summary: 'Planet lookup table', description: `Name, sector, biome, coordinates and base values of every planet of every war ever stored. ${cacheNote}` },
    })
    .get('/sectors', ({ storage }) => storage.war.sectors(), {
      response: { 200: t.Array(SectorRow, { description: 'Every sector, by name' }), 503: errorResponses[503] },
      keep,
      detail: { summary: 'Sector lookup table', description: `The full sector table. ${cacheNote}` },
    })
    .get('/factions', ({ storage }) => storage.war.factions(), {
      response: { 200: t.Array(FactionRow, { description: 'Every faction, by id' }), 503: errorResponses[503] },
      keep,
      detail: { summary: 'Faction lookup table', description: `The full faction table. ${cacheNote}` },
    })
