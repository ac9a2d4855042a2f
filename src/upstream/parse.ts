import type { Static, TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'

/** A payload that does not match its schema; `path` is a JSON pointer such as `/planetStatus/3/health`. */
export class PayloadError extends Error {
  override readonly name = 'PayloadError'
  constructor(
    readonly label: string,
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${label}: ${path || '/'}: ${detail}`)
  }
}

export type Parser<T> = (value: unknown) => T

/**
 * Compiles the schema once (the Status payload is parsed every 15 s, the compiled check is
 * several times faster than Value.Check) and returns a function that either returns the
 * value typed or throws a PayloadError naming the first failing field.
 * Values are not copied or cleaned: unknown fields pass through untouched.
 */
export function compileParser<S extends TSchema>(schema: S, label: string): Parser<Static<S>> {
  const check = TypeCompiler.Compile(schema)
  return (value: unknown) => {
    if (check.Check(value)) return value
    const first = check.Errors(value).First()
    throw new PayloadError(label, first?.path ?? '', first?.message ?? 'invalid value')
  }
}
