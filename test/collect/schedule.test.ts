/** The cron plugin the schedule is built on: firings, overrun skips (logged and counted), failures, stop. */
import { expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { schedulePlugin, stopSchedule } from '../../src/collect/schedule.ts'
import { createLogger } from '../../src/log.ts'

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
        { name: 'slow', pattern: '* * * * * *', run: () => (slowRuns++, Bun.sleep(2500)) },
        { name: 'failing', pattern: '* * * * * *', run: async () => (failingRuns++, Promise.reject(new Error('feed down'))) },
      ],
      log,
      (job) => skipped.push(job),
    ),
  )
  await Bun.sleep(4300)
  stopSchedule(app)
  const seen = { slowRuns, failingRuns, skipped: skipped.length }
  await Bun.sleep(1500)
  // Nothing fired after stop.
  expect({ slowRuns, failingRuns, skipped: skipped.length }).toEqual(seen)

  expect(slowRuns).toBe(2)
  expect(skipped.length).toBeGreaterThanOrEqual(2)
  expect(new Set(skipped)).toEqual(new Set(['slow']))
  expect(lines.filter((l) => l.msg === 'scheduled tick skipped: the previous one is still running' && l.job === 'slow')).toHaveLength(skipped.length)
  expect(failingRuns).toBeGreaterThanOrEqual(4)
  expect(lines.filter((l) => l.msg === 'scheduled job failed' && l.job === 'failing' && l.error === 'feed down')).toHaveLength(failingRuns)
}, 10_000)
