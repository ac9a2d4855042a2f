/**
 * /planet/:planetId/history on seeded ticks, on the embedded database and on TimescaleDB:
 * raw ticks up to 48 hours, hourly rollup buckets beyond, libPct, clamping and 404, and
 * how much of the window the stored history spans (since, coverage), kept answers included.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { refreshRollups } from '../../src/storage/rollups.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { seedPlanetStatus, seedWarsAndLookups } from '../support/seed.ts'
import { announcing, errorOf, openHarness, type Harness } from './helpers.ts'

const HOUR = 3_600_000
const MAX = 1_000_000

describeOnEachDatabase('planet history', (target) => {
  let h: Harness
  let db: TestDatabase
  let now: Date

  beforeAll(async () => {
    db = await target.open()
    now = new Date(Date.now() - 2000)
    await seedWarsAndLookups(db.sql, now)
    await seedPlanetStatus(db.sql, now)
    await refreshRollups(db.sql, db.info.edition, now)
    h = await openHarness({ db })
  }, 120_000)
  afterAll(() => h?.close())

  const rawTicks = (planet: number, from: string, to: string) => h.db.sql<{ t: Date; owner: number; health: number; regen_per_second: number; players: number }[]>`
    SELECT captured_at AS t, owner, health, regen_per_second, players FROM planet_status_snapshots
    WHERE war_id = 801 AND planet_index = ${planet} AND captured_at >= ${new Date(from)} AND captured_at <= ${new Date(to)}
    ORDER BY captured_at`

  for (const [planet, hours] of [[0, 24], [1, 48], [2, 6]] as const) {
    test(`planet ${planet}, ${hours} h: every raw tick, oldest first, libPct from maxHealth`, async () => {
      const res = await h.get(`/planet/${planet}/history?hours=${hours}`)
      expect(res.status).toBe(200)
      expect(res.headers.get('cache-control')).toBe('no-store')
      const { body } = res
      expect(body).toMatchObject({ warId: 801, planetIndex: planet, maxHealth: MAX })
      expect(Date.parse(body.to) - Date.parse(body.from)).toBe(hours * HOUR)
      const raw = await rawTicks(planet, body.from, body.to)
      expect(raw.length).toBeGreaterThanOrEqual(hours * 12 - 1)
      expect(body.points).toEqual(
        raw.map((r) => ({
          t: r.t.toISOString(),
          libPct: Math.round((r.owner === 1 ? r.health / MAX : (MAX - r.health) / MAX) * 100 * 10_000) / 10_000,
          players: r.players,
          owner: r.owner,
          health: r.health,
          regenPerSecond: r.regen_per_second,
        })),
      )
    })
  }

  test('default is 24 hours; warId / warID select the war', async () => {
    const res = await h.get('/planet/0/history')
    expect(Date.parse(res.body.to) - Date.parse(res.body.from)).toBe(24 * HOUR)
    const old = await h.get('/planet/0/history?warID=800')
    expect(old.body.warId).toBe(800)
    expect(old.body.points).toHaveLength(13)
    expect(old.body.points.every((p: any) => p.health === 42 && p.libPct === 0.0042)).toBe(true)
    expect((await h.get('/planet/0/history?warId=800')).body.points).toEqual(old.body.points)
  })

  for (const hours of [49, 720]) {
    test(`${hours} h: hourly buckets of the rollup (end-of-hour state, average players)`, async () => {
      const res = await h.get(`/planet/1/history?hours=${hours}`)
      const { body } = res
      expect(Date.parse(body.from) % HOUR).toBe(0)
      expect(Date.parse(body.to) - Date.parse(body.from)).toBeGreaterThanOrEqual(hours * HOUR)
      expect(Date.parse(body.to) - Date.parse(body.from)).toBeLessThan((hours + 1) * HOUR)
      expect(body.points.length).toBeGreaterThanOrEqual(hours)
      expect(body.points.length).toBeLessThanOrEqual(hours + 1)
      // The same buckets computed from the raw ticks.
      const expected = await h.db.sql<{ t: Date; owner: number; health: number; regen: number; players: number }[]>`
        SELECT date_trunc('hour', captured_at) AS t,
               (array_agg(owner ORDER BY captured_at DESC))[1] AS owner,
               (array_agg(health ORDER BY captured_at DESC))[1] AS health,
               (array_agg(regen_per_second ORDER BY captured_at DESC))[1] AS regen,
               round(avg(players))::int AS players
        FROM planet_status_snapshots
        WHERE war_id = 801 AND planet_index = 1 AND captured_at >= ${new Date(body.from)}
        GROUP BY 1 ORDER BY 1`
      expect(body.points).toEqual(
        expected.map((r) => ({ t: r.t.toISOString(), libPct: Math.round(((MAX - r.health) / MAX) * 100 * 10_000) / 10_000, players: r.players, owner: r.owner, health: r.health, regenPerSecond: r.regen })),
      )
    })
  }

  test('hours above 720 are clamped to 720', async () => {
    const res = await h.get('/planet/2/history?hours=100000')
    expect(res.status).toBe(200)
    const span = Date.parse(res.body.to) - Date.parse(res.body.from)
    expect(span).toBeGreaterThanOrEqual(720 * HOUR)
    expect(span).toBeLessThan(721 * HOUR)
  })

  /** The planet's first stored tick in the war, read directly. */
  const firstTick = async (war: number, planet: number) =>
    (await h.db.sql<{ t: Date | null }[]>`SELECT min(captured_at) AS t FROM planet_status_snapshots WHERE war_id = ${war} AND planet_index = ${planet}`)[0]!.t
  /** The share of [from, to] from `first` on, 4 decimals (0 without a tick). */
  const covered = (first: Date | null, body: { from: string; to: string }) => {
    const [from, to] = [Date.parse(body.from), Date.parse(body.to)]
    return first === null ? 0 : Math.round(Math.min(1, (to - Math.max(from, first.getTime())) / (to - from)) * 10_000) / 10_000
  }

  test('since is the planet\'s first stored tick in the war, coverage the share of the window from it on', async () => {
    // 31 days of ticks: every window is covered, raw and hourly.
    for (const [planet, hours] of [[0, 24], [1, 48], [1, 49], [2, 720]] as const) {
      const { body } = await h.get(`/planet/${planet}/history?hours=${hours}`)
      const first = await firstTick(801, planet)
      expect({ planet, hours, since: body.since }).toEqual({ planet, hours, since: first!.toISOString() })
      expect({ planet, hours, coverage: body.coverage }).toEqual({ planet, hours, coverage: 1 })
      expect(body.coverage).toBe(covered(first, body))
    }
    // War 800's planet 0: one hour of ticks, a share of the day, all of the last hour.
    const young = (await h.get('/planet/0/history?warId=800&hours=24')).body
    const first = await firstTick(800, 0)
    expect(young.since).toBe(first!.toISOString())
    expect(young.coverage).toBe(covered(first, young))
    expect(young.coverage).toBeGreaterThan(0.04)
    expect(young.coverage).toBeLessThan(0.5)
    expect((await h.get('/planet/0/history?warId=800&hours=1')).body.coverage).toBe(1)
    // A planet known for the war without a stored tick: null and 0, not a 404.
    expect(await firstTick(801, 3)).toBeNull()
    const none = await h.get('/planet/3/history')
    expect(none.status).toBe(200)
    expect(none.body).toMatchObject({ since: null, coverage: 0, points: [] })
  })

  test('a kept answer says the coverage of the moment it is served at', async () => {
    // War 800's planet 0 holds ticks from an hour before `now` to 3 s before it: its 24 h
    // window keeps the same rows for a day, so the answer is kept while the clock runs.
    let clock = new Date(now.getTime() + 60_000)
    let statements = 0
    const counted = await openHarness({ db: { ...db, sql: announcing(db.sql, () => statements++) }, keepDb: true, now: () => clock })
    try {
      const path = '/planet/0/history?warId=800&hours=24'
      const first = await firstTick(800, 0)
      const computed = await counted.get(path)
      expect(statements).toBeGreaterThan(0)
      expect(computed.body.coverage).toBe(covered(first, computed.body))
      for (const later of [3_600_000, 6 * 3_600_000, 20 * 3_600_000]) {
        clock = new Date(now.getTime() + later)
        statements = 0
        const kept = await counted.get(path)
        expect(statements).toBe(0) // served from the kept answer
        expect(kept.body.to).toBe(clock.toISOString())
        expect(Date.parse(kept.body.to) - Date.parse(kept.body.from)).toBe(24 * HOUR)
        expect(kept.body.since).toBe(first!.toISOString())
        expect(kept.body.coverage).toBe(covered(first, kept.body))
        expect(kept.body.points).toEqual(computed.body.points)
      }
      // The coverage moved with the clock: the same history is a larger share of the window.
      expect(covered(first, { from: new Date(clock.getTime() - 24 * HOUR).toISOString(), to: clock.toISOString() })).toBeGreaterThan(computed.body.coverage)
      // Hourly windows are kept per starting hour: the coverage moves there too.
      clock = new Date(now.getTime() + 60_000)
      const hourly = await counted.get('/planet/0/history?warId=800&hours=72')
      clock = new Date(now.getTime() + 30 * 60_000)
      statements = 0
      const hourlyLater = await counted.get('/planet/0/history?warId=800&hours=72')
      if (hourlyLater.body.from === hourly.body.from) expect(statements).toBe(0)
      expect(hourlyLater.body.coverage).toBe(covered(first, hourlyLater.body))
      expect(hourlyLater.body.coverage).toBeGreaterThan(hourly.body.coverage)
    } finally {
      await counted.close()
    }
  })

  test('a planet unknown for the war → 404 {error}', async () => {
    const res = await h.get('/planet/99/history')
    expect(res.status).toBe(404)
    expect(errorOf(res)).toBe('planet 99 not found in war 801')
    expect((await h.get('/planet/5/history?warId=800')).status).toBe(404)
    expect((await h.get('/planet/0/history?warId=12345')).status).toBe(404)
  })
})
