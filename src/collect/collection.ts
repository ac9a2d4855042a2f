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
import type { Feeds } from '../feeds/index.ts'
import type { Logger } from '../log.ts'
import type { DataVersions } from '../storage/changes.ts'
import type { Store } from '../storage/index.ts'
import { applyTimescalePolicies, dropOldRawPlayerCounts } from '../storage/policies.ts'
import { refreshRollups } from '../storage/rollups.ts'
import type { CurrentWar } from '../war/current-war.ts'
import { COLLECTOR_NAMES, type CollectorName } from './collector.ts'
import { COLLECTORS } from './index.ts'
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

export async function openCollection({ config, db, store, feeds, log, war, versions }: CollectionDeps) {
  const edition = db.info.edition
  // Community runs compression and retention itself; its jobs follow the settings.
  if (edition === 'timescale') {
    const policies = await db.gate.run(() => applyTimescalePolicies(db.sql, config))
    log.info('storage policies', { ...policies })
  }
  const runner = new CollectorRunner({ db, store, feeds, log, config, currentWar: war, versions })
  const spool = await Spool.open(spoolDirOf(config), config.backlogMaxTicks, log)
  const writer = new SpoolWriter(runner, spool, db.gate, log)
  const firings = Object.fromEntries(COLLECTOR_NAMES.map((n) => [n, { fetched: 0, failed: 0, skipped: 0 }])) as Record<CollectorName, FiringCounts>
  // No scheduled run starts before the first war check settles (it never rejects and is
  // bounded by FEED_TIMEOUT_MS): the very first tick goes to the upstream's current war.
  let firstWarCheck: Promise<number> | undefined

  // The schedule follows the upstream's current war; the check is one request, made at
  // start-up, before the minutely war-info run and before planet-stats (whose feed has no
  // war id, so its rows must go to the war checked just now).
  const collect = (name: CollectorName, checkWar = false) => async () => {
    await firstWarCheck
    if (checkWar) await war.refresh()
    const t0 = performance.now()
    try {
      const { tick, drift } = await runner.capture(COLLECTORS[name], { warId: war.id })
      firings[name].fetched++
      await writer.keep(tick, drift)
    } catch (err) {
      firings[name].failed++
      runner.logFailure(name, t0, err)
    }
  }
  const jobs: ScheduledJob[] = [
    { name: 'player-count', pattern: SCHEDULE_PATTERNS['player-count'], run: collect('player-count') },
    { name: 'war-info', pattern: SCHEDULE_PATTERNS['war-info'], run: collect('war-info', true) },
    { name: 'full-status', pattern: config.fullStatusCron, run: collect('full-status') },
    { name: 'planet-stats', pattern: SCHEDULE_PATTERNS['planet-stats'], run: collect('planet-stats', true) },
    {
      name: 'rollup-refresh',
      pattern: SCHEDULE_PATTERNS['rollup-refresh'],
      // Nothing to keep: the next refresh catches up. Skipped quietly while the database is away.
      run: async () => {
        if (db.gate.available) await db.gate.run(() => refreshRollups(db.sql, db.info.edition))
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
  const onSkip = (job: string) => {
    if (job in firings) firings[job as CollectorName].skipped++
  }

  return {
    runner,
    spool,
    writer,
    /** Start writing the spool (ticks a previous process left are written first) and, when enabled, the schedule on `app`. */
    start(app: { use(plugin: ReturnType<typeof schedulePlugin>): unknown }, scheduleEnabled: boolean) {
      writer.start()
      if (!scheduleEnabled) return
      firstWarCheck = war.refresh()
      app.use(schedulePlugin(jobs, log, onSkip))
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
