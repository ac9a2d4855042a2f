/**
 * Writes the spool: one loop per collector takes its oldest tick and writes it through
 * the runner, in capture order. While the database is unavailable it waits for the gate
 * (ticks pile up in the spool, bounded); a transient error is retried with a growing
 * pause; a tick another replica is writing at that moment (`locked`) is retried shortly
 * (the tick keys make the second write a no-op); an error no retry can cure sets the
 * tick aside in the spool's rejected file.
 */
import { isTransient } from '../db/connect.ts'
import type { DatabaseGate } from '../db/gate.ts'
import { errorText, type Logger } from '../log.ts'
import { COLLECTOR_NAMES, type CollectorName, type Tick } from './collector.ts'
import type { Drift } from '../feeds/schema.ts'
import { COLLECTORS } from './index.ts'
import type { CollectorRunner } from './runner.ts'
import type { Spool } from './spool.ts'

const LOCKED_RETRY_MS = 250
const RETRY_MIN_MS = 500
const RETRY_MAX_MS = 30_000

export class SpoolWriter {
  private stopped = false
  private readonly wakers = new Map<CollectorName, () => void>()
  private readonly loops: Promise<void>[] = []
  /** Drift reported by a tick's fetch, logged with its write. */
  private readonly drift = new Map<string, Record<string, Drift>>()

  constructor(
    private readonly runner: CollectorRunner,
    private readonly spool: Spool,
    private readonly gate: DatabaseGate,
    private readonly log: Logger,
  ) {}

  start(): void {
    for (const name of COLLECTOR_NAMES) this.loops.push(this.loop(name))
  }

  /** Keep a fetched tick and have it written (in order, after any the spool holds). */
  async keep(tick: Tick, drift?: Record<string, Drift>): Promise<void> {
    if (drift) this.drift.set(tick.id, drift)
    await this.spool.add(tick)
    this.log.debug('tick kept', { collector: tick.collector, capturedAt: tick.capturedAt, id: tick.id })
    this.wakers.get(tick.collector)?.()
  }

  /** Stop taking ticks; the write in progress finishes (bounded by `timeoutMs`). What is pending stays in the spool. */
  async stop(timeoutMs = 5000): Promise<void> {
    this.stopped = true
    for (const wake of this.wakers.values()) wake()
    await Promise.race([Promise.all(this.loops), Bun.sleep(timeoutMs)])
  }

  private async loop(name: CollectorName): Promise<void> {
    const collector = COLLECTORS[name]
    let failures = 0
    while (!this.stopped) {
      const tick = this.spool.head(name)
      if (!tick) {
        await new Promise<void>((resolve) => this.wakers.set(name, resolve))
        continue
      }
      if (!this.gate.available) {
        await Promise.race([this.gate.whenAvailable(), this.sleepUnlessWoken(name, RETRY_MAX_MS)])
        continue
      }
      try {
        const summary = await this.runner.write(collector, tick)
        if (summary.outcome === 'locked') {
          await Bun.sleep(LOCKED_RETRY_MS)
          continue
        }
        await this.spool.done(tick)
        const delayMs = Date.now() - Date.parse(tick.capturedAt)
        this.runner.logRun(summary, tick, this.drift.get(tick.id), delayMs > 60_000 ? { delayedMs: delayMs } : {})
        this.drift.delete(tick.id)
        failures = 0
      } catch (err) {
        if (isTransient(err)) {
          // The gate has usually seen the outage already; otherwise wait a little longer each time.
          if (this.gate.available) {
            failures++
            if (failures === 1) this.log.warn('tick write failed; retrying', { collector: name, capturedAt: tick.capturedAt, error: errorText(err) })
            await this.sleepUnlessWoken(name, Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** (failures - 1)))
          }
          continue
        }
        this.drift.delete(tick.id)
        await this.spool.reject(tick, err)
      }
    }
  }

  private sleepUnlessWoken(name: CollectorName, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms)
      timer.unref?.()
      this.wakers.set(name, () => {
        clearTimeout(timer)
        resolve()
      })
    })
  }
}
