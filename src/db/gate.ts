import { errorText, type Logger } from '../log.ts'
import { DatabaseUnavailableError, isDatabaseUnavailable } from './connect.ts'

export interface GateOptions {
  /** An operation still unanswered after this long makes the gate ask the database directly. */
  suspectAfterMs: number
  /** Deadline of that direct question (a `SELECT 1` on a connection of its own). */
  probeTimeoutMs: number
  /** While the database is unavailable, how often it is asked again. */
  retryEveryMs: number
}

export const GATE_DEFAULTS: GateOptions = { suspectAfterMs: 500, probeTimeoutMs: 1000, retryEveryMs: 500 }

/** Tries of one read (DatabaseGate.read): more than a pool's connections (DB_POOL_MAX, 10 by default), each of which may fail once after a restart. */
const READ_ATTEMPTS = 11

export interface GateState {
  available: boolean
  /** Since when the database is unavailable (ISO), null while it is available. */
  unavailableSince: string | null
  /** Outages seen since the process started. */
  outages: number
}

/**
 * Every statement of the service runs through the gate, so that an unreachable database
 * (stopped, or frozen: connections open, nothing answered) costs a caller at most about
 * `suspectAfterMs + probeTimeoutMs` instead of the driver's own waits (tens of seconds):
 *
 * - while available, an operation runs normally; if it has no answer after
 *   `suspectAfterMs`, or fails with a connection error, the gate asks the database
 *   `SELECT 1` on a separate connection. An answer means "slow, not gone" (or "that
 *   connection was stale"): a waiting operation keeps waiting (bounded by the statement
 *   timeout). No answer within `probeTimeoutMs` makes the database unavailable;
 * - becoming unavailable releases every waiting operation at once with a
 *   DatabaseUnavailableError (503 for readers; the spool keeps scheduled ticks);
 * - while unavailable, operations fail at once without touching the pool, and the
 *   database is asked again every `retryEveryMs`; the first answer makes it available.
 *
 * Queries abandoned this way may still complete once the database answers again; every
 * write is keyed, so a repeat writes nothing.
 */
export class DatabaseGate {
  private down: { sinceMs: number; reason: string } | null = null
  private outages = 0
  private checking: Promise<boolean> | undefined
  /** A probe query that has not answered yet (a frozen server): never stack another behind it. */
  private probeInFlight: Promise<unknown> | undefined
  private retryTimer: ReturnType<typeof setTimeout> | undefined
  private readonly waiting = new Set<() => void>()
  /** Operations started and not yet settled (an abandoned one still holds its connection). */
  private running = 0
  private availableAgain: Array<() => void> = []
  private stopped = false

  constructor(
    /** Asks the database directly; null = never suspect (the embedded database runs in-process). */
    private readonly probe: (() => Promise<unknown>) | null,
    private readonly log: Logger,
    private readonly opts: GateOptions = GATE_DEFAULTS,
  ) {}

  get available(): boolean {
    return this.down === null
  }

  /** Operations in progress: each holds, or waits for, a pool connection (the pool exposes no count of its own). */
  get inFlight(): number {
    return this.running
  }

  state(): GateState {
    return {
      available: this.down === null,
      unavailableSince: this.down ? new Date(this.down.sinceMs).toISOString() : null,
      outages: this.outages,
    }
  }

  /** Run one database operation (a statement, a transaction) under the rules above. */
  run<T>(op: () => Promise<T>): Promise<T> {
    if (this.down) return Promise.reject(new DatabaseUnavailableError())
    return new Promise<T>((resolve, reject) => {
      let settled = false
      const finish = (settle: () => void) => {
        if (settled) return
        settled = true
        if (timer) clearTimeout(timer)
        this.waiting.delete(release)
        settle()
      }
      const release = () => finish(() => reject(new DatabaseUnavailableError()))
      this.waiting.add(release)
      const timer = this.probe ? setTimeout(() => void this.check(), this.opts.suspectAfterMs) : undefined
      let work: Promise<T>
      this.running++
      try {
        work = op()
      } catch (err) {
        this.running--
        finish(() => reject(err))
        return
      }
      work.then(
        (value) => {
          this.running--
          finish(() => resolve(value))
        },
        (err: unknown) => {
          this.running--
          // A connection error may be one stale pooled connection (the server restarted):
          // the probe tells whether the database is gone.
          if (isDatabaseUnavailable(err)) void this.check(errorText(err))
          finish(() => reject(err))
        },
      )
    })
  }

  /**
   * Run one read under the same rules; a read that failed on a connection the server had
   * closed is tried again, on another connection, while the probe finds the database
   * answering. After a restart each pooled connection learns that its server process is
   * gone only at its next use (a busy process may not have read the server's goodbye
   * yet), so without this the first read on each of them failed with a 503 although the
   * database answered. Reads change nothing: a repeat is safe. Writes are not repeated
   * here (the spool retries collector ticks; an API write's caller sees the 503).
   */
  async read<T>(op: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.run(op)
      } catch (err) {
        const stale = !(err instanceof DatabaseUnavailableError) && isDatabaseUnavailable(err)
        if (!stale || attempt >= READ_ATTEMPTS || !(await this.check(errorText(err)))) throw err
      }
    }
  }

  /** Resolves when the database is available (at once if it is). */
  whenAvailable(): Promise<void> {
    if (!this.down) return Promise.resolve()
    return new Promise((resolve) => this.availableAgain.push(resolve))
  }

  /** Ask the database now (single flight); false and unavailable when it does not answer in time. */
  check(cause?: string): Promise<boolean> {
    this.checking ??= this.ask()
      .then((ok) => {
        if (!ok) this.markUnavailable(cause ?? `no answer to a probe within ${this.opts.probeTimeoutMs} ms`)
        return ok
      })
      .finally(() => {
        this.checking = undefined
      })
    return this.checking
  }

  stop(): void {
    this.stopped = true
    if (this.retryTimer) clearTimeout(this.retryTimer)
    for (const resolve of this.availableAgain.splice(0)) resolve()
  }

  private async ask(): Promise<boolean> {
    if (!this.probe) return true
    if (!this.probeInFlight) {
      const p = this.probe().finally(() => {
        if (this.probeInFlight === p) this.probeInFlight = undefined
      })
      this.probeInFlight = p
    }
    const answered = this.probeInFlight.then(() => true, () => false)
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.opts.probeTimeoutMs)
    })
    try {
      return await Promise.race([answered, late])
    } finally {
      clearTimeout(timer)
    }
  }

  private markUnavailable(reason: string): void {
    if (this.down || this.stopped) return
    this.down = { sinceMs: Date.now(), reason }
    this.outages++
    this.log.warn('database unavailable: requests answer 503, scheduled ticks are kept until it is back', { reason })
    for (const release of [...this.waiting]) release()
    this.scheduleRetry()
  }

  private scheduleRetry(): void {
    if (this.stopped) return
    this.retryTimer = setTimeout(async () => {
      if (await this.ask()) this.markAvailable()
      else this.scheduleRetry()
    }, this.opts.retryEveryMs)
    this.retryTimer.unref?.()
  }

  private markAvailable(): void {
    if (!this.down) return
    this.log.info('database available again', { unavailableForMs: Date.now() - this.down.sinceMs, reason: this.down.reason })
    this.down = null
    for (const resolve of this.availableAgain.splice(0)) resolve()
  }
}
