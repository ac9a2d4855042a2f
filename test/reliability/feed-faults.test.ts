/**
 * Every collector against every feed fault the simulator can produce. For each pair the
 * run fails or degrades as the README documents, the database holds no partial tick, the
 * TTL rule holds (+15 s per 429, capped at 300 s, never lowered) and the next healthy run
 * writes normally. Then a new war appearing upstream, end to end through the schedule path.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { buildApp } from '../../src/app.ts'
import { COLLECTORS, COLLECTOR_NAMES, type CollectorName } from '../../src/collect/index.ts'
import type { CollectorRunner, CollectorSummary } from '../../src/collect/runner.ts'
import { CurrentWar } from '../../src/war/current-war.ts'
import { loadConfig } from '../../src/config.ts'
import { silentLogger } from '../../src/log.ts'
import type { FaultSpec, SimFeed } from '../../src/sim/faults.ts'
import { isFeedUnavailable, type UnavailableReason } from '../../src/feeds/errors.ts'
import type { EndpointStats } from '../../src/feeds/throttle.ts'
import { collect, testRunner } from '../support/collect.ts'
import { describeTimescale, openTimescaleTestDatabase, type TestDatabase } from '../support/db.ts'
import { simulatedFeeds } from '../support/sim.ts'
import { DATASET_TABLES } from '../support/tables.ts'

type Sim = ReturnType<typeof simulatedFeeds>
const CLIENT_TIMEOUT_MS = 1500

/** The feed each collector cannot do without. */
const PRIMARY_FEED: Record<CollectorName, SimFeed> = {
  'player-count': 'upstream',
  'war-info': 'upstream',
  'full-status': 'upstream',
  'planet-stats': 'community',
}

/**
 * What a run does under a fault:
 * - fails: rejects with the feed error of `reason`; not one row changes;
 * - nothing new: succeeds and writes no row derived from the war (a frozen or stale tick);
 * - pcstore skipped: the upstream row is written, the pcstore rows are left for a later run;
 * - written: the fault is on a feed the collector does not use;
 * - new war: rows are written under the new war id, the old war's rows stay as they were.
 */
type Expected =
  | { kind: 'fails'; reason: UnavailableReason }
  | { kind: 'nothing new' }
  | { kind: 'pcstore skipped' }
  | { kind: 'written' }
  | { kind: 'new war' }

interface FaultCase {
  name: string
  fault: (c: CollectorName) => FaultSpec
  /** Runs of the collector under the fault (a storm is several). */
  runs?: number
  /** Run once just before the fault starts, so that tick is stored (and cached). */
  primed?: boolean
  /** Time passing between the fault starting and the runs. */
  wait?: (s: Sim) => void
  expected: (c: CollectorName) => Expected
}

const onPrimary = (kind: FaultSpec['kind'], extra: Partial<FaultSpec> = {}) => (c: CollectorName): FaultSpec => ({ kind, feed: PRIMARY_FEED[c], ...extra })
const failsWith = (reason: UnavailableReason) => (): Expected => ({ kind: 'fails', reason })

