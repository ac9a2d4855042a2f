/**
 * Planet status stored as what changed (sql/0021): for random tick sequences (planets that
 * flip owners, move or stand still, leave the feed and come back; ticks written late,
 * replayed, frozen, live one by one or in import batches), every planet read equals the
 * same read over the per-tick rows those ticks stand for, worked out here from the ticks
 * alone: the rows themselves (the view), a planet's raw and hourly history, its pages of
 * /historical-planet-status with their totals, the liberation windows, the owner changes.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import fc from 'fast-check'
import { fullStatus } from '../../src/collect/full-status.ts'
import { CollectorRunner } from '../../src/collect/runner.ts'
import type { Queryable } from '../../src/db/connect.ts'
import { createFeeds } from '../../src/feeds/index.ts'
import type { WarStatus } from '../../src/feeds/upstream.ts'
import { silentLogger } from '../../src/log.ts'
import { createStore } from '../../src/storage/index.ts'
import type { PlanetPoint } from '../../src/storage/planet-status.ts'
import { statusTick } from '../support/collect.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { loadSample } from '../support/samples.ts'

const TEMPLATE = loadSample('arrowhead/warstatus_801_2024-03-08_sector-hq.json') as WarStatus
const PLANETS = [3, 5, 8, 13]
const T0 = Date.UTC(2026, 0, 5, 0, 2, 7)
const HOUR = 3_600_000

interface Row {
  planet_index: number
  owner: number
  health: number
  regen_per_second: number
  players: number
}
interface Tick {
  warTime: number
  at: Date
  planets: Row[]
  /** The tick's sets: campaigns on some planets, attack lines, effects (each kept where it changes, sql/0022). */
  campaigns: { id: number; planetIndex: number; type: number; count: number }[]
  attacks: { source: number; target: number }[]
  effects: { index: number; galacticEffectId: number }[]
}

/** A planet's next state: mostly as it was, sometimes moved, its owner flipped, or out of the feed. */
const step = fc.record({
  kind: fc.constantFrom('same', 'same', 'same', 'players', 'health', 'owner', 'gone'),
  owner: fc.constantFrom(1, 2, 3),
  health: fc.integer({ min: 0, max: 1_000_000 }),
  players: fc.integer({ min: 0, max: 50_000 }),
})
/** Ticks 5 minutes apart (now and then an outage of an hour or more), each with every planet's step. */
/** The sets move now and then: which planets are fought over, which attack which, which carry an effect. */
const sets = fc.record({ move: fc.constantFrom(false, false, false, true), campaigns: fc.subarray(PLANETS), attacks: fc.subarray(PLANETS), effects: fc.subarray(PLANETS) })
const history = fc.array(
  fc.record({ gap: fc.constantFrom(5, 5, 5, 5, 5, 5, 5, 65, 130), steps: fc.array(step, { minLength: PLANETS.length, maxLength: PLANETS.length }), sets }),
  { minLength: 3, maxLength: 40 },
)

function ticksOf(h: { gap: number; steps: { kind: string; owner: number; health: number; players: number }[]; sets: { move: boolean; campaigns: number[]; attacks: number[]; effects: number[] } }[]): Tick[] {
  let t = T0
  let fought = { campaigns: [] as number[], attacks: [] as number[], effects: [] as number[] }
  const state = new Map<number, Row | null>(PLANETS.map((p) => [p, { planet_index: p, owner: 1, health: 1_000_000, regen_per_second: 13.888889, players: 0 }]))
  return h.map(({ gap, steps, sets: next }, k) => {
    t += gap * 60_000
    if (next.move || k === 0) fought = next
    PLANETS.forEach((p, i) => {
      const s = steps[i]!
      const was = state.get(p) ?? { planet_index: p, owner: 1, health: 1_000_000, regen_per_second: 13.888889, players: 0 }
      if (s.kind === 'gone') state.set(p, null)
      else if (s.kind === 'players') state.set(p, { ...was, players: s.players })
      else if (s.kind === 'health') state.set(p, { ...was, health: s.health })
      else if (s.kind === 'owner') state.set(p, { ...was, owner: s.owner, regen_per_second: s.owner === 1 ? 13.888889 : 4.1666665 })
      else state.set(p, state.get(p) === null ? null : was)
    })
    return {
      warTime: 10_000 + k * 300, at: new Date(t), planets: PLANETS.flatMap((p) => (state.get(p) ? [state.get(p)!] : [])),
      campaigns: fought.campaigns.map((p) => ({ id: 70_000 + p, planetIndex: p, type: 0, count: 1 })),
      attacks: fought.attacks.map((p) => ({ source: p, target: PLANETS[(PLANETS.indexOf(p) + 1) % PLANETS.length]! })),
      effects: fought.effects.map((p) => ({ index: p, galacticEffectId: 1000 + p })),
    }
  })
}

