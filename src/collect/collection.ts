/**
 * Collection as the service runs it: the scheduled firings fetch ticks at their time and
 * hand them to the spool; the writer stores them; the runner does both halves. Fetching
 * never waits on the database: while it is unreachable ticks wait in the spool (bounded,
 * on disk), and a restart picks them up. Every firing ends up counted as fetched (then
 * written, or dropped, or rejected, each logged), failed or skipped.
 */
import type { Config } from '../config.ts'
import type { Database } from '../db/index.ts'
import { spoolDirOf } from '../config.ts'
import { isFeedUnavailable } from '../feeds/errors.ts'
import type { Feeds } from '../feeds/index.ts'
import { PCSTORE_APP_IDS } from '../feeds/pcstore.ts'
import { errorText, type Logger } from '../log.ts'
import type { Metrics } from '../metrics.ts'
import type { DataVersions } from '../storage/changes.ts'
import type { Store } from '../storage/index.ts'
import { applyTimescalePolicies, dropOldRawPlayerCounts } from '../storage/policies.ts'
import * as eventLog from '../storage/events.ts'
import { refreshRollups, rollupWatermarks } from '../storage/rollups.ts'
import type { CurrentWar } from '../war/current-war.ts'
import { COLLECTOR_NAMES, type CollectorName } from './collector.ts'
import { COLLECTORS } from './index.ts'
import { FeedOutages } from './outages.ts'
import { CollectorRunner } from './runner.ts'
import { SCHEDULE_PATTERNS, schedulePlugin, stopSchedule, type ScheduledJob } from './schedule.ts'
import { Spool } from './spool.ts'
import { SpoolWriter } from './writer.ts'

export interface CollectionDeps {
  config: Config
  db: Database
  store: Store
  feeds: Feeds
  log: Logger
  /** The war the schedule collects (followed from the upstream). */
  war: CurrentWar
  /** This process's data versions, moved by every write the runner commits. */
  versions: DataVersions
  /** Runs, rows and rollup refreshes (/metrics); the counts below are read from `counts()` when scraped. */
  metrics?: Metrics
  /** Clock of the outage log (tests move it). */
  now?: () => number
}

export interface FiringCounts {
  /** Firings whose fetch succeeded (their tick went to the spool). */
  fetched: number
  /** Firings whose fetch failed (feed unavailable): logged, nothing to keep. */
  failed: number
  /** Firings skipped because the previous one of the job was still running. */
  skipped: number
}

export type Collection = Awaited<ReturnType<typeof openCollection>>

