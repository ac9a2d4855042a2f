/**
 * Issue 7 ("Bad input"): property-based tests of the collector routes
 * (POST /api/v1/collect/{player-count,war-info,full-status,planet-stats}) with
 * COLLECTOR_SECRET set, against an embedded database and the simulator:
 * - other methods → 404/405 {error}, preflight → 403, and no collector ever runs;
 * - the secret: only the exact value opens the route, anything else → 401 {error}
 *   and no collector runs;
 * - war ids → 400 {error} or 200, never 5xx;
 * - bodies are ignored or refused, never 5xx; over 64 KiB is refused with 413 {error} and
 *   the security headers, checked on the real server (so that nothing in front of the
 *   app, Bun's own limits, answers instead).
 * Known service bugs are excluded from the generators and pinned by `test.todo`
 * (run them with `bun test --todo`).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { buildApp, type App } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { MAX_BODY_BYTES } from '../../src/http/security.ts'
import { createLogger } from '../../src/log.ts'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'
import { openEmbeddedTestDatabase, type TestDatabase } from '../support/db.ts'
import { startService, type ServiceProcess } from '../support/process.ts'
import { simulatedFeeds } from '../support/sim.ts'
import { expectErrorEnvelope, expectSecurityHeaders, fcOptions, hostileValue, percentEncode, send, sqlFragment, unicodeLike, type Answer } from './fuzz-support.ts'

const ORIGIN = 'http://localhost'
const SECRET = 'S3cr3t-Collector_Key.v1'
const NAMES = ['player-count', 'war-info', 'full-status', 'planet-stats'] as const
const INT32_MAX = 2_147_483_647

let db: TestDatabase
let sim: Awaited<ReturnType<typeof simulatedFeeds>>
let app: App
/** Every collector run the app logs ("collector run" / "collector run failed", README "Collectors"). */
const runs: string[] = []
const log = createLogger('info', (line) => {
  const entry = JSON.parse(line) as { msg: string; collector?: string }
  if (entry.msg.startsWith('collector run')) runs.push(entry.collector ?? '?')
})

beforeAll(async () => {
  db = await openEmbeddedTestDatabase()
  sim = await simulatedFeeds(11, 2000)
  app = buildApp({ config: { ...loadConfig({}), warId: 801, collectorSecret: SECRET }, db, log, feeds: sim.feeds })
}, 60_000)
afterAll(async () => {
  await sim?.stop()
  await db?.dispose()
})

/** Collector runs logged so far plus rows in every collector table: unchanged ⇔ no collector ran. */
async function footprint() {
  const [r] = await db.sql<{ n: string }[]>`
    SELECT ((SELECT count(*) FROM player_count_snapshots) + (SELECT count(*) FROM wars) + (SELECT count(*) FROM planet_war_info)
          + (SELECT count(*) FROM planet_status_snapshots) + (SELECT count(*) FROM war_summary_snapshots) + (SELECT count(*) FROM dispatches))::text AS n`
  return { rows: r!.n, runs: runs.length }
}

const collectPath = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NAMES).map((n) => `/api/v1/collect/${n}`) },
  { weight: 1, arbitrary: fc.constantFrom('/api/v1/collect/', '/api/v1/collect/PLAYER-COUNT', '/api/v1/collect/player-count/', '/api/v1/collect/nope', '/api/v1/collect/..%2Fwar') },
)

const SUMMARY_KEYS = ['collector', 'durationMs', 'outcome', 'unchanged', 'warId', 'written']
function expectSummary(res: Answer, collector: string, warId: number) {
  expect(Object.keys(res.body).sort()).toEqual(SUMMARY_KEYS)
  expect(res.body.collector).toBe(collector)
  expect(res.body.warId).toBe(warId)
  expect(['written', 'unchanged', 'locked']).toContain(res.body.outcome)
  expect(res.headers.get('cache-control')).toBe('no-store')
}

