/**
 * What the schedule logs while a feed is down, read as an operator reads it: the real
 * collection (simulator feeds and its faults, a real database), a real logger whose lines
 * are captured, the outage log's clock moved by the test.
 */
import { afterEach, expect, test } from 'bun:test'
import { openCollection, type Collection } from '../../src/collect/collection.ts'
import { spanText } from '../../src/collect/outages.ts'
import { stopSchedule } from '../../src/collect/schedule.ts'
import { loadConfig } from '../../src/config.ts'
import { createFeeds, type Feeds } from '../../src/feeds/index.ts'
import { createLogger, type LogLevel } from '../../src/log.ts'
import { DataVersions } from '../../src/storage/changes.ts'
import { createStore } from '../../src/storage/index.ts'
import { CurrentWar } from '../../src/war/current-war.ts'
import { openEmbeddedTestDatabase, type TestDatabase } from '../support/db.ts'
import { simulatedFeeds } from '../support/sim.ts'

type Line = Record<string, unknown> & { level: string; msg: string }

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function setUp(feeds: Feeds, level: LogLevel = 'debug') {
  const lines: Line[] = []
  const log = createLogger(level, (l) => lines.push(JSON.parse(l) as Line))
  const db: TestDatabase = await openEmbeddedTestDatabase()
  cleanups.push(() => db.dispose())
  let clock = Date.now()
  const config = { ...loadConfig({ SPOOL_DIR: '' }), warId: 801 }
  const war = new CurrentWar(801, feeds.upstream, log)
  const collection: Collection = await openCollection({
    config, db, store: createStore(db), feeds, log, war, versions: new DataVersions(), now: () => clock,
  })
  const app = { store: {} as Record<string, unknown>, use: (p: { store: Record<string, unknown> }) => (app.store = p.store) }
  cleanups.push(() => collection.stop(app))
  return {
    lines,
    collection,
    app,
    /** Lines an operator sees at the default level, but for the line of each tick written. */
    visible: () => lines.filter((l) => l.level !== 'debug' && l.msg !== 'collector run'),
    advance: (ms: number) => (clock += ms),
  }
}

test('an upstream outage: one line when it starts, a summary every 5 minutes while it lasts, one line when it is over', async () => {
  const s = simulatedFeeds(21)
  cleanups.push(() => s.stop())
  const t = await setUp(s.feeds)
  await t.collection.start(t.app, false) // the writer; firings are triggered below
  await t.collection.fire('player-count')
  t.lines.length = 0

  s.sim.control.addFault({ kind: 'outage', feed: 'upstream' })
  // 5 minutes of firings at the schedule's cadences: player-count every 15 s, war-info every minute.
  let runs = 0
  for (let second = 15; second < 300; second += 15) {
    t.advance(15_000)
    s.ageCache(15)
    await t.collection.fire('player-count')
    runs++
    if (second % 60 === 0) {
      await t.collection.fire('war-info') // its war check and the run itself: two failures
      runs += 2
    }
  }
  const down = t.visible()
  expect(down).toHaveLength(1)
  expect(down[0]).toMatchObject({ level: 'warn', event: 'feed_down', feed: 'upstream', job: 'player-count', reason: 'http_status' })
  expect(down[0]!.msg).toStartWith('upstream unavailable: upstream status: HTTP 503;')
  // Every other failed run is still there for LOG_LEVEL=debug, one line each.
  expect(t.lines.filter((l) => l.level === 'debug' && l.msg === 'collector run failed')).toHaveLength(runs - 1)
  expect(t.collection.counts()['player-count']).toMatchObject({ failed: 19, fetched: 1 })

  // The fifth minute: the summary, once.
  t.advance(15_000)
  s.ageCache(15)
  await t.collection.fire('player-count')
  runs++
  t.advance(15_000)
  s.ageCache(15)
  await t.collection.fire('player-count')
  runs++
  const summaries = t.visible().filter((l) => l.event === 'feed_still_down')
  expect(summaries).toHaveLength(1)
  expect(summaries[0]).toMatchObject({ level: 'warn', feed: 'upstream', downForS: 300, failedRuns: runs })
  expect(summaries[0]!.msg).toBe(`upstream unavailable for 5 min, ${runs} runs failed`)

  // Back: the outage is over once every job that failed on it has succeeded again.
  s.sim.control.clearFaults()
  t.advance(15_000)
  s.ageCache(15)
  await t.collection.fire('player-count')
  expect(t.visible().filter((l) => l.event === 'feed_up')).toEqual([])
  await t.collection.fire('war-info')
  const up = t.visible().filter((l) => l.event === 'feed_up')
  expect(up).toHaveLength(1)
  expect(up[0]).toMatchObject({ level: 'info', feed: 'upstream', downForS: 315, failedRuns: runs })
  expect(up[0]!.msg).toBe(`upstream answers again after 5 min, ${runs} runs failed`)
  // Over the whole outage of 5 min 15 s and 28 failed runs, an operator read three lines.
  expect(t.visible().filter((l) => String(l.event ?? '').startsWith('feed_') || /fail/.test(l.msg))).toHaveLength(3)

  // A later outage is a new one.
  s.sim.control.addFault({ kind: 'outage', feed: 'upstream', count: 1 })
  s.ageCache(15)
  await t.collection.fire('player-count')
  expect(t.visible().filter((l) => l.event === 'feed_down')).toHaveLength(2)
}, 60_000)

