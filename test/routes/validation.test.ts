/**
 * Parameter validation of every read route: the 400 rows of the spec's error table, the
 * shared paging, date and id rules, and 503 when the database is unreachable. Pure
 * validation needs no data, so this runs on the embedded database only.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { connect } from '../../src/db/connect.ts'
import { DatabaseGate } from '../../src/db/gate.ts'
import { silentLogger } from '../../src/log.ts'
import { errorOf, openHarness, type Harness } from './helpers.ts'

let h: Harness
beforeAll(async () => {
  h = await openHarness()
})
afterAll(() => h?.close())

async function expect400(path: string, ...mentions: string[]) {
  const res = await h.get(path)
  expect(res.status).toBe(400)
  const msg = errorOf(res)
  for (const m of mentions) expect(msg).toContain(m)
  expect(res.headers.get('cache-control')).toBe('no-store')
  return msg
}

/** Every paged route, with the parameters it needs to be valid otherwise. */
const PAGED = [
  '/historical-player-count?startDate=2026-01-01&endDate=2026-01-02',
  '/historical-planet-status?planetId=1',
  '/historical-war-summary?x=1',
  '/historical-major-orders?x=1',
  '/historical-major-orders/1001/progress?x=1',
  '/historical-dispatches?x=1',
]

describe('paging (every paged route)', () => {
  for (const route of PAGED) {
    test(`${route.split('?')[0]}: bad page/limit → 400, valid → 200`, async () => {
      for (const bad of ['page=0', 'page=-1', 'page=1.5', 'page=abc', 'page=', 'page=1e2', 'page=0x10', 'page=2147483648']) {
        await expect400(`${route}&${bad}`, 'page')
      }
      for (const bad of ['limit=0', 'limit=-5', 'limit=2.5', 'limit=ten', 'limit=', 'limit=%205']) {
        await expect400(`${route}&${bad}`, 'limit')
      }
      const ok = await h.get(`${route}&page=3&limit=7`)
      expect(ok.status).toBe(200)
      expect(ok.body).toEqual({ items: [], page: 3, limit: 7, totalResults: 0, totalPages: 0 })
    })
  }

  test('limit defaults and clamping per route', async () => {
    const expected: [string, number, number][] = [
      [PAGED[0]!, 50, 500],
      [PAGED[1]!, 100, 1000],
      [PAGED[2]!, 100, 1000],
      [PAGED[3]!, 50, 500],
      [PAGED[4]!, 200, 2000],
      [PAGED[5]!, 50, 500],
    ]
    for (const [route, def, max] of expected) {
      expect((await h.get(route)).body).toMatchObject({ page: 1, limit: def })
      expect((await h.get(`${route}&limit=${max + 1}`)).body.limit).toBe(max)
      expect((await h.get(`${route}&limit=99999999999999999999999`)).body.limit).toBe(max)
      expect((await h.get(`${route}&limit=${max}`)).body.limit).toBe(max)
    }
  })
})

describe('dates', () => {
  const base = '/historical-player-count'
  test('missing startDate or endDate → 400 naming it', async () => {
    await expect400(`${base}?endDate=2026-01-02`, 'startDate')
    await expect400(`${base}?startDate=2026-01-02`, 'endDate')
    await expect400(base, 'startDate')
  })
  test('accepted forms', async () => {
    for (const [s, e] of [
      ['2026-01-01', '2026-01-02'],
      ['2026-01-01 00:00:00', '2026-01-02 23:59:59'],
      ['2026-01-01T00:00:00', '2026-01-02T12:00:00Z'],
      ['2026-01-01T00:00:00.250Z', '2026-01-02T12:00:00%2B02:00'],
    ]) {
      const res = await h.get(`${base}?startDate=${s}&endDate=${e}`)
      expect(res.status).toBe(200)
    }
  })
  test('malformed or impossible dates → 400 naming the parameter', async () => {
    for (const bad of ['2026-1-01', '01/02/2026', '2026-01-01 25:00:00', '2026-02-30', '2026-13-01', 'yesterday', '2026-01-01 10:00', '1767225600']) {
      await expect400(`${base}?startDate=${encodeURIComponent(bad)}&endDate=2026-12-31`, 'startDate')
      await expect400(`${base}?startDate=2026-01-01&endDate=${encodeURIComponent(bad)}`, 'endDate')
    }
  })
  test('startDate after endDate → 400', async () => {
    await expect400(`${base}?startDate=2026-01-03&endDate=2026-01-02`, 'startDate')
    // A bare end date covers its whole day: same-day start is fine.
    expect((await h.get(`${base}?startDate=2026-01-02 18:00:00&endDate=2026-01-02`)).status).toBe(200)
  })
  test('every route with dates validates them', async () => {
    for (const route of ['/historical-planet-status?planetId=1', '/historical-war-summary?x=1', '/historical-major-orders/1/progress?x=1']) {
      await expect400(`${route}&startDate=nope`, 'startDate')
      await expect400(`${route}&endDate=2026-02-29`, 'endDate')
    }
  })
})

