/**
 * The surfaces the game's API gained after the 2024 captures (src/feeds/upstream-2025.ts):
 * the 2025 samples read field by field, the 2024 captures still read with none of them,
 * the station and effect endpoints through the throttled client, and a Status with a
 * top-level field the service does not know: read, counted in /metrics, logged once.
 */
import { describe, expect, test } from 'bun:test'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import type { Sql } from '../../src/db/connect.ts'
import { DatabaseGate } from '../../src/db/gate.ts'
import { createFeeds } from '../../src/feeds/index.ts'
import type { FetchLike } from '../../src/feeds/http.ts'
import { MAX_UNKNOWN_FIELDS, OTHER_FIELDS, UnknownFields, unknownTopLevel } from '../../src/feeds/schema.ts'
import { createUpstreamClient, parseWarInfo, parseWarStatus, UPSTREAM_2025_ENDPOINTS, UPSTREAM_ENDPOINTS } from '../../src/feeds/upstream.ts'
import {
  DEMOCRACY_SPACE_STATION,
  parseGalacticWarEffects,
  parseSpaceStation,
  readGlobalEvents,
  readGlobalResources,
  readRegions,
  readSpaceStations,
  TACTICAL_ACTION_STATUS,
} from '../../src/feeds/upstream-2025.ts'
import { createLogger, silentLogger } from '../../src/log.ts'
import { Metrics } from '../../src/metrics.ts'
import { loadSample as load } from '../support/samples.ts'

const STATUS_2025 = 'arrowhead/warstatus_801_2025-battle-for-super-earth_EXCERPT_mockserver.json'
const STATUS_2024 = 'arrowhead/warstatus_801_2024-03-08_sector-hq.json'
const clone = <T>(v: T): T => structuredClone(v)

