/**
 * The cron plugin the schedule is built on: firings, overrun skips (logged and counted),
 * failures, stop. On bun's fake clock (timers and Date): croner's own timers fire as the
 * test moves time, so the counts are exact. The schedule against real seconds is drilled
 * with real processes (test/e2e/replicas-and-kill.test.ts, test/reliability/db-outage-service-*.test.ts).
 */
import { afterEach, beforeEach, expect, jest, test } from 'bun:test'
import { Elysia } from 'elysia'
import { schedulePlugin, stopSchedule } from '../../src/collect/schedule.ts'
import { createLogger } from '../../src/log.ts'

beforeEach(() => {
  // Start just after a whole second, as a process may.
  jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00.100Z') })
})
afterEach(() => {
  jest.useRealTimers()
})

/** Move the fake clock by `ms`, one millisecond at a time (croner re-arms after each firing). */
async function advance(ms: number) {
  for (let i = 0; i < ms; i++) {
    jest.advanceTimersByTime(1)
    for (let j = 0; j < 5; j++) await Promise.resolve()
  }
}

test('a job runs at its firings; a firing during a run is skipped, logged and counted; a failure is logged; after stop nothing fires', async () => {
  const lines: Record<string, unknown>[] = []
  const log = createLogger('debug', (l) => lines.push(JSON.parse(l)))
  const skipped: string[] = []
  let slowRuns = 0
  let failingRuns = 0
  const app = new Elysia().use(
    schedulePlugin(
      [
        // Every second, but each run takes 2.5 s: the firings in between find it running.
        { name: 'slow', pattern: '* * * * * *', run: () => (slowRuns++, new Promise<void>((resolve) => setTimeout(resolve, 2500))) },
        { name: 'failing', pattern: '* * * * * *', run: async () => (failingRuns++, Promise.reject(new Error('feed down'))) },
      ],
      log,
      (job) => skipped.push(job),
    ),
  )
  await advance(4300)
  stopSchedule(app)
  const seen = { slowRuns, failingRuns, skipped: skipped.length }
  await advance(1500)
  // Nothing fired after stop.
  expect({ slowRuns, failingRuns, skipped: skipped.length }).toEqual(seen)

  expect(slowRuns).toBe(2) // at 1 s (until 3.5 s) and 4 s
  expect(skipped.length).toBe(2) // the firings at 2 s and 3 s; the one at 4 s finds it done (3.5 s)
  expect(new Set(skipped)).toEqual(new Set(['slow']))
  expect(lines.filter((l) => l.msg === 'scheduled tick skipped: the previous one is still running' && l.job === 'slow')).toHaveLength(skipped.length)
  expect(failingRuns).toBe(4) // 1, 2, 3 and 4 s
  expect(lines.filter((l) => l.msg === 'scheduled job failed' && l.job === 'failing' && l.error === 'feed down')).toHaveLength(failingRuns)
}, 10_000)
