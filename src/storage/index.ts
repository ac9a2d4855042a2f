/**
 * The storage layer: every statement against the datasets, one module per table family
 * (its row models, its reads, its writes). Routes read through the store below; the
 * collectors' writes run inside the runner's transaction (collect/runner.ts).
 */
import type { Sql } from '../db/connect.ts'
import type { DatabaseGate } from '../db/gate.ts'
import * as dispatches from './dispatches.ts'
import * as majorOrders from './major-orders.ts'
import * as planetStatus from './planet-status.ts'
import * as playerCounts from './player-counts.ts'
import * as texts from './texts.ts'
import * as timeline from './timeline.ts'
import * as war from './war.ts'
import * as warSummary from './war-summary.ts'

type Read = (sql: Sql, ...args: never[]) => Promise<unknown>
type Bound<R extends Record<string, Read>> = {
  [K in keyof R]: R[K] extends (sql: Sql, ...args: infer A) => infer T ? (...args: A) => T : never
}

/** Each read bound to the pool and run through the gate (fails fast while the database is unreachable). */
function bind<R extends Record<string, Read>>(db: { sql: Sql; gate: DatabaseGate }, reads: R): Bound<R> {
  const out: Record<string, (...args: never[]) => Promise<unknown>> = {}
  for (const [name, read] of Object.entries(reads)) out[name] = (...args) => db.gate.run(() => read(db.sql, ...args))
  return out as Bound<R>
}

export function createStore(db: { sql: Sql; gate: DatabaseGate }) {
  return {
    playerCounts: bind(db, playerCounts.reads),
    war: bind(db, war.reads),
    planetStatus: bind(db, planetStatus.reads),
    warSummary: bind(db, warSummary.reads),
    majorOrders: bind(db, majorOrders.reads),
    dispatches: bind(db, dispatches.reads),
    texts: bind(db, texts.reads),
    timeline: bind(db, timeline.reads),
  }
}

export type Store = ReturnType<typeof createStore>