test('the community feed down: its own outage, independent of the upstream', async () => {
  const s = simulatedFeeds(22)
  cleanups.push(() => s.stop())
  const t = await setUp(s.feeds, 'info')
  await t.collection.start(t.app, false)
  s.sim.control.addFault({ kind: 'server_error', feed: 'community', status: 502 })
  await t.collection.fire('planet-stats')
  t.advance(300_000)
  await t.collection.fire('planet-stats')
  await t.collection.fire('player-count') // the upstream answers: nothing to say
  expect(t.visible().map((l) => [l.event, l.feed])).toEqual([
    ['feed_down', 'community'],
    ['feed_still_down', 'community'],
  ])
  expect(t.visible()[1]!.msg).toBe('community unavailable for 5 min, 2 runs failed')
  s.sim.control.clearFaults()
  t.advance(300_000)
  await t.collection.fire('planet-stats')
  expect(t.visible().at(-1)).toMatchObject({ event: 'feed_up', feed: 'community', msg: 'community answers again after 10 min, 2 runs failed' })
}, 60_000)

test('no internet at start-up: the upstream is unreachable, and one line says how to run on the simulator', async () => {
  // Nothing listens on port 9 of the loopback: every feed request fails at once, as offline.
  const feeds = createFeeds({
    upstreamUrl: 'http://127.0.0.1:9/api', communityApiUrl: 'http://127.0.0.1:9', pcstoreApiUrl: 'http://127.0.0.1:9',
    feedTimeoutMs: 2000, clientName: 'test', clientContact: 'test@example.invalid', feedLanguages: ['en-US'],
  })
  const t = await setUp(feeds, 'info')
  const started = t.collection.start(t.app, true)
  stopSchedule(t.app) // no firing of the real cadences during the test
  await started
  expect(t.lines.map((l) => l.event)).toEqual(['feed_down', 'no_feed_answers'])
  expect(t.lines[0]).toMatchObject({ level: 'warn', feed: 'upstream', job: 'war-check', reason: 'network' })
  expect(t.lines[0]!.msg).toStartWith('upstream unreachable: upstream warid:')
  expect(t.lines[1]!.level).toBe('warn')
  expect(t.lines[1]!.msg).toContain('`npm run demo` runs the service on the offline feed simulator')
})

test('a healthy start says nothing about feeds and asks the community and store feeds nothing', async () => {
  const s = simulatedFeeds(23)
  cleanups.push(() => s.stop())
  const t = await setUp(s.feeds, 'info')
  const started = t.collection.start(t.app, true)
  stopSchedule(t.app)
  await started
  expect(t.visible()).toEqual([])
  const requests = s.sim.control.requests()
  expect(Object.keys(requests).filter((k) => !k.startsWith('upstream'))).toEqual([])
})

test('durations in words', () => {
  expect([spanText(45_000), spanText(300_000), spanText(301_000), spanText(3_600_000), spanText(7_500_000)]).toEqual(['45 s', '5 min', '5 min', '1 h', '2 h 5 min'])
})
