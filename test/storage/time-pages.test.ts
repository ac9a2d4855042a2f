/**
 * Pages located through the rollups' bucket counts must be exactly the pages count(*) and
 * OFFSET give: same total, same rows in the same order, for any window (open, inclusive,
 * a bare end date's whole day) and any page, also for rows written after the last rollup
 * refresh and for rows written late, below it.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import fc from 'fast-check'
import type { Fragment, Sql } from '../../src/db/connect.ts'
import * as planetStatus from '../../src/storage/planet-status.ts'
import * as playerCounts from '../../src/storage/player-counts.ts'
import type { TimeRange } from '../../src/storage/query.ts'
import * as warSummary from '../../src/storage/war-summary.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { SEED, seedAll, writeTick } from '../support/seed.ts'

const DAY = 86_400_000
const NOW = new Date('2026-11-20T12:00:07.123Z')
/** Instants on a 1 d, a 1 h and a 5 min bucket boundary, each holding a row of every series (added below). */
const BOUNDARIES = [new Date('2026-11-20T00:00:00Z'), new Date('2026-11-20T07:00:00Z'), new Date('2026-11-20T11:25:00Z')]

/** The baseline: the same filters with count(*) and OFFSET. */
async function direct(sql: Sql, table: string, where: Fragment, range: TimeRange, limit: number, offset: number, order: Fragment) {
  const cond = sql`${where}
    ${range.from ? sql`AND captured_at >= ${range.from}` : sql``}
    ${range.to ? (range.toExclusive ? sql`AND captured_at < ${range.to}` : sql`AND captured_at <= ${range.to}`) : sql``}`
  const [c] = await sql<{ n: number }[]>`SELECT count(*)::bigint AS n FROM ${sql(table)} WHERE ${cond}`
  const rows = await sql<{ t: Date }[]>`SELECT captured_at AS t FROM ${sql(table)} WHERE ${cond} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`
  return { total: c!.n, times: rows.map((r) => r.t.toISOString()) }
}

const rangeArb = (spanStart: number, spanEnd: number) =>
  fc
    .record({
      from: fc.option(fc.integer({ min: spanStart - DAY, max: spanEnd }), { nil: null }),
      length: fc.oneof(fc.integer({ min: 0, max: 3_600_000 }), fc.integer({ min: 0, max: 40 * DAY }), fc.constant(200 * DAY)),
      openEnd: fc.boolean(),
      dayEnd: fc.boolean(),
    })
    .map(({ from, length, openEnd, dayEnd }): TimeRange => {
      const start = from ?? spanStart
      if (openEnd) return { from: from === null ? null : new Date(from), to: null, toExclusive: false }
      const end = start + length
      // A bare end date: the midnight after it, exclusive.
      return dayEnd
        ? { from: from === null ? null : new Date(from), to: new Date(Math.ceil(end / DAY) * DAY), toExclusive: true }
        : { from: from === null ? null : new Date(from), to: new Date(end), toExclusive: false }
    })