/** How the ticks arrive: in order, with some late, some again (replayed), some again later with their war time (frozen), live or in batches. */
const arrival = (n: number) =>
  fc.record({
    order: fc.array(fc.nat({ max: 100 }), { minLength: n, maxLength: n }),
    late: fc.double({ min: 0, max: 0.3, noNaN: true }),
    replays: fc.array(fc.nat({ max: n - 1 }), { maxLength: 3 }),
    batch: fc.constantFrom(0, 0, 3, 8, 40),
  })

function arrivalsOf(ticks: readonly Tick[], a: { order: number[]; late: number; replays: number[] }): { tick: Tick; at: Date }[] {
  // A tick is late when its draw says so: it moves some places back.
  const keyed = ticks.map((t, k) => ({ t, key: a.order[k]! / 100 < a.late ? k + 1 + (a.order[k]! % 5) : k }))
  const out = keyed.sort((x, y) => x.key - y.key).map(({ t }) => ({ tick: t, at: t.at }))
  for (const r of a.replays) out.push({ tick: ticks[r]!, at: ticks[r]!.at }, { tick: ticks[r]!, at: new Date(ticks.at(-1)!.at.getTime() + 60_000) })
  return out
}

const statusOf = (t: Tick, warId: number): WarStatus => ({
  ...TEMPLATE, warId, time: t.warTime, campaigns: t.campaigns, planetEvents: [], jointOperations: [], planetAttacks: t.attacks, planetActiveEffects: t.effects,
  planetStatus: t.planets.map((p) => ({ index: p.planet_index, owner: p.owner, health: p.health, regenPerSecond: p.regen_per_second, players: p.players })),
})

// ------------------------------------------------------------------ the reference: per-tick rows

interface Dense extends PlanetPoint {
  planet: number
}
const denseOf = (ticks: readonly Tick[]): Dense[] =>
  [...ticks].sort((a, b) => +a.at - +b.at).flatMap((t) => t.planets.map((p) => ({ planet: p.planet_index, t: t.at, owner: p.owner, health: p.health, regenPerSecond: p.regen_per_second, players: p.players })))
const pointOf = ({ planet: _, ...p }: Dense): PlanetPoint => p

/** Hourly buckets of rows: the state at the hour's last row, the players averaged. */
function hoursOf(rows: readonly Dense[], from: number, to: number): PlanetPoint[] {
  const byHour = new Map<number, Dense[]>()
  for (const r of rows) {
    const h = Math.floor(r.t.getTime() / HOUR) * HOUR
    if (h >= from && h <= to) byHour.set(h, [...(byHour.get(h) ?? []), r])
  }
  return [...byHour].sort((a, b) => a[0] - b[0]).map(([h, rs]) => {
    const last = rs.at(-1)!
    return { t: new Date(h), owner: last.owner, health: last.health, regenPerSecond: last.regenPerSecond, players: Math.round(rs.reduce((s, r) => s + r.players, 0) / rs.length) }
  })
}

/** Owner changes: a row whose owner differs from the planet's row before it. */
const ownerChangesOf = (rows: readonly Dense[]) =>
  PLANETS.flatMap((p) => rows.filter((r) => r.planet === p).flatMap((r, i, own) => (i > 0 && own[i - 1]!.owner !== r.owner ? [`${r.t.toISOString()} ${p} ${own[i - 1]!.owner}>${r.owner}`] : []))).sort()

