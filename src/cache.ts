/**
 * A keyed in-memory cache whose loads are single-flight: callers of one key while its load
 * runs share that load. How long a value stays good is the caller's rule (the feed
 * throttle's TTL and backoff; the kept answers' data versions and windows, http/keep.ts),
 * so entries only record when they were stored.
 */
export interface Stored<V> {
  value: V
  storedAtMs: number
}

/** A bound on what the entries weigh together (bytes, say), beside the count of entries. */
export interface WeightBudget<V> {
  max: number
  weigh: (value: V) => number
}

export class SingleFlightCache<V> {
  private readonly entries = new Map<string, Stored<V> & { weight: number }>()
  private readonly loads = new Map<string, Promise<unknown>>()
  private weight = 0

  constructor(
    /** Entries kept at most; past it the least recently stored goes. */
    private readonly maxEntries = 1000,
    readonly now: () => number = Date.now,
    /** Past it too the least recently stored go; a value heavier than the whole budget is not kept. */
    private readonly budget?: WeightBudget<V>,
  ) {}

  get(key: string): Stored<V> | undefined {
    return this.entries.get(key)
  }

  /** Whether a load runs for `key` (a call to `load` would join it). */
  loading(key: string): boolean {
    return this.loads.has(key)
  }

  /**
   * Start `load` for `key`, or join the one running: every caller meanwhile gets the same
   * result. What the result stores is `keep`'s answer (nothing when undefined).
   */
  load<R>(key: string, load: () => Promise<R>, keep: (result: R) => V | undefined): Promise<R> {
    const running = this.loads.get(key)
    if (running) return running as Promise<R>
    const p = (async () => {
      try {
        const result = await load()
        const value = keep(result)
        if (value !== undefined) this.set(key, value)
        return result
      } finally {
        this.loads.delete(key)
      }
    })()
    this.loads.set(key, p)
    return p
  }

  set(key: string, value: V): void {
    this.delete(key)
    const weight = this.budget ? this.budget.weigh(value) : 0
    if (!Number.isFinite(weight) || weight < 0) throw new Error(`cache weight must be a finite number >= 0, got ${weight}`)
    if (this.budget && weight > this.budget.max) return
    const max = this.budget?.max ?? Infinity
    while (this.entries.size > 0 && (this.entries.size >= this.maxEntries || this.weight + weight > max)) {
      this.delete(this.entries.keys().next().value!)
    }
    this.entries.set(key, { value, storedAtMs: this.now(), weight })
    this.weight += weight
  }

  delete(key: string): void {
    const e = this.entries.get(key)
    if (!e) return
    this.entries.delete(key)
    this.weight -= e.weight
  }

  /** What the entries weigh together (0 without a budget). */
  get totalWeight(): number {
    return this.weight
  }

  get size(): number {
    return this.entries.size
  }
}
