/** GET /planets, /sectors, /factions: lookup tables, kept and cached by clients for an hour (spec: revalidated every 3600 s). SQL: storage/war.ts, storage/planet-effects.ts; /planets: services/planets.ts. */
import { Elysia, t } from 'elysia'
import { errorResponses } from '../http/errors.ts'
import { planetsWithWorld } from '../services/planets.ts'
import { Nullable } from '../storage/model.ts'
import { FactionRow, PlanetLookupRow, SectorRow } from '../storage/war.ts'
import type { RouteContext } from './context.ts'

const cacheNote = 'Cached 1 hour; ETag / If-None-Match supported.'
const keep = { datasets: ['war'], http: 'lookup' } as const

/** A name and description from the shipped tables (null, both, for a key or id they do not know). */
const described = {
  name: Nullable(t.String(), 'Name (null: not in the shipped table)'),
  description: Nullable(t.String(), 'Description (null: not in the shipped table)'),
}
const Keyed = (what: string) => t.Object({ key: t.String({ description: `${what} key of the shipped table` }), ...described }, { description: what })

const PlanetWorld = t.Object(
  {
    biome: t.Union([Keyed('Biome'), t.Null()], { description: "The biome of the row's `biome` key (biomes.json); null when the row has none" }),
    hazards: t.Array(Keyed('Hazard'), { description: 'Environmental hazards of the planet (planets.json environmentals through environmentals.json); [] when none or unknown' }),
    regions: t.Array(
      t.Object({
        index: t.Integer({ description: 'Region index on the planet' }),
        hash: t.Integer({ description: 'Region settings hash (the key of planetRegion.json)' }),
        ...described,
        type: Nullable(t.String(), 'Region type in planetRegion.json (e.g. Metropolis)'),
        faction: Nullable(t.String(), 'Region faction in planetRegion.json'),
        maxHealth: Nullable(t.Integer(), 'The region\'s max health (war info; the scale of its health); null before the war info lists it'),
        regionSize: Nullable(t.Integer(), 'War info regionSize: 0 settlement, 1 town, 2 city, 3 megacity'),
        inPlay: t.Union([
          t.Object({
            owner: t.Integer({ description: 'Owning faction id' }),
            health: t.Integer({ description: 'Health on the region\'s own scale' }),
            libPct: Nullable(t.Number(), 'Liberation % on that scale, as /regions'),
            players: t.Integer(),
            available: Nullable(t.Boolean(), 'isAvailable'),
          }),
          t.Null(),
        ], { description: 'Its state at the latest tick listing regions (latest war only; /regions has its rate and outlook); null when not in play' }),
      }),
      { description: 'Regions (cities) the war info lists for the planet, by index; [] when it lists none (every 2024 payload)' },
    ),
  },
  { description: "The planet's world, from the shipped lookup tables and the war info" },
)

const PlanetEffect = t.Object({ id: t.Integer({ description: 'Galactic effect id' }), ...described }, { description: 'A galactic effect active on the planet' })

const PlanetRow = t.Object({
  ...PlanetLookupRow.properties,
  world: PlanetWorld,
  effects: t.Array(PlanetEffect, {
    description: 'Galactic effects active at the latest full-status tick (status feed planetActiveEffects; names from planetEffects.json), by id; [] on the rows of older wars',
  }),
})

export const lookupRoutes = (context: RouteContext) =>
  new Elysia({ name: 'routes/lookups', detail: { tags: ['lookups'] } })
    .use(context)
    .get('/planets', ({ storage }) => planetsWithWorld(storage), {
      response: { 200: t.Array(PlanetRow, { description: 'Planet lookup rows of every stored war, by war then index' }), 503: errorResponses[503] },
      // The effects come from the full-status ticks: kept per planet-status version too.
      keep: { datasets: ['war', 'planet-status'], http: 'lookup' },
      detail: {
        summary: 'Planet lookup table',
        description: `Name, sector, biome, coordinates and base values of every planet of every war ever stored, with its world (biome, hazards, regions) and the galactic effects active at the latest full-status tick. ${cacheNote} Effects can be up to that hour old in a client's cache.`,
      },
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
