/** The three external feeds, built once per process from the config. */
import type { Config } from '../config.ts'
import { createCommunityClient } from './community.ts'
import { createPcstoreClient } from './pcstore.ts'
import { createUpstreamClient } from './upstream.ts'

export type FeedsConfig = Pick<Config, 'upstreamUrl' | 'communityApiUrl' | 'pcstoreApiUrl' | 'feedTimeoutMs' | 'clientName' | 'clientContact' | 'feedLanguages'>

export function createFeeds(config: FeedsConfig) {
  const userAgent = `${config.clientName} (+${config.clientContact})`
  return {
    upstream: createUpstreamClient({ baseUrl: config.upstreamUrl, timeoutMs: config.feedTimeoutMs, userAgent, languages: config.feedLanguages }),
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
