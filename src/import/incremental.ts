/**
 * Parsing one archived file commit after commit, where each version differs little from
 * the one before (the community's 1.6 MB JSON: a few planets' health and players move, the
 * rest is the same bytes). The elements of the file's top-level arrays whose bytes equal
 * those at the same position in the version before are taken from it, not decoded and
 * parsed again.
 *
 * It reads the layout jq and `JSON.stringify(v, null, 2)` write: two spaces per level. A
 * raw newline is never inside a JSON string, so a line that starts with two spaces and a
 * quote is a member of the top-level object, and one that starts with four spaces and `{`
 * an element of a top-level array. Anything else (minified JSON, another indentation, a
 * slice that does not parse) is parsed whole: the value is the same either way. Values are
 * shared with the versions after: they are read, never changed.
 */

const enc = new TextEncoder()
const MEMBER = enc.encode('\n  "')
const ELEMENT = enc.encode('\n    {')
const ARRAY_END = enc.encode('\n  ]')
const NEWLINE = 0x0a
const COMMA = 0x2c
const QUOTE = 0x22
const BACKSLASH = 0x5c

interface Element {
  /**
   * A view of the latest version, also for an element taken from before: the source reads
   * the next versions into the buffers of the ones before (sources.ts FileBuffers), so a
   * view of an older version would compare the new bytes with themselves.
   */
  bytes: Buffer
  value: unknown
  /** With an `aside` member: where its string value starts and ends in `bytes`. */
  span?: Span
}

/** Offsets in an element's bytes: [from, to) of a string value, without its quotes. */
type Span = [number, number]

export interface IncrementalOptions {
  /**
   * Per top-level array, a member of its elements whose string value changes at every
   * version while the rest does not (the community's dispatch `published`, placed anew at
   * each sync): an element equal but for it is taken from before with that member read anew.
   */
  aside?: Record<string, string>
  /** How a file in another layout is parsed (JSON.parse of its text by default). */
  whole?: (bytes: Uint8Array) => unknown
}

export class IncrementalParser {
  private readonly decoder = new TextDecoder()
  private previous = new Map<string, Element[]>()
  private readonly aside: Map<string, Aside>
  private readonly whole: (bytes: Uint8Array) => unknown
  /** Elements taken from the version before, elements parsed, files parsed whole. */
  readonly counts = { reused: 0, parsed: 0, whole: 0 }

  constructor(opts: IncrementalOptions = {}) {
    this.aside = new Map(Object.entries(opts.aside ?? {}).map(([array, member]) => [array, { member, marker: enc.encode(`\n      "${member}": "`) }]))
    this.whole = opts.whole ?? ((bytes) => JSON.parse(this.decoder.decode(bytes)))
  }

  /** The file's value, as JSON.parse gives it (a file in another layout: as `whole` does); throws as JSON.parse does when it is not JSON. */
  parse(bytes: Uint8Array): unknown {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const value = this.members(buf)
    if (value !== undefined) return value
    this.counts.whole++
    this.previous = new Map()
    return this.whole(bytes)
  }

  /** The top-level object member by member; undefined when the layout is not the expected one. */
  private members(buf: Buffer): Record<string, unknown> | undefined {
    let end = buf.length
    while (end > 0 && (buf[end - 1] === NEWLINE || buf[end - 1] === 0x20 || buf[end - 1] === 0x0d)) end--
    // `{` `\n  "first": …` … `\n}`
    if (end < 4 || buf[0] !== 0x7b || buf[end - 1] !== 0x7d || buf[end - 2] !== NEWLINE || buf.indexOf(MEMBER) !== 1) return undefined
    const close = end - 2
    const starts: number[] = []
    for (let at = 1; at !== -1 && at < close; at = buf.indexOf(MEMBER, at + 1)) starts.push(at)
    const out: Record<string, unknown> = {}
    const next = new Map<string, Element[]>()
    try {
      for (let i = 0; i < starts.length; i++) {
        const last = i === starts.length - 1
        const stop = last ? close : starts[i + 1]! - 1
        if (!last && buf[stop] !== COMMA) return undefined
        const member = buf.subarray(starts[i]! + 3, stop)
        const colon = member.indexOf('": ')
        if (colon < 1) return undefined
        const key = JSON.parse(this.decoder.decode(member.subarray(0, colon + 1))) as string
        if (key === '__proto__') return undefined
        const raw = member.subarray(colon + 3)
        out[key] = this.elements(key, raw, next) ?? JSON.parse(this.decoder.decode(raw))
      }
    } catch {
      return undefined
    }
    this.previous = next
    return out
  }

