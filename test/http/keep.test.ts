/** The one mechanism that keeps answers (http/keep.ts), on small apps of its own. */
import { describe, expect, test } from 'bun:test'
import { Elysia, status, t } from 'elysia'
import fc from 'fast-check'
import { errorHandling } from '../../src/http/errors.ts'
import { Keeper, type KeepRule, type WindowEdges } from '../../src/http/keep.ts'
import { createLogger, silentLogger } from '../../src/log.ts'
import { DataVersions } from '../../src/storage/changes.ts'
import { Timestamp } from '../../src/storage/model.ts'

const Answer = t.Object({ n: t.Integer(), at: Timestamp(), label: t.String() })

/** An app with one kept route whose handler counts its runs; the clock is the test's. */
function keptApp(rule: KeepRule, handler: (c: { at: Date; query: Record<string, string | undefined> }) => unknown = ({ at }) => ({ n: 1, at, label: 'x' })) {
  const versions = new DataVersions()
  let clock = new Date('2026-06-01T00:00:00Z')
  const keeper = new Keeper(versions, () => clock)
  let runs = 0
  const app = new Elysia()
    .use(errorHandling(process.env.KEEP_DEBUG ? createLogger('debug', (l) => console.log(l)) : silentLogger))
    .use(keeper.plugin())
    .get('/a', async (c) => (runs++, await handler(c as never)) as never, { response: { 200: Answer }, keep: rule })
  const get = async (path = '/a', headers: Record<string, string> = {}) => {
    const res = await app.handle(new Request(`http://localhost${path}`, { headers }))
    return { status: res.status, headers: res.headers, text: await res.text() }
  }
  return {
    versions, keeper, get,
    get runs() { return runs },
    set clock(d: Date) { clock = d },
    get clock() { return clock },
  }
}

