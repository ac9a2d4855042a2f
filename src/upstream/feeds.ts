import type { Config } from '../config.ts'
import { createUpstreamClient } from './client.ts'
import { createCommunityClient } from './community.ts'
import { createPcstoreClient } from './pcstore.ts'

/** The three external feeds, built once per process from the config. */
export function createFeeds(config: Pick<Config, 'upstreamUrl' | 'communityApiUrl' | 'pcstoreApiUrl' | 'feedTimeoutMs' | 'clientName' | 'clientContact'>) {
  const userAgent = `${config.clientName} (+${config.clientContact})`
  return {
    upstream: createUpstreamClient({ baseUrl: config.upstreamUrl, timeoutMs: config.feedTimeoutMs, userAgent }),
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
