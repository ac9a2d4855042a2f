import { FeedUnavailableError, type FeedName } from './errors.ts'
import { PayloadError, type Parsed, type Parser } from './schema.ts'

/** The subset of `fetch` the clients use; `typeof fetch` is assignable to it, so are test doubles. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

export interface FetchJsonRequest<T> {
  feed: FeedName
  endpoint: string
  url: string
  headers: Record<string, string>
  timeoutMs: number
  parse: Parser<T>
  fetch?: FetchLike
}

/**
 * Retry-After as seconds: either delta-seconds or an HTTP date. Undefined when absent or
 * unreadable, so callers fall back to their own default.
 */
export function parseRetryAfter(value: string | null, nowMs: number = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed)
  const at = Date.parse(trimmed)
  if (Number.isNaN(at)) return undefined
  return Math.max(0, Math.ceil((at - nowMs) / 1000))
}

function isTimeout(e: unknown): boolean {
  return e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')
}

/**
 * One GET, classified: every failure (network, timeout, 429, other non-2xx, a body that
 * is not JSON, a payload that lacks a field the service reads) becomes a
 * FeedUnavailableError with a short reason. Shared by the upstream, community and pcstore
 * clients. The payload comes with its drift (feeds/schema.ts).
 */
export async function fetchJson<T>(req: FetchJsonRequest<T>): Promise<Parsed<T>> {
  const { feed, endpoint } = req
  const fail = (reason: FeedUnavailableError['reason'], message: string, extra: { status?: number; retryAfterS?: number } = {}) =>
    new FeedUnavailableError({ feed, endpoint, reason, message, ...extra })

  const doFetch = req.fetch ?? fetch
  // One signal covers headers and body: a server that stalls mid-body also times out.
  const signal = AbortSignal.timeout(req.timeoutMs)
  let response: Response
  let text: string
  try {
    response = await doFetch(req.url, { method: 'GET', headers: req.headers, signal, redirect: 'follow' })
    text = await response.text()
  } catch (e) {
    if (isTimeout(e) || signal.aborted) throw fail('timeout', `no answer within ${req.timeoutMs} ms`)
    throw fail('network', e instanceof Error && e.message ? e.message.slice(0, 200) : 'request failed')
  }

  const status = response.status
  if (status === 429) {
    const retryAfterS = parseRetryAfter(response.headers.get('retry-after'))
    throw fail('rate_limited', 'HTTP 429 (rate limited)', retryAfterS === undefined ? { status } : { status, retryAfterS })
  }
  if (status < 200 || status > 299) throw fail('http_status', `HTTP ${status}`, { status })

  if (text.trim() === '') throw fail('bad_body', 'empty body', { status })
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    const looksHtml = /^\s*</.test(text)
    throw fail('bad_body', looksHtml ? 'HTML page instead of JSON' : 'body is not valid JSON', { status })
  }

  try {
    return req.parse(body)
  } catch (e) {
    if (e instanceof PayloadError) throw fail('invalid_payload', `${e.path || '/'}: ${e.detail}`, { status })
    throw fail('invalid_payload', 'payload could not be read', { status })
  }
}
