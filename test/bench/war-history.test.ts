/**
 * The bench's generated war history is what the collector writes: a small scale (4 days,
 * so a tile of the real series follows another) generated in one scratch database, and
 * the same ticks (the series' captures tiled as bench/war-history.ts says: capture
 * i mod 1000 at tick i, ids moved per tile, event times kept at their distance from the
 * tick's war time) written through the full-status collector's write (writeBatch, one
 * batch in order) in a second one. Every table the write filled must hold the same rows
 * in both, and the set-based planet-hours must equal planet_status_hours_rebuild.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { COLLECTORS } from '../../src/collect/index.ts'
import { fullStatus } from '../../src/collect/full-status.ts'
import { CollectorRunner } from '../../src/collect/runner.ts'
import type { Sql } from '../../src/db/connect.ts'
import { parseWarStatus } from '../../src/feeds/upstream.ts'
import { silentLogger } from '../../src/log.ts'
import { createStore } from '../../src/storage/index.ts'
import { generate } from '../../bench/generate.ts'
import { WAR_ID } from '../../bench/setup.ts'
import { TILE_CAPTURES, tileIdOffset } from '../../bench/war-history.ts'
import { statusTick } from '../support/collect.ts'
import { describeTimescale, openTimescaleTestDatabase, type TestDatabase } from '../support/db.ts'
import { capture, statusPayload } from '../support/series.ts'
import { simulatedFeeds } from '../support/sim.ts'

/** What the write keeps of planet status and the fight; a table of another layout is found by the write filling it. */
const EXPECTED = [
  'full_status_ticks', 'planet_status_changes', 'planet_status_latest', 'full_status_tick_hours', 'full_status_tick_days', 'planet_status_hours',
  'planet_owner_changes', 'planet_event_snapshots', 'planet_event_spans', 'campaign_spans', 'campaigns', 'defense_outcomes',
]

interface Payload {
  time: number
  campaigns: { id: number }[]
  planetEvents: { id: number; campaignId: number; startTime: number; expireTime: number }[]
}

/** Tick i of the bench's tiling: capture i mod 1000 of the series at the generated tick's time and war time. */
function tiledTick(i: number, at: Date, warTime: number) {
  const k = i % TILE_CAPTURES
  const off = tileIdOffset(Math.floor(i / TILE_CAPTURES))
  const shift = warTime - capture(k).warTime
  const p = statusPayload(k, WAR_ID) as Payload
  p.time = warTime
  p.campaigns = p.campaigns.map((c) => ({ ...c, id: c.id + off }))
  p.planetEvents = p.planetEvents.map((e) => ({ ...e, id: e.id + off, campaignId: e.campaignId + off, startTime: e.startTime + shift, expireTime: e.expireTime + shift }))
  return statusTick(parseWarStatus(p).data, at, WAR_ID)
}

/** The public tables with rows. */
async function filledTables(sql: Sql): Promise<string[]> {
  const tables = await sql<{ t: string }[]>`SELECT tablename AS t FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1`
  const out: string[] = []
  for (const { t } of tables) if ((await sql`SELECT 1 FROM ${sql(t)} LIMIT 1`).length) out.push(t)
  return out
}

/** A table's rows as JSON text, sorted. */
async function rowsOf(sql: Sql, table: string): Promise<string[]> {
  return (await sql<{ r: string }[]>`SELECT to_jsonb(x)::text AS r FROM ${sql(table)} x ORDER BY 1`).map((x) => x.r)
}

/** Rows of `a` missing from `b` (as many times as they are missing), the first few. */
function missing(a: readonly string[], b: readonly string[]): string[] {
  const left = new Map<string, number>()
  for (const r of b) left.set(r, (left.get(r) ?? 0) + 1)
  const out: string[] = []
  for (const r of a) {
    const n = left.get(r) ?? 0
    if (n > 0) left.set(r, n - 1)
    else if (out.push(r) >= 5) break
  }
  return out
}

