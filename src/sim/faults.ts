/**
 * Faults the simulator injects on demand. Request faults replace (or delay) the answer of
 * matching requests; state faults change the war itself (freeze, new war).
 */
import { Type, type Static } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'

export const REQUEST_FAULT_KINDS = [
  'rate_limit', // 429, empty body, Retry-After when retryAfterS is set
  'server_error', // 5xx; upstream answers with its JSON error envelope
  'slow', // answers normally after delayMs (to push clients past their timeout)
  'malformed_json', // 200 with truncated JSON
  'html_maintenance', // an HTML maintenance page (status 200 unless `status` is set)
  'empty_body', // 200 with an empty body
  'invalid_payload', // 200 with valid JSON that fails the payload schema
  'outage', // 503 with an empty body for the whole feed
] as const
export const STATE_FAULT_KINDS = ['freeze', 'new_war'] as const
export const FAULT_KINDS = [...REQUEST_FAULT_KINDS, ...STATE_FAULT_KINDS] as const
export type FaultKind = (typeof FAULT_KINDS)[number]
export const SIM_FEEDS = ['upstream', 'community', 'pcstore'] as const
export type SimFeed = (typeof SIM_FEEDS)[number]

export const FaultSpecSchema = Type.Object(
  {
    kind: Type.Union(FAULT_KINDS.map((k) => Type.Literal(k))),
    /** Default upstream. */
    feed: Type.Optional(Type.Union(SIM_FEEDS.map((f) => Type.Literal(f)))),
    /** upstream: warid, status, warinfo, summary, assignment, newsfeed, spacestation, galacticwareffects; community: planets; pcstore: players. Default: all. */
    endpoint: Type.Optional(Type.String({ minLength: 1 })),
    /** Number of responses to affect; with neither count nor durationMs the fault lasts until cleared. */
    count: Type.Optional(Type.Integer({ minimum: 1 })),
    durationMs: Type.Optional(Type.Integer({ minimum: 1 })),
    status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
    retryAfterS: Type.Optional(Type.Integer({ minimum: 0 })),
    delayMs: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Only requests for texts (upstream assignment, newsfeed) in this language, e.g. de-DE (case-insensitive). Default: any request. */
    language: Type.Optional(Type.String({ minLength: 1 })),
    /** new_war: the new war id (default current + 1). */
    warId: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
)
export type FaultSpec = Static<typeof FaultSpecSchema>
export interface Fault extends FaultSpec {
  id: number
  feed: SimFeed
  /** Uses left, when limited by count. */
  remaining?: number
  /** Epoch ms the fault ends, when limited by duration. */
  until?: number
}

const checkSpec = TypeCompiler.Compile(FaultSpecSchema)

/** Validates a fault spec from JSON; the error names the first bad field. */
export function toFaultSpec(value: unknown): FaultSpec {
  if (checkSpec.Check(value)) return value
  const first = checkSpec.Errors(value).First()
  throw new Error(`bad fault: ${first?.path || '/'}: ${first?.message ?? 'invalid'}`)
}

/**
 * CLI form: `kind[:feed[:endpoint]][,key=value...]`, e.g. `rate_limit:upstream:status,count=3,retryAfterS=5`
 * or `new_war,warId=802`.
 */
export function parseFaultFlag(flag: string): FaultSpec {
  const [head = '', ...pairs] = flag.split(',')
  const [kind, feed, endpoint] = head.split(':')
  const spec: Record<string, unknown> = { kind }
  if (feed) spec.feed = feed
  if (endpoint) spec.endpoint = endpoint
  for (const pair of pairs) {
    const [key, value] = pair.split('=')
    if (key) spec[key] = key === 'language' ? value : Number(value)
  }
  return toFaultSpec(spec)
}

export class FaultBoard {
  private faults: Fault[] = []
  private nextId = 1

  constructor(private readonly now: () => number = Date.now) {}

  add(spec: FaultSpec): Fault {
    const fault: Fault = { ...spec, id: this.nextId++, feed: spec.feed ?? 'upstream' }
    if (spec.count !== undefined) fault.remaining = spec.count
    if (spec.durationMs !== undefined) fault.until = this.now() + spec.durationMs
    // new_war is an action, not a lasting condition.
    if (spec.kind !== 'new_war') this.faults.push(fault)
    return fault
  }

  list(): Fault[] {
    this.expire()
    return this.faults.map((f) => ({ ...f }))
  }

  clear(): void {
    this.faults = []
  }

  isActive(kind: FaultKind): boolean {
    this.expire()
    return this.faults.some((f) => f.kind === kind)
  }

  /** The first request fault matching this request (its language, for texts), one use consumed. */
  take(feed: SimFeed, endpoint: string, language?: string): Fault | undefined {
    this.expire()
    const fault = this.faults.find(
      (f) =>
        (REQUEST_FAULT_KINDS as readonly string[]).includes(f.kind) &&
        f.feed === feed &&
        (f.endpoint === undefined || f.endpoint.toLowerCase() === endpoint) &&
        (f.language === undefined || f.language.toLowerCase() === language?.toLowerCase()),
    )
    if (fault?.remaining !== undefined) fault.remaining--
    return fault ? { ...fault } : undefined
  }

  private expire(): void {
    const now = this.now()
    this.faults = this.faults.filter((f) => (f.remaining === undefined || f.remaining > 0) && (f.until === undefined || f.until > now))
  }
}

const MAINTENANCE_PAGE = `<!DOCTYPE html>
<html><head><title>Maintenance</title></head>
<body><h1>We'll be back soon</h1><p>The service is undergoing scheduled maintenance.</p></body></html>`

/** Breaks every field of a payload (or of its first element) so that its schema rejects it. */
export function corruptPayload(payload: unknown): unknown {
  if (Array.isArray(payload)) return [corruptPayload(payload[0] ?? {}), ...payload.slice(1)]
  if (payload && typeof payload === 'object') {
    // Every field, so one the client reads is among them (clients ignore the others).
    const keys = Object.keys(payload)
    if (keys.length === 0) return { id: 'corrupted' }
    return Object.fromEntries(keys.map((k) => [k, 'corrupted']))
  }
  return { corrupted: true }
}

/**
 * The response a fault produces, or undefined when the normal answer should follow
 * (after the delay of a `slow` fault).
 */
export async function faultResponse(fault: Fault, render: () => unknown): Promise<Response | undefined> {
  const json = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } })
  switch (fault.kind) {
    case 'rate_limit': {
      const headers: Record<string, string> = {}
      if (fault.retryAfterS !== undefined) headers['retry-after'] = String(fault.retryAfterS)
      if (fault.feed === 'community') Object.assign(headers, { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0' })
      return new Response(null, { status: 429, headers })
    }
    case 'server_error':
      if (fault.feed === 'upstream') {
        const traceId = `0HN${fault.id.toString(36).toUpperCase().padStart(9, '0')}:00000001`
        return json({ errorCode: -1, traceId, message: 'An unexpected server error has occured' }, fault.status ?? 500)
      }
      return new Response(null, { status: fault.status ?? 503 })
    case 'outage':
      return new Response(null, { status: fault.status ?? 503 })
    case 'slow':
      await Bun.sleep(fault.delayMs ?? 15_000)
      return undefined
    case 'malformed_json': {
      const text = JSON.stringify(render())
      return new Response(text.slice(0, Math.max(1, Math.floor(text.length / 2))), {
        status: 200, headers: { 'content-type': 'application/json; charset=utf-8' },
      })
    }
    case 'html_maintenance':
      return new Response(MAINTENANCE_PAGE, { status: fault.status ?? 200, headers: { 'content-type': 'text/html; charset=utf-8' } })
    case 'empty_body':
      return new Response('', { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } })
    case 'invalid_payload':
      return json(corruptPayload(render()))
    case 'freeze':
    case 'new_war':
      return undefined
  }
}
