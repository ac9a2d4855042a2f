import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { silentLogger } from '../../src/log.ts'
import { openEmbeddedTestDatabase, type TestDatabase } from '../support/db.ts'
import { simulatedFeeds } from '../support/sim.ts'

describe('collector routes and the shared secret', () => {
  let db: TestDatabase
  let s: Awaited<ReturnType<typeof simulatedFeeds>>
  beforeAll(async () => {
    db = await openEmbeddedTestDatabase()
    s = await simulatedFeeds()
  }, 60_000)
  afterAll(async () => {
    await s?.stop()
    await db?.dispose()
  })

  const appWith = (env: Record<string, string>) =>
    buildApp({ config: loadConfig(env), db, log: silentLogger, feeds: s.feeds })
  const post = (app: ReturnType<typeof appWith>, path: string, headers: Record<string, string> = {}) =>
    app.handle(new Request(`http://localhost/api/v1${path}`, { method: 'POST', headers }))

  test('with COLLECTOR_SECRET set: missing or wrong header is 401 {error} and runs nothing; the right one runs', async () => {
    const app = appWith({ COLLECTOR_SECRET: 's3cret-value' })
    for (const headers of [{} as Record<string, string>, { 'x-collector-secret': 'nope' }, { 'x-collector-secret': 's3cret-valu' }, { 'x-collector-secret': 'S3CRET-VALUE' }]) {
      const res = await post(app, '/collect/war-info', headers)
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual({ error: 'missing or wrong x-collector-secret header' })
    }
    const [{ n }] = (await db.sql`SELECT count(*) AS n FROM wars`) as unknown as [{ n: number }]
    expect(n).toBe(0)
    const ok = await post(app, '/collect/war-info', { 'x-collector-secret': 's3cret-value' })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('cache-control')).toBe('no-store')
    expect(await ok.json()).toMatchObject({ collector: 'war-info', warId: 801, outcome: 'written' })
  })

  test('with COLLECTOR_SECRET unset the routes are open', async () => {
    const res = await post(appWith({}), '/collect/player-count')
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ collector: 'player-count', outcome: 'written' })
  })

  test('warId and warID are both accepted; an invalid war id is 400 {error}', async () => {
    const app = appWith({})
    expect(await (await post(app, '/collect/war-info?warID=801')).json()).toMatchObject({ warId: 801 })
    for (const q of ['warId=abc', 'warId=0', 'warId=-3', 'warID=1.5', 'warId=99999999999']) {
      const res = await post(app, `/collect/full-status?${q}`)
      expect({ q, status: res.status }).toEqual({ q, status: 400 })
      expect(Object.keys((await res.json()) as object)).toEqual(['error'])
    }
  })

  test('GET on a collector route is not a collector run', async () => {
    const res = await appWith({}).handle(new Request('http://localhost/api/v1/collect/war-info'))
    expect(res.status).toBe(404)
  })
})
