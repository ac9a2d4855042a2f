/** /planet/:planetId/history: the liberation curve of one planet over the last hours. */
import { Elysia, status, t } from 'elysia'
import { jsonNoStore, JsonTemplate, type Answers } from '../http/answers.ts'
import { errorResponses } from '../http/errors.ts'
import { integerString, parseInteger, parsePlanetIndex, warIdOf, WarIdQuery } from '../http/params.ts'
import type { Store } from '../storage/index.ts'
import { Timestamp } from '../storage/model.ts'
import type { PlanetPoint } from '../storage/planet-status.ts'
import { libPctOf } from '../war/liberation.ts'
import type { ReadContext } from './context.ts'

export const HOURS = { default: 24, max: 720, rawUpTo: 48 } as const
const HOUR_MS = 3_600_000

/** Liberation percentage (src/war/liberation.ts), rounded to 4 decimals. */
export const libPct = (owner: number, health: number, maxHealth: number) => Math.round(libPctOf(owner, health, maxHealth) * 10_000) / 10_000

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

const hourFloor = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS
const pointOf = (p: PlanetPoint, maxHealth: number) =>
  ({ t: p.t, libPct: libPct(p.owner, p.health, maxHealth), players: p.players, owner: p.owner, health: p.health, regenPerSecond: p.regenPerSecond })

/**
 * A planet's ticks since the hour before the longest raw window, serialised once: any
 * window of up to HOURS.rawUpTo hours is a slice of them (found by binary search).
 */
class TickWindow {
  private readonly times: number[]
  private readonly json: string
  /** Where point i starts in `json`. */
  private readonly offsets: number[]
  private readonly template: JsonTemplate<'from' | 'to' | 'points'>

  constructor(warId: number, planetIndex: number, maxHealth: number, points: PlanetPoint[]) {
    this.times = points.map((p) => p.t.getTime())
    const parts = points.map((p) => JSON.stringify(pointOf(p, maxHealth)))
    this.offsets = []
    let at = 0
    for (const part of parts) {
      this.offsets.push(at)
      at += part.length + 1
    }
    this.json = parts.join(',')
    this.template = new JsonTemplate({ warId, planetIndex, maxHealth, from: null, to: null, points: null }, ['from', 'to', 'points'])
  }

  /** The last window rendered: under load many answers share their millisecond. */
  private last: { from: number; to: number; out: string } | undefined

  render(from: Date, to: Date): string {
    if (this.last?.from === from.getTime() && this.last.to === to.getTime()) return this.last.out
    const out = this.renderWindow(from, to)
    this.last = { from: from.getTime(), to: to.getTime(), out }
    return out
  }

  private renderWindow(from: Date, to: Date): string {
    let lo = 0
    let hi = this.times.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.times[mid]! < from.getTime()) lo = mid + 1
      else hi = mid
    }
    const points = lo < this.times.length ? `[${this.json.slice(this.offsets[lo])}]` : '[]'
    return this.template.renderJson({ from: JSON.stringify(from), to: JSON.stringify(to), points })
  }
}

/**
 * The planet's history over the `hours` before `to`, kept per data version: raw ticks up
 * to HOURS.rawUpTo hours (one kept window per planet and hour), hourly rollup buckets
 * beyond (then `from` is hour-aligned; one kept answer per window). Null when the planet
 * is not known for that war.
 */
async function keptPlanetHistory(answers: Answers, storage: Store, f: { warId: number; planetIndex: number; hours: number; to: Date }): Promise<string | null> {
  const { warId, planetIndex, hours, to } = f
  const datasets = ['planet-status', 'war'] as const
  if (hours <= HOURS.rawUpTo) {
    const since = new Date(hourFloor(to.getTime() - HOURS.rawUpTo * HOUR_MS))
    const window = await answers.get(`planet/${warId}/${planetIndex}/ticks/${since.getTime()}`, datasets, async () => {
      const maxHealth = await storage.war.planetMaxHealth(warId, planetIndex)
      return maxHealth === null ? null : new TickWindow(warId, planetIndex, maxHealth, await storage.planetStatus.ticks(warId, planetIndex, since, to))
    })
    return window?.render(new Date(to.getTime() - hours * HOUR_MS), to) ?? null
  }
  // time_bucket's origin (2000-01-03 00:00 UTC) is hour-aligned: flooring to the hour matches the rollup.
  const from = new Date(hourFloor(to.getTime() - hours * HOUR_MS))
  const template = await answers.get(`planet/${warId}/${planetIndex}/hourly/${from.getTime()}`, datasets, async () => {
    const maxHealth = await storage.war.planetMaxHealth(warId, planetIndex)
    if (maxHealth === null) return null
    const points = (await storage.planetStatus.hourly(warId, planetIndex, from, to)).map((p) => pointOf(p, maxHealth))
    return new JsonTemplate({ warId, planetIndex, maxHealth, from, to, points }, ['to'])
  })
  return template?.render({ to }) ?? null
}

export const planetHistoryRoutes = (context: ReadContext) =>
  new Elysia({ name: 'routes/planet-history', detail: { tags: ['history'] } })
    .use(context)
    .get(
      '/planet/:planetId/history',
      async ({ params, query, storage, answers, now, warId: defaultWarId }) => {
        const planetIndex = parsePlanetIndex(params.planetId)
        const warId = warIdOf(query) ?? defaultWarId
        // Above the maximum is clamped, as `limit` is on the paged routes.
        const hours = query.hours === undefined ? HOURS.default : Math.min(parseInteger(query.hours, 'hours', 1, Number.MAX_SAFE_INTEGER), HOURS.max)
        const body = await keptPlanetHistory(answers, storage, { warId, planetIndex, hours, to: now() })
        if (body === null) throw status(404, { error: `planet ${planetIndex} not found in war ${warId}` })
        return jsonNoStore(body)
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
