/** /planet/:planetId/history: the liberation curve of one planet over the last hours. */
import { Elysia, status, t } from 'elysia'
import { errorResponses } from '../http/errors.ts'
import { integerString, parseInteger, parsePlanetIndex, warIdOf, WarIdQuery } from '../http/params.ts'
import { httpPolicy } from '../http/policy.ts'
import type { Store } from '../storage/index.ts'
import { Timestamp } from '../storage/model.ts'
import type { PlanetPoint } from '../storage/planet-status.ts'
import type { ReadContext } from './context.ts'

export const HOURS = { default: 24, max: 720, rawUpTo: 48 } as const
/** Owner id of the human faction: their planets' health counts up, others' counts down. */
const HUMANS = 1
const HOUR_MS = 3_600_000

/** Liberation percentage, rounded to 4 decimals. */
export function libPct(owner: number, health: number, maxHealth: number): number {
  if (maxHealth <= 0) return 0
  const pct = owner === HUMANS ? (health / maxHealth) * 100 : ((maxHealth - health) / maxHealth) * 100
  return Math.round(pct * 10_000) / 10_000
}

const PlanetHistory = t.Object({
  warId: t.Integer({ description: 'War id' }),
  planetIndex: t.Integer({ description: 'Planet index' }),
  maxHealth: t.Integer({ description: 'Maximum health (planet lookup table)' }),
  from: Timestamp('Start of the window (hour-aligned when points are hourly)'),
  to: Timestamp('End of the window (now)'),
  points: t.Array(
    t.Object({
      t: Timestamp('Tick time (raw) or bucket start (hourly)'),
      libPct: t.Number({ description: 'Liberation percentage, 4 decimals' }),
      players: t.Integer({ description: 'Players (hourly: average over the hour, rounded)' }),
      owner: t.Integer({ description: 'Owning faction id (hourly: at the end of the hour)' }),
      health: t.Integer({ description: 'Health (hourly: at the end of the hour)' }),
      regenPerSecond: t.Number({ description: 'Regeneration per second (hourly: at the end of the hour)' }),
    }),
    { description: `Oldest first: every tick up to ${HOURS.rawUpTo} hours, hourly buckets beyond` },
  ),
})

/**
 * The planet's points over the `hours` before `to`: raw ticks up to HOURS.rawUpTo, hourly
 * rollup buckets beyond (then `from` is hour-aligned). Null when the planet is not known
 * for that war.
 */
export async function planetHistory(storage: Store, f: { warId: number; planetIndex: number; hours: number; to: Date }) {
  const maxHealth = await storage.war.planetMaxHealth(f.warId, f.planetIndex)
  if (maxHealth === null) return null
  let from = new Date(f.to.getTime() - f.hours * HOUR_MS)
  let points: PlanetPoint[]
  if (f.hours <= HOURS.rawUpTo) points = await storage.planetStatus.ticks(f.warId, f.planetIndex, from, f.to)
  else {
    // time_bucket's origin (2000-01-03 00:00 UTC) is hour-aligned: flooring to the hour matches the rollup.
    from = new Date(Math.floor(from.getTime() / HOUR_MS) * HOUR_MS)
    points = await storage.planetStatus.hourly(f.warId, f.planetIndex, from, f.to)
  }
  return {
    warId: f.warId,
    planetIndex: f.planetIndex,
    maxHealth,
    from,
    to: f.to,
    points: points.map((p) => ({ t: p.t, libPct: libPct(p.owner, p.health, maxHealth), players: p.players, owner: p.owner, health: p.health, regenPerSecond: p.regenPerSecond })),
  }
}

export const planetHistoryRoutes = (context: ReadContext) =>
  new Elysia({ name: 'routes/planet-history', detail: { tags: ['history'] } })
    .use(context)
    .use(httpPolicy)
    .get(
      '/planet/:planetId/history',
      async ({ params, query, storage, now, warId: defaultWarId }) => {
        const planetIndex = parsePlanetIndex(params.planetId)
        const warId = warIdOf(query) ?? defaultWarId
        // Above the maximum is clamped, as `limit` is on the paged routes.
        const hours = query.hours === undefined ? HOURS.default : Math.min(parseInteger(query.hours, 'hours', 1, Number.MAX_SAFE_INTEGER), HOURS.max)
        const found = await planetHistory(storage, { warId, planetIndex, hours, to: now() })
        if (!found) throw status(404, { error: `planet ${planetIndex} not found in war ${warId}` })
        return found
      },
      {
        noStore: true,
        params: t.Object({ planetId: integerString('planetId', 'Planet index (integer ≥ 0).', '0') }),
        query: t.Object({
          ...WarIdQuery,
          hours: t.Optional(
            integerString('hours', `Window in hours, 1..${HOURS.max}; default ${HOURS.default}; larger values are clamped to ${HOURS.max}.`, '24'),
          ),
        }),
        response: { 200: PlanetHistory, ...errorResponses, 404: t.Object({ error: t.String() }, { description: 'Planet not known for that war' }) },
        detail: {
          summary: 'Planet liberation history',
          description: `Liberation curve of one planet. Up to ${HOURS.rawUpTo} hours: every full-status tick; longer: hourly buckets (state at the end of the hour, players averaged). libPct: human-owned planets health/maxHealth*100, others (maxHealth-health)/maxHealth*100.`,
        },
      },
    )