describeOnEachDatabase('planet status as changes', (target) => {
  let db: TestDatabase
  let runner: CollectorRunner
  let war = 3000
  beforeAll(async () => {
    db = await target.open()
    const feeds = createFeeds({
      upstreamUrl: 'http://127.0.0.1:9/u', communityApiUrl: 'http://127.0.0.1:9/c', pcstoreApiUrl: 'http://127.0.0.1:9/p',
      feedTimeoutMs: 1000, clientName: 'test', clientContact: 'test@example.invalid', feedLanguages: ['en-US'],
    })
    runner = new CollectorRunner({ db, store: createStore(db), feeds, log: silentLogger, config: { warId: 801 } })
  }, 120_000)
  afterAll(async () => {
    await db?.dispose()
  })

  test('every planet read equals the same read over the per-tick rows', async () => {
    const store = () => createStore(db).planetStatus
    await fc.assert(
      fc.asyncProperty(history.chain((h) => fc.tuple(fc.constant(h), arrival(h.length))), async ([h, a]) => {
        const warId = ++war
        const ticks = ticksOf(h)
        const arrivals = arrivalsOf(ticks, a)
        if (a.batch) {
          for (let i = 0; i < arrivals.length; i += a.batch) {
            const batch = arrivals.slice(i, i + a.batch).map(({ tick, at }) => ({ at, tick: statusTick(statusOf(tick, warId), at, warId) }))
            await db.sql.begin((tx) => fullStatus.writeBatch!(tx, batch))
          }
        } else {
          for (const { tick, at } of arrivals) await runner.write(fullStatus, statusTick(statusOf(tick, warId), at, warId))
        }
        const dense = denseOf(ticks)
        const first = ticks[0]!.at.getTime()
        const last = ticks.at(-1)!.at.getTime()

        // The rows themselves, through the view every other read must agree with.
        const view = await db.sql<{ t: Date; planet: number; owner: number; health: string; regen: number; players: number }[]>`
          SELECT captured_at AS t, planet_index AS planet, owner, health::text, regen_per_second AS regen, players
          FROM planet_status_snapshots WHERE war_id = ${warId} ORDER BY captured_at, planet_index`
        expect(view.map((r) => `${r.t.toISOString()} ${r.planet} ${r.owner} ${r.health} ${r.regen} ${r.players}`)).toEqual(
          dense.map((r) => `${r.t.toISOString()} ${r.planet} ${r.owner} ${r.health} ${r.regenPerSecond} ${r.players}`),
        )
        // The kept hours, every column: what planet_status_hours_rebuild computes again from the
        // changes and the ticks (an in-order batch sums its own, storage/planet-status.ts).
        const hourRows = (sql: Queryable) => sql<{ r: string }[]>`SELECT to_jsonb(h)::text AS r FROM planet_status_hours h WHERE war_id = ${warId} ORDER BY planet_index, bucket`
        const kept = (await hourRows(db.sql)).map((x) => x.r)
        let rebuilt: string[] = []
        await db.sql
          .begin(async (tx) => {
            await tx`SELECT planet_status_hours_rebuild(${warId}, '-infinity', (SELECT time_bucket(interval '1 hour', max(captured_at)) FROM full_status_ticks WHERE war_id = ${warId} AND planets_written > 0))`
            rebuilt = (await hourRows(tx)).map((x) => x.r)
            throw new Error('rolled back')
          })
          .catch((err: Error) => expect(err.message).toBe('rolled back'))
        expect(kept).toEqual(rebuilt)
        // What changed only: no row says what the row before it said (whatever order the ticks came in).
        const repeated = await db.sql`
          SELECT 1 FROM (
            SELECT (owner, health, regen_per_second, players) IS NOT DISTINCT FROM
                   (lag(owner) OVER w, lag(health) OVER w, lag(regen_per_second) OVER w, lag(players) OVER w) AND lag(captured_at) OVER w IS NOT NULL AS same
            FROM planet_status_changes WHERE war_id = ${warId} WINDOW w AS (PARTITION BY planet_index ORDER BY captured_at)) x WHERE same
          UNION ALL
          SELECT 1 FROM (
            SELECT items = lag(items) OVER w AS same FROM tick_sets WHERE war_id = ${warId} WINDOW w AS (PARTITION BY kind ORDER BY captured_at)) y WHERE same`
        expect(repeated.length).toBe(0)
        // The sets at each tick, through the views of the rows they stand for, and as the reads give them.
        const tickSets = [...ticks].sort((a, b) => +a.at - +b.at)
        const setRows = async (view: string, cols: string) =>
          (await db.sql.unsafe(`SELECT captured_at AS t, concat_ws(' ', ${cols}) AS r FROM ${view} WHERE war_id = $1 ORDER BY captured_at, r`, [warId])).map((x: any) => `${x.t.toISOString()} ${x.r}`)
        expect(await setRows('campaign_snapshots', 'campaign_id, planet_index, type, count')).toEqual(
          tickSets.flatMap((t) => [...t.campaigns].sort((a, b) => a.id - b.id).map((c) => `${t.at.toISOString()} ${c.id} ${c.planetIndex} 0 1`)).sort())
        expect(await setRows('planet_attack_snapshots', 'source_index, target_index, lanes')).toEqual(
          tickSets.flatMap((t) => t.attacks.map((a) => `${t.at.toISOString()} ${a.source} ${a.target} 1`)).sort())
        expect(await setRows('planet_effect_snapshots', 'planet_index, effect_id')).toEqual(
          tickSets.flatMap((t) => t.effects.map((e) => `${t.at.toISOString()} ${e.index} ${e.galacticEffectId}`)).sort())
        const fightStore = createStore(db).fight
        for (const t of tickSets) {
          expect((await fightStore.attacksAt(warId, t.at)).map((a) => `${a.source}>${a.target}`)).toEqual([...t.attacks].sort((a, b) => a.source - b.source || a.target - b.target).map((a) => `${a.source}>${a.target}`))
        }
        const owners = await db.sql<{ t: Date; p: number; f: number; o: number }[]>`
          SELECT captured_at AS t, planet_index AS p, from_owner AS f, to_owner AS o FROM planet_owner_changes WHERE war_id = ${warId}`
        expect(owners.map((r) => `${r.t.toISOString()} ${r.p} ${r.f}>${r.o}`).sort()).toEqual(ownerChangesOf(dense))

        const s = store()
        for (const p of PLANETS) {
          const mine = dense.filter((r) => r.planet === p)
          // Raw windows: all, and one cut inside.
          for (const [from, to] of [[first - 1, last + 1], [first + 37 * 60_000, last - 23 * 60_000]] as const) {
            const got = await s.ticks(warId, p, new Date(from), new Date(to))
            expect(got).toEqual(mine.filter((r) => r.t.getTime() >= from && r.t.getTime() <= to).map(pointOf))
          }
          // Hourly: from each hour up to the end (every kept and the open hour).
          for (const from of [Math.floor(first / HOUR) * HOUR, Math.floor(first / HOUR) * HOUR + HOUR]) {
            expect(await s.hourly(warId, p, new Date(from), new Date(last + HOUR))).toEqual(hoursOf(mine, from, last + HOUR))
            expect(await s.hourly(warId, p, new Date(from), new Date(Math.floor(last / HOUR) * HOUR - 1))).toEqual(hoursOf(mine, from, Math.floor(last / HOUR) * HOUR - 1))
          }
          // Pages of /historical-planet-status, newest first, with their totals.
          const newest = [...mine].reverse()
          for (const range of [{ from: null, to: null, toExclusive: false }, { from: new Date(first + HOUR / 2), to: new Date(last - HOUR / 3), toExclusive: false }]) {
            const inRange = newest.filter((r) => (!range.from || r.t >= range.from) && (!range.to || r.t <= range.to))
            for (const offset of [0, 3, Math.floor(inRange.length / 2), Math.max(0, inRange.length - 2)]) {
              const page = await s.history({ warId, planetIndex: p, range }, { offset, limit: 5 })
              expect(page.total).toBe(inRange.length)
              expect(page.rows.map((r) => `${r.timestamp.toISOString()} ${r.owner} ${r.health} ${r.players}`)).toEqual(
                inRange.slice(offset, offset + 5).map((r) => `${r.t.toISOString()} ${r.owner} ${r.health} ${r.players}`),
              )
            }
          }
          const edgesFrom = new Date(first + HOUR)
          const after = mine.filter((r) => r.t >= edgesFrom)
          expect(await s.historyEdges({ warId, planetIndex: p }, edgesFrom)).toEqual({ oldest: after[0]?.t ?? null, newest: after.at(-1)?.t ?? null })
        }
      }),
      { numRuns: 15 },
    )
  }, 600_000)
})
