/** Lookup tables, cached in the process and by clients for an hour (spec: revalidated every 3600 s). */
import { Elysia, t } from 'elysia'
import { CACHE_POLICIES } from '../http/cache.ts'
import type { ReadContext } from './context.ts'
import * as q from './lookups.sql.ts'
import { errorResponses } from './schemas.ts'

const Planet = t.Object({
  warID: t.Integer({ description: 'War the row belongs to' }),
  index: t.Integer({ description: 'Planet index' }),
  name: t.String({ description: 'Planet name' }),
  sector: t.Union([t.String(), t.Null()], { description: 'Sector name' }),
  biome: t.Union([t.String(), t.Null()], { description: 'Biome' }),
  position: t.Object({ x: t.Number(), y: t.Number() }, { description: 'Galaxy map coordinates' }),
  maxHealth: t.Integer({ description: 'Maximum health' }),
  initialOwner: t.Integer({ description: 'Faction owning the planet at war start' }),
  disabled: t.Boolean({ description: 'Disabled by the upstream' }),
  waypoints: t.Array(t.Integer(), { description: 'Supply lines to other planet indexes' }),
})
const Sector = t.Object({ name: t.String({ description: 'Sector name' }), planetCount: t.Integer({ description: 'Planets in the sector' }) })
const Faction = t.Object({ id: t.Integer({ description: 'Faction id (the owner values)' }), name: t.String({ description: 'Faction name' }) })

const cacheNote = 'Cached 1 hour; ETag / If-None-Match supported.'

export const lookupRoutes = (ctx: ReadContext) =>
  new Elysia({ name: 'routes/lookups', detail: { tags: ['lookups'] } })
    .get('/planets', ({ request }) => ctx.cache.respond(request, 'planets', CACHE_POLICIES.lookup, () => q.planets(ctx.sql)), {
      response: { 200: t.Array(Planet, { description: 'Planet lookup rows of every stored war, by war then index' }), 503: errorResponses[503] },
      detail: { summary: 'Planet lookup table', description: `Name, sector, biome, coordinates and base values of every planet of every war ever stored. ${cacheNote}` },
    })
    .get('/sectors', ({ request }) => ctx.cache.respond(request, 'sectors', CACHE_POLICIES.lookup, () => q.sectors(ctx.sql)), {
      response: { 200: t.Array(Sector, { description: 'Every sector, by name' }), 503: errorResponses[503] },
      detail: { summary: 'Sector lookup table', description: `The full sector table. ${cacheNote}` },
    })
    .get('/factions', ({ request }) => ctx.cache.respond(request, 'factions', CACHE_POLICIES.lookup, () => q.factions(ctx.sql)), {
      response: { 200: t.Array(Faction, { description: 'Every faction, by id' }), 503: errorResponses[503] },
      detail: { summary: 'Faction lookup table', description: `The full faction table. ${cacheNote}` },
    })
