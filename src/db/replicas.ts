/**
 * Read replicas (DATABASE_READ_URL): the read routes' statements go to streaming
 * hot-standby replicas of the primary; everything else (collectors' writes and reads,
 * migrations, rollup refresh, LISTEN) stays on the primary.
 *
 * Rotation. Every `checkEveryMs` the primary's WAL position and each replica's replay
 * position are sampled. A replica's lag is how long ago the primary first stood at a
 * position the replica has not replayed yet (0 when it has replayed everything the primary
 * had at the last sample), so an idle primary does not make a caught-up replica look late
 * (which `now() - pg_last_xact_replay_timestamp()` alone would). A replica is in rotation
 * while it answers, is in recovery, and its lag is at most `maxLagMs`.
 *
 * Exactness (the answers kept per data version, storage/changes.ts). Whenever this
 * process hears of a commit (its own write, or a notification from another process) it
 * calls `fence()`: the primary's WAL position, asked after the commit, is at or past that
 * commit. A read then goes to a replica only if the replica's replayed position is at or
 * past the newest fence; otherwise to the primary. So a read that starts after the
 * process heard of a commit sees it, wherever it runs, and an answer computed for a data
 * version is never computed from a replica that has not replayed the commits of that
 * version.
 *
 * Failures. A replica that fails a read (stopped, frozen past the gate's bound, a recovery
 * conflict) is left for the primary, which answers the same read: no request fails
 * because of a replica.
 */
import { errorText, type Logger } from '../log.ts'
import { connect, isDatabaseUnavailable, probeConnection, type Probe, type Sql } from './connect.ts'
import { DatabaseGate, GATE_DEFAULTS, type GateOptions } from './gate.ts'

export interface ReplicaOptions {
  maxLagMs: number
  checkEveryMs?: number
  poolMax: number
  statementTimeoutMs: number
  gate?: GateOptions
}

export interface ReplicaStatus {
  /** host:port/database of the replica (no credentials). */
  name: string
  inRotation: boolean
  /** Why it is out of rotation; null while in. */
  reason: string | null
  /** How far behind the primary it is, in ms (see above); null before the first check. */
  lagMs: number | null
  /** WAL bytes the primary has written that the replica has not replayed yet. */
  lagBytes: number | null
  /** Age of the last transaction the replica replayed (pg_last_xact_replay_timestamp). */
  lastReplayAgeMs: number | null
  /** WAL received but not replayed yet (pg_last_wal_receive_lsn − pg_last_wal_replay_lsn). */
  receivedNotReplayedBytes: number | null
  replayPaused: boolean | null
  checkedAt: string | null
  /** Reads it answered, and reads it failed (answered by the primary instead). */
  reads: number
  failedReads: number
}

/** Position samples kept to date a replica's lag (one per check; older ones are not needed past the bound). */
const MAX_SAMPLES = 3600
/** How long a read waits for a replica's replay position to be asked again before going to the primary. */
const REPLAY_CHECK_WAIT_MS = 250
/** A replica found behind the fence is not asked again for this long (reads go to the primary meanwhile). */
const REPLAY_RECHECK_MS = 20

/** WAL positions are read as byte offsets (pg_wal_lsn_diff from 0/0): numbers, compared directly. */

/** `p`, or `fallback` after `ms` (a frozen server answers nothing, and postgres.js has no client-side deadline). */
const within = <T>(p: Promise<T>, ms: number, fallback: T): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([p, new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]).finally(() => clearTimeout(timer))
}

/** The gate's log lines, said of the replica (its outages are not the database's). */
const replicaLog = (log: Logger, name: string): Logger => ({
  debug: (msg, f) => log.debug(`read replica ${name}: ${msg}`, f),
  info: (msg, f) => log.info(`read replica ${name}: ${msg}`, f),
  warn: (msg, f) => log.warn(`read replica ${name}: ${msg.replace('requests answer 503, scheduled ticks are kept until it is back', 'reads go to the primary')}`, f),
  error: (msg, f) => log.error(`read replica ${name}: ${msg}`, f),
})

class Replica {
  readonly pool: Sql
  readonly probe: Probe
  readonly gate: DatabaseGate
  replay = -1
  replayCheckedAt = 0
  private replayAsk: Promise<void> | undefined
  status: ReplicaStatus

  constructor(
    readonly name: string,
    url: string,
    opts: ReplicaOptions,
    log: Logger,
  ) {
    this.pool = connect({ url, max: opts.poolMax, statementTimeoutMs: opts.statementTimeoutMs, applicationName: 'galactic-war-stats/read' })
    this.probe = probeConnection(url, 'galactic-war-stats/read-probe')
    this.gate = new DatabaseGate(this.probe.ask, replicaLog(log, name), opts.gate ?? GATE_DEFAULTS)
    this.status = {
      name, inRotation: false, reason: 'not checked yet', lagMs: null, lagBytes: null, lastReplayAgeMs: null,
      receivedNotReplayedBytes: null, replayPaused: null, checkedAt: null, reads: 0, failedReads: 0,
    }
  }

