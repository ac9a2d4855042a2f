import { expect, test } from 'bun:test'
import { CurrentWar } from '../../src/war/current-war.ts'
import { silentLogger } from '../../src/log.ts'
import { FeedUnavailableError } from '../../src/feeds/errors.ts'

/** An upstream whose answers the test releases one by one, in any order. */
function scriptedUpstream() {
  const pending: { resolve: (id: number) => void; reject: (e: unknown) => void }[] = []
  return {
    pending,
    currentWarId: () => new Promise<number>((resolve, reject) => pending.push({ resolve, reject })),
  }
}

test('overlapping checks share one request, so they cannot settle out of order', async () => {
  const up = scriptedUpstream()
  const war = new CurrentWar(801, up, silentLogger)
  const checks = [war.refresh(), war.verify(), war.refresh()]
  expect(up.pending).toHaveLength(1)
  up.pending[0]!.resolve(802)
  expect(await Promise.all(checks)).toEqual([802, 802, 802])
  expect(war.id).toBe(802)
  // The next check is a new request.
  const next = war.verify()
  expect(up.pending).toHaveLength(2)
  up.pending[1]!.resolve(802)
  expect(await next).toBe(802)
})

test('a failed check: verify() rejects with the feed error, refresh() keeps the war it has', async () => {
  const up = scriptedUpstream()
  const war = new CurrentWar(801, up, silentLogger)
  const outage = new FeedUnavailableError({ feed: 'upstream', endpoint: 'warid', reason: 'http_status', status: 503, message: 'HTTP 503' })
  const verified = war.verify()
  up.pending[0]!.reject(outage)
  await expect(verified).rejects.toBe(outage)
  const refreshed = war.refresh()
  up.pending[1]!.reject(outage)
  expect(await refreshed).toBe(801)
  expect(war.id).toBe(801)
})