const CASES: FaultCase[] = [
  {
    name: '429 while a recent answer is cached',
    fault: onPrimary('rate_limit'),
    primed: true,
    // Past the 15 s TTL, well inside the 300 s stale cap. (First: after the storm below
    // the TTL is longer than this and the run would not even ask.)
    wait: (s) => s.ageCache(20),
    // The upstream client serves the cached answer, whose tick is already stored. The
    // community client has no cache: its run fails and waits out the penalty.
    expected: (c) => (PRIMARY_FEED[c] === 'upstream' ? { kind: 'nothing new' } : { kind: 'fails', reason: 'rate_limited' }),
  },
  { name: '429 storm', fault: onPrimary('rate_limit'), runs: 3, expected: failsWith('rate_limited') },
  { name: '5xx', fault: onPrimary('server_error'), expected: failsWith('http_status') },
  { name: 'timeout', fault: onPrimary('slow', { delayMs: CLIENT_TIMEOUT_MS + 1000 }), expected: failsWith('timeout') },
  { name: 'malformed JSON', fault: onPrimary('malformed_json'), expected: failsWith('bad_body') },
  { name: 'HTML maintenance page', fault: onPrimary('html_maintenance'), expected: failsWith('bad_body') },
  { name: 'payload that fails its schema', fault: onPrimary('invalid_payload'), expected: failsWith('invalid_payload') },
  {
    name: 'frozen war',
    fault: () => ({ kind: 'freeze' }),
    primed: true,
    wait: (s) => s.later(600), // every cache expired, the war has not moved
    expected: () => ({ kind: 'nothing new' }),
  },
  {
    name: 'pcstore outage',
    fault: () => ({ kind: 'outage', feed: 'pcstore' }),
    expected: (c) => (c === 'player-count' ? { kind: 'pcstore skipped' } : { kind: 'written' }),
  },
  {
    name: 'community outage',
    fault: () => ({ kind: 'outage', feed: 'community' }),
    expected: (c) => (c === 'planet-stats' ? { kind: 'fails', reason: 'http_status' } : { kind: 'written' }),
  },
  // Last: the world stays on the new war afterwards.
  { name: 'new war id', fault: () => ({ kind: 'new_war' }), expected: () => ({ kind: 'new war' }) },
]

// Player counts are written by their own collector, which these faults do not touch.
const TABLES = DATASET_TABLES.filter((t) => t !== 'player_count_snapshots')
// The planet-hours are kept once an hour of ticks is complete: the few ticks here complete none.
const WAR_TABLES = TABLES.filter((t) => !['sectors', 'factions', 'planet_status_hours'].includes(t))

/** Rows per dataset, player counts split by source (pcstore rows do not depend on the war). */
async function rowCounts(db: TestDatabase): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const t of TABLES) out[t] = (await db.sql<{ n: number }[]>`SELECT count(*) AS n FROM ${db.sql(t)}`)[0]!.n
  for (const r of await db.sql<{ source: string; n: number }[]>`SELECT source, count(*) AS n FROM player_count_snapshots GROUP BY source`) {
    out[`player_count_snapshots/${r.source}`] = r.n
  }
  return out
}

/** Rows of one war in every table keyed by war. */
async function warRowCounts(db: TestDatabase, warId: number): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const t of [...WAR_TABLES, 'player_count_snapshots']) {
    out[t] = (await db.sql<{ n: number }[]>`SELECT count(*) AS n FROM ${db.sql(t)} WHERE war_id = ${warId}`)[0]!.n
  }
  return out
}

const withoutPcstore = (counts: Record<string, number>) => {
  const { 'player_count_snapshots/pcstore': _pcstore, ...rest } = counts
  return rest
}

/**
 * The spec's rule: each 429 adds 15 s to that endpoint's TTL, up to 300 s; nothing lowers
 * it. `served429` counts the 429s the simulator actually answered, per endpoint.
 */
function expectTtlRule(before: EndpointStats[], after: EndpointStats[], served429: (endpoint: string) => number) {
  for (const b of before) {
    const a = after.find((e) => e.endpoint === b.endpoint)!
    expect({ endpoint: a.endpoint, ttlS: a.ttlS }).toEqual({ endpoint: b.endpoint, ttlS: Math.min(300, b.ttlS + 15 * served429(b.endpoint)) })
  }
}

/** Full-status ticks missing planet rows or their summary row: must always be none. */
async function partialTicks(db: TestDatabase): Promise<unknown[]> {
  return [...await db.sql`
    SELECT t.war_id, t.upstream_war_time FROM full_status_ticks t
    WHERE t.planets_written <> (SELECT count(*) FROM planet_status_snapshots p WHERE p.war_id = t.war_id AND p.captured_at = t.captured_at)
       OR NOT EXISTS (SELECT 1 FROM war_summary_snapshots w WHERE w.war_id = t.war_id AND w.captured_at = t.captured_at)`]
}

