import { status, t } from 'elysia'
import { DEFAULT_FEED_LANGUAGES } from '../config.ts'
import type { Lang } from '../storage/texts.ts'

/** Largest value of a PostgreSQL integer (int4): war ids and planet indexes are stored as int4. */
export const INT32_MAX = 2_147_483_647
/** Largest major order id: upstream `id32` is an unsigned 32-bit integer. */
export const UINT32_MAX = 4_294_967_295

/**
 * A 400 `{error}` to throw from a handler or helper; the error plugin passes it through
 * unchanged (with `Cache-Control: no-store`).
 */
export const badRequest = (message: string) => status(400, { error: message })

/**
 * Integer parameters are validated as decimal digit strings, not with `t.Integer`: Elysia's
 * numeric coercion also accepts `0x10`, ` 5` and `1e2`, which are not ids. The value is
 * range-checked and converted by `parseInteger`.
 */
export const DIGITS = '^[0-9]+$'

export const integerString = (name: string, description: string, example: string) =>
  t.String({ pattern: DIGITS, description, examples: [example], error: `${name} must be a non-negative integer (decimal digits only)` })

/** Converts a digit string checked against DIGITS and enforces the bounds; 400 otherwise. */
export function parseInteger(raw: string, name: string, min: number, max: number): number {
  const value = /^[0-9]+$/.test(raw) ? Number(raw) : NaN
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw badRequest(`${name} must be an integer between ${min} and ${max}`)
  }
  return value
}

const warIdDescription = 'War id (positive integer). Defaults to the configured war (WAR_ID, else 801).'
const planetDescription = 'Planet index (integer ≥ 0).'

/** `warId` and its alias `warID`, both optional, for routes that take a war in the query. */
export const WarIdQuery = {
  warId: t.Optional(integerString('warId', warIdDescription, '801')),
  warID: t.Optional(integerString('warID', `Alias of warId. ${warIdDescription}`, '801')),
}

/** `planetId` and its alias `planetID`. */
export const PlanetIdQuery = {
  planetId: t.Optional(integerString('planetId', planetDescription, '0')),
  planetID: t.Optional(integerString('planetID', `Alias of planetId. ${planetDescription}`, '0')),
}

/**
 * The value of a parameter that has two accepted spellings (`warId`/`warID`). Both given
 * with different values is a 400; both with the same value is fine.
 */
function aliased(
  query: Record<string, string | undefined>,
  name: string,
  alias: string,
  parse: (raw: string, as: string) => number,
): number | undefined {
  const a = query[name] === undefined ? undefined : parse(query[name]!, name)
  const b = query[alias] === undefined ? undefined : parse(query[alias]!, alias)
  if (a !== undefined && b !== undefined && a !== b) throw badRequest(`${name} and ${alias} are the same parameter; they were given different values`)
  return a ?? b
}

export const parseWarId = (raw: string, name = 'warId') => parseInteger(raw, name, 1, INT32_MAX)
export const parsePlanetIndex = (raw: string, name = 'planetId') => parseInteger(raw, name, 0, INT32_MAX)

/** The war id of a query (`warId` or `warID`), or undefined when neither is given. */
export const warIdOf = (query: { warId?: string; warID?: string }) => aliased(query, 'warId', 'warID', parseWarId)

/** The planet index of a query (`planetId` or `planetID`), or undefined when neither is given. */
export const planetIndexOf = (query: { planetId?: string; planetID?: string }) =>
  aliased(query, 'planetId', 'planetID', parsePlanetIndex)

/** `lang` of the dispatch and major-order routes. */
export const LangQuery = {
  lang: t.Optional(
    t.String({
      description:
        `Language of the texts: one of the collected languages (FEED_LANGUAGES, default ${DEFAULT_FEED_LANGUAGES.join(', ')}; case-insensitive), ` +
        'or "all" for every collected language as an object {"<code>": text}. Default: the primary language\'s texts, as without languages.',
      examples: ['de-DE', 'all'],
    }),
  ),
}

/**
 * The texts a query asks for: one of `languages` (matched case-insensitively, answered in
 * the configured spelling), all of them, or undefined when `lang` is absent. 400 otherwise.
 */
export function langOf(query: { lang?: string }, languages: readonly string[]): Lang | undefined {
  const raw = query.lang
  if (raw === undefined) return undefined
  if (raw.toLowerCase() === 'all') return { all: languages }
  const one = languages.find((l) => l.toLowerCase() === raw.toLowerCase())
  if (one === undefined) throw badRequest(`lang must be one of ${languages.join(', ')} or all`)
  return { one }
}
