/**
 * `npm run import -- FILE.ndjson[.gz]` as a library call (issue 26): captures with every
 * optional part (summary, assignments, newsfeed, war info), gzip and plain, leave the rows
 * of the same captures collected live; a capture older than the stored rows lands in
 * order: its neighbours' owner changes, the spans of events and campaigns, the current
 * campaigns and the rollups come out as if it had been collected in its time.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { refreshRollups } from '../../src/storage/rollups.ts'
import { importCaptures } from '../../src/import/importer.ts'
import { ndjsonSource } from '../../src/import/sources.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { assignmentsAt, collectLive, counts, dump, ndjson, NEWSFEED, STATUS, statusAt, SUMMARY, tempDir, WAR_INFO, type TestCapture } from './support.ts'

const T0 = Date.parse('2024-03-08T12:00:00Z')
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString()

/** Five captures 5 minutes apart with every part; planet 34 is liberated at the third, the defense ends at the fourth. */
const FULL: TestCapture[] = [0, 1, 2, 3, 4].map((i) => ({
  capturedAt: at(i * 5),
  warId: 801,
  status: statusAt(i * 300, { players: i * 10, owners: i >= 2 ? { 34: 1 } : {}, noEvent: i >= 3 }),
  summary: SUMMARY,
  assignments: assignmentsAt(i),
  newsfeed: NEWSFEED,
  ...(i === 0 || i === 4 ? { warInfo: WAR_INFO } : {}),
}))

