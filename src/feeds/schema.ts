/**
 * Reading a feed payload against its TypeBox schema. Each payload has one schema, its
 * documented shape (the simulator builds payloads from the same types). Fields the
 * service stores or derives from are plain, hence required and type-checked; fields it
 * does not read are wrapped in `Unread(...)`: documented, reported when they go missing,
 * never checked. So a feed that drops or adds a field the service does not read keeps
 * working, and what changed is reported as drift (logged once per collector run); a
 * top-level field a feed adds is also counted and logged once (UnknownFields).
 */
import type { Static, TArray, TObject, TSchema } from '@sinclair/typebox'
import { Kind, OptionalKind, Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'

const UNREAD = 'x-unread'

/**
 * A field the service does not read. `occasional`: real payloads often lack it (older
 * captures, a feature not live), so its absence is not drift.
 */
export function Unread<S extends TSchema>(schema: S, occasional = false) {
  return Type.Optional({ ...schema, [UNREAD]: occasional ? 'occasional' : 'expected' } as S)
}

const unreadOf = (s: TSchema): 'expected' | 'occasional' | undefined => (s as Record<string, unknown>)[UNREAD] as never

/** The schema actually checked: every Unread field optional and unconstrained, recursively. */
function checkedSchema(schema: TSchema): TSchema {
  if (schema[Kind] === 'Object') {
    const props: Record<string, TSchema> = {}
    for (const [key, prop] of Object.entries((schema as TObject).properties)) {
      props[key] = unreadOf(prop) ? Type.Optional(Type.Unknown()) : prop[OptionalKind] ? Type.Optional(checkedSchema(prop)) : checkedSchema(prop)
    }
    return Type.Object(props)
  }
  if (schema[Kind] === 'Array') return Type.Array(checkedSchema((schema as TArray).items))
  return schema
}

/** The payload reduced to the fields the service reads (tests: a feed that dropped everything else). */
export function readFieldsOf(schema: TSchema, value: unknown): unknown {
  if (schema[Kind] === 'Object' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const out: Record<string, unknown> = {}
    for (const [key, prop] of Object.entries((schema as TObject).properties)) {
      const v = (value as Record<string, unknown>)[key]
      if (v !== undefined && !unreadOf(prop)) out[key] = readFieldsOf(prop, v)
    }
    return out
  }
  if (schema[Kind] === 'Array' && Array.isArray(value)) return value.map((item) => readFieldsOf((schema as TArray).items, item))
  return value
}

/** A payload that lacks a field the service reads, or has one of the wrong type; `path` is a JSON pointer. */
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

/**
 * How a payload differed from its documented shape. Paths are JSON pointers with `*` for
 * every array element (`/planetStatus/*\/position`), each listed once.
 * - missing: fields the service does not read, usually present, absent here;
 * - unknown: fields the schema does not declare.
 */
export interface Drift {
  missing: string[]
  unknown: string[]
}

export const NO_DRIFT: Drift = Object.freeze({ missing: [], unknown: [] }) as Drift

export interface Parsed<T> {
  data: T
  drift: Drift
}

export interface Parser<T> {
  (value: unknown): Parsed<T>
  /** The value checked, without its drift: for a reader that reports none (the importer), the walk is wasted work. */
  checked(value: unknown): T
}

/**
 * Compiles the schema once (the Status payload is read every 15 s; the compiled check is
 * several times faster than Value.Check). The parser returns the value typed, untouched
 * (unknown fields pass through), with its drift, or throws a PayloadError naming the
 * first failing field.
 */
export function compileParser<S extends TSchema>(schema: S, label: string): Parser<Static<S>> {
  const check = TypeCompiler.Compile(checkedSchema(schema))
  const checked = (value: unknown): Static<S> => {
    if (!check.Check(value)) {
      const first = check.Errors(value).First()
      throw new PayloadError(label, first?.path ?? '', first?.message ?? 'invalid value')
    }
    return value
  }
  return Object.assign((value: unknown) => ({ data: checked(value), drift: driftOf(schema, value) }), { checked })
}

/** An array read item by item: the items of the documented shape, and why each other one was left out. */
export interface ItemsRead<T> {
  items: T[]
  rejected: PayloadError[]
}

/**
 * A reader of an array whose items are worth keeping one by one (the Status's regions,
 * stations, resources, events): an item of the wrong shape is left out and named, never
 * failing the rest or the payload. Absent (undefined) reads as no items.
 */
export function compileItemsReader<S extends TSchema>(schema: S, label: string): (value: unknown) => ItemsRead<Static<S>> {
  const check = TypeCompiler.Compile(checkedSchema(schema))
  return (value) => {
    if (value === undefined) return { items: [], rejected: [] }
    if (!Array.isArray(value)) return { items: [], rejected: [new PayloadError(label, '', 'not an array')] }
    const items: Static<S>[] = []
    const rejected: PayloadError[] = []
    value.forEach((item, i) => {
      if (check.Check(item)) items.push(item)
      else {
        const first = check.Errors(item).First()
        rejected.push(new PayloadError(label, `/${i}${first?.path ?? ''}`, first?.message ?? 'invalid value'))
      }
    })
    return { items, rejected }
  }
}

/** The drift of a value that passed its schema. */
export function driftOf(schema: TSchema, value: unknown): Drift {
  const missing = new Set<string>()
  const unknown = new Set<string>()
  walk(schema, value, '', missing, unknown)
  return missing.size === 0 && unknown.size === 0 ? NO_DRIFT : { missing: [...missing], unknown: [...unknown] }
}

function walk(schema: TSchema, value: unknown, path: string, missing: Set<string>, unknown: Set<string>): void {
  if (schema[Kind] === 'Object' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const props = (schema as TObject).properties
    const v = value as Record<string, unknown>
    for (const [key, prop] of Object.entries(props)) {
      // Inside a field it does not read, the service does not care what changed.
      if (v[key] === undefined) {
        if (unreadOf(prop) === 'expected') missing.add(`${path}/${key}`)
      } else if (!unreadOf(prop)) walk(prop, v[key], `${path}/${key}`, missing, unknown)
    }
    for (const key of Object.keys(v)) if (!(key in props)) unknown.add(`${path}/${key}`)
  } else if (schema[Kind] === 'Array' && Array.isArray(value)) {
    for (const item of value) walk((schema as TArray).items, item, `${path}/*`, missing, unknown)
  }
  // Unions, records and open values are not walked: their shapes are open by design.
}

/** The top-level fields of a payload that its schema does not declare: its drift's unknown paths one level deep. */
export const unknownTopLevel = (drift: Drift): string[] => drift.unknown.filter((p) => p.lastIndexOf('/') === 0).map((p) => p.slice(1))

/** Payloads seen with a top-level field their schema does not declare, per endpoint and field (/metrics). */
export interface UnknownFieldCount {
  feed: string
  endpoint: string
  field: string
  count: number
}

/** Distinct (endpoint, field) pairs counted; past it, new ones count as OTHER_FIELDS, so a feed gone wild cannot grow the metric without bound. */
export const MAX_UNKNOWN_FIELDS = 64
export const OTHER_FIELDS = '(others)'

/**
 * The top-level fields a feed added that the service does not know yet, from each payload's
 * drift: counted per payload received (cache hits are not payloads), and reported once per
 * endpoint and field when first seen (`onFirst`), where the collectors' run lines repeat
 * their drift at every run.
 */
export class UnknownFields {
  private readonly counts = new Map<string, UnknownFieldCount>()

  constructor(
    readonly feed: string,
    private readonly onFirst: (seen: { feed: string; endpoint: string; field: string }) => void = () => {},
  ) {}

  note(endpoint: string, drift: Drift): void {
    if (drift.unknown.length === 0) return
    const key = (field: string) => `${endpoint}\0${field}`
    for (const name of unknownTopLevel(drift)) {
      const field = this.counts.has(key(name)) || this.counts.size < MAX_UNKNOWN_FIELDS ? name : OTHER_FIELDS
      let entry = this.counts.get(key(field))
      if (!entry) {
        this.counts.set(key(field), (entry = { feed: this.feed, endpoint, field, count: 0 }))
        this.onFirst({ feed: this.feed, endpoint, field })
      }
      entry.count++
    }
  }

  stats(): UnknownFieldCount[] {
    return [...this.counts.values()].map((c) => ({ ...c }))
  }
}
