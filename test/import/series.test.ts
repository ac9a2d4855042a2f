/**
 * Captures imported in batches leave the rows of the same captures collected live one by
 * one, table by table: the batch compares each planet and each 2025 item with its latest
 * state itself and sums the hours its ticks complete (storage/planet-status.ts,
 * war-items.ts), where a live tick leaves that to planet_status_write and war_item_write.
 * The real series (March 2024, status only), and the simulated war's whole captures (2025
 * shapes: regions, stations, resources, global events). Batches of 50 end mid-hour, so the
 * hour each batch starts in is rebuilt from stored ticks.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import { importCaptures } from '../../src/import/importer.ts'
import { ndjsonSource } from '../../src/import/sources.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { capture, statusPayload } from '../support/series.ts'
import { languageOf } from '../../src/sim/languages.ts'
import { World } from '../../src/sim/world.ts'
import { collectLive, counts, dump, ndjson, tempDir, type TestCapture } from './support.ts'

/** About a day and a half of captures (a few an hour): dozens of kept hours, four batches. */
const CAPTURES: TestCapture[] = Array.from({ length: 200 }, (_, k) => ({ capturedAt: capture(k).at.toISOString(), warId: 801, status: statusPayload(k) }))

/** A day of the simulated war's whole captures, 5 minutes apart (what bench/import.ts imports). */
function simulated(count: number): TestCapture[] {
  const start = Date.parse('2026-03-02T00:02:00Z')
  const world = new World({ seed: 3, speed: 1, now: () => start })
  const language = languageOf('en-US')
  return Array.from({ length: count }, (_, i) => {
    if (i) world.advance(300)
    const war = world.current()
    return {
      capturedAt: new Date(start + i * 300_000).toISOString(), warId: war.warId, status: war.status(), summary: war.summary(),
      assignments: war.assignments(language), newsfeed: war.newsfeed({ maxEntries: 1024, fromTimestamp: 1000, withMessage: true, language }),
    }
  })
}

/** The 2025 surfaces' tables (sql/0027), every row. */
const SURFACE_TABLES = ['war_item_changes', 'war_item_latest', 'war_item_ticks', 'global_event_texts'] as const

describeOnEachDatabase('captures imported in batches', (target) => {
  let files: ReturnType<typeof tempDir>
  let imported: TestDatabase
  let live: TestDatabase
  beforeAll(async () => {
    files = tempDir('gws-import-series-')
    ;[imported, live] = [await target.open(), await target.open()]
  }, 60_000)
  afterAll(async () => {
    await imported?.dispose()
    await live?.dispose()
    files?.remove()
  })

  test('the real series: every table holds the rows of the same captures collected live one by one', async () => {
    const path = join(files.dir, 'series.ndjson')
    writeFileSync(path, ndjson(CAPTURES))
    const summary = await importCaptures({ db: imported, source: await ndjsonSource(path), warId: 801, batchSize: 50 })
    expect(summary).toMatchObject({ imported: CAPTURES.length, skipped: 0 })
    await collectLive(live, CAPTURES)
    const [got, want] = [await dump(imported), await dump(live)]
    expect(counts(got)).toEqual(counts(want))
    expect(got).toEqual(want)
    // What the comparison covers: planets that changed, and hours kept.
    expect(got.planet_status_changes!.length).toBeGreaterThan(CAPTURES.length)
    expect(got.planet_status_hours!.length).toBeGreaterThan(100)
  }, 300_000)

  test("the simulated war's whole captures: every table, the 2025 items' too", async () => {
    const [a, b] = [await target.open(), await target.open()]
    try {
      const captures = simulated(100)
      const path = join(files.dir, 'simulated.ndjson')
      writeFileSync(path, ndjson(captures))
      const summary = await importCaptures({ db: a, source: await ndjsonSource(path), warId: 801, batchSize: 50 })
      expect(summary).toMatchObject({ imported: captures.length, skipped: 0 })
      await collectLive(b, captures)
      expect(await dump(a)).toEqual(await dump(b))
      const rows = async (db: TestDatabase) =>
        Object.fromEntries(await Promise.all(SURFACE_TABLES.map(async (t) => [t, (await db.sql<{ r: string }[]>`SELECT to_jsonb(x)::text AS r FROM ${db.sql(t)} x`).map((x) => x.r).sort()] as const)))
      const [got, want] = [await rows(a), await rows(b)]
      expect(got).toEqual(want)
      // What the comparison covers: items that changed, and more than one kind.
      expect(got.war_item_changes!.length).toBeGreaterThan(captures.length)
      expect(new Set(got.war_item_ticks!.map((r) => JSON.parse(r).kind)).size).toBeGreaterThan(2)
    } finally {
      await a.dispose()
      await b.dispose()
    }
  }, 300_000)
})
