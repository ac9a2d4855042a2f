/**
 * Feeds change shape without notice. Every real captured sample of every feed, served
 * (1) as captured, (2) with every field the service does not read removed, (3) with
 * unknown fields added to every object, must make the collectors write exactly the same
 * rows; what changed is reported as drift on the run's log line, once per run.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TSchema } from '@sinclair/typebox'
import { publishedAt } from '../../src/collect/full-status.ts'
import type { CollectorName } from '../../src/collect/index.ts'
import { CommunityPlanetListSchema, createCommunityClient } from '../../src/feeds/community.ts'
import type { Feeds } from '../../src/feeds/index.ts'
import { createPcstoreClient, PcstorePlayersSchema } from '../../src/feeds/pcstore.ts'
import { readFieldsOf } from '../../src/feeds/schema.ts'
import {
  AssignmentListSchema,
  createUpstreamClient,
  CurrentWarSchema,
  NewsFeedSchema,
  WarInfoSchema,
  WarStatusSchema,
  WarSummarySchema,
} from '../../src/feeds/upstream.ts'
import { createLogger } from '../../src/log.ts'
import { collect, testRunner } from '../support/collect.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { loadSample as load, sampleFiles } from '../support/samples.ts'
import { DATASET_TABLES } from '../support/tables.ts'

const ASSIGNMENT_FILES = sampleFiles('arrowhead', 'assignment_')
const NEWS_FILES = sampleFiles('arrowhead', 'newsfeed_')
const NOW = new Date('2026-03-01T12:00:00.000Z')

const TABLES = DATASET_TABLES

type Variant = 'as captured' | 'read fields only' | 'with unknown fields'

/** The payload as the variant serves it. */
function variant(v: Variant, schema: TSchema, payload: unknown): unknown {
  if (v === 'read fields only') return readFieldsOf(schema, payload)
  if (v === 'with unknown fields') return withUnknown(payload)
  return payload
}

function withUnknown(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withUnknown)
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = withUnknown(v)
    out.zzAddedUpstream = { nested: [1, 2] }
    return out
  }
  return value
}

/** Every feed answering with samples; `round` moves the war time and picks the order and news samples. */
function sampleFeeds(v: Variant, round: { n: number }): Feeds {
  const status = load('arrowhead/warstatus_801_2024-03-08_sector-hq.json') as { time: number }
  const community = (load('community/v1_war_planets_dispatch_EXCERPT_sebsebmc_2025.json') as { planets: unknown }).planets
  const pcstore = (load('steam/getnumberofcurrentplayers_shapes_HANDMADE.json') as { ok: unknown }).ok
  const answer = (url: string): [TSchema, unknown] => {
    const path = new URL(url).pathname
    if (path.endsWith('/WarSeason/current/WarID')) return [CurrentWarSchema, load('arrowhead/warid_current_HANDMADE.json')]
    if (path.endsWith('/Status')) return [WarStatusSchema, { ...status, time: status.time + 10 * round.n }]
    if (path.endsWith('/WarInfo')) return [WarInfoSchema, load('arrowhead/warinfo_801_2024-03-25_sector-hq.json')]
    if (path.endsWith('/Summary')) return [WarSummarySchema, load('arrowhead/DERIVED_summary_801_from_community_excerpt.json')]
    if (path.includes('/Assignment/')) return [AssignmentListSchema, load(`arrowhead/${ASSIGNMENT_FILES[round.n % ASSIGNMENT_FILES.length]}`)]
    if (path.includes('/NewsFeed/')) return [NewsFeedSchema, load(`arrowhead/${NEWS_FILES[round.n % NEWS_FILES.length]}`)]
    if (path.endsWith('/api/v1/planets')) return [CommunityPlanetListSchema, community]
    if (path.includes('GetNumberOfCurrentPlayers')) return [PcstorePlayersSchema, pcstore]
    throw new Error(`no sample for ${url}`)
  }
  const fetch = async (input: string | URL | Request) => {
    const [schema, payload] = answer(String(input instanceof Request ? input.url : input))
    return new Response(JSON.stringify(variant(v, schema, payload)), { headers: { 'content-type': 'application/json' } })
  }
  const opts = { timeoutMs: 2000, fetch }
  return {
    upstream: createUpstreamClient({ ...opts, baseUrl: 'http://upstream.test/api', userAgent: 'test', now: () => NOW.getTime() + round.n * 60_000 }),
    community: createCommunityClient({ ...opts, baseUrl: 'http://community.test', superClient: 't', superContact: 't' }),
    pcstore: createPcstoreClient({ ...opts, baseUrl: 'http://pcstore.test' }),
  }
}