describeTimescale('bench generator: the generated war history is what the collector writes', () => {
  let gen: TestDatabase
  let written: TestDatabase
  let feeds: ReturnType<typeof simulatedFeeds>
  let before: Set<string>
  let ticks: number

  beforeAll(async () => {
    ;[gen, written] = await Promise.all([openTimescaleTestDatabase('bench_gen'), openTimescaleTestDatabase('bench_written')])
    before = new Set(await filledTables(written.sql))
    feeds = simulatedFeeds(17, 5000)
    const runner = new CollectorRunner({ db: gen, store: createStore(gen), feeds: feeds.feeds, log: silentLogger, config: { warId: WAR_ID } })
    await runner.runOnce(COLLECTORS['war-info'])
    const warTimeAtNow = (await feeds.feeds.upstream.status(WAR_ID)).data.time
    await generate(gen.sql, { years: 0.01, planetDays: 4, summaryDays: 0.1, orders: 1, dispatches: 1 }, { now: new Date(), warId: WAR_ID, warTimeAtNow, progress: () => {} })
    const rows = await gen.sql<{ at: Date; w: number }[]>`
      SELECT captured_at AS at, upstream_war_time::float8 AS w FROM full_status_ticks WHERE war_id = ${WAR_ID} ORDER BY captured_at`
    ticks = rows.length
    const batch = rows.map(({ at, w }, i) => tiledTick(i, at, w))
    await written.sql.begin((tx) => fullStatus.writeBatch!(tx, batch.map((tick) => ({ at: new Date(tick.capturedAt), tick }))))
  }, 120_000)

  afterAll(async () => {
    await feeds?.stop()
    await Promise.all([gen?.dispose(), written?.dispose()])
  })

  test('the ticks: 4 days on the 5-minute grid, war time rising, past the first tile', async () => {
    expect(ticks).toBe(4 * 288)
    expect(ticks).toBeGreaterThan(TILE_CAPTURES)
    const [grid] = await gen.sql<{ steps: number[]; rising: boolean }[]>`
      SELECT array_agg(DISTINCT s) AS steps, bool_and(dw > 0) AS rising FROM (
        SELECT extract(epoch FROM captured_at - lag(captured_at) OVER w)::int AS s, upstream_war_time - lag(upstream_war_time) OVER w AS dw
        FROM full_status_ticks WINDOW w AS (ORDER BY captured_at)) x WHERE s IS NOT NULL`
    expect(grid).toEqual({ steps: [300], rising: true })
  })

  test('every table the write filled holds the same rows in the generated database', async () => {
    const filled = (await filledTables(written.sql)).filter((t) => !before.has(t))
    for (const t of EXPECTED) expect(filled).toContain(t)
    for (const table of filled) {
      const [a, b] = await Promise.all([rowsOf(written.sql, table), rowsOf(gen.sql, table)])
      expect({ table, rows: b.length, notGenerated: missing(a, b), notWritten: missing(b, a) }).toEqual({ table, rows: a.length, notGenerated: [], notWritten: [] })
    }
  }, 60_000)

  test('the comparison covers a tile boundary, owner flips, decided and running defenses', async () => {
    const [x] = await gen.sql<{ boundary: number; owners: number; outcomes: number; running: number; events: number }[]>`
      SELECT (SELECT count(*)::int FROM planet_status_changes
              WHERE captured_at = (SELECT captured_at FROM full_status_ticks ORDER BY captured_at OFFSET ${TILE_CAPTURES} LIMIT 1)) AS boundary,
             (SELECT count(*)::int FROM planet_owner_changes) AS owners,
             (SELECT count(*)::int FROM defense_outcomes) AS outcomes,
             (SELECT count(*)::int FROM planet_event_spans s WHERE NOT EXISTS (SELECT 1 FROM defense_outcomes o WHERE o.event_id = s.event_id)) AS running,
             (SELECT count(DISTINCT event_id)::int FROM planet_event_snapshots) AS events`
    expect(x!.boundary).toBeGreaterThan(0)
    expect(x!.owners).toBeGreaterThan(10)
    // The series' four defenses in the first tile, ended there; the first again in the second, running at the last tick.
    expect(x!.events).toBe(5)
    expect(x!.outcomes).toBe(4)
    expect(x!.running).toBe(1)
  })

  test('the set-based planet-hours equal planet_status_hours_rebuild over the whole history', async () => {
    const generated = await rowsOf(gen.sql, 'planet_status_hours')
    await gen.sql`
      SELECT planet_status_hours_rebuild(${WAR_ID}, '-infinity',
        (SELECT time_bucket(interval '1 hour', max(captured_at)) FROM full_status_ticks WHERE war_id = ${WAR_ID}))`
    const rebuilt = await rowsOf(gen.sql, 'planet_status_hours')
    expect(generated.length).toBeGreaterThan(100)
    expect({ notRebuilt: missing(generated, rebuilt), notGenerated: missing(rebuilt, generated) }).toEqual({ notRebuilt: [], notGenerated: [] })
  })
})
