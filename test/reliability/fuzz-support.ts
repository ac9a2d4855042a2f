/**
 * Shared pieces of the property-based "bad input" tests (issue 7): hostile value
 * generators, URL building with several encodings, and the invariants every response
 * must keep (status set, `{error}` envelope without leaks, security headers).
 */
import { expect } from 'bun:test'
import fc from 'fast-check'

// ------------------------------------------------------------------ generators

/** SQL-looking fragments, and the LIKE metacharacters that must stay literal. */
export const SQL_FRAGMENTS = [
  "' OR 1=1 --",
  "' OR '1'='1",
  "1; DROP TABLE dispatches; --",
  "'; SELECT pg_sleep(5); --",
  "' UNION SELECT NULL, version() --",
  '" OR ""="',
  '%',
  '_',
  '\\',
  '%%',
  '_%_',
  '\\%',
  '\\\\',
  "E'\\x00'",
  '$1',
  '1)) OR ((1=1',
  '/* */',
] as const
/** A value "contains SQL" when it has one of these (used to decide whether an echo is a leak). */
const SQLISH = /'|--|;|\/\*|\bOR\b|\bUNION\b|\bSELECT\b|\bDROP\b|%|\\/i

export const sqlFragment = fc.constantFrom(...SQL_FRAGMENTS)

/** Number-like strings the id/paging parsers must judge: huge, negative, fractional, exponent, hex, unicode digits. */
export const numberLike = fc.oneof(
  fc.integer().map(String),
  fc.integer({ min: -5, max: 2100 }).map(String),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.double().map(String),
  fc.double({ min: -1e6, max: 1e6 }).map((d) => d.toFixed(3)),
  fc.nat().map((n) => `0x${n.toString(16)}`),
  fc.nat().map((n) => n.toExponential()),
  fc.constantFrom(
    '0', '-0', '+1', ' 1', '1 ', '1.0', '01', '0000000000000000000001', '2147483647', '2147483648', '4294967295',
    '4294967296', '9007199254740993', '99999999999999999999999999', '1e2', '1E2', '0x10', '0o7', '0b1', 'Infinity',
    '-Infinity', 'NaN', 'null', 'undefined', 'true', '[]', '{}', '１', '٣', '1_000', '1,5', '1.5', '-1', '801', '800',
  ),
)

/** Unicode trouble: RTL override, emoji, NUL, BOM, lone surrogates, combining marks, full-width digits. */
export const unicodeLike = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '\u202Eevil\u202C', 'שלום עולם', 'مرحبا', '🚀💥👩‍🚀', '\u0000', 'a\u0000b', '\uD800', '\uDC00x', 'x\uD83D', 'İstanbul', 'straße',
    '\uFEFF1', '１２３', 'e\u0301', '\u200B', '\r\n', '\t', 'Ⅻ', 'K', '\u0085',
  ),
)

/** A long value (the caller keeps URLs within or beyond the limit). */
export const longValue = (min: number, max: number) =>
  fc
    .tuple(fc.constantFrom('a', '1', '%', '\\', '_', 'é', '🚀', "' OR 1=1 --", 'ab%_\\'), fc.integer({ min, max }))
    .map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n))

/** Any hostile value for a parameter. */
export const hostileValue = fc.oneof(
  { weight: 3, arbitrary: numberLike },
  { weight: 2, arbitrary: unicodeLike },
  { weight: 2, arbitrary: sqlFragment },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: longValue(100, 1200) },
)

// ------------------------------------------------------------------ encoding

