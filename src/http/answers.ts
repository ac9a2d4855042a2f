/**
 * Answers kept ready. A read whose work is the same for every reader until the data
 * changes (the diver-history chart, a planet's curve, the live counts) is computed once
 * per version of the datasets it reads (storage/changes.ts) and kept serialised; readers
 * get a copy with the values that change per request (the window's end, the capture
 * time) filled in. The work is done when the data changes, by the first reader after the
 * change (the others meanwhile join that computation), not by every reader.
 *
 * Exact as of the last committed row: a write moves the versions the moment it commits
 * (in this process; other processes within the LISTEN delay), and an answer is only ever
 * served for the versions it was computed at: the key holds them.
 */
import { SingleFlightCache, type WeightBudget } from '../cache.ts'
import { securedResponse } from './security.ts'
import type { DataVersions, Dataset } from '../storage/changes.ts'

export class Answers {
  private readonly cache: SingleFlightCache<unknown>

  constructor(
    private readonly versions: DataVersions,
    opts: { maxEntries?: number; budget?: WeightBudget<unknown> } = {},
  ) {
    this.cache = new SingleFlightCache<unknown>(opts.maxEntries ?? 512, Date.now, opts.budget)
  }

  /**
   * The answer under `key` (the route, its parameters and its clock-dependent window) for
   * the current versions of `datasets`: kept, or computed now (once, however many ask).
   */
  get<T>(key: string, datasets: readonly Dataset[], compute: () => Promise<T>, holds?: (kept: T) => boolean): Promise<T> {
    const full = this.fullKey(key, datasets)
    const kept = this.keptUnder<T>(full, holds)
    if (kept !== undefined) return Promise.resolve(kept)
    // An answer that does not hold even for the request that computed it is not kept.
    return this.cache.load<T>(full, compute, (value) => (holds && !holds(value) ? undefined : value))
  }

  /**
   * The answer under `key` when one is kept for the current versions, at once; undefined
   * otherwise (then `get` computes it). Lets a hot route answer without a promise.
   * `holds` says whether a kept answer still holds at this moment (an answer over a window
   * ending now); one that no longer does is dropped.
   */
  kept<T>(key: string, datasets: readonly Dataset[], holds?: (kept: T) => boolean): T | undefined {
    return this.keptUnder(this.fullKey(key, datasets), holds)
  }

  /** The key with the current versions of the datasets the answer reads. */
  private fullKey(key: string, datasets: readonly Dataset[]): string {
    return `${key}@${this.versions.stamp(datasets)}`
  }

  private keptUnder<T>(full: string, holds?: (kept: T) => boolean): T | undefined {
    const kept = this.cache.get(full)
    if (kept === undefined) return undefined
    if (holds && !holds(kept.value as T)) {
      this.cache.delete(full)
      return undefined
    }
    return kept.value as T
  }
}

/**
 * A JSON body with holes: serialised once, then rendered per request by filling the
 * holes (top-level fields) with their values. The bytes equal JSON.stringify of the
 * whole value with those fields set.
 */
export class JsonTemplate<H extends string> {
  private readonly parts: string[]
  private readonly order: H[]

  constructor(value: Record<string, unknown>, holes: readonly H[]) {
    const marked: Record<string, unknown> = { ...value }
    for (const [i, h] of holes.entries()) marked[h] = `\u0001hole${i}\u0001`
    const text = JSON.stringify(marked)
    // Split on each hole, in the order the holes appear in the text.
    const found = holes.map((h, i) => ({ h, at: text.indexOf(JSON.stringify(`\u0001hole${i}\u0001`)), len: JSON.stringify(`\u0001hole${i}\u0001`).length }))
    found.sort((a, b) => a.at - b.at)
    this.parts = []
    this.order = []
    let from = 0
    for (const f of found) {
      this.parts.push(text.slice(from, f.at))
      this.order.push(f.h)
      from = f.at + f.len
    }
    this.parts.push(text.slice(from))
  }

  render(values: Record<H, unknown>): string {
    const json = {} as Record<H, string>
    for (const h of this.order) json[h] = JSON.stringify(values[h])
    return this.renderJson(json)
  }

  /**
   * The same with holes given as ready JSON text (e.g. a slice of a serialised array).
   * The last rendering is kept: under load many answers share their holes (their
   * millisecond), and a repeated one costs a comparison of the holes instead of a copy of
   * the whole body.
   */
  renderJson(json: Record<H, string>): string {
    const last = this.last
    if (last) {
      let same = true
      for (let i = 0; i < this.order.length && same; i++) same = json[this.order[i]!] === last.holes[i]
      if (same) return last.out
    }
    const holes = this.order.map((h) => json[h])
    let out = this.parts[0]!
    for (let i = 0; i < holes.length; i++) out += holes[i] + this.parts[i + 1]!
    this.last = { holes, out }
    return out
  }

  private last: { holes: string[]; out: string } | undefined
}

let lastTimeMs = NaN
let lastTimeJson = ''
/**
 * A time as JSON (its quoted ISO string), as JSON.stringify writes it. The last one is
 * kept: under load many answers share their millisecond.
 */
export function jsonTime(at: Date): string {
  const ms = at.getTime()
  if (ms !== lastTimeMs) {
    lastTimeMs = ms
    lastTimeJson = JSON.stringify(at)
  }
  return lastTimeJson
}

/** Headers of a JSON answer that no cache may keep. */
const JSON_NO_STORE = { 'content-type': 'application/json;charset=utf-8', 'cache-control': 'no-store' }

/** A ready JSON body as the route's response (no serialisation, no schema pass: the body was built from the model). */
export const jsonNoStore = (body: string) => securedResponse('read', body, JSON_NO_STORE)