describe('the 2025 samples, field by field', () => {
  test('status: positions, regions, global events and resources, stations, effects, layout', () => {
    const { data: status, drift } = parseWarStatus(load(STATUS_2025))
    // Every key of the capture is documented: nothing unknown, nothing missing.
    expect(drift).toEqual({ missing: [], unknown: [] })
    expect(status.time).toBe(40109140)
    expect(status.planetStatus.map((p) => p.position)).toEqual([
      { x: 0, y: 0 }, { x: 0.05373042, y: 0.10565466 }, { x: 0.04664221, y: 0.16758725 },
      { x: 0.12536779, y: 0.11821219 }, { x: 0.10280278, y: 0.05765711 }, { x: 0.15988354, y: 0.043583166 },
    ])
    const regions = status.planetRegions!
    expect(regions).toHaveLength(7)
    expect(regions[0]).toEqual({ planetIndex: 0, regionIndex: 1, owner: 1, health: 483101, regerPerSecond: -11, availabilityFactor: 1, isAvailable: true, players: 0 })
    expect(regions[6]).toEqual({ planetIndex: 0, regionIndex: 0, owner: 4, health: 600000, regerPerSecond: -13, availabilityFactor: 1, isAvailable: false, players: 2 })
    expect(regions.filter((r) => r.isAvailable).map((r) => r.regionIndex)).toEqual([1, 2, 6])
    expect(status.globalResources).toEqual([{ id32: 175685818, currentValue: 18566252, maxValue: 40000000, flags: 0 }])
    expect(status.spaceStations).toEqual([])
    expect(status.layoutVersion).toBe(44)
    expect(status.storyBeatId32).toBe(3744361090)
    expect(status.planetActiveEffects).toHaveLength(6)
    expect(status.campaigns.every((c) => c.race === 1)).toBe(true)
    const events = status.globalEvents!
    expect(events.map((e) => [e.eventId, e.flag, e.race, e.expireTime])).toEqual([
      [1499462, 4, 0, 40791480], [1499467, 2, 1, expect.any(Number)], [expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number)],
    ])
    const success = events[1]!
    expect(success).toMatchObject({ id32: 4067884805, title: 'SUCCESS', titleId32: 2998873950, messageId32: 3195688721, introMediaId32: 0, outroMediaId32: 1157982340, assignmentId32: 0 })
    expect(success.message).toContain('<i=1>caused a 10% hit to Illuminate Fleet Strength,</i>')
    // The item readers keep every item of the documented shape.
    expect(readRegions(regions)).toEqual({ items: regions, rejected: [] })
    expect(readGlobalEvents(events)).toEqual({ items: events, rejected: [] })
    expect(readGlobalResources(status.globalResources)).toEqual({ items: status.globalResources!, rejected: [] })
    expect(readSpaceStations(status.spaceStations)).toEqual({ items: [], rejected: [] })
  })

  test('a defense naming its global resource (2025+) reads without drift', () => {
    const status = clone(load(STATUS_2024)) as { planetEvents: Record<string, unknown>[] }
    status.planetEvents[0]!.globalResourceId = 175685818
    const parsed = parseWarStatus(status)
    expect(parsed.data.planetEvents![0]!.globalResourceId).toBe(175685818)
    expect(parsed.drift.unknown).toEqual([])
  })

  test('war info: layout version; regions with every field (maxHealth, size, damage multiplier, flags) read without drift', () => {
    const excerpt = parseWarInfo(load('arrowhead/warinfo_801_2025_EXCERPT_mockserver.json'))
    expect(excerpt.data.layoutVersion).toBe(44)
    expect(excerpt.data.planetInfos).toHaveLength(6)
    expect(excerpt.data.planetRegions).toBeUndefined()
    // The excerpt has no regions: the fields upstream-2025.md lists, on the excerpt.
    const region = { planetIndex: 0, regionIndex: 3, settingsHash: 324613052, maxHealth: 600000, regionSize: 3, damageMultiplier: 1.5, flags: 0 }
    const info = parseWarInfo({ ...clone(excerpt.data), planetRegions: [region] })
    expect(info.data.planetRegions).toEqual([region])
    expect(info.drift.unknown).toEqual([])
  })

  test('space station (the handmade shape): election, tactical actions, their cost and effects', () => {
    const { data: station, drift } = parseSpaceStation(load('arrowhead/spacestation_801_749875195_HANDMADE.json'))
    expect(drift).toEqual({ missing: [], unknown: [] })
    expect(station).toMatchObject({ id32: DEMOCRACY_SPACE_STATION, planetIndex: 0, currentElectionEndWarTime: 40150000, flags: 1 })
    expect(station.lastElectionId).toBe('(election id string)')
    const [action] = station.tacticalActions
    expect(action).toMatchObject({ id32: 1, mediaId32: 0, name: '(action name)', status: TACTICAL_ACTION_STATUS.preparing, statusExpireAtWarTimeSeconds: 40200000, effectIds: [1, 2], activeEffectIds: [] })
    expect(action!.strategicDescription).toBe('(text with <i=1>markup</i>)')
    expect(action!.cost).toEqual([{ id: '(string)', itemMixId: 3992382197, targetValue: 86400, currentValue: 12000, deltaPerSecond: 0.42, maxDonationAmount: 75, maxDonationPeriodSeconds: 86400 }])
  })

  test('galactic war effects: every definition, values beyond 32 bits included', () => {
    const { data: effects, drift } = parseGalacticWarEffects(load('arrowhead/galacticwareffects_2025_EXCERPT_mockserver.json'))
    expect(drift).toEqual({ missing: [], unknown: [] })
    expect(effects.map((e) => e.id)).toEqual([1, 5, 8, 12, 13, 55])
    expect(effects[0]).toEqual({
      id: 1, gameplayEffectId32: 0, effectType: 43, flags: 0, nameHash: 1016609603, descriptionFluffHash: 0,
      descriptionGamePlayLongHash: 3703951420, descriptionGamePlayShortHash: 473399848, valueTypes: [1, 0], values: [-1, 0],
    })
    expect(effects.find((e) => e.id === 12)!.values).toEqual([3639986401, 0])
  })
})

