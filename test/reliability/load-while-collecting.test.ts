/**
 * The CI-sized version of `npm run soak`: the real service process with its schedule on
 * (full-status every 2 s), read load on every kind of read route for 10 s. No request may
 * fail, no scheduled tick may be lost, and every row a run reported must be in the
 * database exactly once.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { runLoadWhileCollecting, SOAK_ROUTES, type SoakResult } from '../../bench/soak.ts'
import { describeTimescale, openTimescaleTestDatabase, type TestDatabase } from '../support/db.ts'

describeTimescale('read load while the schedule collects', () => {
  let db: TestDatabase
  let result: SoakResult

  beforeAll(async () => {
    db = await openTimescaleTestDatabase('soak')
    result = await runLoadWhileCollecting({ databaseUrl: db.url!, poolMax: 10, durationS: 10, connections: 8, fullStatusCron: '*/2 * * * * *' })
  }, 60_000)
  afterAll(async () => {
    await db?.dispose()
  })

  test('every read answered 2xx, every route was loaded', () => {
    expect({ non2xx: result.non2xx, networkErrors: result.networkErrors }).toEqual({ non2xx: {}, networkErrors: 0 })
    expect(result.perRoute.map((r) => r.path)).toEqual(SOAK_ROUTES)
    expect(result.perRoute.filter((r) => r.requests < 10)).toEqual([])
  })

  test('no scheduled tick was lost or failed; the service logged no failure and exited cleanly', () => {
    const fullStatus = result.collectors.find((c) => c.collector === 'full-status')!
    expect(fullStatus.firings).toBeGreaterThanOrEqual(4)
    expect(result.collectors.filter((c) => c.lost > 0 || c.failed > 0)).toEqual([])
    expect(result.failureLines).toEqual([])
    expect(result.serviceExitCode).toBe(0)
  })

  test('every row the runs reported is stored, once', () => {
    expect(result.rows.filter((r) => r.reported !== r.stored)).toEqual([])
    expect(result.rows.find((r) => r.table === 'planet_status_snapshots')!.stored).toBeGreaterThan(0)
  })
})