function expectCollectorError(res: Answer, status: number[], inputs: (string | undefined)[] = [], opts: { noStore?: boolean } = {}) {
  expect({ status: res.status, ok: status.includes(res.status), body: res.text.slice(0, 200) }).toMatchObject({ ok: true })
  expectSecurityHeaders(res, { collector: true })
  expectErrorEnvelope(res, inputs, opts)
}

// ------------------------------------------------------------------ methods

describe('methods other than POST', () => {
  test('GET/PUT/DELETE/PATCH/HEAD → 404 or 405 {error}, OPTIONS → 403 {error}; no collector runs', async () => {
    const before = await footprint()
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
        collectPath,
        fc.option(fc.constantFrom('?warId=801', '?warId=abc', '?warID=5&warId=801', `?x=${percentEncode("' OR 1=1 --")}`), { nil: '' }),
        fc.constantFrom(SECRET, undefined),
        fc.option(fc.json(), { nil: undefined }),
        async (method, path, query, secret, body) => {
          const headers: Record<string, string> = secret ? { 'x-collector-secret': secret } : {}
          if (body !== undefined) headers['content-type'] = 'application/json'
          const withBody = body !== undefined && !['GET', 'HEAD'].includes(method)
          const res = await send(app, new Request(`${ORIGIN}${path}${query}`, { method, headers, body: withBody ? body : undefined }))
          // BUG 2 (todo below): the preflight 403 lacks Cache-Control: no-store; the rest of the envelope is checked.
          if (method === 'OPTIONS') expectCollectorError(res, [403], [])
          else if (method === 'HEAD') {
            expect([404, 405]).toContain(res.status)
            expectSecurityHeaders(res, { collector: true })
          } else expectCollectorError(res, [404, 405])
        },
      ),
      fcOptions(120),
    )
    expect(await footprint()).toEqual(before)
  }, 30_000)

  test(
    'FIXED (was a bug found by this fuzzing): OPTIONS /api/v1/collect/player-count answers 403 {error} without Cache-Control: no-store (README "Caching": every error response is no-store; same cause as the 414: refusals returned from the security plugin\'s onRequest skip the error plugin)',
    async () => {
      const res = await send(app, new Request(`${ORIGIN}/api/v1/collect/player-count`, { method: 'OPTIONS' }))
      expectCollectorError(res, [403])
    },
  )
})

// ------------------------------------------------------------------ the secret

