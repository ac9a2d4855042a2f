/**
 * The client address (http/client-address.ts): the socket's peer, or, from a trusted
 * proxy only, the right-most untrusted address of its forwarding header. On a real socket
 * the peer is 127.0.0.x: the tests trust 127.0.0.1 or not.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import http from 'node:http'
import { isIP } from 'node:net'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import type { Sql } from '../../src/db/connect.ts'
import { DatabaseGate } from '../../src/db/gate.ts'
import { createFeeds } from '../../src/feeds/index.ts'
import { ClientAddresses, clientKeyOf } from '../../src/http/client-address.ts'
import { ClientBudgets } from '../../src/http/rate-limit.ts'
import { silentLogger } from '../../src/log.ts'

const headers = (entries: [string, string][]) => {
  const h = new Headers()
  for (const [name, value] of entries) h.append(name, value)
  return h
}
const xff = (...values: string[]) => headers(values.map((v) => ['x-forwarded-for', v]))
const fwd = (...values: string[]) => headers(values.map((v) => ['forwarded', v]))

describe('X-Forwarded-For from trusted proxies', () => {
  const addresses = new ClientAddresses(['10.0.0.0/8', '2001:db8:ffff::/48'])

  test('an untrusted peer is the client, whatever it writes', () => {
    expect(addresses.of('203.0.113.5', xff('1.1.1.1'))).toBe('203.0.113.5')
    expect(addresses.of('2001:DB8::5', xff('1.1.1.1'))).toBe('2001:db8::5')
    expect(new ClientAddresses([]).of('10.0.0.2', xff('1.1.1.1'))).toBe('10.0.0.2')
  })

  test('a trusted peer: the right-most address that is not a trusted proxy', () => {
    expect(addresses.of('10.0.0.2', new Headers())).toBe('10.0.0.2')
    expect(addresses.of('10.0.0.2', xff('1.1.1.1'))).toBe('1.1.1.1')
    // What the client wrote stands to the left of what its proxy appended.
    expect(addresses.of('10.0.0.2', xff('6.6.6.6, 1.1.1.1'))).toBe('1.1.1.1')
    expect(addresses.of('10.0.0.2', xff('6.6.6.6', '1.1.1.1'))).toBe('1.1.1.1')
    // Two proxies.
    expect(addresses.of('10.0.0.2', xff('6.6.6.6, 1.1.1.1, 10.9.9.9'))).toBe('1.1.1.1')
    expect(addresses.of('::ffff:10.0.0.2', xff('1.1.1.1'))).toBe('1.1.1.1')
    expect(addresses.of('2001:db8:ffff::1', xff('2001:db8::7'))).toBe('2001:db8::7')
    // Ports and brackets as proxies write them.
    expect(addresses.of('10.0.0.2', xff('1.1.1.1:5678'))).toBe('1.1.1.1')
    expect(addresses.of('10.0.0.2', xff('[2001:DB8::1]:443'))).toBe('2001:db8::1')
    expect(addresses.of('10.0.0.2', xff('[2001:db8::1]'))).toBe('2001:db8::1')
    expect(addresses.of('10.0.0.2', xff(' ::ffff:1.1.1.1 '))).toBe('1.1.1.1')
  })

  test('garbage where a trusted proxy should have written an address: the last address one vouched for', () => {
    expect(addresses.of('10.0.0.2', xff('garbage'))).toBe('10.0.0.2')
    expect(addresses.of('10.0.0.2', xff('1.1.1.1, unknown'))).toBe('10.0.0.2')
    expect(addresses.of('10.0.0.2', xff('1.1.1.1,'))).toBe('10.0.0.2')
    expect(addresses.of('10.0.0.2', xff('x, 10.9.9.9'))).toBe('10.9.9.9')
    expect(addresses.of('10.0.0.2', xff('1.1.1.1:99999'))).toBe('10.0.0.2')
    expect(addresses.of('10.0.0.2', xff('1.1.1.1'.repeat(20)))).toBe('10.0.0.2')
    // A chain of trusted proxies only: the left-most of them.
    expect(addresses.of('10.0.0.2', xff('10.0.0.5, 10.0.0.9'))).toBe('10.0.0.5')
    expect(addresses.of('10.0.0.2', xff(Array(40).fill('10.1.1.1').join(',')))).toBe('10.1.1.1')
  })

  test('the Forwarded header is not read when the proxies write X-Forwarded-For', () => {
    expect(addresses.of('10.0.0.2', headers([['forwarded', 'for=6.6.6.6'], ['x-forwarded-for', '1.1.1.1']]))).toBe('1.1.1.1')
    expect(addresses.of('10.0.0.2', fwd('for=6.6.6.6'))).toBe('10.0.0.2')
  })
})

describe('Forwarded (RFC 7239) from trusted proxies', () => {
  const addresses = new ClientAddresses(['10.0.0.0/8'], 'forwarded')

  test('the for= of the right-most element that is not a trusted proxy', () => {
    expect(addresses.of('10.0.0.2', fwd('for=192.0.2.60;proto=http;by=203.0.113.43'))).toBe('192.0.2.60')
    expect(addresses.of('10.0.0.2', fwd('For="[2001:db8:cafe::17]:4711"'))).toBe('2001:db8:cafe::17')
    expect(addresses.of('10.0.0.2', fwd('for=6.6.6.6, for=192.0.2.60'))).toBe('192.0.2.60')
    expect(addresses.of('10.0.0.2', fwd('for=6.6.6.6', 'proto=https;for=192.0.2.60'))).toBe('192.0.2.60')
    expect(addresses.of('10.0.0.2', fwd('for="6.6.6.6,5.5.5.5", for=192.0.2.60, for=10.3.3.3'))).toBe('192.0.2.60')
    expect(addresses.of('10.0.0.2', headers([['x-forwarded-for', '6.6.6.6'], ['forwarded', 'for=192.0.2.60']]))).toBe('192.0.2.60')
  })

  test('an element without a usable for= stops the walk', () => {
    for (const v of ['for=unknown', 'for="_hidden"', 'by=1.2.3.4', 'for=', 'for="', '"', 'for=1.2.3.4, for=_x', ';;;', ',,,']) {
      expect(addresses.of('10.0.0.2', fwd(v))).toBe('10.0.0.2')
    }
  })
})

test('the budget key of an address: itself, or an IPv6 address\'s /64', () => {
  expect(clientKeyOf('192.0.2.1')).toBe('192.0.2.1')
  expect(clientKeyOf('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64')
  expect(clientKeyOf('2001:db8::1')).toBe('2001:db8:0:0::/64')
  expect(clientKeyOf('2001:0db8:0000:0001::')).toBe('2001:db8:0:1::/64')
  expect(clientKeyOf('::1')).toBe('0:0:0:0::/64')
  expect(clientKeyOf('::')).toBe('0:0:0:0::/64')
  expect(clientKeyOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64')
  expect(clientKeyOf('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64')
})

test('any header text: the peer or an address, never an exception', () => {
  const both = [new ClientAddresses(['0.0.0.0/0', '::/0']), new ClientAddresses(['0.0.0.0/0', '::/0'], 'forwarded')]
  const text = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.array(fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('for=', '"', '[', ']', ':', ',', ';', '=', ' ', 'unknown')), { maxLength: 30 }).map((a) => a.join('')),
  )
  fc.assert(
    fc.property(text, (value) => {
      // Only what a Headers object takes (no NUL, CR or LF; trimmed).
      let h: Headers
      try {
        h = headers([['x-forwarded-for', value], ['forwarded', value]])
      } catch {
        return
      }
      for (const a of both) {
        const client = a.of('10.0.0.2', h)!
        expect(client === '10.0.0.2' || isIP(client) !== 0).toBe(true)
        expect(clientKeyOf(client).length).toBeGreaterThan(0)
      }
    }),
    { numRuns: 1000, ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}) },
  )
})

describe('on a real socket (peer 127.0.0.x)', () => {
  // These requests never reach the database: a pool that would throw if used proves it.
  const noDatabase = new Proxy({}, { get: () => { throw new Error('database used') } }) as unknown as Sql
  const db = { sql: noDatabase, gate: new DatabaseGate(null, silentLogger), info: { edition: 'postgres' as const, timescaledbVersion: null, serverVersion: '', embedded: true } }
  const stops: (() => void)[] = []
  afterAll(() => stops.forEach((stop) => stop()))

  /** The app with a budget of 20 requests (each 1 unit), trusting what TRUSTED_PROXIES says. */
  const serve = (trusted: string) => {
    const config = loadConfig({ UPSTREAM_URL: 'http://127.0.0.1:9/api', RATE_LIMIT_QUOTA: '20', RATE_LIMIT_COMPUTE_COST: '1', TRUSTED_PROXIES: trusted })
    const app = buildApp({ config, db, log: silentLogger, feeds: createFeeds(config), budgets: new ClientBudgets(config, () => 0) }).listen({ hostname: '127.0.0.1', port: 0 })
    stops.push(() => void app.stop(true))
    const port = app.server!.port
    /** The RateLimit header of a kept GET from `from`, with X-Forwarded-For when given. */
    return (from: string, forwardedFor?: string) =>
      new Promise<string>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path: '/api/v1/health/throttle', localAddress: from, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} }, (res) => {
          res.resume()
          res.on('end', () => resolve(`${res.statusCode} ${res.headers.ratelimit}`))
        })
        req.on('error', reject)
        req.end()
      })
  }

  test('from an untrusted peer, a spoofed X-Forwarded-For does not change the bucket', async () => {
    const ask = serve('')
    const seen: string[] = []
    for (let i = 0; i < 22; i++) seen.push(await ask('127.0.0.1', `198.51.100.${i}`))
    expect(seen.slice(0, 3)).toEqual(['200 "default";r=19;t=3', '200 "default";r=18;t=6', '200 "default";r=17;t=9'])
    expect(seen.slice(19)).toEqual(['200 "default";r=0;t=60', '429 "default";r=0;t=60', '429 "default";r=0;t=60'])
    // Another peer has its own.
    expect(await ask('127.0.0.2', '198.51.100.0')).toBe('200 "default";r=19;t=3')
  })

  test('from a trusted proxy, the forwarded client address is the bucket (its right-most untrusted entry)', async () => {
    const ask = serve('127.0.0.1')
    expect(await ask('127.0.0.1', '198.51.100.7')).toBe('200 "default";r=19;t=3')
    expect(await ask('127.0.0.1', '198.51.100.7')).toBe('200 "default";r=18;t=6')
    expect(await ask('127.0.0.1', '198.51.100.8')).toBe('200 "default";r=19;t=3')
    // A client's own entry, left of its proxy's, is not read.
    expect(await ask('127.0.0.1', '198.51.100.99, 198.51.100.7')).toBe('200 "default";r=17;t=9')
    // The proxy's own requests (no header) are the proxy's.
    expect(await ask('127.0.0.1')).toBe('200 "default";r=19;t=3')
    // 127.0.0.2 is not a trusted proxy: what it forwards is not believed.
    expect(await ask('127.0.0.2', '198.51.100.8')).toBe('200 "default";r=19;t=3')
    expect(await ask('127.0.0.2', '198.51.100.8')).toBe('200 "default";r=18;t=6')
  })
})
