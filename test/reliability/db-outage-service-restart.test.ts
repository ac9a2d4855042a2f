/**
 * A restart in the middle of a database outage (SIGKILL of the real service process, its
 * schedule on): the ticks it kept on disk are stored once the database is back, by the
 * next process on the same data folder.
 */
import { expect, test } from 'bun:test'
import { describeTimescale } from '../support/db.ts'
import { freshDataDir, removeDataDir } from '../support/process.ts'
import { drained, kept, OUTAGE_MS, outageDrill } from './outage-support.ts'

describeTimescale('a database outage and a restart, real processes', () => {
  const { pg, start, expectStoredOnce } = outageDrill('outage-restart')

  test('a restart during an outage (SIGKILL): the ticks kept on disk are stored once the database is back', async () => {
    const dataDir = freshDataDir()
    const first = await start({ DATA_DIR: dataDir })
    await Bun.sleep(17_000)
    await pg().pause()
    const began = Date.now()
    await Bun.sleep(OUTAGE_MS)
    await first.stop('SIGKILL')
    await pg().resume()
    const inOutage = (c: 'player-count' | 'full-status') => kept(first, c).filter((at) => Date.parse(at) > began + 1000)
    expect(inOutage('player-count').length).toBeGreaterThanOrEqual(2)
    expect(inOutage('full-status').length).toBeGreaterThanOrEqual(2)

    // The same data folder; no schedule, so only what the first process kept is written.
    const second = await start({ DATA_DIR: dataDir, SCHEDULE_ENABLED: 'false' })
    await drained(second)
    expect(second.lines.some((l) => l.msg === 'spool: ticks from a previous run will be written')).toBe(true)
    await expectStoredOnce({ 'player-count': kept(first, 'player-count'), 'full-status': kept(first, 'full-status') }, first)
    expect(await second.stop('SIGTERM')).toBe(0)
    removeDataDir(dataDir)
  }, 180_000)
})
