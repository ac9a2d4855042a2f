/**
 * /planet/:planetId/history on seeded ticks, on the embedded database and on TimescaleDB:
 * raw ticks up to 48 hours, hourly rollup buckets beyond, libPct, clamping and 404.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { refreshRollups } from '../../src/storage/rollups.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { seedPlanetStatus, seedWarsAndLookups } from '../support/seed.ts'
import { errorOf, openHarness, type Harness } from './helpers.ts'

const HOUR = 3_600_000
const MAX = 1_000_000

describeOnEachDatabase('planet history', (target) => {
  let h: Harness

  beforeAll(async () => {
    const db = await target.open()
    const now = new Date(Date.now() - 2000)
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

  test('a planet unknown for the war → 404 {error}', async () => {
    const res = await h.get('/planet/99/history')
    expect(res.status).toBe(404)
    expect(errorOf(res)).toBe('planet 99 not found in war 801')
    expect((await h.get('/planet/5/history?warId=800')).status).toBe(404)
    expect((await h.get('/planet/0/history?warId=12345')).status).toBe(404)
  })
})
