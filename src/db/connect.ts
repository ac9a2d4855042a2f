import postgres from 'postgres'

/** The pool (statements, transactions). */
export type Sql = ReturnType<typeof connect>
type Types = Sql extends postgres.Sql<infer T> ? T : never
/** A transaction of the pool. */
export type Tx = postgres.TransactionSql<Types>
/** What a function that only runs statements needs: the pool or a transaction. */
export type Queryable = postgres.ISql<Types>
/** A piece of SQL built with the tagged template, to compose into a statement. */
export type Fragment = postgres.PendingQuery<postgres.Row[]>

export interface ConnectOptions {
  url: string
  max?: number
  statementTimeoutMs?: number
  /** Seconds to wait for a new connection; the availability gate answers sooner anyway. */
  connectTimeoutS?: number
  /** Seconds an unused connection stays open; null: until its lifetime ends. */
  idleTimeoutS?: number | null
  applicationName?: string
}

/**
 * A postgres.js pool. int8 (bigint, count(*)) is parsed to a JS number here, once: every
 * counter we store stays far below 2^53, and callers never see numeric strings; numeric
 * stays a string (queries cast it where a number is wanted).
 *
 * `backoff`: postgres.js waits before reconnecting after a failed connection, growing to
 * 20 s, with one retry counter shared by every connection of the pool. During an outage
 * that wait, not the database, decided how long requests hung; the gate (gate.ts) keeps
 * traffic off an unreachable database instead, so reconnects may be immediate.
 */
export function connect({ url, max = 10, statementTimeoutMs = 15_000, connectTimeoutS = 5, idleTimeoutS = 30, applicationName = 'galactic-war-stats' }: ConnectOptions) {
  return postgres(url, {
    max,
    idle_timeout: idleTimeoutS ?? undefined,
    connect_timeout: connectTimeoutS,
    backoff: () => 0.1,
    onnotice: () => {},
    connection: { application_name: applicationName, statement_timeout: statementTimeoutMs, TimeZone: 'UTC' },
    types: {
      int8: { to: 20, from: [20], serialize: (v: number) => String(v), parse: (v: string) => Number(v) },
    },
  })
}

/**
 * For the rest of transaction `tx`, each statement runs with a plan made once per
 * connection and kept (`plan_cache_mode = force_generic_plan`), not one made for its
 * values. For statements whose plan costs more than their run: over a hypertable of many
 * chunks, a plan made for the values looks at every chunk, and PostgreSQL goes on making
 * one at every run when it guesses the kept plan dearer. Sent at once; the statements sent
 * after it on `tx` run after it.
 */
export function keepPlans(tx: Tx): Promise<unknown> {
  return tx`SELECT set_config('plan_cache_mode', 'force_generic_plan', true)`.execute()
}

/** A client of its own for short questions to one server (an availability gate's probe, a lag check). */
export interface Probe {
  /** Resolves when the server answers `SELECT 1`; a connection error is asked again at once, on a new client. */
  ask(): Promise<void>
  /** One short question; after a connection error the next question goes to a new client. */
  query<T>(question: (sql: Sql) => PromiseLike<T>): Promise<T>
  end(timeoutS: number): Promise<void>
}

/**
 * A connection of its own for short questions to a server: whether it answers
 * (`SELECT 1`, for an availability gate), where its WAL stands. It stays open between
 * questions: on a busy machine, opening a connection (a new server process) can take longer
 * than the gate waits for an answer, and a probe that must first connect would call a slow
 * server gone.
 *
 * After a connection error the client is replaced by a new one: under Bun, a postgres.js
 * client whose connection failed to connect a few times in a row (an outage: every question
 * refused) went on timing out its connects for many seconds after the server was back,
 * while a new client connected at once, so the gate called the database unavailable long
 * after it answered again.
 */
export function probeConnection(url: string, applicationName: string): Probe {
  const open = () => connect({ url, max: 1, connectTimeoutS: 2, idleTimeoutS: null, statementTimeoutMs: 2000, applicationName })
  let sql = open()
  const query = async <T>(question: (sql: Sql) => PromiseLike<T>): Promise<T> => {
    const asked = sql
    try {
      return await question(asked)
    } catch (err) {
      if (isDatabaseUnavailable(err) && sql === asked) {
        sql = open()
        void asked.end({ timeout: 0 }).catch(() => {})
      }
      throw err
    }
  }
  const selectOne = () => query((s) => s`SELECT 1`)
  return {
    async ask() {
      try {
        await selectOne()
      } catch (err) {
        if (!isDatabaseUnavailable(err)) throw err
        await selectOne()
      }
    },
    query,
    end: (timeoutS) => sql.end({ timeout: timeoutS }),
  }
}

/** Thrown by the gate while the database is unreachable; routes answer 503. */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError'
  readonly code = 'DATABASE_UNAVAILABLE'
  constructor(reason = 'database unavailable') {
    super(reason)
  }
}

/** True when the error means "the database cannot be reached", as opposed to a bad query. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true
  if (!(err instanceof Error)) return false
  const code = (err as { code?: string }).code ?? ''
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED'].includes(code)) return true
  // SQLSTATE class 08 (connection exception), 57P0x (shutdown/cannot connect now), 53300 (too many connections)
  return /^08/.test(code) || /^57P0/.test(code) || code === '53300'
}

/**
 * Errors a retry can cure without anyone changing anything: the database unreachable, a
 * statement cancelled by its timeout (57014), a serialization failure or deadlock (40xxx),
 * the server short of resources (53xxx). Anything else (a constraint, a bad value) fails
 * the same way every time.
 */
export function isTransient(err: unknown): boolean {
  if (isDatabaseUnavailable(err)) return true
  const code = err instanceof Error ? ((err as { code?: string }).code ?? '') : ''
  return code === '57014' || /^40/.test(code) || /^53/.test(code)
}

/**
 * One process at a time per `key` (across every replica on the database): the lock is
 * taken without waiting and released when the transaction ends.
 */
export async function tryTransactionLock(tx: Tx, key: string): Promise<boolean> {
  const [row] = await tx<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext(${key})) AS ok`
  return row?.ok === true
}