describe('ids and aliases', () => {
  test('war ids: positive int32 only, on every route that takes one', async () => {
    for (const route of ['/historical-planet-status?planetId=1', '/historical-war-summary?x=1', '/historical-major-orders?x=1', '/historical-dispatches?x=1', '/planet/1/history?x=1']) {
      for (const bad of ['0', '-1', 'abc', '1.5', '2147483648', '1e3']) {
        await expect400(`${route}&warId=${bad}`, 'warId')
        await expect400(`${route}&warID=${bad}`, 'warID')
      }
      await expect400(`${route}&warId=801&warID=802`, 'warId', 'warID')
      const same = await h.get(`${route}&warId=801&warID=801`)
      expect(same.status).not.toBe(400)
    }
  })

  test('/war/:warId: invalid warId or planetID → 400', async () => {
    for (const bad of ['0', 'abc', '-3', '1.0', '99999999999']) await expect400(`/war/${bad}`, 'warId')
    for (const bad of ['-1', 'x', '2.5', '2147483648']) {
      await expect400(`/war/801?planetID=${bad}`, 'planetID')
      await expect400(`/war/801?planetId=${bad}`, 'planetId')
    }
    await expect400('/war/801?planetID=1&planetId=2', 'planetId', 'planetID')
  })

  test('historical-planet-status: planetId required, aliases, bounds', async () => {
    await expect400('/historical-planet-status', 'planetId')
    await expect400('/historical-planet-status?planetID=-1', 'planetID')
    await expect400('/historical-planet-status?planetId=3&planetID=4', 'planetId')
    expect((await h.get('/historical-planet-status?planetID=0')).status).toBe(200)
    expect((await h.get('/historical-planet-status?planetId=0&planetID=0')).status).toBe(200)
  })

  test('planet history: invalid planet id, war id or hours → 400', async () => {
    for (const bad of ['-1', 'abc', '1.5', '2147483648']) await expect400(`/planet/${bad}/history`, 'planetId')
    for (const bad of ['0', 'x', '2.5']) await expect400(`/planet/1/history?hours=${bad}`, 'hours')
  })

  test('major order progress: orderId is 0..4294967295', async () => {
    for (const bad of ['-1', 'abc', '4294967296', '1.5']) await expect400(`/historical-major-orders/${bad}/progress`, 'orderId')
    expect((await h.get('/historical-major-orders/4294967295/progress')).status).toBe(200)
    expect((await h.get('/historical-major-orders/0/progress')).status).toBe(200)
  })

  test('dispatches: since is a non-negative integer; q at most 200 characters', async () => {
    for (const bad of ['-1', 'abc', '1.5']) await expect400(`/historical-dispatches?since=${bad}`, 'since')
    expect((await h.get('/historical-dispatches?since=0')).status).toBe(200)
    await expect400(`/historical-dispatches?q=${'a'.repeat(201)}`, 'q')
    expect((await h.get(`/historical-dispatches?q=${'a'.repeat(200)}`)).status).toBe(200)
  })

  test('gameName must be Game or Game 2', async () => {
    const base = '/historical-player-count?startDate=2026-01-01&endDate=2026-01-02'
    await expect400(`${base}&gameName=Game%203`, 'gameName')
    await expect400(`${base}&gameName=game`, 'gameName')
    expect((await h.get(`${base}&gameName=Game%202`)).status).toBe(200)
    expect((await h.get(`${base}&gameName=Game`)).status).toBe(200)
  })

  test('divers range: anything but 24h, 7d, 30d, 90d, all → 400', async () => {
    for (const bad of ['1h', '24H', 'ALL', '', '7', '365d']) await expect400(`/divers/history?range=${bad}`, 'range')
  })
})

describe('empty database', () => {
  test('/war → 404 "no war records yet"; /war/:id → 404', async () => {
    const res = await h.get('/war')
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ error: 'no war records yet' })
    expect(res.headers.get('cache-control')).toBe('no-store')
    const one = await h.get('/war/801')
    expect(one.status).toBe(404)
    expect(one.body).toEqual({ error: 'war not found' })
  })
  test('planet history of an unknown planet → 404 {error}', async () => {
    const res = await h.get('/planet/1/history')
    expect(res.status).toBe(404)
    expect(errorOf(res)).toContain('planet 1')
  })
  test('diver history without history → 200, no points, null stats', async () => {
    for (const range of ['24h', '7d', '30d', '90d', 'all']) {
      const res = await h.get(`/divers/history?range=${range}`)
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ range, source: 'api', points: [], stats: { current: null, peak: null, low: null, avg: null } })
    }
  })
  test('lookups are empty arrays', async () => {
    for (const p of ['/planets', '/sectors', '/factions']) expect((await h.get(p)).body).toEqual([])
  })
})

describe('database unreachable → 503 {error}', () => {
  test('every database-backed route group', async () => {
    const { buildApp } = await import('../../src/app.ts')
    for (const p of ['/war', '/war/801', '/planets', '/divers/history', '/historical-war-summary', '/historical-dispatches', '/planet/1/history', '/regions', '/space-stations', '/global-resources', '/global-resources/1/history', '/global-events']) {
      // A fresh pool per request: postgres.js backs off between reconnect attempts of one pool.
      const sql = connect({ url: 'postgres://nobody@127.0.0.1:9/none', max: 1 })
      const gate = new DatabaseGate(() => sql`SELECT 1`, silentLogger)
      const res = await buildApp({ ...h.deps, db: { ...h.deps.db, sql, gate } }).handle(new Request(`http://localhost/api/v1${p}`))
      gate.stop()
      expect(res.status).toBe(503)
      expect(await res.json()).toEqual({ error: 'database unavailable' })
      await sql.end({ timeout: 1 })
    }
  })
})
