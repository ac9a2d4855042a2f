/** The stream load generator's parser (bench/stream-clients.ts): ids found once, however the bytes are split. */
import { describe, expect, test } from 'bun:test'
import { scanIds } from '../../bench/stream-clients.ts'

/** A chunked SSE body as the service sends it: each message in a chunk of its own. */
const chunked = (ids: number[]) =>
  ['retry: 3000\n: connected\n\n', ...ids.map((id) => `id: ${id}\nevent: dispatch\ndata: {"id":${id},"type":"dispatch","message":"id: 99\\nid: 98"}\n\n`), ': heartbeat\n\n']
    .map((m) => `${Buffer.byteLength(m).toString(16)}\r\n${m}\r\n`)
    .join('')

/** Feed `text` in pieces cut at `cuts`; the ids found, in order. */
function scanAll(text: string, cuts: number[]): number[] {
  const bytes = Buffer.from(`\n${text}`)
  const found: number[] = []
  let carry: Buffer | null = null
  let at = 0
  for (const cut of [...cuts, bytes.length]) {
    const r = scanIds(carry, bytes.subarray(at, cut))
    found.push(...r.ids)
    carry = r.carry
    at = cut
  }
  return found
}

describe('scanIds', () => {
  const ids = [7, 8, 1234567]
  const text = chunked(ids)

  test('one packet', () => {
    expect(scanAll(text, [])).toEqual(ids)
  })

  test('every split into two packets finds each id once', () => {
    const length = Buffer.byteLength(text) + 1
    for (let cut = 1; cut < length; cut++) expect(scanAll(text, [cut])).toEqual(ids)
  })

  test('byte by byte', () => {
    const length = Buffer.byteLength(text) + 1
    expect(scanAll(text, Array.from({ length: length - 1 }, (_, i) => i + 1))).toEqual(ids)
  })

  test('without chunked framing, and with CRLF line ends', () => {
    expect(scanAll('retry: 3000\n\nid: 5\ndata: {}\n\nid: 6\r\ndata: {}\r\n\r\n', [14, 17])).toEqual([5, 6])
  })
})
