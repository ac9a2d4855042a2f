/**
 * A database outage drill against the real service process, with its schedule on and
 * read load: the database is stopped (connections refused), then frozen (SIGSTOP:
 * connections open, nothing answered), each for OUTAGE_MS. Every tick fetched during the
 * outages is stored once, with its capture time; reads answer 503 {error} within 2 s (p99);
 * no request goes unanswered.
 */
import { expect, test } from 'bun:test'
import { Cron } from 'croner'
import { SCHEDULE_PATTERNS } from '../../src/collect/schedule.ts'
import { describeTimescale } from '../support/db.ts'
import { freshDataDir, removeDataDir } from '../support/process.ts'
import { drained, FULL_STATUS_CRON, kept, OUTAGE_MS, outageDrill, percentile, readLoad, type Answer } from './outage-support.ts'

/** How many reads of each route answered 503 between `began` and `ended`. */
function routesAnswered503(answers: Answer[], began: number, ended: number): Record<string, number> {
  const out: Record<string, number> = {}
  for (const a of answers) if (a.status === 503 && a.startMs >= began && a.startMs <= ended) out[a.route] = (out[a.route] ?? 0) + 1
  return out
}

describeTimescale('database outages under read load, real processes', () => {
  const { pg, start, stored, expectStoredOnce } = outageDrill('outage-load')

  test('stopped, then frozen, under read load: every tick stored once with its capture time; 503 within 2 s; every read answered', async () => {
    const dataDir = freshDataDir()
    const svc = await start({ DATA_DIR: dataDir })
    // The planets the planet routes look up (the schedule's war-info runs once a minute).
    expect((await fetch(`${svc.baseUrl}/api/v1/collect/war-info`, { method: 'POST' })).status).toBe(200)
    const fromMs = Date.now()
    const load = readLoad(svc.baseUrl, 8, 100)
    const outages: [number, number][] = []
    const drills = [
      { begin: () => pg().pause(), end: () => pg().resume() },
      { begin: () => pg().freeze(), end: () => pg().thaw() },
    ]
    await Bun.sleep(20_000)
    for (const drill of drills) {
      const began = Date.now()
      await drill.begin()
      await Bun.sleep(OUTAGE_MS)
      await drill.end()
      outages.push([began, Date.now()])
      await Bun.sleep(15_000)
    }
    const counts = await drained(svc)
    await load.stop()
    const toMs = Date.now()
    expect(await svc.stop('SIGTERM')).toBe(0)
    // A firing between the drain and the stop keeps a tick the stop leaves in the spool on
    // disk, for the next process on the data folder: one without a schedule writes it.
    const next = await start({ DATA_DIR: dataDir, SCHEDULE_ENABLED: 'false' })
    await drained(next)
    expect(await next.stop('SIGTERM')).toBe(0)
    removeDataDir(dataDir)

    // Every request got an answer, and only the answers the README promises.
    expect(load.answers.filter((a) => a.status === 'no answer')).toEqual([])
    const unexpected = load.answers.filter((a) => a.status !== 200 && a.status !== 503)
    expect(unexpected.map((a) => `${a.route} ${a.status}`)).toEqual([])
    const unavailable = load.answers.filter((a) => a.status === 503)
    for (const a of unavailable) expect(Object.keys(a.body as object)).toContain('error')
    // Each outage was seen by the readers, and answered fast.
    for (const [i, [began, ended]] of outages.entries()) {
      const during = unavailable.filter((a) => a.startMs >= began && a.startMs <= ended)
      const ms = during.map((a) => a.ms)
      console.log(`outage ${i ? 'frozen' : 'stopped'} ${Math.round((ended - began) / 1000)} s: ${load.answers.filter((a) => a.startMs >= began && a.startMs <= ended).length} reads, ${during.length} answered 503, p50 ${percentile(ms, 50).toFixed(0)} ms, p99 ${percentile(ms, 99).toFixed(0)} ms, max ${Math.max(...ms).toFixed(0)} ms`)
      expect(during.length).toBeGreaterThan(20)
      expect(percentile(ms, 99)).toBeLessThanOrEqual(2000)
    }

    // Every firing fetched its tick (none failed, none skipped), none dropped or set aside...
    for (const collector of ['player-count', 'full-status'] as const) {
      const pattern = collector === 'player-count' ? SCHEDULE_PATTERNS['player-count'] : FULL_STATUS_CRON
      const firings = new Cron(pattern, { timezone: 'UTC' })
      let n = 0
      // Firings within 3 s of either end may fall before the schedule started or after the counts were read.
      for (let t = firings.nextRun(new Date(fromMs + 3000)); t && t.getTime() < toMs - 3000; t = firings.nextRun(t)) n++
      const c = counts[collector]!
      expect({ collector, failed: c.failed, skipped: c.skipped, dropped: c.dropped, rejected: c.rejected }).toEqual({ collector, failed: 0, skipped: 0, dropped: 0, rejected: 0 })
      expect(c.fetched).toBeGreaterThanOrEqual(n)
      // Every fetched tick was kept (none failed, dropped or rejected, above). The schedule
      // goes on firing after the counts are read, until the stop: those ticks are kept too.
      expect(kept(svc, collector).length).toBeGreaterThanOrEqual(c.fetched)
    }
    // ...including those fetched while the database was away...
    for (const [began, ended] of outages) {
      const inOutage = kept(svc, 'player-count').filter((at) => Date.parse(at) > began + 1000 && Date.parse(at) < ended)
      expect(inOutage.length).toBeGreaterThanOrEqual(2)
    }
    // ...and each is stored exactly once, under its own capture time.
    await expectStoredOnce({ 'player-count': kept(svc, 'player-count'), 'full-status': kept(svc, 'full-status') }, svc)
    expect((await stored('player-count')).length).toBe(kept(svc, 'player-count').length)
    console.log(`ticks kept and stored once: player-count ${kept(svc, 'player-count').length}, full-status ${kept(svc, 'full-status').length}; ${load.answers.length} reads, none unanswered`)
    // One line when each outage starts (and one when it ends): an operator's log, not a flood.
    // Compared whole, so a missing line shows the others with their reasons and times.
    const DOWN = 'database unavailable: requests answer 503, scheduled ticks are kept until it is back'
    const UP = 'database available again'
    const availability = svc.lines.filter((l) => l.msg === DOWN || l.msg === UP)
    expect({ availability, answered503: outages.map(([began, ended]) => routesAnswered503(load.answers, began, ended)) })
      .toMatchObject({ availability: [{ msg: DOWN }, { msg: UP }, { msg: DOWN }, { msg: UP }] })
  }, 300_000)
})
