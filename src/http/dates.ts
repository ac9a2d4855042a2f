import { t } from 'elysia'
import type { TimeRange } from '../storage/query.ts'
import { badRequest } from './params.ts'

/**
 * `startDate` / `endDate`: `YYYY-MM-DD` (00:00:00 UTC), `YYYY-MM-DD HH:MM:SS` (UTC), or the
 * ISO form with `T`, optional fraction and optional `Z`/offset.
 */
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})?)?$/
export const DATE_PATTERN = DATE_RE.source

export const dateString = (name: string, description: string, example: string) =>
  t.String({
    pattern: DATE_PATTERN,
    description: `${description} Format YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (UTC; the ISO form with T is accepted too).`,
    examples: [example],
    error: `${name} must be YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (UTC)`,
  })

interface ParsedDate {
  at: Date
  dateOnly: boolean
}

/** Parses one date parameter; 400 naming the parameter for any format or calendar error. */
export function parseDate(raw: string, name: string): ParsedDate {
  const m = DATE_RE.exec(raw)
  const bad = () => badRequest(`${name} must be a valid date: YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (UTC)`)
  if (!m) throw bad()
  const [, y, mo, d, h, mi, s, frac, zone] = m
  const fields = [Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0)] as const
  // Years 1..9998: the end of 9999-12-31 in another zone or as a bare end date would leave
  // the range PostgreSQL and ISO-8601 strings share.
  if (fields[0] < 1 || fields[0] > 9998) throw bad()
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0..99 to 1900..1999.
  const check = new Date(0)
  check.setUTCFullYear(fields[0], fields[1], fields[2])
  check.setUTCHours(fields[3], fields[4], fields[5], frac ? Math.floor(Number(frac) * 1000) : 0)
  const ms = check.getTime()
  // Date.UTC rolls 2026-02-30 over to March: reject anything that did not round-trip.
  if (
    check.getUTCFullYear() !== fields[0] || check.getUTCMonth() !== fields[1] || check.getUTCDate() !== fields[2] ||
    check.getUTCHours() !== fields[3] || check.getUTCMinutes() !== fields[4] || check.getUTCSeconds() !== fields[5]
  ) throw bad()
  let offsetMs = 0
  if (zone && zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1
    const [oh, om] = zone.slice(1).split(':').map(Number) as [number, number]
    if (oh > 23 || om > 59) throw bad()
    offsetMs = sign * (oh * 60 + om) * 60_000
  }
  return { at: new Date(ms - offsetMs), dateOnly: h === undefined }
}

const DAY_MS = 86_400_000

export interface RangeOptions {
  now: Date
  /** Both dates must be given (400 naming the missing one). */
  required?: boolean
  /** When startDate is omitted: start = end - this (end defaulting to now). Without it an omitted bound stays open. */
  defaultSpanMs?: number
}

/**
 * The one date-range rule of every route: startDate inclusive; endDate inclusive, and a
 * bare endDate means the whole of that day; startDate after endDate is a 400.
 */
export function timeRange(query: Record<string, string | undefined>, opts: RangeOptions, names = { start: 'startDate', end: 'endDate' }): TimeRange {
  if (opts.required) {
    for (const name of [names.start, names.end]) {
      if (query[name] === undefined) throw badRequest(`${name} is required`)
    }
  }
  const start = query[names.start] === undefined ? undefined : parseDate(query[names.start]!, names.start)
  const end = query[names.end] === undefined ? undefined : parseDate(query[names.end]!, names.end)
  let to: Date | null = end ? (end.dateOnly ? new Date(end.at.getTime() + DAY_MS) : end.at) : null
  const toExclusive = end?.dateOnly ?? false
  let from: Date | null = start?.at ?? null
  if (opts.defaultSpanMs !== undefined) {
    to ??= opts.now
    from ??= new Date(to.getTime() - opts.defaultSpanMs)
  }
  if (from && to && (toExclusive ? from >= to : from > to)) throw badRequest(`${names.start} must not be after ${names.end}`)
  return { from, to, toExclusive }
}
