/**
 * What a collector declares. A tick is data: `fetch` reads the feeds (never the
 * database, beyond a peek that answers promptly or not at all), `map` turns the payloads
 * into the tick's rows (pure, JSON only, so a tick can wait in the spool across a
 * restart), `write` stores them through the storage layer inside the runner's
 * transaction. The runner (runner.ts) does everything else.
 */
import type { Tx } from '../db/connect.ts'
import type { Feeds } from '../feeds/index.ts'
import type { Drift } from '../feeds/schema.ts'
import type { Logger } from '../log.ts'
import type { Dataset } from '../storage/changes.ts'
import type { Store } from '../storage/index.ts'

export const COLLECTOR_NAMES = ['player-count', 'war-info', 'full-status', 'planet-stats'] as const
export type CollectorName = (typeof COLLECTOR_NAMES)[number]

export interface FetchContext {
  feeds: Feeds
  warId: number
  /** The tick's clock (tests and backfills move it); the capture time otherwise comes from the feed. */
  now?: Date
  /** A read that answers within a moment, or undefined: fetching never waits on the database. */
  peek<T>(read: (store: Store) => Promise<T>): Promise<T | undefined>
  /** For what a fetch leaves out without failing (a language whose texts did not come). */
  log: Logger
}

/** One tick, as written and as kept in the spool. */
export interface Tick<R = unknown> {
  /** Unique per tick (the spool marks ticks written by it). */
  id: string
  collector: CollectorName
  warId: number
  /** ISO time the tick's data was fetched: the time its rows are stored under. */
  capturedAt: string
  rows: R
}

export interface WriteResult {
  written: Record<string, number>
  unchanged?: Record<string, number>
}

export interface Collector<P = unknown, R = unknown> {
  name: CollectorName
  /** One line for the POST route's documentation. */
  summary: string
  fetch(ctx: FetchContext): Promise<P>
  /** The tick's capture time and rows; pure. */
  map(payload: P, ctx: { warId: number; now?: Date }): { capturedAt: Date; rows: R }
  write(tx: Tx, at: Date, tick: Tick<R>): Promise<WriteResult>
  /**
   * Several ticks in order, leaving what `write` one after the other would, in fewer
   * statements (the importer's batches); one result per tick.
   */
  writeBatch?(tx: Tx, ticks: readonly { at: Date; tick: Tick<R> }[]): Promise<WriteResult[]>
  /** The dataset each count of `written` adds to: a count above 0 changes it (storage/changes.ts). */
  changes: Record<string, Dataset>
  /** Its feed has no war id and describes the upstream's current war: rows only go there. */
  currentWarOnly?: boolean
}

/**
 * How collectors fetch: a tick makes its own attempt rather than inherit a failure a
 * public read met moments before (429s stay held: they mean "ask less").
 */
export const COLLECTOR_FETCH = { bypassFailureHold: true } as const

/**
 * A tick's requests together, like Promise.all, but a failure is thrown only once every
 * request has ended (the first failure in argument order): a failed run leaves none in
 * flight, so the next run cannot join (through the client's shared in-flight request) a
 * request made while the feed was failing.
 */
export async function fetchAll<T extends readonly unknown[] | []>(requests: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = (await Promise.allSettled(requests)) as PromiseSettledResult<unknown>[]
  for (const s of settled) if (s.status === 'rejected') throw s.reason
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> }
}

/** Declares a collector with its payload and row types inferred. */
export const defineCollector = <P, R>(c: Collector<P, R>): Collector<P, R> => c

/** The drift of every feed payload of a tick's fetch, by payload name; undefined when none drifted. */
export function payloadDrift(payload: unknown): Record<string, Drift> | undefined {
  if (payload === null || typeof payload !== 'object') return undefined
  const out: Record<string, Drift> = {}
  for (const [name, part] of Object.entries(payload)) {
    const drift = (part as { drift?: Drift } | null)?.drift
    if (drift && (drift.missing.length || drift.unknown.length)) out[name] = drift
  }
  return Object.keys(out).length ? out : undefined
}