describeOnEachDatabase('pages located through rollup counts', (target) => {
  let db: TestDatabase

  beforeAll(async () => {
    db = await target.open()
    await seedAll(db.sql, db.info.edition, NOW)
    // Rows after the last refresh (the live tail) and rows written late, below it (with
    // the invalidation every writer of late rows makes).
    const late = new Date(NOW.getTime() - 3 * DAY - 7_000)
    await db.sql.begin(async (tx) => {
      await playerCounts.insertUpstream(tx, new Date(NOW.getTime() + 30_000), 801, 99_000_001, 150_000)
      await playerCounts.insertUpstream(tx, late, 801, 99_000_002, 90_000)
      await playerCounts.invalidate(tx, late)
      await tx`
        INSERT INTO war_summary_snapshots
        SELECT ${late}::timestamptz, war_id, 99000003, bug_kills, automaton_kills, illuminate_kills, deaths, missions_won, missions_lost,
               mission_time, bullets_fired, bullets_hit, time_played, revives, friendlies, mission_success_rate, accuracy
        FROM war_summary_snapshots WHERE war_id = 801 LIMIT 1`
      await tx`SELECT rollup_invalidate('war_summary_snapshots', ${late})`
      // Rows on bucket boundaries (the seeded ones are all off them): an inclusive end there
      // must count them.
      for (const [i, b] of BOUNDARIES.entries()) {
        await playerCounts.insertUpstream(tx, b, 801, 99_100_000 + i, 100_000 + i)
        await playerCounts.invalidate(tx, b)
        await tx`
          INSERT INTO war_summary_snapshots
          SELECT ${b}::timestamptz, war_id, ${99_200_000 + i}, bug_kills, automaton_kills, illuminate_kills, deaths, missions_won, missions_lost,
                 mission_time, bullets_fired, bullets_hit, time_played, revives, friendlies, mission_success_rate, accuracy
          FROM war_summary_snapshots WHERE war_id = 801 LIMIT 1`
        await tx`SELECT rollup_invalidate('war_summary_snapshots', ${b})`
      }
    })
    // Planet ticks there too (written late, among the seeded ones), as the collector writes them.
    for (const b of BOUNDARIES) {
      await writeTick(db.sql, 801, b, SEED.trackedPlanets.map((planet_index) => ({ planet_index, owner: 1, health: 1000, regen_per_second: 0, players: 5 })))
    }
  }, 120_000)
  afterAll(async () => {
    await db?.dispose()
  })

  /** Pages to check for a total: first, last, one past the last, and random ones. */
  const pagesOf = (total: number, limit: number, pick: number) => {
    const last = Math.max(0, Math.ceil(total / limit) - 1)
    return [...new Set([0, last, last + 1, Math.floor(pick * (last + 1))])]
  }

  test('player counts (both games, or one): the same totals and rows as count(*) and OFFSET', async () => {
    const span = [NOW.getTime() - SEED.pcstoreDays * DAY, NOW.getTime()] as const
    await fc.assert(
      fc.asyncProperty(rangeArb(...span), fc.constantFrom(undefined, 'Game', 'Game 2' as const), fc.constantFrom(1, 7, 50, 500), fc.double({ min: 0, max: 1, noNaN: true }), async (range, gameName, limit, pick) => {
        const where = gameName ? db.sql`game_name = ${gameName}` : db.sql`true`
        const first = await playerCounts.reads.history(db.sql, { range, gameName }, { limit, offset: 0 })
        for (const p of pagesOf(first.total, limit, pick)) {
          const got = await playerCounts.reads.history(db.sql, { range, gameName }, { limit, offset: p * limit })
          const want = await direct(db.sql, 'player_count_snapshots', where, range, limit, p * limit, db.sql`captured_at DESC, game_name, source`)
          expect({ total: got.total, times: got.rows.map((r) => r.timestamp.toISOString()) }).toEqual(want)
        }
      }),
      { numRuns: 40, seed: 11 },
    )
  }, 120_000)

  test('planet status and war summary: the same totals and rows as count(*) and OFFSET', async () => {
    await fc.assert(
      fc.asyncProperty(rangeArb(NOW.getTime() - SEED.planetStatusDays * DAY, NOW.getTime()), fc.constantFrom(...SEED.trackedPlanets), fc.constantFrom(1, 13, 100, 1000), fc.double({ min: 0, max: 1, noNaN: true }), async (range, planetIndex, limit, pick) => {
        const first = await planetStatus.reads.history(db.sql, { warId: 801, planetIndex, range }, { limit, offset: 0 })
        for (const p of pagesOf(first.total, limit, pick)) {
          const got = await planetStatus.reads.history(db.sql, { warId: 801, planetIndex, range }, { limit, offset: p * limit })
          const want = await direct(db.sql, 'planet_status_snapshots', db.sql`war_id = 801 AND planet_index = ${planetIndex}`, range, limit, p * limit, db.sql`captured_at DESC`)
          expect({ total: got.total, times: got.rows.map((r) => r.timestamp.toISOString()) }).toEqual(want)
        }
        const summary = await warSummary.reads.history(db.sql, { warId: 801, range }, { limit, offset: Math.floor(pick * first.total) })
        const want = await direct(db.sql, 'war_summary_snapshots', db.sql`war_id = 801`, range, limit, Math.floor(pick * first.total), db.sql`captured_at DESC`)
        expect({ total: summary.total, times: summary.rows.map((r) => r.timestamp.toISOString()) }).toEqual(want)
      }),
      { numRuns: 40, seed: 12 },
    )
  }, 120_000)

  test('windows whose start or inclusive end is a bucket boundary holding a row: the same totals and rows as count(*) and OFFSET', async () => {
    const ranges = BOUNDARIES.flatMap((b): TimeRange[] => {
      const at = (ms: number) => new Date(b.getTime() + ms)
      return [
        { from: at(-3 * DAY), to: b, toExclusive: false },
        { from: at(-3_600_000), to: b, toExclusive: false },
        { from: b, to: b, toExclusive: false },
        { from: b, to: at(3_600_000), toExclusive: false },
        { from: null, to: b, toExclusive: false },
        { from: null, to: b, toExclusive: true },
        { from: b, to: null, toExclusive: false },
      ]
    })
    const planet = SEED.trackedPlanets[1]!
    for (const range of ranges) {
      for (const offset of [0, 7, 300]) {
        const what = { from: range.from?.toISOString() ?? null, to: range.to?.toISOString() ?? null, toExclusive: range.toExclusive, offset }
        const pc = await playerCounts.reads.history(db.sql, { range }, { limit: 7, offset })
        const pcWant = await direct(db.sql, 'player_count_snapshots', db.sql`true`, range, 7, offset, db.sql`captured_at DESC, game_name, source`)
        expect({ what, total: pc.total, times: pc.rows.map((r) => r.timestamp.toISOString()) }).toEqual({ what, ...pcWant })
        const ps = await planetStatus.reads.history(db.sql, { warId: 801, planetIndex: planet, range }, { limit: 7, offset })
        const psWant = await direct(db.sql, 'planet_status_snapshots', db.sql`war_id = 801 AND planet_index = ${planet}`, range, 7, offset, db.sql`captured_at DESC`)
        expect({ what, total: ps.total, times: ps.rows.map((r) => r.timestamp.toISOString()) }).toEqual({ what, ...psWant })
        const ws = await warSummary.reads.history(db.sql, { warId: 801, range }, { limit: 7, offset })
        const wsWant = await direct(db.sql, 'war_summary_snapshots', db.sql`war_id = 801`, range, 7, offset, db.sql`captured_at DESC`)
        expect({ what, total: ws.total, times: ws.rows.map((r) => r.timestamp.toISOString()) }).toEqual({ what, ...wsWant })
      }
    }
  }, 120_000)
})
