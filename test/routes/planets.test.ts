/**
 * /planets with each planet's world: biome and hazards from the shipped tables, regions from
 * the war info, and the galactic effects active at the latest full-status tick. Written
 * by the collectors from the real 2024 captures (war info and status), the war info with
 * regions and the status with effects added as newer payloads carry them.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { CollectorName } from '../../src/collect/index.ts'
import { CollectorRunner } from '../../src/collect/runner.ts'
import type { Feeds } from '../../src/feeds/index.ts'
import { createCommunityClient } from '../../src/feeds/community.ts'
import { createPcstoreClient } from '../../src/feeds/pcstore.ts'
import { createUpstreamClient } from '../../src/feeds/upstream.ts'
import { silentLogger } from '../../src/log.ts'
import { createStore } from '../../src/storage/index.ts'
import { collect } from '../support/collect.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { loadSample } from '../support/samples.ts'
import { openHarness, type Harness } from './helpers.ts'

const NOW = new Date('2026-03-01T12:00:00.000Z')
const INFO = loadSample('arrowhead/warinfo_801_2024-03-25_sector-hq.json') as { planetInfos: Array<{ index: number }> }
const STATUS = loadSample('arrowhead/warstatus_801_2024-03-08_sector-hq.json') as { time: number }

/** A region hash of the shipped region table, and one it does not know. */
const KNOWN_REGION = { hash: 324613052, name: 'DEMOCRACY ALWAYS' }
const UNKNOWN_REGION_HASH = 12345

/** 263 is the one index the shipped planet table leaves out. */
const UNKNOWN_PLANET = 263

/** The samples, as the feeds serve them at tick `round.n`; `round.effects`: the status's planetActiveEffects (undefined: no such field). */
function feeds(round: { n: number; effects?: unknown[] }): Feeds {
  const info = {
    ...INFO,
    planetInfos: [...INFO.planetInfos, { ...INFO.planetInfos[1]!, index: UNKNOWN_PLANET, waypoints: [] }],
    planetRegions: [
      { planetIndex: 1, regionIndex: 2, settingsHash: KNOWN_REGION.hash, maxHealth: 100_000, regionSize: 2 },
      { planetIndex: 1, regionIndex: 1, settingsHash: UNKNOWN_REGION_HASH, maxHealth: 50_000, regionSize: 0 },
    ],
  }
  const answer = (path: string): unknown => {
    if (path.endsWith('/WarInfo')) return info
    if (path.endsWith('/Status')) return { ...STATUS, time: STATUS.time + 10 * round.n, ...(round.effects ? { planetActiveEffects: round.effects } : {}) }
    if (path.endsWith('/Summary')) return loadSample('arrowhead/DERIVED_summary_801_from_community_excerpt.json')
    if (path.includes('/Assignment/')) return loadSample('arrowhead/assignment_v2_801_2025-05-09_daveydoodles97.json')
    if (path.includes('/NewsFeed/')) return loadSample('arrowhead/newsfeed_801_default_10_items_daveydoodles97.json')
    throw new Error(`no sample for ${path}`)
  }
  const fetch = async (input: string | URL | Request) =>
    new Response(JSON.stringify(answer(new URL(String(input instanceof Request ? input.url : input)).pathname)), { headers: { 'content-type': 'application/json' } })
  const opts = { timeoutMs: 2000, fetch }
  return {
    upstream: createUpstreamClient({ ...opts, baseUrl: 'http://upstream.test/api', userAgent: 'test', now: () => NOW.getTime() + round.n * 600_000 }),
    community: createCommunityClient({ ...opts, baseUrl: 'http://community.test', superClient: 't', superContact: 't' }),
    pcstore: createPcstoreClient({ ...opts, baseUrl: 'http://pcstore.test' }),
  }
}