export async function openCollection({ config, db, store, feeds, log, war, versions, metrics, now }: CollectionDeps) {
  const edition = db.info.edition
  // Community runs compression and retention itself; its jobs follow the settings.
  if (edition === 'timescale') {
    const policies = await db.gate.run(() => applyTimescalePolicies(db.sql, config))
    log.info('storage policies', { ...policies })
  }
  const runner = new CollectorRunner({ db, store, feeds, log, config, currentWar: war, versions, metrics })
  const spool = await Spool.open(spoolDirOf(config), config.backlogMaxTicks, log)
  const writer = new SpoolWriter(runner, spool, db.gate, log)
  const outages = new FeedOutages(log, now)
  const firings = Object.fromEntries(COLLECTOR_NAMES.map((n) => [n, { fetched: 0, failed: 0, skipped: 0 }])) as Record<CollectorName, FiringCounts>
  // No scheduled run starts before the first war check settles (it never rejects and is
  // bounded by FEED_TIMEOUT_MS): the very first tick goes to the upstream's current war.
  let firstWarCheck: Promise<number> | undefined

  // The schedule follows the upstream's current war; the check is one request, made at
  // start-up, before the minutely war-info run and before planet-stats (whose feed has no
  // war id, so its rows must go to the war checked just now). A failed check keeps the
  // war collected so far; it is logged with the feed's outage, like a failed run.
  const checkWar = (): Promise<number> =>
    war.verify().then(
      (id) => {
        outages.succeeded('war-check')
        return id
      },
      (err: unknown) => {
        outages.failed('war-check', err)
        return war.id
      },
    )
  const collect = (name: CollectorName, checkFirst = false) => async () => {
    await firstWarCheck
    if (checkFirst) await checkWar()
    const t0 = performance.now()
    try {
      const { tick, drift } = await runner.capture(COLLECTORS[name], { warId: war.id })
      firings[name].fetched++
      outages.succeeded(name)
      await writer.keep(tick, drift)
    } catch (err) {
      firings[name].failed++
      runner.countFailure(name, t0)
      outages.failed(name, err)
    }
  }
  const refresh = async () => {
    // Nothing to keep: the next refresh catches up. Skipped quietly while the database is away.
    if (!db.gate.available) return
    const t0 = performance.now()
    try {
      await db.gate.run(async () => {
        await refreshRollups(db.sql, db.info.edition)
        metrics?.rollupRefresh((performance.now() - t0) / 1000, await rollupWatermarks(db.sql, db.info.edition))
      })
    } catch (err) {
      metrics?.rollupRefresh((performance.now() - t0) / 1000, null)
      throw err
    }
  }
  const jobs: ScheduledJob[] = [
    { name: 'player-count', pattern: SCHEDULE_PATTERNS['player-count'], run: collect('player-count') },
    { name: 'war-info', pattern: SCHEDULE_PATTERNS['war-info'], run: collect('war-info', true) },
    { name: 'full-status', pattern: config.fullStatusCron, run: collect('full-status') },
    { name: 'planet-stats', pattern: SCHEDULE_PATTERNS['planet-stats'], run: collect('planet-stats', true) },
    { name: 'rollup-refresh', pattern: SCHEDULE_PATTERNS['rollup-refresh'], run: refresh },
    {
      name: 'event-log-retention',
      pattern: SCHEDULE_PATTERNS['event-log-retention'],
      // How far back a stream client can resume; webhook deliveries of older events go with them.
      run: async () => {
        if (!db.gate.available) return
        const before = new Date(Date.now() - config.eventLogRetentionDays * 86_400_000)
        const dropped = await db.gate.run(() => eventLog.prune(db.sql, before))
        if (dropped > 0) log.info('event log retention', { days: config.eventLogRetentionDays, dropped })
      },
    },
    ...(edition !== 'timescale' && config.rawRetentionDays !== undefined
      ? [{
          name: 'raw-retention',
          pattern: SCHEDULE_PATTERNS['raw-retention'],
          // The rollups keep what goes (never past their watermarks); a missed run is caught up by the next.
          run: async () => {
            if (!db.gate.available) return
            const days = config.rawRetentionDays!
            const done = await db.gate.run(() => dropOldRawPlayerCounts(db.sql, edition, days))
            log.info('raw retention', { table: 'player_count_snapshots', days, ...done })
          },
        }]
      : []),
  ]
  /**
   * Without internet every feed fails at once: say so once, with the way to run the
   * service offline. Asked only when the start-up war check has failed, so a healthy
   * start makes no extra request.
   */
  const whenNoFeedAnswers = async (first: Promise<number>) => {
    const err = await first.then(() => null, (e: unknown) => e)
    if (!isFeedUnavailable(err)) return
    const others = await Promise.allSettled([feeds.community.planets(), feeds.pcstore.currentPlayers(PCSTORE_APP_IDS.game2)])
    if (others.some((r) => r.status === 'fulfilled')) return
    log.warn('no feed answers (upstream, community, pcstore): without internet access, `npm run demo` runs the service on the offline feed simulator', {
      event: 'no_feed_answers', errors: others.map((r) => (r.status === 'rejected' ? errorText(r.reason) : null)).concat(errorText(err)),
    })
  }

  const onSkip = (job: string) => {
    if (job in firings) firings[job as CollectorName].skipped++
  }

  return {
    runner,
    spool,
    writer,
    /** Run one scheduled job now, as its firing would (tests; the schedule runs them on their cadence). */
    fire: (job: CollectorName | 'rollup-refresh') => jobs.find((j) => j.name === job)!.run(),
    /**
     * Start writing the spool (ticks a previous process left are written first) and, when
     * enabled, the schedule on `app`. Resolves when the start-up feed check is over (its
     * line logged if no feed answers); nothing needs to wait for it.
     */
    start(app: { use(plugin: ReturnType<typeof schedulePlugin>): unknown }, scheduleEnabled: boolean): Promise<void> {
      writer.start()
      if (!scheduleEnabled) return Promise.resolve()
      const first = war.verify()
      firstWarCheck = first.then(
        (id) => id,
        (err: unknown) => {
          outages.failed('war-check', err)
          return war.id
        },
      )
      app.use(schedulePlugin(jobs, log, onSkip))
      return whenNoFeedAnswers(first)
    },
    /** Per collector: firings (fetched, failed, skipped) and the spool (pending, written, dropped, rejected). */
    counts() {
      const spooled = spool.counts()
      return Object.fromEntries(COLLECTOR_NAMES.map((n) => [n, { ...firings[n], ...spooled[n] }]))
    },
    /** No new firing; the write in progress finishes; what is pending stays in the spool for the next start. */
    async stop(app: { store: unknown }) {
      stopSchedule(app)
      await writer.stop()
      await spool.close()
    },
  }
}
