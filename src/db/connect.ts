import postgres from 'postgres'

export type Sql = postgres.Sql<{}>
export type Tx = postgres.TransactionSql<{}>

export interface ConnectOptions {
  url: string
  max?: number
  statementTimeoutMs?: number
  applicationName?: string
}

/**
 * The one postgres.js pool of the process. int8 (bigint, count(*)) is parsed to a JS
 * number here, once: every counter we store stays far below 2^53, and routes then never
 * see numeric strings. numeric stays a string; queries cast it where a number is wanted.
 */
export function connect({ url, max = 10, statementTimeoutMs = 15_000, applicationName = 'galactic-war-stats' }: ConnectOptions): Sql {
  return postgres(url, {
    max,
    idle_timeout: 30,
    connect_timeout: 5,
    onnotice: () => {},
    connection: { application_name: applicationName, statement_timeout: statementTimeoutMs, TimeZone: 'UTC' },
    types: {
      int8: { to: 20, from: [20], serialize: (v: number | bigint) => String(v), parse: (v: string) => Number(v) },
    },
  }) as unknown as Sql
}

/** True when the error means "the database cannot be reached", as opposed to a bad query. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false
  const code = (err as { code?: string }).code ?? ''
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED'].includes(code)) return true
  // SQLSTATE class 08 (connection exception), 57P0x (shutdown/cannot connect now), 53300 (too many connections)
  return /^08/.test(code) || /^57P0/.test(code) || code === '53300'
}
