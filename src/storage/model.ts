/**
 * Building blocks of the row models. A row model is one TypeBox object: its `Static` type
 * is the row the storage layer returns, the API serves it as is (it is the route's
 * response schema, hence the OpenAPI schema), and `selectRow` derives the SELECT list
 * from it. Key order is the JSON key order of the responses.
 */
import type { TObject, TSchema } from '@sinclair/typebox'
import { t, type Static } from 'elysia'
import type { Fragment, Sql, Tx } from '../db/connect.ts'

/** A time: a Date in the service, an ISO-8601 string (UTC, milliseconds) in JSON and OpenAPI. */
export const Timestamp = (description?: string) =>
  t.Transform(t.String(description === undefined ? { format: 'date-time' } : { format: 'date-time', description }))
    .Decode((s) => new Date(s))
    .Encode((d: Date) => d.toISOString())

export const Nullable = <S extends TSchema>(schema: S, description: string) => t.Union([schema, t.Null()], { description })
export const Int = (description: string) => t.Integer({ description })
export const Num = (description: string) => t.Number({ description })

/** The column of a model key: `bugKills` → `bug_kills`, `orderId32` → `order_id32`. */
export const columnOf = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/**
 * The SELECT list of a row model: every key, in order, read from its snake_case column,
 * or from the SQL given in `from` (aliases such as `warID` ← `war_id`, expressions).
 */
export function selectRow<M extends TObject>(sql: Sql, model: M, from: { [K in keyof Static<M>]?: Fragment } = {}): Fragment[] {
  const sources = from as Record<string, Fragment | undefined>
  return Object.keys(model.properties).map((key, i) => {
    const source = sources[key] ?? sql(columnOf(key))
    return sql`${i ? sql`,` : sql``} ${source} AS ${sql(key)}`
  })
}

/**
 * Rows sent as one JSON parameter and read back typed by their table's own columns
 * (jsonb_populate_recordset): one statement text for any number of rows (its plan is
 * kept), no limit on rows per statement, and no column type written out again here.
 */
export function jsonRows(sql: Sql | Tx, table: string, rows: readonly object[]): Fragment {
  return sql`jsonb_populate_recordset(NULL::${sql(table)}, ${JSON.stringify(rows)}::text::jsonb)`
}

/**
 * `a, b, c` as identifiers. (postgres.js's helper for a list of names guesses from the
 * SQL before it whether it is a column list or rows: in a longer statement it can guess
 * wrong.)
 */
export const names = (sql: Sql | Tx, list: readonly string[]): Fragment => sql`${list.map((n, i) => sql`${i ? sql`,` : sql``}${sql(n)}`)}`

/** `INSERT INTO table (columns) SELECT columns FROM` the rows (jsonRows); the columns are the rows' keys, the same in every row. */
export function insertRows(sql: Sql | Tx, table: string, rows: readonly object[]): Fragment {
  const columns = names(sql, Object.keys(rows[0] ?? {}))
  return sql`INSERT INTO ${sql(table)} (${columns}) SELECT ${columns} FROM ${jsonRows(sql, table, rows)}`
}

/** Whether a key is listed twice. */
export const repeats = (keys: readonly unknown[]): boolean => new Set(keys).size !== keys.length

/**
 * PostgreSQL's error for an upsert that meets the same row twice, for a write that
 * upserts the rows of several ticks once per key and must fail where one tick's own
 * upsert would (a tick listing a key twice).
 */
export const rowAffectedTwice = (): Error =>
  Object.assign(new Error('ON CONFLICT DO UPDATE command cannot affect row a second time'), { code: '21000' })

/**
 * Numbers (or nulls) as one array parameter, in PostgreSQL's array syntax, for a column
 * of many rows (`${numbers(xs)}::int[]`): built here in one pass, where postgres.js
 * serializes an array element by element.
 */
export const numbers = (values: readonly (number | null)[]): string => `{${values.map((v) => (v === null ? 'NULL' : String(v))).join(',')}}`
