/** /planet/:planetId/history: the liberation curve of one planet over the last hours. */
import { Elysia, status, t } from 'elysia'
import { NO_STORE } from '../http/cache.ts'
import { integerString, parseInteger, parsePlanetIndex, warIdOf, WarIdQuery } from '../http/params.ts'
import type { ReadContext } from './context.ts'
import { planetHistory } from './planet-history.sql.ts'
import { errorResponses, IsoDate } from './schemas.ts'

export const HOURS = { default: 24, max: 720, rawUpTo: 48 } as const
/** Owner id of the human faction: their planets' health counts up, others' counts down. */
const HUMANS = 1

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
  from: IsoDate('Start of the window (hour-aligned when points are hourly)'),
  to: IsoDate('End of the window (now)'),
  points: t.Array(
    t.Object({
      t: IsoDate('Tick time (raw) or bucket start (hourly)'),
      libPct: t.Number({ description: 'Liberation percentage, 4 decimals' }),
      players: t.Integer({ description: 'Players (hourly: average over the hour, rounded)' }),
      owner: t.Integer({ description: 'Owning faction id (hourly: at the end of the hour)' }),
      health: t.Integer({ description: 'Health (hourly: at the end of the hour)' }),
      regenPerSecond: t.Number({ description: 'Regeneration per second (hourly: at the end of the hour)' }),
    }),
    { description: `Oldest first: every tick up to ${HOURS.rawUpTo} hours, hourly buckets beyond` },
  ),
})

export const planetHistoryRoutes = (ctx: ReadContext) =>
  new Elysia({ name: 'routes/planet-history', detail: { tags: ['history'] } })
    .onAfterHandle(({ set }) => {
      set.headers['cache-control'] = NO_STORE
    })
    .get(
      '/planet/:planetId/history',
      async ({ params, query }) => {
        const planetIndex = parsePlanetIndex(params.planetId)
        const warId = warIdOf(query) ?? ctx.warId
        // Above the maximum is clamped, as `limit` is on the paged routes.
        const hours = query.hours === undefined ? HOURS.default : Math.min(parseInteger(query.hours, 'hours', 1, Number.MAX_SAFE_INTEGER), HOURS.max)
        const found = await planetHistory(ctx.sql, { warId, planetIndex, hours, rawUpToHours: HOURS.rawUpTo, now: ctx.now() })
        if (!found) throw status(404, { error: `planet ${planetIndex} not found in war ${warId}` })
        const { maxHealth, from, to, rows } = found
        return {
          warId,
          planetIndex,
          maxHealth,
          from: from.toISOString(),
          to: to.toISOString(),
          points: rows.map((r) => ({
            t: r.t.toISOString(),
            libPct: libPct(r.owner, r.health, maxHealth),
            players: r.players,
            owner: r.owner,
            health: r.health,
            regenPerSecond: r.regen_per_second,
          })),
        }
      },
      {
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