describe('x-collector-secret', () => {
  /** Header values a client can send (ByteString, no CR/LF/NUL). */
  const headerChar = fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c))
  const flipCase = (s: string, mask: boolean[]) => [...s].map((c, i) => (mask[i % mask.length] ? (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) : c)).join('')
  const near = fc.oneof(
    fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }).map((m) => flipCase(SECRET, m)),
    fc.string({ unit: headerChar, minLength: 1, maxLength: 3 }).map((x) => SECRET + x),
    fc.string({ unit: headerChar, minLength: 1, maxLength: 3 }).map((x) => x + SECRET),
    fc.integer({ min: 0, max: SECRET.length - 1 }).map((n) => SECRET.slice(0, n)),
    fc.integer({ min: 1, max: SECRET.length - 1 }).map((n) => SECRET.slice(n)),
    fc.integer({ min: 0, max: SECRET.length - 1 }).chain((i) => headerChar.map((c) => SECRET.slice(0, i) + c + SECRET.slice(i + 1))),
    fc.constantFrom(`${SECRET},${SECRET}`, `"${SECRET}"`, `Bearer ${SECRET}`, encodeURIComponent(SECRET), btoa(SECRET), SECRET.toUpperCase(), SECRET.toLowerCase(), '', '*', 'null', 'undefined', 'true'),
  )
  const presented = fc.oneof(
    { weight: 1, arbitrary: fc.constant(SECRET) },
    { weight: 4, arbitrary: near },
    { weight: 2, arbitrary: fc.string({ unit: headerChar, maxLength: 40 }) },
    { weight: 1, arbitrary: sqlFragment },
    { weight: 1, arbitrary: fc.string({ unit: headerChar, minLength: 200, maxLength: 3000 }) },
  )
  // Where the value goes: the right header, another header, the query string.
  const placement = fc.constantFrom('header', 'header', 'header', 'twice', 'otherHeader', 'query', 'none')

  test('only the exact secret (after HTTP whitespace trimming) → 200; anything else → 401 {error} and nothing runs', async () => {
    await fc.assert(
      fc.asyncProperty(presented, placement, fc.constantFrom(...NAMES.filter((n) => n !== 'full-status')), async (value, where, name) => {
        const headers = new Headers()
        if (where === 'header') headers.set('x-collector-secret', value)
        if (where === 'twice') {
          headers.append('x-collector-secret', value)
          headers.append('x-collector-secret', value)
        }
        if (where === 'otherHeader') headers.set('authorization', value)
        const url = `${ORIGIN}/api/v1/collect/${name}${where === 'query' ? `?x-collector-secret=${percentEncode(value)}` : ''}`
        const sent = where === 'header' ? headers.get('x-collector-secret') : null // what the server receives after normalisation
        const before = await footprint()
        const res = await send(app, new Request(url, { method: 'POST', headers }))
        if (sent === SECRET) {
          expect({ value, status: res.status }).toEqual({ value, status: 200 })
          expectSummary(res, name, 801)
          expectSecurityHeaders(res, { collector: true })
          return
        }
        expect({ value, where, status: res.status }).toEqual({ value, where, status: 401 })
        expectCollectorError(res, [401], [value])
        expect(res.body.error).not.toContain(SECRET)
        expect(await footprint()).toEqual(before)
      }),
      fcOptions(150),
    )
  }, 40_000)

  test(
    'FIXED (was a bug found by this fuzzing): POST /api/v1/collect/player-count?warId=abc with a wrong or missing x-collector-secret answers 400 {"error":"invalid query parameter \\"warId\\": …"} instead of 401 (query validation runs before the secret check; spec Errors: 401 for any collector request without the correct secret)',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('abc', '0', '-1', '', '1.5', "' OR 1=1 --"), fc.constantFrom('wrong', undefined), async (warId, secret) => {
          const res = await send(app, new Request(`${ORIGIN}/api/v1/collect/player-count?warId=${percentEncode(warId)}`, { method: 'POST', headers: secret ? { 'x-collector-secret': secret } : {} }))
          expect(res.status).toBe(401)
        }),
        fcOptions(12),
      )
    },
  )
})

// ------------------------------------------------------------------ war ids