describeTimescale('feed faults × collectors', () => {
  const config = loadConfig({ WAR_ID: '801' })

  for (const collector of COLLECTOR_NAMES) {
    describe(collector, () => {
      let db: TestDatabase
      let s: Sim
      let runner: CollectorRunner
      let war: CurrentWar
      // Stamped with the simulated clock, so pcstore due-ness follows the simulated time.
      const run = (): Promise<CollectorSummary> => collect(runner, collector, { warId: war.id, now: s.now() })

      beforeAll(async () => {
        db = await openTimescaleTestDatabase(`faults-${collector}`)
        s = simulatedFeeds(11, CLIENT_TIMEOUT_MS)
        war = new CurrentWar(config.warId, s.feeds.upstream, silentLogger)
        runner = testRunner(db, s.feeds, { config, currentWar: war })
        // The war-info rows the other collectors' tables hang on, then a first tick.
        await collect(runner, 'war-info')
        s.later(600)
        expect((await run()).outcome).toBe('written')
      }, 60_000)
      afterAll(async () => {
        await s?.stop()
        await db?.dispose()
      })

      for (const c of CASES) {
        const expected = c.expected(collector)
        test(`${c.name}: ${expected.kind}${expected.kind === 'fails' ? ` (${expected.reason})` : ''}; no partial tick; the next healthy run writes`, async () => {
          // Ten minutes on: the war moved (every collector has something new) and pcstore is due.
          s.later(600)
          if (c.primed) await run()
          const oldWar = war.id
          const before = await rowCounts(db)
          const oldWarBefore = await warRowCounts(db, oldWar)
          const ttlBefore = s.feeds.upstream.snapshot().endpoints
          const fault = c.fault(collector)
          const requestsBefore = s.sim.control.requests()
          s.sim.control.addFault(fault)
          c.wait?.(s)
          await war.refresh()

          for (let i = 0; i < (c.runs ?? 1); i++) {
            if (i > 0) s.later(30)
            const outcome = await run().then(
              (summary) => ({ summary, error: undefined }),
              (error: unknown) => ({ summary: undefined, error }),
            )
            const after = await rowCounts(db)
            switch (expected.kind) {
              case 'fails':
                expect(isFeedUnavailable(outcome.error) ? outcome.error.reason : String(outcome.error)).toBe(expected.reason)
                expect(after).toEqual(before)
                break
              case 'nothing new':
                expect(outcome.error).toBeUndefined()
                expect(Object.entries(outcome.summary!.written).filter(([k, n]) => k !== 'pcstoreRows' && (n as number) > 0)).toEqual([])
                expect(withoutPcstore(after)).toEqual(withoutPcstore(before))
                break
              case 'pcstore skipped':
                expect(outcome.summary).toMatchObject({ written: { upstreamRows: 1, pcstoreRows: 0 }, unchanged: { pcstoreUnavailable: 2 } })
                expect(after['player_count_snapshots/pcstore']).toBe(before['player_count_snapshots/pcstore'])
                break
              case 'written':
                expect(outcome.error).toBeUndefined()
                expect(outcome.summary?.outcome).toBe('written')
                break
              case 'new war':
                expect(outcome.error).toBeUndefined()
                expect(war.id).toBe(oldWar + 1)
                expect(outcome.summary).toMatchObject({ outcome: 'written', warId: oldWar + 1 })
                expect(await warRowCounts(db, oldWar)).toEqual(oldWarBefore)
                break
            }
          }
          const ttlAfter = s.feeds.upstream.snapshot().endpoints
          const requestsAfter = s.sim.control.requests()
          const rateLimitsUpstream = fault.kind === 'rate_limit' && fault.feed === 'upstream'
          expectTtlRule(ttlBefore, ttlAfter, (e) =>
            rateLimitsUpstream ? (requestsAfter[`upstream:${e}`] ?? 0) - (requestsBefore[`upstream:${e}`] ?? 0) : 0)
          expect(await partialTicks(db)).toEqual([])

          s.sim.control.clearFaults()
          s.later(600)
          const healthy = await run()
          expect(healthy.outcome).toBe('written')
          expect(healthy.warId).toBe(war.id)
          expectTtlRule(ttlAfter, s.feeds.upstream.snapshot().endpoints, () => 0)
          expect(await partialTicks(db)).toEqual([])
        }, 30_000)
      }
    })
  }
})