const HEX = (b: number) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`
const UNRESERVED = /[A-Za-z0-9\-._~]/

/** Percent-encodes the UTF-8 of `s` (lone surrogates become U+FFFD, as TextEncoder does). */
export function percentEncode(s: string): string {
  let out = ''
  for (const ch of s) {
    if (ch.length === 1 && UNRESERVED.test(ch)) out += ch
    else for (const b of new TextEncoder().encode(ch)) out += HEX(b)
  }
  return out
}

/** How a value is written into the URL. */
export type Encoding = 'component' | 'raw' | 'plus' | 'bytes'
export const encoding = fc.constantFrom<Encoding>('component', 'component', 'component', 'raw', 'plus', 'bytes')

/** Raw bytes percent-encoded as-is: invalid UTF-8, encoded surrogates (CESU), overlongs, NUL. */
export const rawBytes = fc.oneof(
  fc.uint8Array({ maxLength: 12 }).map((a) => [...a].map(HEX).join('')),
  fc.constantFrom('%ED%A0%80', '%ED%B0%80', '%C0%80', '%C0%AF', '%FF%FE', '%E0%A4%A', '%', '%%', '%zz', '%2', '%00', '%0A', '%25'),
)

export function encodeValue(value: string, how: Encoding): string {
  switch (how) {
    case 'component':
      return percentEncode(value)
    case 'raw':
      return value
    case 'plus':
      return percentEncode(value).replace(/%20/g, '+')
    case 'bytes':
      return value // the caller passes an already byte-encoded value
  }
}

/** One query pair, as written in the URL. `key=` with an empty value and a bare `key` are both produced. */
export interface Pair {
  key: string
  /** The decoded value the service should see (for checks); undefined for a bare key. */
  value: string | undefined
  /** The text written in the URL. */
  text: string
}

/** A query pair for `key` with a hostile value in any encoding. */
export const pairFor = (key: string, value: fc.Arbitrary<string> = hostileValue): fc.Arbitrary<Pair> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.tuple(value, encoding.filter((e) => e !== 'bytes')).map(([v, how]) => ({ key, value: v, text: `${key}=${encodeValue(v, how)}` })) },
    { weight: 2, arbitrary: rawBytes.map((b) => ({ key, value: undefined, text: `${key}=${b}` })) },
    { weight: 1, arbitrary: fc.constant({ key, value: undefined, text: key }) },
    { weight: 1, arbitrary: fc.constant({ key, value: '', text: `${key}=` }) },
  )

// ------------------------------------------------------------------ invariants

/** A stack frame, a source location or a module path in a message. */
const STACK = [/(^|\n)\s*at\s+\S/, /\bat\s+[\w.<>$]+\s+\(/, /\.(ts|js|mjs):\d+/, /node_modules/, /\bError:\s/, /\n/]
/** SQL or driver text in a message. */
const SQL_TEXT = [/\bSELECT\b/, /\bFROM\b/, /\bWHERE\b/, /\bILIKE\b/, /\bESCAPE\b/, /\bINSERT\b/, /syntax error/i, /invalid byte sequence/i, /\brelation\b/i, /\bpostgres/i, /\bpglite\b/i, /\bSQLSTATE\b/i, /\bpg_/]

export interface Answer {
  status: number
  headers: Headers
  text: string
  body: any
  url: string
}

/** Sends a request through `app.handle` and reads the body. */
export async function send(app: { handle(r: Request): Promise<Response> }, req: Request): Promise<Answer> {
  const res = await app.handle(req)
  const text = await res.text()
  let body: unknown = undefined
  try {
    body = text === '' ? undefined : JSON.parse(text)
  } catch {
    body = Symbol.for('not json')
  }
  return { status: res.status, headers: res.headers, text, body, url: req.url }
}

/**
 * The `{ error }` envelope of a 4xx/5xx: exactly one key, a non-empty one-line message,
 * no stack trace, no SQL text, and no echo of a long or SQL-looking input value.
 */
export function expectErrorEnvelope(res: Answer, inputs: (string | undefined)[] = [], opts: { noStore?: boolean } = {}) {
  expect(res.headers.get('content-type') ?? '').toContain('application/json')
  expect(res.body !== null && typeof res.body === 'object' && !Array.isArray(res.body)).toBe(true)
  expect(Object.keys(res.body)).toEqual(['error'])
  const msg = res.body.error
  expect(typeof msg).toBe('string')
  expect(msg.trim().length).toBeGreaterThan(0)
  for (const re of STACK) expect({ msg, leak: re.test(msg) }).toEqual({ msg, leak: false })
  for (const re of SQL_TEXT) expect({ msg, leak: re.test(msg) }).toEqual({ msg, leak: false })
  for (const input of inputs) {
    if (input === undefined) continue
    if (input.length >= 24 || (input.length >= 3 && SQLISH.test(input))) {
      expect({ msg, echoes: msg.includes(input) }).toEqual({ msg, echoes: false })
    }
  }
  // README "Caching": every error response is no-store.
  if (opts.noStore !== false) expect(res.headers.get('cache-control')).toBe('no-store')
}

/** The security headers of every response (README "Security and limits"). */
export function expectSecurityHeaders(res: Answer, opts: { collector?: boolean } = {}) {
  expect(res.headers.get('x-content-type-options')).toBe('nosniff')
  expect(res.headers.get('x-frame-options')).toBe('DENY')
  expect(res.headers.get('referrer-policy')).toBe('no-referrer')
  expect(res.headers.get('content-security-policy') ?? '').toContain("default-src 'none'")
  if (opts.collector) expect(res.headers.get('access-control-allow-origin')).toBeNull()
  else expect(res.headers.get('access-control-allow-origin')).toBe('*')
}

export const isIso = (s: unknown) => typeof s === 'string' && !Number.isNaN(Date.parse(s)) && new Date(s).toISOString() === s
export const isInt = (n: unknown) => Number.isInteger(n)

/** fast-check settings: a fixed seed can be given with FUZZ_SEED to replay a run. */
export const fcOptions = <T>(numRuns: number): fc.Parameters<T> => ({
  numRuns,
  ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
})
