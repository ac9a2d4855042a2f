/**
 * /war, /war/:warId and the lookup tables: happy paths on both databases, and the
 * caching contract (headers, ETag/304, in-process bodies served without a query for
 * their window, then re-queried).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { HTTP_POLICIES as CACHE_POLICIES } from '../../src/http/keep.ts'
import { openEmbeddedTestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { seedWarsAndLookups } from '../support/seed.ts'
import { openHarness, type Harness } from './helpers.ts'

describeOnEachDatabase('war and lookups', (target) => {
  let h: Harness
  let now: Date

  beforeAll(async () => {
    const db = await target.open()
    now = new Date()
    await seedWarsAndLookups(db.sql, now)
    h = await openHarness({ db })
  }, 60_000)
  afterAll(() => h?.close())

  test('/war: the latest war and its planets by indexID', async () => {
    const res = await h.get('/war')
    expect(res.status).toBe(200)
    expect(res.body.war).toEqual({
      warID: 801,
      startDate: new Date(now.getTime() - 99 * 86_400_000).toISOString(),
      endDate: new Date(now.getTime() + 300 * 86_400_000).toISOString(),
      minimumClientVersion: '1.0.0',
      firstSeenAt: new Date(now.getTime() - 99 * 86_400_000).toISOString(),
      updatedAt: now.toISOString(),
    })
    expect(res.body.planets.map((p: any) => p.indexID)).toEqual([0, 1, 2, 3, 4, 5])
    expect(res.body.planets[3]).toEqual({
      indexID: 3,
      warID: 801,
      owner: 2,
      health: 603000,
      maxHealth: 1000000,
      regenPerSecond: 4.5,
      players: 301,
      planetName: 'Planet-801-3',
      sectorName: 'Altus',
      updatedAt: new Date(now.getTime() - 3000).toISOString(),
    })
  })

  test('/war/:warId: that war; planetID / planetId filter; unknown war 404', async () => {
    const old = await h.get('/war/800')
    expect(old.status).toBe(200)
    expect(old.body.war.warID).toBe(800)
    expect(old.body.planets.map((p: any) => p.indexID)).toEqual([0, 1, 2, 3])
    const one = await h.get('/war/800?planetID=2')
    expect(one.body.planets).toEqual([expect.objectContaining({ indexID: 2, warID: 800, planetName: 'Planet-800-2' })])
    expect((await h.get('/war/800?planetId=2')).body).toEqual(one.body)
    const none = await h.get('/war/801?planetID=99')
    expect(none.status).toBe(200)
    expect(none.body.planets).toEqual([])
    const unknown = await h.get('/war/999')
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ error: 'war not found' })
  })

  test('/planets: every war, by war then index', async () => {
    const res = await h.get('/planets')
    expect(res.status).toBe(200)
    expect(res.body.map((p: any) => `${p.warID}:${p.index}`)).toEqual(['800:0', '800:1', '800:2', '800:3', '801:0', '801:1', '801:2', '801:3', '801:4', '801:5'])
    expect(res.body[5]).toEqual({
      warID: 801,
      index: 1,
      name: 'Planet-801-1',
      sector: 'Sol',
      biome: null,
      position: { x: 0.1, y: -0.05 },
      maxHealth: 1000000,
      initialOwner: 2,
      disabled: false,
      waypoints: [0],
      // Seeded planets: no biome key, an index whose shipped hazards are sandstorms, no region, no effect (test/routes/planets.test.ts).
      world: { biome: null, hazards: [expect.objectContaining({ key: 'sandstorms' })], regions: [] },
      effects: [],
    })
    expect(res.body[9].disabled).toBe(true)
  })

  test('/sectors and /factions: full tables', async () => {
    expect((await h.get('/sectors')).body).toEqual([
      { name: 'Altus', planetCount: 2 },
      { name: 'Barnard', planetCount: 2 },
      { name: 'Sol', planetCount: 2 },
    ])
    expect((await h.get('/factions')).body).toEqual([
      { id: 1, name: 'Humans' },
      { id: 2, name: 'Terminids' },
      { id: 3, name: 'Automaton' },
      { id: 4, name: 'Illuminate' },
    ])
  })

  test('Cache-Control per route and a strong ETag', async () => {
    const want: Record<string, string> = {
      '/war': CACHE_POLICIES.war.header,
      '/war/801': CACHE_POLICIES.war.header,
      '/planets': CACHE_POLICIES.lookup.header,
      '/sectors': CACHE_POLICIES.lookup.header,
      '/factions': CACHE_POLICIES.lookup.header,
    }
    for (const [path, header] of Object.entries(want)) {
      const res = await h.get(path)
      expect(res.headers.get('cache-control')).toBe(header)
      expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{10,}"$/)
      expect(res.headers.get('content-type')).toContain('application/json')
    }
    expect(CACHE_POLICIES.war.header).toBe('public, max-age=30, s-maxage=30, stale-while-revalidate=30')
    expect(CACHE_POLICIES.lookup.header).toBe('public, max-age=3600, s-maxage=3600, stale-while-revalidate=600')
  })
})

describe('kept answers of /war* and the lookups (embedded, injected clock)', () => {
  let h: Harness
  let clock = Date.parse('2026-06-01T00:00:00Z')
  let queries = 0

  beforeAll(async () => {
    const db = await openEmbeddedTestDatabase()
    // Count every use of the pool (queries and fragments alike): zero means no query ran.
    const counted = new Proxy(db.sql, {
      apply(target, thisArg, args) {
        queries++
        return Reflect.apply(target as any, thisArg, args)
      },
    }) as typeof db.sql
    h = await openHarness({ db: { ...db, sql: counted }, now: () => new Date(clock) })
  })
  afterAll(() => h?.close())

  test('errors are not kept: 404 before any war, 200 as soon as one exists', async () => {
    const before = await h.get('/war')
    expect(before.status).toBe(404)
    expect(before.headers.get('etag')).toBeNull()
    expect(before.headers.get('cache-control')).toBe('no-store')
    await seedWarsAndLookups(h.db.sql, new Date(clock))
    expect((await h.get('/war')).status).toBe(200)
  })

  test('a kept body is served without a query within its 30 s, and computed again after them', async () => {
    const first = await h.get('/war/801')
    const etag = first.headers.get('etag')
    // A change the app does not hear of (its own connection): a kept answer does not see it.
    await h.deps.db.sql`UPDATE wars SET minimum_client_version = '9.9.9' WHERE war_id = 801`
    queries = 0
    clock += 29_000
    const second = await h.get('/war/801')
    expect(queries).toBe(0)
    expect(second.body).toEqual(first.body)
    expect(second.headers.get('etag')).toBe(etag)
    clock += 1_001
    const third = await h.get('/war/801')
    expect(queries).toBeGreaterThan(0)
    expect(third.body.war.minimumClientVersion).toBe('9.9.9')
    expect(third.headers.get('etag')).not.toBe(etag)
  })

  test('a write the app hears of is served at once, within the 30 s', async () => {
    const first = await h.get('/war/801')
    await h.db.sql`UPDATE wars SET minimum_client_version = '9.9.10' WHERE war_id = 801`
    clock += 1_000
    const second = await h.get('/war/801')
    expect(second.body.war.minimumClientVersion).toBe('9.9.10')
    expect(second.headers.get('etag')).not.toBe(first.headers.get('etag'))
  })

  test('lookups are kept an hour; each request (path and query) is its own answer', async () => {
    await h.get('/factions')
    await h.deps.db.sql`INSERT INTO factions (faction_id, name) VALUES (5, 'Fifth')`
    clock += 3_599_000
    queries = 0
    expect((await h.get('/factions')).body).toHaveLength(4)
    expect(queries).toBe(0)
    clock += 2_000
    expect((await h.get('/factions')).body).toHaveLength(5)
    const a = await h.get('/war/801?planetID=1')
    queries = 0
    expect((await h.get('/war/801?planetID=1')).body).toEqual(a.body)
    expect(queries).toBe(0)
    const b = await h.get('/war/801?planetId=1')
    expect(b.body).toEqual(a.body)
    const c = await h.get('/war/801?planetId=2')
    expect(queries).toBeGreaterThan(0)
    expect(c.body.planets[0].indexID).toBe(2)
  })

  test('If-None-Match: 304 with the ETag, 200 otherwise', async () => {
    for (const path of ['/war', '/war/801', '/planets', '/sectors', '/factions']) {
      const res = await h.get(path)
      const etag = res.headers.get('etag')!
      for (const inm of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
        const hit = await h.get(path, { 'if-none-match': inm })
        expect(hit.status).toBe(304)
        expect(hit.body).toBeNull()
        expect(hit.headers.get('etag')).toBe(etag)
        expect(hit.headers.get('cache-control')).toBe(res.headers.get('cache-control'))
      }
      const miss = await h.get(path, { 'if-none-match': '"something-else"' })
      expect(miss.status).toBe(200)
      expect(miss.body).toEqual(res.body)
    }
  })
})
