/**
 * Building blocks of the row models. A row model is one TypeBox object: its `Static` type
 * is the row the storage layer returns, the API serves it as is (it is the route's
 * response schema, hence the OpenAPI schema), and `selectRow` derives the SELECT list
 * from it. Key order is the JSON key order of the responses.
 */
import type { TObject, TSchema } from '@sinclair/typebox'
import { t, type Static } from 'elysia'
import type { Fragment, Sql } from '../db/connect.ts'

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