describe('warId / warID', () => {
  const post = (name: string, query: string) => send(app, new Request(`${ORIGIN}/api/v1/collect/${name}${query}`, { method: 'POST', headers: { 'x-collector-secret': SECRET } }))
  /**
   * Values whose README answer is certain and not hit by a known bug: digit strings (valid
   * known war 801 → 200; 0 or above int32 → 400) and strings without any digit (→ 400).
   * Excluded, pinned by todos: non-digit strings the service coerces to a number (BUG 5),
   * digit ids of wars the upstream does not know (BUG 6), warId and warID both given (BUG 4).
   */
  const digitFree = (s: string) => !/[0-9]/.test(s) && !/[\uff10-\uff19\u0660-\u0669]/.test(s)
  const warValue = fc.oneof(
    fc.constantFrom('801', '0801', '000801', '0', '00', '2147483648', '4294967297', '99999999999999999999', '1'.repeat(400)),
    fc.bigInt({ min: BigInt(INT32_MAX) + 1n, max: 10n ** 30n }).map(String),
    hostileValue.filter(digitFree),
    sqlFragment,
    unicodeLike.filter(digitFree),
    fc.constant(''),
  )
  const expected = (raw: string) => {
    if (/^[0-9]+$/.test(raw)) {
      const n = Number(raw)
      return n >= 1 && n <= INT32_MAX ? 200 : 400
    }
    return 400
  }

  test('warId or warID: 400 {error} or 200 with the summary of war 801 (414 past 4096 characters), never 5xx; a 400 runs nothing', async () => {
    await fc.assert(
      fc.asyncProperty(warValue, fc.constantFrom('warId', 'warID'), fc.constantFrom('player-count', 'war-info', 'planet-stats'), async (raw, key, name) => {
        const exp = expected(raw)
        fc.pre(exp === 400 || Number(raw) === 801)
        const query = `?${key}=${percentEncode(raw)}`
        const tooLong = `${ORIGIN}/api/v1/collect/${name}${query}`.length > 4096
        const before = await footprint()
        const res = await post(name, query)
        if (tooLong) {
          expectCollectorError(res, [414], [raw])
          expect(await footprint()).toEqual(before)
          return
        }
        expect({ raw, status: res.status }).toEqual({ raw, status: exp })
        if (exp === 200) {
          expectSummary(res, name, 801)
          return
        }
        expectCollectorError(res, [400], [raw])
        expect(await footprint()).toEqual(before)
      }),
      fcOptions(120),
    )
  }, 40_000)

  test(
    'FIXED (was a bug found by this fuzzing): POST /api/v1/collect/player-count?warId=801&warID=802 answers 200 and runs for war 801; README: "Giving both spellings with different values is a 400"',
    async () => {
      const before = await footprint()
      const res = await post('player-count', '?warId=801&warID=802')
      expectCollectorError(res, [400])
      expect(await footprint()).toEqual(before)
    },
  )

  test(
    'FIXED (was a bug found by this fuzzing): POST /api/v1/collect/player-count?warId=0x10 (also 1e2, 0b1, 801.0, +801, %20801, 801%20) is coerced to a number and runs the collector (200, or 503 for wars the upstream lacks); README Ids: only decimal digits → 400. The 400 for warId=0/-1/2147483648 says "invalid property" without naming warId',
    async () => {
      for (const raw of ['0x10', '1e2', '0b1', '801.0', '+801', ' 801', '801 ']) {
        const before = await footprint()
        const res = await post('player-count', `?warId=${percentEncode(raw)}`)
        expectCollectorError(res, [400], [raw])
        expect(await footprint()).toEqual(before)
      }
      for (const raw of ['0', '-1', '2147483648']) expect((await post('player-count', `?warId=${raw}`)).body.error).toContain('warId')
    },
  )

  test('a well-formed war id the upstream does not know: 404 {error} (not 503: retrying will not help); planet-stats, whose feed is the current war only, 409; nothing written', async () => {
    const before = await footprint()
    for (const name of NAMES) {
      const res = await post(name, '?warId=5')
      const want =
        name === 'planet-stats'
          ? { status: 409, body: { error: 'the community feed describes the current war (801), not war 5' } }
          : { status: 404, body: { error: expect.stringMatching(/^war 5: the upstream answered 404 \((status|warinfo|summary|assignment|newsfeed)\)$/) } }
      expect({ name, status: res.status, body: res.body }).toEqual({ name, ...want })
    }
    // The runs started (and are logged as failed); not one row was written.
    expect((await footprint()).rows).toBe(before.rows)
  })
})

// ------------------------------------------------------------------ bodies (in process)

