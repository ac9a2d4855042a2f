/**
 * The real series (captures of March 2024, status only) imported in batches leaves the rows
 * of the same captures collected live one by one, table by table: the batch compares each
 * planet with its latest state itself and sums the hours its ticks complete
 * (storage/planet-status.ts), where a live tick leaves both to planet_status_write. Batches
 * of 50 end mid-hour, so the hour each batch starts in is rebuilt from stored ticks.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import { importCaptures } from '../../src/import/importer.ts'
import { ndjsonSource } from '../../src/import/sources.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { capture, statusPayload } from '../support/series.ts'
import { collectLive, counts, dump, ndjson, tempDir, type TestCapture } from './support.ts'

/** About two days of captures (a few an hour): dozens of kept hours, five batches. */
const CAPTURES: TestCapture[] = Array.from({ length: 290 }, (_, k) => ({ capturedAt: capture(k).at.toISOString(), warId: 801, status: statusPayload(k) }))

describeOnEachDatabase('the real series imported in batches', (target) => {
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

  test('every table holds the rows of the same captures collected live one by one', async () => {
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
})
