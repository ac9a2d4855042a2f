import { createCommunityClient } from '../../src/feeds/community.ts'
import type { Feeds } from '../../src/feeds/index.ts'
import { createPcstoreClient } from '../../src/feeds/pcstore.ts'
import { createUpstreamClient } from '../../src/feeds/upstream.ts'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'

/**
 * A simulator whose war moves only when the test says so (speed 0), and feed clients
 * whose cache clock the test controls: `later(s)` moves both the war and the clients'
 * clock, so the next fetch is a fresh upstream answer. `languages` (primary first): the
 * upstream client's, default en-US only.
 */
export function simulatedFeeds(seed = 7, timeoutMs = 1500, languages?: readonly string[]) {
  const sim: Simulator = startSimulator({ port: 0, hostname: '127.0.0.1', seed, speed: 0 })
  let offsetMs = 0
  const now = () => Date.now() + offsetMs
  const feeds: Feeds = {
    upstream: createUpstreamClient({ baseUrl: sim.upstreamUrl, timeoutMs, userAgent: 'gws-test', now, languages }),
    community: createCommunityClient({ baseUrl: sim.communityUrl, timeoutMs, superClient: 'gws-test', superContact: 'test@example.invalid', now }),
    pcstore: createPcstoreClient({ baseUrl: sim.pcstoreUrl, timeoutMs, now }),
  }
  return {
    sim,
    feeds,
    /** Advance the war by `seconds` and the client cache clock past every TTL. */
    later(seconds: number) {
      sim.control.advance(seconds)
      offsetMs += Math.max(seconds, 301) * 1000
    },
    /** Move only the clients' clock (cache ages, penalty windows), not the war. */
    ageCache(seconds: number) {
      offsetMs += seconds * 1000
    },
    /** The clients' clock: what a collector stamps its rows with. */
    now: () => new Date(now()),
    stop: () => sim.stop(),
  }
}