describeOnEachDatabase('feed shape drift and a newsfeed newer than its status', (target) => {
  let db: TestDatabase

  beforeAll(async () => {
    db = await target.open()
  }, 60_000)
  afterAll(async () => {
    await db?.dispose()
  })

  /** Every row of every dataset, in a stable order. */
  const dump = async () => {
    const out: Record<string, string[]> = {}
    for (const t of TABLES) out[t] = (await db.sql<{ r: string }[]>`SELECT to_jsonb(x)::text AS r FROM ${db.sql(t)} x`).map((x) => x.r).sort()
    return out
  }

  /** The collectors over the samples: war-info, player-count, one full-status tick per order sample, planet-stats. */
  async function collectAll(v: Variant) {
    await db.sql.unsafe(`TRUNCATE ${TABLES.join(', ')} CASCADE`)
    const lines: Record<string, unknown>[] = []
    const round = { n: 0 }
    const runner = testRunner(db, sampleFeeds(v, round), { log: createLogger('info', (l) => lines.push(JSON.parse(l))) })
    const run = (name: CollectorName) => collect(runner, name, { now: new Date(NOW.getTime() + round.n * 60_000) })
    await run('war-info')
    await run('player-count')
    for (; round.n < ASSIGNMENT_FILES.length; round.n++) expect((await run('full-status')).outcome).toBe('written')
    await run('planet-stats')
    return { rows: await dump(), lines }
  }

  test('every sample as captured, with only the read fields, and with unknown fields: the same rows; drift on the run line', async () => {
    const captured = await collectAll('as captured')
    // Every dataset gets rows, but the planet-hours (one tick completes no hour).
    expect(Object.entries(captured.rows).filter(([, rows]) => rows.length === 0).map(([t]) => t)).toEqual(['planet_status_hours'])
    // The captured samples match their documented shapes: no drift reported.
    expect(captured.lines.filter((l) => l.drift)).toEqual([])

    const reduced = await collectAll('read fields only')
    expect(reduced.rows).toEqual(captured.rows)
    const runLines = reduced.lines.filter((l) => l.msg === 'collector run')
    expect(runLines).toHaveLength(6)
    // One line per run, naming what went missing per payload.
    const status = runLines.find((l) => l.collector === 'player-count')!.drift as Record<string, { missing: string[] }>
    expect(status.status!.missing).toEqual(expect.arrayContaining(['/warId', '/impactMultiplier', '/globalEvents']))
    const planets = runLines.find((l) => l.collector === 'planet-stats')!.drift as Record<string, { missing: string[] }>
    expect(planets.planets!.missing).toEqual(expect.arrayContaining(['/*/name', '/*/initialOwner', '/*/currentOwner']))

    const widened = await collectAll('with unknown fields')
    expect(widened.rows).toEqual(captured.rows)
    const full = widened.lines.find((l) => l.msg === 'collector run' && l.collector === 'full-status')!.drift as Record<string, { unknown: string[] }>
    expect(full.status!.unknown).toEqual(expect.arrayContaining(['/zzAddedUpstream', '/planetStatus/*/zzAddedUpstream']))
    expect(full.summary!.unknown).toEqual(expect.arrayContaining(['/zzAddedUpstream', '/galaxy_stats/zzAddedUpstream']))
    expect(full.news!.unknown).toEqual(['/*/zzAddedUpstream'])
    expect(widened.lines.filter((l) => l.msg !== 'collector run')).toEqual([])
  }, 60_000)

  test('no dispatch is stored with a publication time after its capture time', async () => {
    await db.sql.unsafe(`TRUNCATE ${TABLES.join(', ')} CASCADE`)
    const round = { n: 0 }
    const feeds = sampleFeeds('as captured', round)
    const status = (await feeds.upstream.status(801)).data
    const news = load(`arrowhead/${NEWS_FILES[0]}`) as { published: number }[]
    const newest = Math.max(...news.map((n) => n.published))
    // The feed the status came with is older than the newest dispatch by more than a day.
    expect(newest - status.time).toBeGreaterThan(86_400)
    await collect(testRunner(db, feeds), 'full-status', { now: NOW })
    const late = await db.sql`SELECT dispatch_id FROM dispatches WHERE published_at > first_seen_at`
    expect([...late]).toEqual([])
    const [row] = await db.sql<{ n: number; at_capture: number }[]>`
      SELECT count(*)::int AS n, count(*) FILTER (WHERE published_at = ${NOW})::int AS at_capture FROM dispatches`
    expect(row!.n).toBe(news.length)
    expect(row!.at_capture).toBe(news.filter((n) => n.published >= status.time).length)
  })
})

describe('a newsfeed newer than its status', () => {
  test('a dispatch is never stamped later than the capture', () => {
    const at = new Date('2026-03-01T12:00:00.000Z')
    expect(publishedAt(at, 1000, 400)).toBe('2026-03-01T11:50:00.000Z')
    expect(publishedAt(at, 1000, 1000)).toBe(at.toISOString())
    // Published 3 days of war time after the status the capture went with.
    expect(publishedAt(at, 1000, 1000 + 3 * 86_400)).toBe(at.toISOString())
  })
})
