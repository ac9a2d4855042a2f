/** The database gate with a probe the test controls (the real database drills are in test/reliability). */
import { describe, expect, test } from 'bun:test'
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

async function timed<T>(p: Promise<T>): Promise<{ ms: number; error?: unknown; value?: T }> {
  const t0 = performance.now()
  try {
    const value = await p
    return { ms: performance.now() - t0, value }
  } catch (error) {
    return { ms: performance.now() - t0, error }
  }
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
    const r = await timed(gate.run(() => Bun.sleep(300).then(() => 'slow')))
    expect(r.value).toBe('slow')
    expect(r.ms).toBeGreaterThanOrEqual(290)
    expect(p.asked()).toBe(1)
    expect(gate.available).toBe(true)
    gate.stop()
  })

  test('a frozen database: waiting operations are released with 503 within suspect + probe time; later ones fail at once', async () => {
    const p = probe()
    p.set('silent')
    const gate = new DatabaseGate(p.fn, silentLogger, OPTS)
    const results = await Promise.all([1, 2, 3].map(() => timed(gate.run(never))))
    for (const r of results) {
      expect(r.error).toBeInstanceOf(DatabaseUnavailableError)
      expect(isDatabaseUnavailable(r.error)).toBe(true)
      expect(r.ms).toBeLessThan(OPTS.suspectAfterMs + OPTS.probeTimeoutMs + 100)
    }
    expect(gate.available).toBe(false)
    expect(gate.state()).toMatchObject({ available: false, outages: 1 })
    const later = await timed(gate.run(async () => 'not run'))
    expect(later.error).toBeInstanceOf(DatabaseUnavailableError)
    expect(later.ms).toBeLessThan(5)
    // A probe that never answers is not stacked: one question in flight at a time.
    await Bun.sleep(200)
    expect(p.asked()).toBe(1)
    gate.stop()
  })

  test('a connection error and a refused probe: unavailable at once; back when the probe answers again', async () => {
    const p = probe()
    p.set('refused')
    const gate = new DatabaseGate(p.fn, silentLogger, OPTS)
    const failed = await timed(gate.run(() => Promise.reject(refused())))
    expect(isDatabaseUnavailable(failed.error)).toBe(true)
    await gate.check()
    expect(gate.available).toBe(false)
    const back = gate.whenAvailable()
    p.set('ok')
    await back
    expect(gate.available).toBe(true)
    expect(await gate.run(async () => 'again')).toBe('again')
    gate.stop()
  })

  test('a connection error on a stale pooled connection while the database answers: that call fails, the gate stays open', async () => {
    const p = probe()
    const gate = new DatabaseGate(p.fn, silentLogger, OPTS)
    const failed = await timed(gate.run(() => Promise.reject(refused())))
    expect(isDatabaseUnavailable(failed.error)).toBe(true)
    await Bun.sleep(20)
    expect(p.asked()).toBe(1)
    expect(gate.state()).toMatchObject({ available: true, outages: 0 })
    expect(await gate.run(async () => 'next')).toBe('next')
    gate.stop()
  })

  test('an ordinary query error (not a connection problem) leaves the database available', async () => {
    const gate = new DatabaseGate(probe().fn, silentLogger, OPTS)
    const r = await timed(gate.run(() => Promise.reject(Object.assign(new Error('syntax error'), { code: '42601' }))))
    expect((r.error as Error).message).toBe('syntax error')
    expect(gate.available).toBe(true)
    gate.stop()
  })

  test('without a probe (the embedded database) nothing is ever suspected', async () => {
    const gate = new DatabaseGate(null, silentLogger, OPTS)
    expect(await gate.run(() => Bun.sleep(200).then(() => 'ok'))).toBe('ok')
    expect(gate.available).toBe(true)
    gate.stop()
  })
})
