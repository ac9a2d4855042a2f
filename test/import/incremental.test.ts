/**
 * Parsing a file version after version (src/import/incremental.ts): whatever the versions,
 * each value is JSON.parse's; the elements of top-level arrays that did not change are taken
 * from the version before; a layout it does not read is parsed whole.
 */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { IncrementalParser } from '../../src/import/incremental.ts'
import { loadSample } from '../support/samples.ts'

/** JSON as bytes, pretty-printed with `indent` spaces (0: minified). */
const bytes = (v: unknown, indent = 2) => new TextEncoder().encode(JSON.stringify(v, null, indent))

/** Versions copied into two buffers used in turn, as the git source reads a file's versions (FileBuffers). */
function inTurn(): (b: Uint8Array) => Uint8Array {
  const buffers = [new Uint8Array(0), new Uint8Array(0)]
  let turn = 0
  return (b) => {
    turn ^= 1
    if (buffers[turn]!.length < b.length) buffers[turn] = new Uint8Array(b.length * 2)
    buffers[turn]!.set(b)
    return buffers[turn]!.subarray(0, b.length)
  }
}
const EXCERPT = loadSample('community/v1_war_planets_dispatch_EXCERPT_sebsebmc_2025.json') as Record<string, any>

describe('a file parsed version after version', () => {
  test('the real excerpt: the value is JSON.parse\'s; unchanged planets and dispatches are the objects of the version before', () => {
    const p = new IncrementalParser({ aside: { dispatches: 'published' } })
    const first = p.parse(bytes(EXCERPT)) as Record<string, any>
    expect(first).toEqual(EXCERPT)
    const next = structuredClone(EXCERPT)
    next.planets[2].health = 5
    next.dispatches[0].published = '2024-03-14T18:09:57.1234567Z'
    const second = p.parse(bytes(next)) as Record<string, any>
    expect(second).toEqual(next)
    expect(second.planets[0]).toBe(first.planets[0])
    expect(second.planets[2]).not.toBe(first.planets[2])
    // Equal but for its date: the same texts, the new date.
    expect(second.dispatches[0].message).toBe(first.dispatches[0].message)
    expect(second.dispatches[0].published).toBe('2024-03-14T18:09:57.1234567Z')
    expect(p.counts).toEqual({ reused: 5, parsed: 7, whole: 0 })
  })

  test('versions read into two buffers in turn: an element unchanged for a version, then changed in place, is read anew', () => {
    const p = new IncrementalParser({ aside: { dispatches: 'published' } })
    const read = inTurn()
    const versions = [5, 5, 6, 7, 7, 8].map((health, i) => ({
      planets: [{ index: 0, health }, { index: 1, health: 100 + i }],
      dispatches: [{ id: 1, published: `2024-01-0${Math.floor(i / 2)}`, message: `m${Math.floor(i / 3)}` }],
    }))
    for (const v of versions) expect(p.parse(read(bytes(v)))).toEqual(v)
    expect(p.counts.reused).toBeGreaterThan(0)
  })

  test('minified, another indentation, a cut-off file: parsed whole, or failing as JSON.parse does', () => {
    const p = new IncrementalParser()
    expect(p.parse(bytes(EXCERPT, 0))).toEqual(EXCERPT)
    expect(p.parse(bytes(EXCERPT, 4))).toEqual(EXCERPT)
    expect(p.parse(bytes({ a: 1 }, 1))).toEqual({ a: 1 })
    expect(p.counts.whole).toBe(3)
    expect(() => p.parse(bytes(EXCERPT).subarray(0, 5000))).toThrow(SyntaxError)
    const proto = new TextEncoder().encode('{\n  "__proto__": [\n    {\n      "a": 1\n    }\n  ]\n}')
    const value = p.parse(proto) as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(value).toEqual(JSON.parse('{"__proto__": [{"a": 1}]}'))
  })

  test('any sequence of versions: every value equals JSON.parse of its bytes', () => {
    const scalar = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string(), fc.boolean(), fc.constant(null))
    const element = fc.dictionary(fc.constantFrom('id', 'published', 'message', 'x', '"q"'), fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.dictionary(fc.string(), scalar, { maxKeys: 3 })), { maxKeys: 4 })
    const topValue = fc.oneof(fc.array(element, { maxLength: 5 }), scalar, fc.array(scalar, { maxLength: 3 }), fc.dictionary(fc.string(), scalar, { maxKeys: 2 }))
    const doc = fc.dictionary(fc.constantFrom('war', 'planets', 'dispatches', 'campaigns', 'z'), topValue, { maxKeys: 5 })
    fc.assert(
      fc.property(fc.array(fc.tuple(doc, fc.constantFrom(2, 2, 2, 0, 1)), { minLength: 1, maxLength: 6 }), (versions) => {
        const p = new IncrementalParser({ aside: { dispatches: 'published' } })
        for (const [v, indent] of versions) {
          const b = bytes(v, indent)
          expect(p.parse(b)).toEqual(JSON.parse(new TextDecoder().decode(b)))
        }
      }),
      { numRuns: 300 },
    )
  })

  test('versions that differ little from each other: every value equals JSON.parse of its bytes, unchanged elements reused', () => {
    const scalar = fc.oneof(fc.integer(), fc.string(), fc.constant(null))
    const element = fc.record({ id: fc.integer({ min: 0, max: 3 }), published: fc.string(), message: fc.dictionary(fc.constantFrom('en-US', 'de-DE'), fc.string()) })
    const edit = fc.tuple(fc.constantFrom('dispatches', 'planets'), fc.nat(6), fc.constantFrom('id', 'published', 'message', 'drop', 'add'), scalar)
    fc.assert(
      fc.property(fc.array(element, { maxLength: 6 }), fc.array(element, { maxLength: 6 }), fc.array(edit, { maxLength: 8 }), (dispatches, planets, edits) => {
        const p = new IncrementalParser({ aside: { dispatches: 'published' } })
        const read = inTurn()
        const doc: Record<string, Record<string, unknown>[]> = { dispatches, planets }
        let reused = 0
        const check = () => {
          const b = bytes({ war: { now: 1 }, ...doc })
          expect(p.parse(read(b))).toEqual(JSON.parse(new TextDecoder().decode(b)))
          expect(p.counts.reused).toBeGreaterThanOrEqual(reused)
          reused = p.counts.reused
        }
        check()
        for (const [key, i, what, v] of edits) {
          const list = (doc[key] = [...doc[key]!])
          if (what === 'add') list.splice(Math.min(i, list.length), 0, { id: i, published: String(v), message: {} })
          else if (list.length) {
            const k = i % list.length
            if (what === 'drop') list.splice(k, 1)
            else list[k] = { ...list[k], [what]: what === 'message' ? { 'en-US': String(v) } : v }
          }
          check()
        }
        expect(p.counts.whole).toBe(0)
      }),
      { numRuns: 300 },
    )
  })
})