  /** A top-level array of objects, element by element; undefined when it is not one (it is parsed whole). */
  private elements(key: string, raw: Buffer, next: Map<string, Element[]>): unknown[] | undefined {
    const endAt = raw.length - ARRAY_END.length
    if (raw[0] !== 0x5b || raw.indexOf(ELEMENT) !== 1 || endAt < 1 || !raw.subarray(endAt).equals(ARRAY_END)) return undefined
    const starts: number[] = []
    for (let at = 1; at !== -1 && at < endAt; at = raw.indexOf(ELEMENT, at + 1)) starts.push(at)
    const before = this.previous.get(key) ?? []
    const aside = this.aside.get(key)
    const list: Element[] = []
    for (let i = 0; i < starts.length; i++) {
      const last = i === starts.length - 1
      const stop = last ? endAt : starts[i + 1]! - 1
      if (!last && raw[stop] !== COMMA) throw new Error('not an element')
      list.push(this.element(raw.subarray(starts[i]! + 1, stop), before[i], aside))
    }
    next.set(key, list)
    return list.map((e) => e.value)
  }

  private element(bytes: Buffer, old: Element | undefined, aside: Aside | undefined): Element {
    if (!aside) {
      if (old && old.bytes.equals(bytes)) {
        this.counts.reused++
        return { bytes, value: old.value }
      }
      this.counts.parsed++
      return { bytes, value: JSON.parse(this.decoder.decode(bytes)) }
    }
    const span = old?.span ? sameAround(bytes, old.bytes, old.span) : undefined
    if (old?.span && span) {
      this.counts.reused++
      const [[from, to], [oldFrom, oldTo]] = [span, old.span]
      const same = to - from === oldTo - oldFrom && bytes.compare(old.bytes, oldFrom, oldTo, from, to) === 0
      // Without a backslash the bytes are the string itself (no escape to undo).
      return { bytes, span, value: same ? old.value : { ...(old.value as Record<string, unknown>), [aside.member]: bytes.toString('utf8', from, to) } }
    }
    this.counts.parsed++
    const at = bytes.indexOf(aside.marker)
    const found = at === -1 ? undefined : valueFrom(bytes, at + aside.marker.length)
    return { bytes, value: JSON.parse(this.decoder.decode(bytes)), ...(found ? { span: found } : {}) }
  }
}

interface Aside {
  member: string
  /** The member's key as it starts a line of an element, up to its value's opening quote. */
  marker: Uint8Array
}

/** The string value starting at `from`: its span, unless it has an escape (or no end). */
function valueFrom(bytes: Buffer, from: number): Span | undefined {
  const to = bytes.indexOf(QUOTE, from)
  if (to === -1) return undefined
  const escape = bytes.indexOf(BACKSLASH, from)
  return escape !== -1 && escape < to ? undefined : [from, to]
}

/**
 * The aside value's span when the element is the one before but for it: the same bytes up
 * to where the value was, and from its closing quote on (two compares in place, no search).
 */
function sameAround(bytes: Buffer, oldBytes: Buffer, [from, oldTo]: Span): Span | undefined {
  if (bytes.length <= from || bytes.compare(oldBytes, 0, from, 0, from) !== 0) return undefined
  const span = valueFrom(bytes, from)
  if (!span) return undefined
  const to = span[1]
  return bytes.length - to === oldBytes.length - oldTo && bytes.compare(oldBytes, oldTo, oldBytes.length, to, bytes.length) === 0 ? span : undefined
}
