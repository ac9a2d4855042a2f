/** The one cache mechanism under the feed throttle and the response cache. */
import { describe, expect, test } from 'bun:test'
import { SingleFlightCache } from '../src/cache.ts'

const deferred = <T>() => {
  let resolve!: (v: T) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}
const keepAll = <V>(v: V) => v

describe('SingleFlightCache', () => {
  test('callers of one key while its load runs share that load and its result; other keys load on their own', async () => {
    const cache = new SingleFlightCache<string>()
    const gate = deferred<string>()
    let loads = 0
    const load = () => {
      loads++
      return gate.promise
    }
    const a = cache.load('k', load, keepAll)
    const b = cache.load('k', load, keepAll)
    expect(cache.loading('k')).toBe(true)
    const other = cache.load('other', async () => 'o', keepAll)
    gate.resolve('v')
    expect(await Promise.all([a, b, other])).toEqual(['v', 'v', 'o'])
    expect(loads).toBe(1)
    expect(cache.loading('k')).toBe(false)
    expect(cache.get('k')?.value).toBe('v')
  })

  test('a failed load stores nothing, every joined caller gets the error, and the next call loads again', async () => {
    const cache = new SingleFlightCache<string>()
    const gate = deferred<string>()
    const a = cache.load('k', () => gate.promise, keepAll)
    const b = cache.load('k', () => Promise.resolve('never'), keepAll)
    gate.reject(new Error('down'))
    expect(await a.catch((e: Error) => e.message)).toBe('down')
    expect(await b.catch((e: Error) => e.message)).toBe('down')
    expect(cache.get('k')).toBeUndefined()
    expect(await cache.load('k', async () => 'back', keepAll)).toBe('back')
  })

  test('keep decides what the result stores (nothing when undefined)', async () => {
    const cache = new SingleFlightCache<number>()
    expect(await cache.load('a', async () => ({ n: 1, stale: true }), (r) => (r.stale ? undefined : r.n))).toEqual({ n: 1, stale: true })
    expect(cache.get('a')).toBeUndefined()
    await cache.load('a', async () => ({ n: 2, stale: false }), (r) => (r.stale ? undefined : r.n))
    expect(cache.get('a')?.value).toBe(2)
  })

  test('entries record when they were stored; past the bound the least recently stored entry goes', async () => {
    let now = 1000
    const cache = new SingleFlightCache<string>(2, () => now)
    cache.set('a', 'A')
    now += 10
    cache.set('b', 'B')
    expect(cache.get('a')?.storedAtMs).toBe(1000)
    expect(cache.get('b')?.storedAtMs).toBe(1010)
    expect(cache.get('missing')).toBeUndefined()
    cache.set('a', 'A2') // stored again: now the most recent
    cache.set('c', 'C')
    expect([cache.get('a')?.value, cache.get('b')?.value, cache.get('c')?.value]).toEqual(['A2', undefined, 'C'])
    expect(cache.size).toBe(2)
  })

  test('with a weight budget the least recently stored go until the new value fits; a value over the whole budget is not kept', () => {
    const cache = new SingleFlightCache<string>(100, Date.now, { max: 10, weigh: (v) => v.length })
    cache.set('a', 'aaaa')
    cache.set('b', 'bbbb')
    expect(cache.totalWeight).toBe(8)
    cache.set('c', 'ccc') // 11 > 10: a goes
    expect([cache.get('a'), cache.get('b')?.value, cache.get('c')?.value]).toEqual([undefined, 'bbbb', 'ccc'])
    expect(cache.totalWeight).toBe(7)
    cache.set('b', 'b') // replaced: its old weight is given back
    expect(cache.totalWeight).toBe(4)
    cache.set('huge', 'x'.repeat(11))
    expect([cache.get('huge'), cache.size, cache.totalWeight]).toEqual([undefined, 2, 4])
    cache.delete('c')
    expect(cache.totalWeight).toBe(1)
    // A weight that is not a number would silently switch the budget off: refused.
    const broken = new SingleFlightCache<object>(10, Date.now, { max: 10, weigh: (v) => (v as { length: number }).length })
    expect(() => broken.set('a', {})).toThrow('cache weight must be a finite number')
  })
})