describe('request bodies (the routes take none)', () => {
  const body = fc.oneof(
    fc.json().map((j) => ({ type: 'application/json', body: j })),
    fc.string({ maxLength: 200 }).map((s) => ({ type: 'application/json', body: s })), // mostly malformed JSON
    fc.string({ maxLength: 200 }).map((s) => ({ type: 'text/plain', body: s })),
    fc.string({ maxLength: 200 }).map((s) => ({ type: 'application/x-www-form-urlencoded', body: s })),
    fc.string({ maxLength: 200 }).map((s) => ({ type: 'multipart/form-data; boundary=x', body: `--x\r\n${s}` })),
    fc.constantFrom(
      { type: 'application/json', body: '{"warId": 5}' },
      { type: 'application/json', body: '{"__proto__": {"polluted": true}}' },
      { type: 'application/json', body: '1e999999' },
      { type: 'application/json', body: '['.repeat(5000) },
      { type: 'application/octet-stream', body: '\u0000\u0001\u0002' },
    ),
  )

  test('random bodies with the secret: 200 (body ignored) or 400/413/415 {error}; never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(body, async ({ type, body }) => {
        const res = await send(app, new Request(`${ORIGIN}/api/v1/collect/player-count`, { method: 'POST', headers: { 'x-collector-secret': SECRET, 'content-type': type }, body }))
        expect({ status: res.status, ok: [200, 400, 413, 415].includes(res.status) }).toMatchObject({ ok: true })
        expectSecurityHeaders(res, { collector: true })
        if (res.status === 200) expectSummary(res, 'player-count', 801)
        else expectErrorEnvelope(res, [body])
        expect(({} as any).polluted).toBeUndefined()
      }),
      fcOptions(60),
    )
  }, 30_000)
})

// ------------------------------------------------------------------ the 64 KiB body limit (real process)

/**
 * On the real server, `bun src/main.ts` (embedded database, schedule off, feeds on a
 * simulator): the answer a client gets is the server's, not only the app's.
 */