describe('keep', () => {
  test('computed once per version of the datasets it reads; other datasets do not matter; concurrent misses share one run', async () => {
    const a = keptApp({ datasets: ['player-counts'] }, async ({ at }) => (await Bun.sleep(5), { n: 7, at, label: 'x' }))
    const many = await Promise.all(Array.from({ length: 20 }, () => a.get()))
    expect(a.runs).toBe(1)
    expect(new Set(many.map((r) => r.text)).size).toBe(1)
    a.versions.bump(['dispatches'])
    await a.get()
    expect(a.runs).toBe(1)
    a.versions.bump(['player-counts'])
    await a.get()
    expect(a.runs).toBe(2)
    a.versions.bumpAll()
    await a.get()
    expect(a.runs).toBe(3)
    expect(a.keeper.stats).toMatchObject({ computed: 3 })
  })

  test('each path and query is its own answer', async () => {
    const a = keptApp({ datasets: ['war'] }, ({ at, query }) => ({ n: Number(query.n ?? 0), at, label: 'x' }))
    expect(JSON.parse((await a.get('/a?n=1')).text).n).toBe(1)
    expect(JSON.parse((await a.get('/a?n=2')).text).n).toBe(2)
    await a.get('/a?n=1')
    expect(a.runs).toBe(2)
  })

  test('the body is the value encoded by the response schema (unknown fields dropped, times as ISO strings), no-store by default', async () => {
    const at = new Date('2026-06-01T00:00:00Z')
    const a = keptApp({ datasets: ['war'] }, () => ({ n: 1, at, label: 'x', secret: 'dropped' }))
    const res = await a.get()
    expect(res.text).toBe('{"n":1,"at":"2026-06-01T00:00:00.000Z","label":"x"}')
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.headers.get('content-type')).toContain('application/json')
  })

  test('a value that breaks the schema is a 500, and is not kept', async () => {
    let bad = true
    const a = keptApp({ datasets: ['war'] }, ({ at }) => ({ n: bad ? 'many' : 1, at, label: 'x' }))
    expect((await a.get()).status).toBe(500)
    bad = false
    expect((await a.get()).status).toBe(200)
    expect(a.runs).toBe(2)
  })

  test('errors and non-200 answers are not kept; those waiting on a failed run compute on their own', async () => {
    let fail = 2
    const a = keptApp({ datasets: ['war'] }, async ({ at }) => {
      await Bun.sleep(5)
      if (fail-- > 0) throw status(404, { error: 'nothing yet' })
      return { n: 1, at, label: 'x' }
    })
    const [first, second] = await Promise.all([a.get(), a.get()])
    expect([first.status, second.status]).toEqual([404, 404])
    expect((await a.get()).status).toBe(200)
    expect((await a.get()).status).toBe(200)
    expect(a.runs).toBe(3)
  })

  test('fresh fields are filled per request; the bytes are those of the whole value with them set', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.array(fc.integer({ min: 0, max: 10 ** 9 }), { minLength: 1, maxLength: 5 }), async (label, steps) => {
        const a = keptApp({ datasets: ['war'], fresh: { at: ({ at }) => at, n: ({ at }, kept: { n: number }) => kept.n + at.getSeconds() } }, ({ at }) => ({ n: 3, at, label }))
        for (const step of steps) {
          a.clock = new Date(a.clock.getTime() + step)
          const res = await a.get()
          expect(res.text).toBe(JSON.stringify({ n: 3 + a.clock.getSeconds(), at: a.clock, label }))
        }
        expect(a.runs).toBe(1)
      }),
      { seed: 11, numRuns: 50 },
    )
  })

  test('a version of its own: undefined keeps nothing; each value is its own answer', async () => {
    let version: number | undefined
    const a = keptApp({ version: () => version })
    await a.get()
    await a.get()
    expect(a.runs).toBe(2)
    version = 1
    await a.get()
    await a.get()
    expect(a.runs).toBe(3)
    version = 2
    await a.get()
    expect(a.runs).toBe(4)
  })

  test('a window ending now holds while no row entered (none as new as its moment) or left (its start before the oldest row)', async () => {
    const t0 = Date.parse('2026-06-01T00:00:00Z')
    let edges: WindowEdges = { oldest: new Date(t0 - 50_000), newest: new Date(t0 - 1000) }
    let edgeReads = 0
    const a = keptApp({ datasets: ['planet-status'], window: { spanMs: () => 60_000, edges: async () => (edgeReads++, edges) } })
    await a.get()
    expect([a.runs, edgeReads]).toEqual([1, 1])
    a.clock = new Date(t0 + 9_000) // the window's start (t0 - 51 s) is still before the oldest row
    await a.get()
    expect(a.runs).toBe(1)
    a.clock = new Date(t0 + 11_000) // past it: the oldest row has left
    await a.get()
    expect(a.runs).toBe(2)
    // A row newer than the moment it was computed: it enters later, so the answer is not kept.
    a.versions.bumpAll()
    edges = { oldest: new Date(t0 - 50_000), newest: new Date(t0 + 60_000) }
    await a.get()
    await a.get()
    expect(a.runs).toBe(4)
    // A clock that went back: not the same window.
    edges = { oldest: null, newest: null }
    a.versions.bumpAll()
    await a.get()
    a.clock = new Date(a.clock.getTime() - 1)
    await a.get()
    expect(a.runs).toBe(6)
  })

  test('a computation that throws (any error, answered by the error plugin) leaves no one waiting; its followers make one computation, not one each', async () => {
    for (const error of [new Error('boom'), Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' })]) {
      let fail = true
      let release: () => void = () => {}
      const a = keptApp({ datasets: ['war'] }, async ({ at }) => {
        if (fail) {
          fail = false
          await new Promise<void>((r) => (release = r))
          throw error
        }
        await Bun.sleep(5)
        return { n: 1, at, label: 'x' }
      })
      const leader = a.get()
      await Bun.sleep(5)
      const followers = Array.from({ length: 10 }, () => a.get())
      await Bun.sleep(5)
      release()
      expect((await leader).status).toBeGreaterThanOrEqual(500)
      const answers = await Promise.race([Promise.all(followers), Bun.sleep(3000).then(() => 'still waiting')])
      expect(answers).not.toBe('still waiting')
      expect((answers as { status: number }[]).map((r) => r.status)).toEqual(Array(10).fill(200))
      expect(a.runs).toBe(2)
      // And the next request is answered at once, from the kept answer.
      expect((await Promise.race([a.get(), Bun.sleep(3000).then(() => ({ status: 0 }))])).status).toBe(200)
      expect(a.runs).toBe(2)
    }
  })

  test('a request that joins a computation of an earlier moment uses it only if it holds at its own; else it computes', async () => {
    const t0 = Date.parse('2026-06-01T00:00:00Z')
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => (release = r))
    const a = keptApp(
      { datasets: ['planet-status'], window: { spanMs: () => 60_000, edges: async () => ({ oldest: new Date(t0 - 59_000), newest: new Date(t0 - 1000) }) } },
      async ({ at }) => {
        if (at.getTime() === t0) await gate
        return { n: 1, at, label: 'x' }
      },
    )
    const first = a.get()
    await Bun.sleep(5)
    // 2 s later the window's start has passed the oldest row: the first computation does not hold.
    a.clock = new Date(t0 + 2000)
    const second = a.get()
    await Bun.sleep(5)
    release()
    const [r1, r2] = await Promise.all([first, second])
    expect(JSON.parse(r1.text).at).toBe(new Date(t0).toISOString())
    expect(JSON.parse(r2.text).at).toBe(new Date(t0 + 2000).toISOString())
    expect(a.runs).toBe(2)
  })

  test('a key or edges that fail are the request\'s error, and leave nothing waiting', async () => {
    let failKey = true
    const a = keptApp({ datasets: ['war'], key: async () => (failKey ? Promise.reject(new Error('database unavailable')) : 'k') })
    expect((await a.get()).status).toBe(500)
    failKey = false
    expect((await a.get()).status).toBe(200)
    let failEdges = true
    const b = keptApp({ datasets: ['war'], window: { spanMs: () => 1000, edges: async () => (failEdges ? Promise.reject(new Error('gone')) : { oldest: null, newest: null }) } })
    const [x, y] = await Promise.all([b.get(), b.get()])
    expect([x.status, y.status]).toEqual([500, 500])
    failEdges = false
    expect((await b.get()).status).toBe(200)
  })

  test('HTTP-cached: Cache-Control and a strong ETag, 304 on a match, reused within the TTL only', async () => {
    const a = keptApp({ datasets: ['war'], http: 'war' })
    const first = await a.get()
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/)
    expect(first.headers.get('cache-control')).toBe('public, max-age=30, s-maxage=30, stale-while-revalidate=30')
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) expect((await a.get('/a', { 'if-none-match': inm })).status).toBe(304)
    expect((await a.get('/a', { 'if-none-match': '"other"' })).status).toBe(200)
    a.clock = new Date(a.clock.getTime() + 29_999)
    await a.get()
    expect(a.runs).toBe(1)
    a.clock = new Date(a.clock.getTime() + 1)
    await a.get()
    expect(a.runs).toBe(2)
  })

  test('a route that keeps needs a response schema for 200', () => {
    const keeper = new Keeper(new DataVersions(), () => new Date())
    expect(() => new Elysia().use(keeper.plugin()).get('/x', () => 'x', { keep: { datasets: ['war'] } })).toThrow('response schema')
  })

  test('a kept value (a service\'s intermediate result) is computed once per version', async () => {
    const versions = new DataVersions()
    const keeper = new Keeper(versions, () => new Date())
    let runs = 0
    const compute = async () => (await Bun.sleep(2), ++runs)
    expect(await Promise.all([keeper.value('k', ['war'], compute), keeper.value('k', ['war'], compute)])).toEqual([1, 1])
    expect(keeper.value('k', ['war'], compute)).toBe(1)
    versions.bump(['war'])
    expect(await keeper.value('k', ['war'], compute)).toBe(2)
  })
})
