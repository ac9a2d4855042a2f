/** The database gate with a probe the test controls (the real database drills are in test/reliability and test/e2e). */
import { afterEach, beforeEach, describe, expect, jest, test } from 'bun:test'
import { DatabaseUnavailableError, isDatabaseUnavailable } from '../../src/db/connect.ts'
import { DatabaseGate } from '../../src/db/gate.ts'
import { silentLogger } from '../../src/log.ts'

const OPTS = { suspectAfterMs: 50, probeTimeoutMs: 100, retryEveryMs: 30 }
const never = () => new Promise<never>(() => {})
const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })

/** A probe whose answer the test sets: 'ok', 'refused' or 'silent' (a frozen server). */
function probe() {
  let mode: 'ok' | 'refused' | 'silent' = 'ok'
  let asked = 0
  return {
    set: (m: typeof mode) => {
      mode = m
    },
    asked: () => asked,
    fn: () => {
      asked++
      return mode === 'ok' ? Promise.resolve(1) : mode === 'refused' ? Promise.reject(refused()) : never()
    },
  }
}

/**
 * The gate's timers (suspect, probe deadline, retry) and the operations' own durations run
 * on bun's fake clock: each test moves time itself, so "within suspect + probe time" and
 * "at once" are exact, not wall-clock bounds.
 */
beforeEach(() => {
  jest.useFakeTimers()
})
afterEach(() => {
  jest.useRealTimers()
})
/** Let every promise callback that is ready run (no timer fires: time does not move). */
const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve()
}
/** Move the fake clock by `ms`, running what becomes due, and the promise callbacks after. */
const advance = async (ms: number) => {
  await flush()
  jest.advanceTimersByTime(ms)
  await flush()
}
/** An operation that answers `value` after `ms` of (fake) time. */
const after = <T>(ms: number, value: T) => () => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms))

/** Follow a promise: whether and how it has settled so far. */
function watch<T>(p: Promise<T>) {
  const w: { settled: boolean; value?: T; error?: unknown } = { settled: false }
  p.then(
    (value) => Object.assign(w, { settled: true, value }),
    (error: unknown) => Object.assign(w, { settled: true, error }),
  )
  return w
}

describe('database gate', () => {
  test('a fast operation passes through untouched, without asking the database', async () => {
    const p = probe()
    const gate = new DatabaseGate(p.fn, silentLogger, OPTS)
    expect(await gate.run(async () => 42)).toBe(42)
    expect(p.asked()).toBe(0)
    gate.stop()
  })

  test('a slow operation on a database that answers the probe keeps waiting and succeeds', async () => {
    const p = probe()
    const gate = new DatabaseGate(p.fn, silentLogger, OPTS)
    const r = watch(gate.run(after(300, 'slow')))
    await advance(OPTS.suspectAfterMs - 1)
    expect(p.asked()).toBe(0)
    await advance(1)
    expect(p.asked()).toBe(1) // suspected at 50 ms; the probe answers
    await advance(299 - OPTS.suspectAfterMs)
    expect(r.settled).toBe(false) // still waiting at 299 ms, not released
    await advance(1)
    expect(r).toEqual({ settled: true, value: 'slow' })
    expect(p.asked()).toBe(1)
    expect(gate.available).toBe(true)
    gate.stop()
  })

  test('a frozen database: waiting operations are released with 503 within suspect + probe time; later ones fail at once', async () => {
    const p = probe()
    p.set('silent')
    const gate = new DatabaseGate(p.fn, silentLogger, OPTS)
    const results = [1, 2, 3].map(() => watch(gate.run(never)))
    await advance(OPTS.suspectAfterMs + OPTS.probeTimeoutMs - 1)
    expect(results.map((r) => r.settled)).toEqual([false, false, false])
    expect(gate.available).toBe(true)
    await advance(1) // released together, exactly when the probe's deadline passes
    for (const r of results) {
      expect(r.settled).toBe(true)
      expect(r.error).toBeInstanceOf(DatabaseUnavailableError)
      expect(isDatabaseUnavailable(r.error)).toBe(true)
    }
    expect(gate.available).toBe(false)
    expect(gate.state()).toMatchObject({ available: false, outages: 1 })
    let ran = false
    const later = watch(gate.run(async () => ((ran = true), 'not run')))
    await flush() // at once: no time passes
    expect(later.settled).toBe(true)
    expect(later.error).toBeInstanceOf(DatabaseUnavailableError)
    expect(ran).toBe(false)
    // A probe that never answers is not stacked: one question in flight at a time, while
    // the gate asks again every retryEveryMs.
    await advance(10 * OPTS.retryEveryMs)
    expect(p.asked()).toBe(1)
    gate.stop()
  })

  test('a connection error and a refused probe: unavailable at once; back when the probe answers again', async () => {
    const p = probe()
    p.set('refused')
    const gate = new DatabaseGate(p.fn, silentLogger, OPTS)
    const failed = watch(gate.run(() => Promise.reject(refused())))
    await flush()
    expect(isDatabaseUnavailable(failed.error)).toBe(true)
    await gate.check()
    expect(gate.available).toBe(false)
    const back = watch(gate.whenAvailable())
    p.set('ok')
    await advance(OPTS.retryEveryMs - 1)
    expect(back.settled).toBe(false) // asked again every retryEveryMs, not before
    expect(gate.available).toBe(false)
    await advance(1)
    expect(back.settled).toBe(true)
    expect(gate.available).toBe(true)
    expect(await gate.run(async () => 'again')).toBe('again')
    gate.stop()
  })

  test('a connection error on a stale pooled connection while the database answers: that call fails, the gate stays open', async () => {
    const p = probe()
    const gate = new DatabaseGate(p.fn, silentLogger, OPTS)
    const failed = watch(gate.run(() => Promise.reject(refused())))
    await flush() // the probe answers at once: no time passes
    expect(failed.settled).toBe(true)
    expect(isDatabaseUnavailable(failed.error)).toBe(true)
    expect(p.asked()).toBe(1)
    expect(gate.state()).toMatchObject({ available: true, outages: 0 })
    expect(await gate.run(async () => 'next')).toBe('next')
    gate.stop()
  })

  test('an ordinary query error (not a connection problem) leaves the database available', async () => {
    const gate = new DatabaseGate(probe().fn, silentLogger, OPTS)
    const r = watch(gate.run(() => Promise.reject(Object.assign(new Error('syntax error'), { code: '42601' }))))
    await flush()
    expect((r.error as Error).message).toBe('syntax error')
    expect(gate.available).toBe(true)
    gate.stop()
  })

  test('without a probe (the embedded database) nothing is ever suspected', async () => {
    const gate = new DatabaseGate(null, silentLogger, OPTS)
    const r = watch(gate.run(after(10 * OPTS.probeTimeoutMs, 'ok')))
    await advance(10 * OPTS.probeTimeoutMs - 1)
    expect(r.settled).toBe(false)
    await advance(1)
    expect(r).toEqual({ settled: true, value: 'ok' })
    expect(gate.available).toBe(true)
    gate.stop()
  })
})