describeOnEachDatabase('/planets with their world', (target) => {
  let h: Harness
  let runner: CollectorRunner
  const round: { n: number; effects?: unknown[] } = { n: 0 }
  const run = (name: CollectorName) => collect(runner, name, { now: new Date(NOW.getTime() + round.n * 600_000) })
  const planet = async (index: number) => {
    const res = await h.get('/planets')
    expect(res.status).toBe(200)
    return res.body.find((p: { warID: number; index: number }) => p.warID === 801 && p.index === index)
  }

  beforeAll(async () => {
    h = await openHarness({ db: await target.open(), now: () => NOW })
    // The service's own runner: the app's connection and data versions, so a tick moves exactly
    // the datasets its collector names (full-status: planet-status, not war), as in production.
    const db = h.deps.db
    runner = new CollectorRunner({ db, store: createStore(db), feeds: feeds(round), log: silentLogger, config: { warId: 801 }, versions: h.deps.versions })
    expect((await run('war-info')).outcome).toBe('written')
  }, 60_000)
  afterAll(() => h?.close())

  test('a planet the shipped tables know: its biome key as before, the biome and hazards in words, its regions', async () => {
    const klen = await planet(1)
    expect(klen).toMatchObject({ index: 1, name: 'Klen Dahth II', sector: 'Altus', biome: 'sandy_base' })
    expect(klen.world).toEqual({
      biome: {
        key: 'sandy_base',
        name: 'Desert Dunes',
        description: 'A blazing-hot desert planet, its rocky mesas are the sole interruptions to the endless sea of dunes.',
      },
      hazards: [{ key: 'sandstorms', name: 'Sandstorms', description: 'Dense sandstorms reduce mobility and greatly reduce visibility for both enemy and friendly units.' }],
      // By region index; a hash the region table does not know keeps its index and hash.
      regions: [
        // The table's type and faction, the war info's scale; not in play (a 2024 status lists no region).
        { index: 1, hash: UNKNOWN_REGION_HASH, name: null, description: null, type: null, faction: null, maxHealth: 50_000, regionSize: 0, inPlay: null },
        { index: 2, hash: KNOWN_REGION.hash, name: KNOWN_REGION.name, description: '', type: 'Metropolis', faction: 'Super Earth', maxHealth: 100_000, regionSize: 2, inPlay: null },
      ],
    })
    // Super Earth's environmentals are 'none': no hazard. No region listed: [].
    const superEarth = await planet(0)
    expect(superEarth.world).toMatchObject({ biome: { key: 'super_earth' }, hazards: [], regions: [] })
    expect(typeof superEarth.world.biome.name).toBe('string')
  })

  test('a planet the shipped tables do not know: no biome, no hazard; an unknown biome key keeps its key', async () => {
    const unknown = await planet(UNKNOWN_PLANET)
    expect(unknown).toMatchObject({ name: `Planet ${UNKNOWN_PLANET}`, biome: null, world: { biome: null, hazards: [], regions: [] }, effects: [] })
    await h.db.sql`UPDATE planets SET biome = 'not_a_biome' WHERE war_id = 801 AND planet_index = ${UNKNOWN_PLANET}`
    expect((await planet(UNKNOWN_PLANET)).world.biome).toEqual({ key: 'not_a_biome', name: null, description: null })
  })

  test('effects: none before any full-status tick; the latest tick\'s effects, named, by planet and id', async () => {
    expect((await h.get('/planets')).body.every((p: { effects: unknown[] }) => p.effects.length === 0)).toBe(true)
    round.n = 1
    round.effects = [
      { index: 1, galacticEffectId: 99_999 },
      { index: 1, galacticEffectId: 1186 },
      // Fields the service does not read are allowed (reported as drift).
      { index: 0, galacticEffectId: 1329, zzAddedUpstream: true },
    ]
    const tick = await run('full-status')
    expect(tick.outcome).toBe('written')
    expect(tick.written.planetEffects).toBe(3)
    const klen = await planet(1)
    expect(klen.effects).toEqual([
      { id: 1186, name: 'Light Gloom', description: 'This world is lightly obscured by a gloom cloud.' },
      { id: 99_999, name: null, description: null },
    ])
    expect((await planet(0)).effects).toEqual([{ id: 1329, name: 'LIBERTY DAY CELEBRATION', description: expect.stringContaining('Liberty Day') }])
    expect((await planet(2)).effects).toEqual([])
  })

  test('a tick without planetActiveEffects parses, stores none, and the answer follows it (no effect now); the history stays', async () => {
    const before = await h.get('/planets')
    round.n = 2
    delete round.effects
    const tick = await run('full-status')
    expect(tick.outcome).toBe('written')
    expect(tick.written.planetEffects).toBe(0)
    const after = await h.get('/planets')
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'))
    expect(after.body.every((p: { effects: unknown[] }) => p.effects.length === 0)).toBe(true)
    const [{ n }] = (await h.db.sql`SELECT count(*)::int AS n FROM planet_effect_snapshots`) as unknown as [{ n: number }]
    expect(n).toBe(3)
  })
})