  /** Ask the replay position now (single flight, bounded): true when it is at or past `lsn`. */
  async caughtUp(lsn: number): Promise<boolean> {
    if (this.replay >= lsn) return true
    if (Date.now() - this.replayCheckedAt < REPLAY_RECHECK_MS) return false
    this.replayAsk ??= this.probe
      .query((sql) => sql<{ replay: number | null }[]>`SELECT pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0')::bigint AS replay`)
      .then(([row]) => {
        this.replay = Math.max(this.replay, row?.replay ?? -1)
      })
      .catch(() => {})
      .finally(() => {
        this.replayCheckedAt = Date.now()
        this.replayAsk = undefined
      })
    await within(this.replayAsk, REPLAY_CHECK_WAIT_MS, undefined)
    return this.replay >= lsn
  }
}

/** host:port/database of a URL, without credentials. */
const nameOf = (url: string) => {
  try {
    const u = new URL(url)
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`
  } catch {
    return 'replica'
  }
}

export class ReadReplicas {
  private readonly replicas: Replica[]
  /** Primary connection for position samples and fences (never behind a pool full of reads). */
  private readonly primaryProbe: Probe
  /** Primary positions with the time they were sampled, oldest first. */
  private readonly samples: Array<{ atMs: number; lsn: number }> = []
  /** The newest fence: the primary's position after the last commit this process heard of; null = unknown (read the primary). */
  private fenceLsn: Promise<number | null>
  private timer: ReturnType<typeof setInterval> | undefined
  private checking: Promise<void> | undefined
  private next = 0
  private primaryReads = 0
  private stopped = false

  constructor(
    urls: string[],
    primaryUrl: string,
    private readonly primary: { sql: Sql; gate: DatabaseGate },
    private readonly opts: ReplicaOptions,
    private readonly log: Logger,
  ) {
    this.replicas = urls.map((u, i) => new Replica(urls.length > 1 ? `${nameOf(u)}#${i + 1}` : nameOf(u), u, opts, log))
    this.primaryProbe = probeConnection(primaryUrl, 'galactic-war-stats/replica-monitor')
    // Reads see at least what was committed before the process started.
    this.fenceLsn = this.primaryPosition()
  }

  /** Start checking the replicas (first check now; resolves when it is done). */
  async start(): Promise<void> {
    this.timer = setInterval(() => void this.check(), this.opts.checkEveryMs ?? 1000)
    this.timer.unref?.()
    await this.check()
  }

  /**
   * A commit was heard of (call synchronously, before any read for the new data
   * versions starts): later reads go to a replica only once it has replayed it.
   */
  fence(): void {
    const previous = this.fenceLsn
    // Never lower: positions are asked in order on one connection, but be safe.
    this.fenceLsn = Promise.all([previous, this.primaryPosition()]).then(([a, b]) => (b === null ? null : Math.max(a ?? 0, b)))
  }

  /** Run one read: on a replica in rotation that has replayed the fence, else on the primary. */
  async run<T>(read: (sql: Sql) => Promise<T>): Promise<T> {
    const replica = await this.pick()
    if (replica) {
      try {
        const value = await replica.gate.read(() => read(replica.pool))
        replica.status.reads++
        return value
      } catch (err) {
        // Whatever went wrong there (a recovery conflict, too), the primary answers the same
        // read; a replica that cannot be reached leaves the rotation until a check finds it back.
        replica.status.failedReads++
        if (isDatabaseUnavailable(err)) this.takeOut(replica, `read failed: ${errorText(err).slice(0, 160)}`)
      }
    }
    this.primaryReads++
    return this.primary.gate.read(() => read(this.primary.sql))
  }

  status(): { maxLagMs: number; primaryReads: number; replicas: ReplicaStatus[] } {
    return { maxLagMs: this.opts.maxLagMs, primaryReads: this.primaryReads, replicas: this.replicas.map((r) => ({ ...r.status })) }
  }

  async close(): Promise<void> {
    this.stopped = true
    if (this.timer) clearInterval(this.timer)
    for (const r of this.replicas) r.gate.stop()
    await Promise.all([
      this.primaryProbe.end(1),
      ...this.replicas.flatMap((r) => [r.pool.end({ timeout: 2 }), r.probe.end(1)]),
    ])
  }

  private async pick(): Promise<Replica | null> {
    const fence = await this.fenceLsn
    if (fence === null) return null
    const inRotation = this.replicas.filter((r) => r.status.inRotation && r.gate.available)
    if (inRotation.length === 0) return null
    const start = this.next++ % inRotation.length
    const order = [...inRotation.slice(start), ...inRotation.slice(0, start)]
    for (const r of order) if (r.replay >= fence) return r
    // None known to have replayed the fence yet: ask (the usual case right after a commit).
    for (const r of order) if (await r.caughtUp(fence)) return r
    return null
  }

  /**
   * The primary's WAL position. For a fence, the insert position: with asynchronous commit
   * (synchronous_commit = off) a transaction is visible, and its notification delivered,
   * before its commit record is written, so the write position can still be short of it;
   * the insert position never is. (When it stands just past a page header, a replica reaches
   * it only with the next WAL record: its reads go to the primary meanwhile, never stale.)
   * For the lag samples, the write position, which a caught-up replica always reaches.
   */
  private primaryPosition(kind: 'insert' | 'write' = 'insert'): Promise<number | null> {
    if (this.stopped) return Promise.resolve(null)
    const query = this.primaryProbe.query((sql) =>
      kind === 'insert'
        ? sql<{ lsn: number }[]>`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint AS lsn`
        : sql<{ lsn: number }[]>`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint AS lsn`,
    )
    const asked = query.then(
      ([row]) => row?.lsn ?? null,
      () => null,
    )
    return within(asked, (this.opts.gate ?? GATE_DEFAULTS).probeTimeoutMs, null)
  }

  private takeOut(r: Replica, reason: string): void {
    if (r.status.inRotation) this.log.warn('read replica out of rotation', { replica: r.name, reason })
    r.status.inRotation = false
    r.status.reason = reason
  }

  private check(): Promise<void> {
    this.checking ??= this.checkAll().finally(() => {
      this.checking = undefined
    })
    return this.checking
  }

  private async checkAll(): Promise<void> {
    const primaryLsn = await this.primaryPosition('write')
    const nowMs = Date.now()
    if (primaryLsn !== null) {
      // An unknown fence (the primary did not answer when asked) is settled by any later position.
      // (Unless a newer fence was set meanwhile: it must not be replaced by this older sample.)
      const fence = this.fenceLsn
      if ((await fence) === null && this.fenceLsn === fence) this.fenceLsn = this.primaryPosition()
      const last = this.samples.at(-1)
      if (!last || last.lsn !== primaryLsn) this.samples.push({ atMs: nowMs, lsn: primaryLsn })
      if (this.samples.length > MAX_SAMPLES) this.samples.splice(0, this.samples.length - MAX_SAMPLES)
    }
    await Promise.all(this.replicas.map((r) => this.checkOne(r, primaryLsn, nowMs)))
  }

  private async checkOne(r: Replica, primaryLsn: number | null, nowMs: number): Promise<void> {
    const timeoutMs = (this.opts.gate ?? GATE_DEFAULTS).probeTimeoutMs
    try {
      const rows = await within(
        r.probe.query((sql) => sql<{ recovery: boolean; replay: number | null; receive: number | null; replay_age_ms: number | null; paused: boolean | null }[]>`
          SELECT pg_is_in_recovery() AS recovery,
                 pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0')::bigint AS replay,
                 pg_wal_lsn_diff(pg_last_wal_receive_lsn(), '0/0')::bigint AS receive,
                 (extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::bigint AS replay_age_ms,
                 CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() END AS paused`),
        timeoutMs,
        null,
      )
      const row = rows?.[0]
      if (!row) throw new Error(`no answer within ${timeoutMs} ms`)
      const s = r.status
      s.checkedAt = new Date(nowMs).toISOString()
      s.lastReplayAgeMs = row.replay_age_ms
      s.replayPaused = row.paused
      s.receivedNotReplayedBytes = row.receive !== null && row.replay !== null ? Math.max(0, row.receive - row.replay) : null
      if (!row.recovery || row.replay === null) {
        this.takeOut(r, 'not a streaming replica (pg_is_in_recovery() is false)')
        return
      }
      r.replay = Math.max(r.replay, row.replay)
      r.replayCheckedAt = Date.now()
      s.lagBytes = primaryLsn === null ? null : Math.max(0, primaryLsn - row.replay)
      // Since when has the primary stood past what the replica replayed?
      const firstAhead = this.samples.find((p) => p.lsn > row.replay!)
      s.lagMs = firstAhead ? Math.max(0, nowMs - firstAhead.atMs) : 0
      if (!r.gate.available) this.takeOut(r, 'unreachable')
      else if (s.lagMs > this.opts.maxLagMs) this.takeOut(r, `lag ${s.lagMs} ms > READ_REPLICA_MAX_LAG_MS ${this.opts.maxLagMs} ms`)
      else {
        if (!s.inRotation) this.log.info('read replica in rotation', { replica: r.name, lagMs: s.lagMs })
        s.inRotation = true
        s.reason = null
      }
    } catch (err) {
      r.status.checkedAt = new Date(nowMs).toISOString()
      this.takeOut(r, `unreachable: ${errorText(err).slice(0, 160)}`)
    }
  }
}