describeTimescale('a new war appearing upstream, through the schedule path', () => {
  let db: TestDatabase
  let s: Sim
  let runner: CollectorRunner
  const config = loadConfig({ WAR_ID: '801' })
  const get = async (path: string) => {
    const res = await buildApp({ config, db, log: silentLogger, feeds: s.feeds }).handle(new Request(`http://localhost/api/v1${path}`))
    return { status: res.status, body: (await res.json()) as Record<string, any> }
  }

  beforeAll(async () => {
    db = await openTimescaleTestDatabase('new-war')
    s = simulatedFeeds(12, CLIENT_TIMEOUT_MS)
    // The schedule's runner: no war check of its own, it is handed the war just checked.
    runner = testRunner(db, s.feeds, { config })
  }, 60_000)
  afterAll(async () => {
    await s?.stop()
    await db?.dispose()
  })

  test('every collector moves to the new war, /war follows it, the old war stays readable and whole', async () => {
    const war = new CurrentWar(config.warId, s.feeds.upstream, silentLogger)
    const tick = async () => {
      await war.refresh()
      // What a scheduled firing does: fetch the tick for the war just checked, then write it.
      for (const name of COLLECTOR_NAMES) {
        const { tick } = await runner.capture(COLLECTORS[name], { warId: war.id })
        await runner.write(COLLECTORS[name], tick)
      }
    }
    await tick()
    expect((await get('/war')).body.war).toMatchObject({ warID: 801 })
    const old = await warRowCounts(db, 801)
    expect(Object.values(old).every((n) => n > 0)).toBe(true)

    s.sim.control.addFault({ kind: 'new_war', warId: 805 })
    s.later(600)
    await tick()
    expect(war.id).toBe(805)
    const fresh = await warRowCounts(db, 805)
    // A brand-new war may have no major order, dispatch, defense, attack line or joint operation yet; everything else it has.
    const mayBeEmpty = ['dispatches', 'major_orders', 'major_order_progress', 'planet_event_snapshots', 'planet_event_spans']
    expect(Object.entries(fresh).filter(([t, n]) => n === 0 && !mayBeEmpty.includes(t))).toEqual([])
    expect(await warRowCounts(db, 801)).toEqual(old)

    const latest = await get('/war')
    expect(latest.body.war).toMatchObject({ warID: 805 })
    expect(latest.body.planets.every((p: { warID: number }) => p.warID === 805)).toBe(true)
    const previous = await get('/war/801')
    expect(previous.status).toBe(200)
    expect(previous.body.war).toMatchObject({ warID: 801 })

    // The community feed now describes war 805: rows for 801 (WAR_ID, the POST default) are refused.
    const app = buildApp({ config, db, log: silentLogger, feeds: s.feeds })
    const refused = await app.handle(new Request('http://localhost/api/v1/collect/planet-stats', { method: 'POST' }))
    expect({ status: refused.status, body: await refused.json() }).toEqual({
      status: 409, body: { error: 'the community feed describes the current war (805), not war 801' },
    })
    expect(await warRowCounts(db, 801)).toEqual(old)

    // A failed war check keeps collecting the war it has.
    s.sim.control.addFault({ kind: 'outage', feed: 'upstream', endpoint: 'warid' })
    expect(await war.refresh()).toBe(805)
  }, 60_000)
})
