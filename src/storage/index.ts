/**
 * The storage layer: every statement against the datasets, one module per table family
 * (its row models, its reads, its writes). Routes read through the store below; the
 * collectors' writes run inside the runner's transaction (collect/runner.ts).
 */
import type { Sql } from '../db/connect.ts'
import type { DatabaseGate } from '../db/gate.ts'
import type { ReadReplicas } from '../db/replicas.ts'
import * as coverage from './coverage.ts'
import * as dispatches from './dispatches.ts'
import * as events from './events.ts'
import * as fight from './fight.ts'
import * as majorOrders from './major-orders.ts'
import * as planetEffects from './planet-effects.ts'
import * as planetStatus from './planet-status.ts'
import * as playerCounts from './player-counts.ts'
import * as ticks from './ticks.ts'
import * as timeline from './timeline.ts'
import * as surfaces from './surfaces.ts'
import * as texts from './texts.ts'
import * as war from './war.ts'
import * as warItems from './war-items.ts'
import * as warSummary from './war-summary.ts'
import * as webhooks from './webhooks.ts'

type Read = (sql: Sql, ...args: never[]) => Promise<unknown>
type Bound<R extends Record<string, Read>> = {
  [K in keyof R]: R[K] extends (sql: Sql, ...args: infer A) => infer T ? (...args: A) => T : never
}

/** Runs one read somewhere: the primary through its gate, or a replica (db/replicas.ts). */
type RunRead = <T>(read: (sql: Sql) => Promise<T>) => Promise<T>

/** Each read bound to where it runs (through a gate: fails fast while that database is unreachable). */
function bind<R extends Record<string, Read>>(run: RunRead, reads: R): Bound<R> {
  const out: Record<string, (...args: never[]) => Promise<unknown>> = {}
  for (const [name, read] of Object.entries(reads)) out[name] = (...args) => run((sql) => read(sql, ...args))
  return out as Bound<R>
}

/**
 * The reads, on the primary; with `onReplicas` (the read routes) on the read replicas
 * when there are any, which hand a read to the primary whenever a replica could not
 * answer it as of the last commit this process heard of (db/replicas.ts).
 */
export function createStore(db: { sql: Sql; gate: DatabaseGate; replicas?: ReadReplicas | null }, opts: { onReplicas?: boolean } = {}) {
  const replicas = opts.onReplicas ? db.replicas : null
  const run: RunRead = replicas ? (read) => replicas.run(read) : (read) => db.gate.read(() => read(db.sql))
  return {
    coverage: bind(run, coverage.reads),
    playerCounts: bind(run, playerCounts.reads),
    war: bind(run, war.reads),
    fight: bind(run, fight.reads),
    planetStatus: bind(run, planetStatus.reads),
    planetEffects: bind(run, planetEffects.reads),
    warSummary: bind(run, warSummary.reads),
    majorOrders: bind(run, majorOrders.reads),
    dispatches: bind(run, dispatches.reads),
    events: bind(run, events.reads),
    ticks: bind(run, ticks.reads),
    timeline: bind(run, timeline.reads),
    texts: bind(run, texts.reads),
    webhooks: bind(run, webhooks.reads),
    warItems: bind(run, warItems.reads),
    surfaces: bind(run, surfaces.reads),
  }
}

export type Store = ReturnType<typeof createStore>