describeOnEachDatabase('importing NDJSON captures', (target) => {
  let files: ReturnType<typeof tempDir>
  beforeAll(() => {
    files = tempDir('gws-import-ndjson-')
  })
  afterAll(() => files?.remove())

  const write = (name: string, captures: TestCapture[], gzip = false) => {
    const path = join(files.dir, name)
    writeFileSync(path, gzip ? gzipSync(ndjson(captures)) : ndjson(captures))
    return path
  }
  const run = async (db: TestDatabase, path: string, batchSize = 2) => importCaptures({ db, source: await ndjsonSource(path), warId: 801, batchSize })

  describe('every optional part, gzip and plain', () => {
    let imported: TestDatabase
    let live: TestDatabase
    beforeAll(async () => {
      ;[imported, live] = [await target.open(), await target.open()]
    }, 60_000)
    afterAll(async () => {
      await imported?.dispose()
      await live?.dispose()
    })

    test('the gzip file (told by its bytes, not its name) leaves the rows collected live; every part is stored', async () => {
      // Blank lines and a malformed one among them: skipped, named by line number.
      const text = ndjson(FULL).replace('\n', '\n\n{"capturedAt": "2024-03-08T12:01:00Z", "status": \n')
      const path = join(files.dir, 'captures.data')
      writeFileSync(path, gzipSync(text))
      const summary = await run(imported, path)
      expect(summary).toMatchObject({ captures: 6, imported: 5, duplicates: 0, skipped: 1, skippedByReason: { unreadable: 1 } })
      expect(summary.skippedCaptures[0]).toMatchObject({ ref: 'line 3', reason: 'unreadable' })
      expect(summary.source).toContain('gzip')

      await collectLive(live, FULL)
      const [got, want] = [await dump(imported), await dump(live)]
      expect(counts(got)).toEqual(counts(want))
      expect(got).toEqual(want)
      // Every part made its rows: the summary's, the orders' and their progress, the dispatches, the war info's.
      for (const t of ['war_summary_snapshots', 'major_orders', 'major_order_progress', 'dispatches', 'dispatch_texts', 'wars', 'planets', 'planet_war_info']) {
        expect(got[t]!.length).toBeGreaterThan(0)
      }
      expect(got.war_summary_snapshots).toHaveLength(5)
      expect(got.major_order_progress).toHaveLength(5)
    })

    test('the same captures as plain NDJSON are all stored already: nothing is added', async () => {
      const before = await dump(imported)
      const summary = await run(imported, write('captures.ndjson', FULL), 3)
      expect(summary).toMatchObject({ captures: 5, imported: 0, skipped: 0, source: expect.not.stringContaining('gzip') })
      // The captures with a war info are written again (their upserts find nothing to change); the others are passed over.
      expect(summary.duplicates).toBe(5)
      expect(await dump(imported)).toEqual(before)
    })

    test('a line without a status, or with a summary that fails its schema, is skipped with its reason', async () => {
      const lines = [
        { capturedAt: at(60), warId: 801, summary: SUMMARY },
        { ...FULL[0]!, capturedAt: at(65), status: statusAt(3600), summary: { galaxy_stats: { missionsWon: 'many' } } },
        { capturedAt: 'yesterday', warId: 801, status: statusAt(4000) },
      ]
      const summary = await run(imported, write('bad.ndjson', lines as TestCapture[]))
      expect(summary).toMatchObject({ captures: 3, imported: 0, skipped: 3, skippedByReason: { 'no status': 1, schema: 1, unreadable: 1 } })
      expect(summary.skippedCaptures.map((c) => c.ref)).toEqual(['line 1', 'line 2', 'line 3'])
      expect(summary.skippedCaptures[1]!.detail).toContain('summary')
    })

    test('a capture whose write fails (another war time at the same capture time) is skipped; the rest of its batch is written', async () => {
      const lines: TestCapture[] = [
        { capturedAt: at(100), warId: 801, status: statusAt(6000) },
        { capturedAt: at(100), warId: 801, status: statusAt(6300) },
        { capturedAt: at(105), warId: 801, status: statusAt(6600) },
      ]
      const summary = await run(imported, write('same-time.ndjson', lines), 3)
      expect(summary).toMatchObject({ captures: 3, imported: 2, skipped: 1, skippedByReason: { 'write failed': 1 } })
      expect(summary.skippedCaptures[0]).toMatchObject({ ref: 'line 2' })
      expect(summary.skippedCaptures[0]!.detail).toContain('same capture time')
      const ticks = await imported.sql<{ w: number }[]>`SELECT upstream_war_time::int AS w FROM full_status_ticks WHERE captured_at >= ${new Date(at(100))} ORDER BY 1`
      expect(ticks.map((t) => t.w)).toEqual([STATUS.time + 6000, STATUS.time + 6600])
    })
  })

  describe('a capture older than the stored rows', () => {
    let imported: TestDatabase
    let live: TestDatabase
    beforeAll(async () => {
      ;[imported, live] = [await target.open(), await target.open()]
    }, 60_000)
    afterAll(async () => {
      await imported?.dispose()
      await live?.dispose()
    })

    test('lands in order: owner changes, spans, current campaigns and rollups as if collected in its time', async () => {
      // The third capture (planet 34 liberated) and the fourth (the defense over) come after the rest.
      const [a, b, c, d, e] = FULL
      const early = await run(imported, write('early.ndjson', [a!, b!, e!]))
      expect(early.imported).toBe(3)
      const changesBefore = await imported.sql<{ captured_at: Date }[]>`SELECT captured_at FROM planet_owner_changes WHERE planet_index = 34`
      expect(changesBefore.map((r) => r.captured_at.toISOString())).toEqual([at(20)])

      const late = await run(imported, write('late.ndjson', [d!, c!], true))
      expect(late).toMatchObject({ imported: 2, duplicates: 0, skipped: 0 })

      await collectLive(live, FULL)
      // Both sides' rollup tables materialized to the same moment (the import refreshed its own at its end).
      await refreshRollups(live.sql, live.info.edition)
      await refreshRollups(imported.sql, imported.info.edition)
      expect(await dump(imported)).toEqual(await dump(live))

      const changes = await imported.sql<{ captured_at: Date }[]>`SELECT captured_at FROM planet_owner_changes WHERE planet_index = 34`
      expect(changes.map((r) => r.captured_at.toISOString())).toEqual([at(10)])
      const [span] = await imported.sql<{ first_seen_at: Date; last_seen_at: Date }[]>`SELECT first_seen_at, last_seen_at FROM planet_event_spans`
      expect([span!.first_seen_at.toISOString(), span!.last_seen_at.toISOString()]).toEqual([at(0), at(10)])
      if (imported.info.edition !== 'timescale') {
        const stores = ['player_count_5m_store', 'war_summary_1d_store']
        for (const t of stores) {
          const rows = async (db: TestDatabase) => (await db.sql<{ r: string }[]>`SELECT to_jsonb(x)::text AS r FROM ${db.sql(t)} x`).map((x) => x.r).sort()
          expect(await rows(imported)).toEqual(await rows(live))
        }
      }
    })
  })
})
