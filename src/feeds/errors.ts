/** Which outside feed failed. */
export type FeedName = 'upstream' | 'community' | 'pcstore'

/** Short, stable failure kinds: callers branch on these, logs and metrics group by them. */
export type UnavailableReason =
  | 'timeout'
  | 'network'
  | 'rate_limited'
  | 'http_status'
  | 'bad_body'
  | 'invalid_payload'

export interface FeedUnavailableInit {
  feed: FeedName
  endpoint: string
  reason: UnavailableReason
  message: string
  status?: number
  /** Seconds the feed asked us to wait (Retry-After), when it said so. */
  retryAfterS?: number
}

/**
 * The one error every feed client (upstream, community, pcstore) throws. Messages are
 * built by us from short facts (status, field path), never from response bodies or
 * stacks, so they are safe to log and to put into an API error envelope.
 */
export class FeedUnavailableError extends Error {
  override readonly name = 'FeedUnavailableError'
  readonly feed: FeedName
  readonly endpoint: string
  readonly reason: UnavailableReason
  readonly status?: number
  readonly retryAfterS?: number

  constructor(init: FeedUnavailableInit) {
    super(`${init.feed} ${init.endpoint}: ${init.message}`)
    this.feed = init.feed
    this.endpoint = init.endpoint
    this.reason = init.reason
    if (init.status !== undefined) this.status = init.status
    if (init.retryAfterS !== undefined) this.retryAfterS = init.retryAfterS
  }
}

export function isFeedUnavailable(e: unknown): e is FeedUnavailableError {
  return e instanceof FeedUnavailableError
}