describe('the 2024 captures still read, with none of the 2025 fields', () => {
  test('status and war info: absent, not reported missing', () => {
    const status = parseWarStatus(load(STATUS_2024))
    for (const key of ['planetRegions', 'spaceStations', 'globalResources', 'layoutVersion'] as const) expect(status.data[key]).toBeUndefined()
    expect(status.data.planetStatus.every((p) => p.position === undefined)).toBe(true)
    expect(status.data.globalEvents!.every((e) => e.expireTime === undefined && e.introMediaId32 === undefined)).toBe(true)
    expect(status.drift).toEqual({ missing: [], unknown: [] })
    const info = parseWarInfo(load('arrowhead/warinfo_801_2024-03-25_sector-hq.json'))
    expect(info.data.planetRegions).toBeUndefined()
    expect(info.data.layoutVersion).toBeUndefined()
    expect(info.drift).toEqual({ missing: [], unknown: [] })
  })

  test('a 2025 field of an unexpected shape never fails the Status; its reader leaves that item out and names it', () => {
    const status = clone(load(STATUS_2025)) as { planetRegions: Record<string, unknown>[] }
    status.planetRegions[2]!.health = 'full'
    const parsed = parseWarStatus(status)
    expect(parsed.data.planetRegions).toHaveLength(7)
    const { items, rejected } = readRegions(parsed.data.planetRegions)
    expect(items.map((r) => r.regionIndex)).toEqual([1, 2, 4, 5, 6, 0])
    expect(rejected.map((e) => e.path)).toEqual(['/2/health'])
    expect(readRegions(undefined)).toEqual({ items: [], rejected: [] })
    expect(readGlobalResources({ not: 'an array' }).rejected.map((e) => e.detail)).toEqual(['not an array'])
  })
})

/** A fake upstream answering by path; records the requests. */
function fakeUpstream(answer: (path: string) => unknown) {
  const paths: string[] = []
  const fetch: FetchLike = async (input) => {
    const path = new URL(String(input)).pathname + new URL(String(input)).search
    paths.push(path)
    return new Response(JSON.stringify(answer(path)), { status: 200 })
  }
  return { fetch, paths }
}

describe('the station and effect endpoints, through the throttled client', () => {
  const answer = (path: string) =>
    path.startsWith('/api/SpaceStation/') ? load('arrowhead/spacestation_801_749875195_HANDMADE.json') : load('arrowhead/galacticwareffects_2025_EXCERPT_mockserver.json')

  test('documented paths, cached per key for the TTL, counted for /metrics, not in the spec\'s snapshot', async () => {
    const upstream = fakeUpstream(answer)
    let nowMs = Date.parse('2026-01-01T00:00:00Z')
    const client = createUpstreamClient({ baseUrl: 'http://upstream.test/api', timeoutMs: 1000, userAgent: 't', fetch: upstream.fetch, now: () => nowMs })
    expect((await client.spaceStation(801, DEMOCRACY_SPACE_STATION)).data.tacticalActions).toHaveLength(1)
    expect((await client.spaceStation(801, DEMOCRACY_SPACE_STATION)).fromCache).toBe(true)
    expect((await client.galacticWarEffects()).data).toHaveLength(6)
    expect((await client.galacticWarEffects()).fromCache).toBe(true)
    expect(upstream.paths).toEqual(['/api/SpaceStation/801/749875195', '/api/WarSeason/GalacticWarEffects'])
    nowMs += 15_000
    await client.spaceStation(801, DEMOCRACY_SPACE_STATION)
    await client.spaceStation(802, DEMOCRACY_SPACE_STATION)
    expect(upstream.paths.slice(2)).toEqual(['/api/SpaceStation/801/749875195', '/api/SpaceStation/802/749875195'])
    const stats = client.requestStats()
    expect(stats.map((s) => s.endpoint)).toEqual([...UPSTREAM_ENDPOINTS, ...UPSTREAM_2025_ENDPOINTS, 'warid'])
    expect(stats.find((s) => s.endpoint === 'spacestation')).toEqual({ endpoint: 'spacestation', ttlS: 15, hits: 1, ok: 3, rateLimited: 0, errors: 0 })
    expect(client.snapshot().endpoints.map((e) => e.endpoint)).toEqual([...UPSTREAM_ENDPOINTS])
  })

  test('a station payload without its actions is refused, as any payload lacking a field the service reads', async () => {
    const { tacticalActions: _, ...bare } = load('arrowhead/spacestation_801_749875195_HANDMADE.json') as Record<string, unknown>
    const client = createUpstreamClient({ baseUrl: 'http://upstream.test/api', timeoutMs: 1000, userAgent: 't', fetch: fakeUpstream(() => bare).fetch })
    await expect(client.spaceStation(801, DEMOCRACY_SPACE_STATION)).rejects.toMatchObject({ reason: 'invalid_payload' })
  })
})

