/**
 * `npm run import -- --git REPO --path FILE` as a library call (issue 26): a git archive of
 * raw status captures, built here from the real sample (a frozen war time, a malformed
 * commit, a deleted file and a war change among them), leaves exactly the rows of the same
 * captures collected live; a second import adds nothing; an import stopped after a batch
 * and run again ends with the same rows, none doubled (a kill in the middle of a batch:
 * cli.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { importCaptures, type ImportSummary } from '../../src/import/importer.ts'
import { gitSource, type CaptureSource } from '../../src/import/sources.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { collectLive, counts, dump, gitArchive, statusAt, type TestCapture } from './support.ts'

const T0 = Date.parse('2024-03-08T12:00:00Z')
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString()

/** The archive, commit by commit: what the file holds and what a live collection at that time would have fetched. */
const COMMITS: { at: string; text: string | null; live: TestCapture | null }[] = (() => {
  const out: { at: string; text: string | null; live: TestCapture | null }[] = []
  const status = (minutes: number, s: ReturnType<typeof statusAt>, pretty = false) =>
    out.push({ at: at(minutes), text: JSON.stringify(s, null, pretty ? 1 : 0), live: { capturedAt: at(minutes), warId: s.warId ?? 801, status: s } })
  status(0, statusAt(0))
  // Planet 34 liberated, 64 lost to the bots.
  status(5, statusAt(300, { owners: { 34: 1 }, players: 40 }))
  // Frozen war: the same war time again (the file differs: other players, other layout).
  status(10, statusAt(300, { owners: { 34: 1 }, players: 90 }), true)
  // A malformed capture: the scraper saved a cut-off answer.
  out.push({ at: at(15), text: JSON.stringify(statusAt(900)).slice(0, 5000), live: null })
  status(20, statusAt(1200, { owners: { 34: 1, 64: 3 }, players: 10, noEvent: true }))
  // A status the schema refuses (a planet without an owner).
  const bad = statusAt(1500) as unknown as { planetStatus: Record<string, unknown>[] }
  delete bad.planetStatus[3]!.owner
  out.push({ at: at(25), text: JSON.stringify(bad), live: null })
  // A new war.
  status(30, statusAt(-2_600_000, { warId: 802 }))
  status(35, statusAt(-2_599_700, { warId: 802, owners: { 2: 4 } }))
  // The file deleted, then archived again.
  out.push({ at: at(40), text: null, live: null })
  status(45, statusAt(-2_599_400, { warId: 802, owners: { 2: 4 } }))
  return out
})()

const LIVE = COMMITS.flatMap((c) => (c.live ? [c.live] : []))
const FILE = 'WarSeason/801/Status'

describeOnEachDatabase('importing a git archive of status captures', (target) => {
  let archive: ReturnType<typeof gitArchive>
  let imported: TestDatabase
  let live: TestDatabase
  const source = () => gitSource(archive.dir, [FILE])
  const run = (db: TestDatabase, src: CaptureSource | Promise<CaptureSource>, opts: { batchSize?: number; signal?: AbortSignal; onProgress?: () => void } = {}) =>
    Promise.resolve(src).then((s) => importCaptures({ db, source: s, warId: 801, ...opts }))

  beforeAll(async () => {
    archive = gitArchive(COMMITS.map((c) => ({ at: c.at, files: { [FILE]: c.text } })))
    ;[imported, live] = [await target.open(), await target.open()]
  }, 60_000)
  afterAll(async () => {
    archive?.remove()
    await imported?.dispose()
    await live?.dispose()
  })

  let first: ImportSummary
  test('the import leaves the rows of the same captures collected live, war by war; the bad commits are named and skipped', async () => {
    first = await run(imported, source(), { batchSize: 3 })
    await collectLive(live, LIVE)
    const [got, want] = [await dump(imported), await dump(live)]
    expect(counts(got)).toEqual(counts(want))
    expect(got).toEqual(want)

    expect(first).toMatchObject({ captures: COMMITS.length, imported: 6, duplicates: 1, skipped: 3, aborted: false })
    expect(first.skippedByReason).toEqual({ unreadable: 2, schema: 1 })
    const hashes = (await Bun.$`git -C ${archive.dir} log --reverse --format=%H`.text()).trim().split('\n')
    expect(first.skippedCaptures.map((c) => c.ref)).toEqual([3, 5, 8].map((i) => `commit ${hashes[i]!.slice(0, 12)}`))
    expect(first.skippedCaptures[0]!.detail).toContain('malformed JSON')
    expect(first.skippedCaptures[1]!.detail).toContain('/planetStatus/3/owner')
    expect(first.skippedCaptures[2]!.detail).toContain('absent at this commit (deleted)')
    expect(first.from).toBe(at(0))
    expect(first.to).toBe(at(45))

    // What the rows say: the committer dates are the capture times, the frozen capture is
    // its tick's last sighting, the owner changes and the war change are where they happened.
    const ticks = await imported.sql<{ war_id: number; captured_at: Date; last_seen_at: Date | null }[]>`
      SELECT war_id, captured_at, last_seen_at FROM full_status_ticks ORDER BY war_id, captured_at`
    expect(ticks.map((t) => [t.war_id, t.captured_at.toISOString(), t.last_seen_at?.toISOString() ?? null])).toEqual([
      [801, at(0), null], [801, at(5), at(10)], [801, at(20), null], [802, at(30), null], [802, at(35), null], [802, at(45), null],
    ])
    const changes = await imported.sql<{ war_id: number; planet_index: number; captured_at: Date; from_owner: number; to_owner: number }[]>`
      SELECT war_id, planet_index, captured_at, from_owner, to_owner FROM planet_owner_changes ORDER BY war_id, captured_at, planet_index`
    expect(changes.map((c) => [c.war_id, c.planet_index, c.captured_at.toISOString(), c.from_owner, c.to_owner])).toEqual([
      [801, 34, at(5), 2, 1], [801, 64, at(20), 2, 3], [802, 2, at(35), 1, 4],
    ])
    const upstream = await imported.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM player_count_snapshots WHERE source = 'upstream'`
    expect(upstream[0]!.n).toBe(6)
  })

  test('a second import of the archive adds nothing', async () => {
    const before = await dump(imported)
    const again = await run(imported, source(), { batchSize: 4 })
    expect(again).toMatchObject({ captures: COMMITS.length, imported: 0, duplicates: 7, skipped: 3, rows: {} })
    expect(await dump(imported)).toEqual(before)
  })

  describe('stopped in the middle and run again', () => {
    let fresh: TestDatabase
    beforeAll(async () => {
      fresh = await target.open()
    }, 60_000)
    afterAll(async () => {
      await fresh?.dispose()
    })

    test('stopped after its first batch: that batch stays; the second run writes the rest: the same rows, none doubled', async () => {
      const stop = new AbortController()
      const stopped = await run(fresh, source(), { batchSize: 2, signal: stop.signal, onProgress: () => stop.abort() })
      expect(stopped).toMatchObject({ aborted: true, captures: 2, imported: 2 })
      const ticks = await fresh.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM full_status_ticks`
      expect(ticks[0]!.n).toBe(2)

      const resumed = await run(fresh, source(), { batchSize: 2 })
      // The two stored captures are passed over without a write; the frozen one still moves its tick's last sighting.
      expect(resumed).toMatchObject({ aborted: false, imported: 4, duplicates: 3, skipped: 3 })
      expect(await dump(fresh)).toEqual(await dump(live))
    })
  })
})