describe('request bodies over 64 KiB, on the real server', () => {
  let svc: ServiceProcess
  let realSim: Simulator
  /** Runs of a collector the process has logged so far (stdout is read asynchronously: see runsSince). */
  const runs = (collector: string) => svc.lines.filter((l) => String(l.msg).startsWith('collector run') && l.collector === collector).length
  const requests = () => runs('player-count')
  /**
   * Player-count runs logged since `before`, counted once a war-info run requested after
   * them is in the log: stdout is one ordered stream, so every line of the earlier requests
   * has been read by then (no fixed wait).
   */
  const runsSince = async (before: number) => {
    const markers = runs('war-info')
    const res = await fetch(`${svc.baseUrl}/api/v1/collect/war-info`, { method: 'POST', headers: { 'x-collector-secret': SECRET } })
    expect(res.status).toBe(200)
    await res.text()
    for (const t0 = Date.now(); runs('war-info') === markers; await Bun.sleep(5)) {
      if (Date.now() - t0 > 10_000) throw new Error('the war-info run was not logged within 10 s')
    }
    return requests() - before
  }

  beforeAll(async () => {
    realSim = startSimulator({ port: 0, seed: 5, speed: 0 })
    svc = await startService({
      SCHEDULE_ENABLED: 'false',
      COLLECTOR_SECRET: SECRET,
      UPSTREAM_URL: realSim.upstreamUrl,
      COMMUNITY_API_URL: realSim.communityUrl,
      PCSTORE_API_URL: realSim.pcstoreUrl,
      FEED_TIMEOUT_MS: '3000',
    })
  }, 120_000)
  afterAll(async () => {
    await svc?.stop()
    await realSim?.stop()
  })

  const answerOf = async (res: Response): Promise<Answer> => {
    const text = await res.text()
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
    return { status: res.status, headers: res.headers, text, body, url: res.url }
  }
  const postBody = (body: ReadableStream | Uint8Array, headers: Record<string, string> = {}) =>
    fetch(`${svc.baseUrl}/api/v1/collect/player-count`, { method: 'POST', headers: { 'x-collector-secret': SECRET, ...headers }, body, duplex: 'half' } as RequestInit)

  test('any body: an empty one runs the collector; one up to 64 KiB is a 400 (collectors take no body), one declared over 64 KiB a 413, a streamed one (no length) a 411; each refusal is {error} with the security headers and runs nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.integer({ min: 0, max: MAX_BODY_BYTES }), fc.integer({ min: MAX_BODY_BYTES + 1, max: 4 * MAX_BODY_BYTES }), fc.constantFrom(MAX_BODY_BYTES, MAX_BODY_BYTES + 1)),
        fc.constantFrom('application/json', 'text/plain', 'application/octet-stream'),
        fc.boolean(),
        async (size, type, chunked) => {
          const bytes = new Uint8Array(size).fill(0x61)
          const body: ReadableStream | Uint8Array = chunked
            ? new ReadableStream({
                start(c) {
                  for (let i = 0; i < size; i += 16_384) c.enqueue(bytes.subarray(i, i + 16_384))
                  c.close()
                },
              })
            : bytes
          const before = requests()
          const res = await answerOf(await postBody(body, { 'content-type': type }))
          // An empty stream goes out as Content-Length: 0 (checked): no body, like size 0 unchunked.
          // A stream's length is not known before it is read, and it is not read.
          const status = size === 0 ? 200 : chunked ? 411 : size <= MAX_BODY_BYTES ? 400 : 413
          expect({ size, chunked, status: res.status, runs: await runsSince(before) }).toEqual({ size, chunked, status, runs: status === 200 ? 1 : 0 })
          expectSecurityHeaders(res, { collector: true })
          if (status !== 200) expectErrorEnvelope(res, [])
        },
      ),
      fcOptions(16),
    )
  }, 60_000)

  test(
    'FIXED (was a bug found by this fuzzing: the collector ran): a chunked body (Transfer-Encoding: chunked, no Content-Length) over 64 KiB is refused before anything runs: 411 {error} from the app, unread',
    async () => {
      for (const chunk of [1000, 16_384, 65_536]) {
        const before = requests()
        const bytes = new Uint8Array(250_000).fill(0x61)
        const res = await postBody(
          new ReadableStream({
            start(c) {
              for (let o = 0; o < bytes.length; o += chunk) c.enqueue(bytes.subarray(o, o + chunk))
              c.close()
            },
          }),
        )
        const answer = await answerOf(res)
        expect({ status: answer.status, runs: await runsSince(before) }).toEqual({ status: 411, runs: 0 })
        expectErrorEnvelope(answer, [])
      }
    },
  )

  test('a streamed body that never ends is answered at once (411 {error}): the service does not read it', async () => {
    const body = new ReadableStream({
      start(c) {
        c.enqueue(new Uint8Array(16_384).fill(0x61))
      },
      pull: () => new Promise(() => {}),
    })
    const res = await answerOf(await postBody(body, { 'content-type': 'application/json' }))
    expect(res.status).toBe(411)
    expectSecurityHeaders(res, { collector: true })
    expectErrorEnvelope(res, [])
  }, 10_000)

  test('FIXED (was a bug pinned here: Bun\'s own 413, with an empty body and no security headers): a body declared over 64 KiB gets 413 {error} from the app, on a read path and an unknown one too, and is not buffered', async () => {
    const peak = () => Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${svc.proc.pid}/status`, 'utf8'))?.[1]) / 1024
    const before = peak()
    for (const [path, collector] of [['/api/v1/collect/player-count', true], ['/api/v1/factions', false], ['/nowhere', false]] as const) {
      for (const size of [MAX_BODY_BYTES + 1, 64 * 1024 * 1024]) {
        const res = await answerOf(await fetch(`${svc.baseUrl}${path}`, { method: 'POST', headers: { 'x-collector-secret': SECRET }, body: new Uint8Array(size) }))
        expect({ path, size, status: res.status }).toEqual({ path, size, status: 413 })
        expectSecurityHeaders(res, { collector })
        expectErrorEnvelope(res, [])
      }
    }
    // Three 64 MiB bodies were offered: the service's peak memory did not take one in.
    expect(peak() - before).toBeLessThan(16)
  }, 60_000)

  test.todo(
    'BUG Bun\'s own refusal of an over-long request line bypasses the app: a GET with a ~20000-character URL answers 431 with an empty body and none of the security headers, instead of 414 {error} (Bun.serve has no option for its header limit, only the --max-http-header-size flag) — run with --todo',
    async () => {
      const long = await fetch(`${svc.baseUrl}/api/v1/factions?x=${'a'.repeat(20_000)}`)
      expect(long.status).toBe(414)
      expect(long.headers.get('x-content-type-options')).toBe('nosniff')
    },
  )
})