describe('a field the upstream adds: read, counted, logged once', () => {
  const withNew = () => ({ ...clone(load(STATUS_2025) as object), zzNewSurface: [{ id: 1 }] })

  test('the Status parses; only top-level fields count (nested ones stay drift)', () => {
    const status = withNew() as unknown as Record<string, unknown> & { planetRegions: Record<string, unknown>[] }
    status.planetRegions[0]!.zzNested = 1
    status.planetStatus = [{ ...(status.planetStatus as object[])[0], zzInPlanet: 1 }]
    const parsed = parseWarStatus(status)
    expect(parsed.data.time).toBe(40109140)
    expect(parsed.drift.unknown).toEqual(['/planetStatus/*/zzInPlanet', '/zzNewSurface'])
    expect(unknownTopLevel(parsed.drift)).toEqual(['zzNewSurface'])
  })

  test('per payload received (cache hits are not), once in the log per endpoint and field, in /metrics', async () => {
    const lines: Record<string, unknown>[] = []
    const info = { ...(load('arrowhead/warinfo_801_2025_EXCERPT_mockserver.json') as object), zzNewSurface: 1 }
    const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => Response.json(new URL(req.url).pathname.endsWith('/WarInfo') ? info : withNew()) })
    try {
      const config = loadConfig({ UPSTREAM_URL: `http://127.0.0.1:${server.port}/api` })
      const feeds = createFeeds(config, { log: createLogger('info', (l) => lines.push(JSON.parse(l))) })
      const noDatabase = { options: { max: 1 } } as unknown as Sql
      const db = { sql: noDatabase, gate: new DatabaseGate(null, silentLogger), info: { edition: 'postgres' as const, timescaledbVersion: null, serverVersion: '', embedded: true } }
      const app = buildApp({ config, db, log: silentLogger, feeds })
      await feeds.upstream.status(801)
      await feeds.upstream.status(801) // a cache hit
      await feeds.upstream.status(802)
      await feeds.upstream.warInfo(801)
      const metrics = await (await app.handle(new Request('http://localhost/metrics'))).text()
      expect(metrics).toContain('feed_unknown_fields_total{feed="upstream",endpoint="status",field="zzNewSurface"} 2')
      expect(metrics).toContain('feed_unknown_fields_total{feed="upstream",endpoint="warinfo",field="zzNewSurface"} 1')
      await feeds.upstream.status(803)
      const logged = lines.filter((l) => l.msg === 'feed payload has a field the service does not know')
      expect(logged.map(({ feed, endpoint, field, level }) => ({ feed, endpoint, field, level }))).toEqual([
        { feed: 'upstream', endpoint: 'status', field: 'zzNewSurface', level: 'info' },
        { feed: 'upstream', endpoint: 'warinfo', field: 'zzNewSurface', level: 'info' },
      ])
      expect(feeds.upstream.unknownFields()).toEqual([
        { feed: 'upstream', endpoint: 'status', field: 'zzNewSurface', count: 3 },
        { feed: 'upstream', endpoint: 'warinfo', field: 'zzNewSurface', count: 1 },
      ])
    } finally {
      await server.stop(true)
    }
  })

  test('the distinct fields counted are bounded: past the bound, new ones count together', () => {
    const seen: string[] = []
    const tally = new UnknownFields('upstream', ({ field }) => seen.push(field))
    for (let k = 0; k < MAX_UNKNOWN_FIELDS + 5; k++) tally.note('status', { missing: [], unknown: [`/f${k}`] })
    tally.note('status', { missing: [], unknown: ['/f0'] })
    const stats = tally.stats()
    expect(stats).toHaveLength(MAX_UNKNOWN_FIELDS + 1)
    expect(stats.find((s) => s.field === OTHER_FIELDS)!.count).toBe(5)
    expect(stats.find((s) => s.field === 'f0')!.count).toBe(2)
    expect(seen).toHaveLength(MAX_UNKNOWN_FIELDS + 1)
  })

  test('a Metrics registry without the source reports none', async () => {
    expect(await new Metrics().text()).not.toContain('feed_unknown_fields_total{')
  })
})
