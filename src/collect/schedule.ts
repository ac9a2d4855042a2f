import { cron } from '@elysiajs/cron'
import { Elysia } from 'elysia'
import { errorText, type Logger } from '../log.ts'

/** Cadences of the scheduled jobs (UTC); full-status has its own setting, FULL_STATUS_CRON. */
export const SCHEDULE_PATTERNS = {
  // The upstream series is about every 15 s; pcstore rows are written when due (~10 min).
  'player-count': '*/15 * * * * *',
  'war-info': '5 * * * * *',
  'planet-stats': '*/5 * * * *',
  'rollup-refresh': '20 * * * * *',
  // Apache and plain PostgreSQL, with RAW_RETENTION_DAYS: hourly, away from the other jobs.
  'raw-retention': '40 17 * * * *',
  // Hourly too, away from the rest.
  'event-log-retention': '50 23 * * * *',
} as const

export interface ScheduledJob {
  name: string
  /** croner pattern; six fields = with seconds */
  pattern: string
  run: () => Promise<unknown>
}

/**
 * The in-process schedule as an Elysia plugin. Kept out of buildApp(): the cron plugin
 * starts its timers as soon as it is used, and test apps must not collect on their own.
 * A collector job only fetches and hands the tick to the spool, so it is short; should a
 * firing still find the previous one of its job running (a feed slower than the cadence),
 * it is skipped, and `onSkip` logs and counts it: nothing is skipped silently.
 */
export function schedulePlugin(jobs: ScheduledJob[], log: Logger, onSkip: (job: string) => void = () => {}) {
  const app = new Elysia({ name: 'schedule' })
  for (const job of jobs) {
    app.use(
      cron({
        name: job.name,
        pattern: job.pattern,
        timezone: 'UTC',
        protect: () => {
          log.warn('scheduled tick skipped: the previous one is still running', { job: job.name })
          onSkip(job.name)
        },
        catch: (err: unknown) => log.error('scheduled job failed', { job: job.name, error: errorText(err) }),
        async run() {
          try {
            await job.run()
          } catch (err) {
            log.error('scheduled job failed', { job: job.name, error: errorText(err) })
          }
        },
      }),
    )
  }
  return app
}

/** Stop every job of an app that used schedulePlugin (no new ticks start after this). */
export function stopSchedule(app: { store: unknown }) {
  const jobs = (app.store as { cron?: Record<string, { stop(): void }> }).cron ?? {}
  for (const job of Object.values(jobs)) job.stop()
}
