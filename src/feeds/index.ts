/** The three external feeds, built once per process from the config. */
import type { Config } from '../config.ts'
import type { Logger } from '../log.ts'
import { createCommunityClient } from './community.ts'
import { createPcstoreClient } from './pcstore.ts'
import { createUpstreamClient } from './upstream.ts'

export type FeedsConfig = Pick<Config, 'upstreamUrl' | 'communityApiUrl' | 'pcstoreApiUrl' | 'feedTimeoutMs' | 'clientName' | 'clientContact' | 'feedLanguages'>

/** `log`: where a field the upstream adds is reported, once per endpoint and field (without: counted in /metrics only). */
export function createFeeds(config: FeedsConfig, opts: { log?: Logger } = {}) {
  const userAgent = `${config.clientName} (+${config.clientContact})`
  const { log } = opts
  return {
    upstream: createUpstreamClient({
      baseUrl: config.upstreamUrl, timeoutMs: config.feedTimeoutMs, userAgent, languages: config.feedLanguages,
      onUnknownField: log && ((seen) => log.info('feed payload has a field the service does not know', seen)),
    }),
    community: createCommunityClient({
      baseUrl: config.communityApiUrl,
      timeoutMs: config.feedTimeoutMs,
      superClient: config.clientName,
      superContact: config.clientContact,
    }),
    pcstore: createPcstoreClient({ baseUrl: config.pcstoreApiUrl, timeoutMs: config.feedTimeoutMs }),
  }
}

export type Feeds = ReturnType<typeof createFeeds>

/** Every feed endpoint's calls by outcome and its cache TTL, for /metrics (read when scraped). */
export const feedRequestStats = (feeds: Feeds) =>
  (['upstream', 'community', 'pcstore'] as const).flatMap((feed) => feeds[feed].requestStats().map((s) => ({ feed, ...s })))

/** The upstream payloads that carried a top-level field their schema does not declare, per endpoint and field (/metrics). */
export const feedUnknownFields = (feeds: Feeds) => feeds.upstream.unknownFields()
