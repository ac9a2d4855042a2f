/**
 * The schedule's log of feed outages, written for an operator: a feed that stops
 * answering fails every scheduled run (4 a minute for the upstream), and one line per
 * failed run buries everything else. So, per feed:
 * - the first failed run logs one line (`feed_down`): which feed, why;
 * - while it stays down, one summary line every 5 minutes (`feed_still_down`:
 *   "upstream unreachable for 5 min, 20 runs failed");
 * - one line when it answers again (`feed_up`), once every job that failed on it has
 *   succeeded since (so a feed half down does not flap between the two).
 * Each failed run is still counted (/health/ready, /metrics) and logged at debug level.
 * A failure that is not a feed's (a bug, an unexpected error) logs one line per run.
 */
import { FeedUnavailableError, type FeedName } from '../feeds/errors.ts'
import { errorText, type Logger } from '../log.ts'

export const OUTAGE_SUMMARY_EVERY_MS = 5 * 60_000

interface Outage {
  sinceMs: number
  failedRuns: number
  lastError: string
  nextSummaryMs: number
  /** Jobs whose last run failed on this feed. */
  failing: Set<string>
}

/** "unreachable" when nothing answered, "unavailable" when something wrong did. */
const wordFor = (err: FeedUnavailableError) => (err.reason === 'network' || err.reason === 'timeout' ? 'unreachable' : 'unavailable')

/** 45 s, 5 min, 2 h 5 min. */
export function spanText(ms: number): string {
  const s = Math.round(ms / 1000)
  if (s < 60) return `${s} s`
  const min = Math.floor(s / 60)
  if (min < 60) return `${min} min`
  return `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`
}

export class FeedOutages {
  private readonly down = new Map<FeedName, Outage>()

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    private readonly summaryEveryMs = OUTAGE_SUMMARY_EVERY_MS,
  ) {}

  /** A scheduled job failed (a collector firing, or the current-war check). */
  failed(job: string, err: unknown): void {
    if (!(err instanceof FeedUnavailableError)) {
      this.log.warn('collector run failed', { collector: job, outcome: 'failed', error: errorText(err) })
      return
    }
    const now = this.now()
    const feed = err.feed
    const outage = this.down.get(feed)
    if (!outage) {
      this.down.set(feed, { sinceMs: now, failedRuns: 1, lastError: errorText(err), nextSummaryMs: now + this.summaryEveryMs, failing: new Set([job]) })
      this.log.warn(`${feed} ${wordFor(err)}: ${err.message}; scheduled runs that need it fail until it answers (summary every ${spanText(this.summaryEveryMs)})`, {
        event: 'feed_down', feed, job, reason: err.reason, error: errorText(err),
      })
      return
    }
    outage.failedRuns++
    outage.lastError = errorText(err)
    outage.failing.add(job)
    if (now >= outage.nextSummaryMs) {
      outage.nextSummaryMs = now + this.summaryEveryMs
      this.log.warn(`${feed} ${wordFor(err)} for ${spanText(now - outage.sinceMs)}, ${outage.failedRuns} runs failed`, {
        event: 'feed_still_down', feed, job, downForS: Math.round((now - outage.sinceMs) / 1000), failedRuns: outage.failedRuns, lastError: outage.lastError,
      })
    } else {
      this.log.debug('collector run failed', { collector: job, feed, outcome: 'failed', error: errorText(err) })
    }
  }

  /** A scheduled job succeeded: the feeds it was failing on answer it again. */
  succeeded(job: string): void {
    for (const [feed, outage] of this.down) {
      if (!outage.failing.delete(job) || outage.failing.size > 0) continue
      this.down.delete(feed)
      const ms = this.now() - outage.sinceMs
      this.log.info(`${feed} answers again after ${spanText(ms)}, ${outage.failedRuns} runs failed`, {
        event: 'feed_up', feed, downForS: Math.round(ms / 1000), failedRuns: outage.failedRuns,
      })
    }
  }
}
