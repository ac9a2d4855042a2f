/**
 * `npm start` without internet, as an operator sees it: the real service process with its
 * schedule on, every feed unreachable. Its log says where the API and the docs are, that
 * no feed answers and how to run offline, and then stays quiet while the runs fail.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startService, type ServiceProcess } from '../support/process.ts'

const NOWHERE = 'http://127.0.0.1:9' // nothing listens there: connections are refused, as offline

describe('the service started without internet', () => {
  let svc: ServiceProcess
  beforeAll(async () => {
    svc = await startService({ UPSTREAM_URL: `${NOWHERE}/api`, COMMUNITY_API_URL: NOWHERE, PCSTORE_API_URL: NOWHERE, SCHEDULE_ENABLED: 'true' })
  }, 60_000)
  afterAll(async () => {
    await svc?.stop()
  })

  test('the listening line gives the URLs of the API and of the docs page', async () => {
    const listening = svc.lines.find((l) => l.msg === 'listening')!
    expect(listening.api).toBe(`${svc.baseUrl}/api/v1`)
    expect(listening.docs).toBe(`${svc.baseUrl}/openapi`)
    expect((await fetch(String(listening.docs))).status).toBe(200)
    expect((await fetch(`${listening.api}/health/throttle`)).status).toBe(200)
  })

  test('one line says no feed answers and how to run on the simulator; failed runs add no line until the 5-minute summary', async () => {
    const metric = async (name: string) => {
      const text = await (await fetch(`${svc.baseUrl}/metrics`)).text()
      return Number(/^(\S+) (\S+)$/m.exec(text.split('\n').find((l) => l.startsWith(name)) ?? '')?.[2] ?? NaN)
    }
    // The first player-count firing comes within 15 s of the start.
    const deadline = Date.now() + 20_000
    while (!((await metric('collector_firings_total{collector="player-count",outcome="failed"}')) >= 1)) {
      if (Date.now() > deadline) throw new Error('no player-count firing failed within 20 s')
      await Bun.sleep(250)
    }
    const seen = svc.lines.filter((l) => l.level === 'warn' || l.level === 'error')
    // One feed_down per feed that a run has needed so far (which ones depends on the jobs
    // that fired in the window: the upstream always, the PC store or community when due).
    const down = seen.filter((l) => l.event === 'feed_down').map((l) => String(l.feed))
    expect(down).toContain('upstream')
    expect(new Set(down).size).toBe(down.length)
    const others = seen.filter((l) => l.event !== 'feed_down')
    expect(others.map((l) => l.event ?? l.msg)).toEqual(['COLLECTOR_SECRET is not set: POST /api/v1/collect/* is open to anyone (development only)', 'no_feed_answers'])
    expect(String(others[1]!.msg)).toContain('`npm run demo`')
  }, 30_000)
})
