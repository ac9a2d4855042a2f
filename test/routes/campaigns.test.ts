/**
 * /campaigns and /planets/liberation on the real March-2024 capture: its eight campaigns and
 * its defense (event 4311), played back over 13 ticks five minutes apart that end at the
 * capture itself (the event's health and the campaign planets' health falling tick by tick,
 * one campaign starting mid-window). Every figure is checked against a direct computation
 * over the stored rows (regr_slope in SQL), then a frozen war, an unknown war and a window
 * without ticks.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { fightOf } from '../../src/collect/full-status.ts'
import type { Sql } from '../../src/db/connect.ts'
import { parseWarStatus, type WarStatus } from '../../src/feeds/upstream.ts'
import * as fight from '../../src/storage/fight.ts'
import * as planetStatus from '../../src/storage/planet-status.ts'
import { claimFullStatus } from '../../src/storage/ticks.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { seedRealWarInfo } from '../support/seed.ts'
import { loadSample } from '../support/samples.ts'
import { errorOf, openHarness, type Harness } from './helpers.ts'

const REAL = parseWarStatus(loadSample('arrowhead/warstatus_801_2024-03-08_sector-hq.json')).data
const CAPTURE = new Date('2024-03-08T19:22:54.000Z')
const MIN = 60_000
const HOUR = 60 * MIN
const TICKS = 13
const STEP = 5 * MIN
const tickAt = (k: number) => new Date(CAPTURE.getTime() - (TICKS - 1 - k) * STEP)
const NOW = new Date(CAPTURE.getTime() + 30_000)
const EVENT = REAL.planetEvents![0]!
/** The campaign that shows only from this tick on (its rate uses its own ticks). */
const LATE = { campaignId: REAL.campaigns[1]!.id, fromTick: 6 }
/** Health removed per tick: the event's, and each campaign planet's. */
const EVENT_STEP = 9_000
const PLANET_STEP = 1_500

/** The real status at tick k: the war time advancing, the event and the campaign planets losing health towards the capture. */
function statusAt(k: number): WarStatus {
  const back = TICKS - 1 - k
  const fronts = new Set(REAL.campaigns.map((c) => c.planetIndex))
  return {
    ...REAL,
    time: REAL.time - back * 300,
    planetStatus: REAL.planetStatus.map((p) => (fronts.has(p.index) && p.owner !== 1 ? { ...p, health: p.health + back * PLANET_STEP + (p.index % 3) * k * 200 } : p)),
    campaigns: REAL.campaigns.filter((c) => c.id !== LATE.campaignId || k >= LATE.fromTick),
    planetEvents: [{ ...EVENT, health: EVENT.health + back * EVENT_STEP }],
  }
}

async function writeTick(sql: Sql, k: number, status = statusAt(k), at = tickAt(k)) {
  await sql.begin(async (tx) => {
    if (!(await claimFullStatus(tx, at, 801, status.time, status.planetStatus.length))) return
    await planetStatus.insert(tx, at, 801, status.planetStatus.map((p) => ({ planet_index: p.index, owner: p.owner, health: p.health, regen_per_second: p.regenPerSecond, players: p.players })))
    await planetStatus.replaceCampaigns(tx, at, 801, status.campaigns.map((c) => ({ campaign_id: c.id, planet_index: c.planetIndex, type: c.type, count: c.count })))
    await fight.insert(tx, at, 801, fightOf(status, at))
  })
}

/** The direct computation: the bar's least-squares slope (%/h) and its latest value, over stored rows since `since`. */
async function fitted(sql: Sql, rows: 'event' | 'planet', id: number, since: Date) {
  const [r] =
    rows === 'event'
      ? await sql<{ rate: number; pct: number; last: Date; expires: Date }[]>`
          SELECT regr_slope((max_health - health)::float8 / max_health * 100, extract(epoch FROM captured_at) / 3600) AS rate,
                 (array_agg((max_health - health)::float8 / max_health * 100 ORDER BY captured_at DESC))[1] AS pct,
                 max(captured_at) AS last, (array_agg(expires_at ORDER BY captured_at DESC))[1] AS expires
          FROM planet_event_snapshots WHERE war_id = 801 AND event_id = ${id} AND captured_at >= ${since}`
      : await sql<{ rate: number; pct: number; last: Date; expires: Date }[]>`
          SELECT regr_slope((p.max_health - s.health)::float8 / p.max_health * 100, extract(epoch FROM s.captured_at) / 3600) AS rate,
                 (array_agg((p.max_health - s.health)::float8 / p.max_health * 100 ORDER BY s.captured_at DESC))[1] AS pct,
                 max(s.captured_at) AS last, NULL::timestamptz AS expires
          FROM planet_status_snapshots s JOIN planets p ON p.war_id = s.war_id AND p.planet_index = s.planet_index
          WHERE s.war_id = 801 AND s.planet_index = ${id} AND s.captured_at >= ${since}`
  return r!
}

describeOnEachDatabase('/campaigns and /planets/liberation on the real capture', (target) => {
  let db: TestDatabase
  let h: Harness

  beforeAll(async () => {
    db = await target.open()
    await seedRealWarInfo(db.sql, tickAt(0))
    for (let k = 0; k < TICKS; k++) await writeTick(db.sql, k)
    h = await openHarness({ db, now: () => NOW })
  }, 120_000)
  afterAll(async () => {
    await h?.close()
  })

  test('every campaign of the latest tick, most players first, its type, faction and planet', async () => {
    const res = await h.get('/campaigns')
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.body).toMatchObject({ warID: 801, at: CAPTURE.toISOString(), dataAgeSeconds: 30, frozenSince: null, windowHours: 2 })
    const items = res.body.items as any[]
    expect(items.map((c) => c.campaignId).sort()).toEqual(REAL.campaigns.map((c) => c.id).sort())
    const players = items.map((c) => c.players)
    expect(players).toEqual([...players].sort((a, b) => b - a))
    for (const c of items) {
      const planet = REAL.planetStatus.find((p) => p.index === c.planetIndex)!
      expect(c.players).toBe(planet.players)
      expect(c.type).toBe(c.campaignId === EVENT.campaignId ? 'defense' : 'liberation')
    }
    const defense = items.find((c) => c.campaignId === EVENT.campaignId)
    expect(defense).toMatchObject({ eventId: EVENT.id, factionId: EVENT.race, faction: 'Terminids', planetIndex: EVENT.planetIndex })
    expect(typeof defense.planetName).toBe('string')
  })

  test('the defense: progress, rate, ETA, deadline, required rate, outlook and margin equal the direct computation', async () => {
    const d = (await h.get('/campaigns')).body.items.find((c: any) => c.campaignId === EVENT.campaignId)
    const direct = await fitted(db.sql, 'event', EVENT.id, new Date(NOW.getTime() - 2 * HOUR))
    // The real capture: 294,550 of 900,000 health left.
    expect(d.progressPct).toBeCloseTo(((EVENT.maxHealth - EVENT.health) / EVENT.maxHealth) * 100, 4)
    expect(d.progressPct).toBeCloseTo(direct.pct, 4)
    expect(d.ratePctPerHour).toBeCloseTo(direct.rate, 4)
    expect(d.ratePctPerHour).toBeCloseTo(((EVENT_STEP / EVENT.maxHealth) * 100 * HOUR) / STEP, 4)
    expect(d.samples).toBe(TICKS)
    // The deadline: the event's expiry in war time, placed by the capture's own status time (1,050 s after it).
    expect(d.deadline).toBe(new Date(CAPTURE.getTime() + (EVENT.expireTime - REAL.time) * 1000).toISOString())
    expect(d.deadline).toBe(direct.expires.toISOString())
    const hoursLeft = (direct.expires.getTime() - direct.last.getTime()) / HOUR
    expect(d.requiredRatePctPerHour).toBeCloseTo((100 - direct.pct) / hoursLeft, 3)
    const etaHours = (100 - direct.pct) / direct.rate
    expect(Date.parse(d.eta)).toBeCloseTo(direct.last.getTime() + etaHours * HOUR, -3)
    expect(d.marginHours).toBeCloseTo(hoursLeft - etaHours, 2)
    // One per cent of the event's health every five minutes, far below what its last seventeen minutes need: lost.
    expect(d.outlook).toBe('losing')
    expect(d.marginHours).toBeLessThan(0)
  })

  test('liberation campaigns: rate over their own ticks only, ETA and outlook equal the direct computation', async () => {
    const items = (await h.get('/campaigns')).body.items as any[]
    const liberations = items.filter((c) => c.type === 'liberation')
    expect(liberations.length).toBe(REAL.campaigns.length - 1)
    for (const c of liberations) {
      const since = c.campaignId === LATE.campaignId ? tickAt(LATE.fromTick) : new Date(NOW.getTime() - 2 * HOUR)
      const direct = await fitted(db.sql, 'planet', c.planetIndex, since)
      expect(c.progressPct).toBeCloseTo(direct.pct, 4)
      expect(c.ratePctPerHour).toBeCloseTo(direct.rate, 4)
      expect(c.samples).toBe(c.campaignId === LATE.campaignId ? TICKS - LATE.fromTick : TICKS)
      expect(c.outlook).toBe('winning')
      expect(Date.parse(c.eta)).toBeCloseTo(direct.last.getTime() + ((100 - direct.pct) / direct.rate) * HOUR, -3)
      expect([c.deadline, c.requiredRatePctPerHour, c.marginHours]).toEqual([null, null, null])
    }
    expect(items.find((c) => c.campaignId === LATE.campaignId).firstSeenAt).toBe(tickAt(LATE.fromTick).toISOString())
  })

  test('/planets/liberation answers the defended planet from its event, and the others with the campaign words', async () => {
    const res = await h.get('/planets/liberation')
    expect(res.status).toBe(200)
    const defended = res.body.items.find((p: any) => p.planetIndex === EVENT.planetIndex)
    const campaign = (await h.get('/campaigns')).body.items.find((c: any) => c.campaignId === EVENT.campaignId)
    // Not "100 % · 0 %/h · stalemate": the event's bar, rate and outlook, and no regeneration.
    expect(defended).toMatchObject({
      eventId: EVENT.id, libPct: campaign.progressPct, ratePctPerHour: campaign.ratePctPerHour, outlook: 'losing',
      deadline: campaign.deadline, marginHours: campaign.marginHours, regenPctPerHour: null, impactPctPerHour: null,
    })
    for (const p of res.body.items.filter((x: any) => x.planetIndex !== EVENT.planetIndex)) expect(['winning', 'losing', 'stalemate']).toContain(p.outlook)
  })

  test('an unknown war is a 404 on every intelligence route, never an answer about another war', async () => {
    for (const path of ['/campaigns?warId=802', '/planets/liberation?warId=802', '/major-orders?warId=802', '/war/trends?warId=802', '/timeline?warId=802']) {
      const res = await h.get(path)
      expect(res.status).toBe(404)
      expect(errorOf(res)).toContain('802')
    }
    expect((await h.get('/campaigns?warId=801')).status).toBe(200)
  })

  test('a window without ticks (a long outage): each planet from its latest stored row, at that row\'s time, nothing projected', async () => {
    const later = await openHarness({ db, keepDb: true, now: () => new Date(CAPTURE.getTime() + 3 * HOUR) })
    try {
      const res = await later.get('/planets/liberation?window=1')
      expect(res.body.items.length).toBeGreaterThan(0)
      for (const p of res.body.items) {
        expect(p).toMatchObject({ samples: 0, capturedAt: CAPTURE.toISOString(), ageSeconds: 3 * 3600, outlook: 'unknown', eta: null })
        const planet = REAL.planetStatus.find((s) => s.index === p.planetIndex)!
        expect([p.owner, p.players]).toEqual([planet.owner, planet.players])
      }
    } finally {
      await later.close()
    }
  })

  test('a frozen war (the status time stops advancing): said since when, and nothing projected', async () => {
    // The capture's status seen again ten minutes later: the same war time claims no tick.
    const seenAgain = new Date(CAPTURE.getTime() + 10 * MIN)
    await writeTick(h.db.sql, TICKS - 1, statusAt(TICKS - 1), seenAgain)
    const frozen = await openHarness({ db, keepDb: true, now: () => new Date(seenAgain.getTime() + 5_000) })
    try {
      const res = await frozen.get('/campaigns')
      expect(res.body.frozenSince).toBe(CAPTURE.toISOString())
      expect(res.body.at).toBe(CAPTURE.toISOString())
      for (const c of res.body.items) expect([c.outlook, c.eta, c.etaHours, c.marginHours, c.requiredRatePctPerHour]).toEqual(['unknown', null, null, null, null])
      expect((await frozen.get('/planets/liberation')).body.frozenSince).toBe(CAPTURE.toISOString())
      const [row] = await h.db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM full_status_ticks WHERE war_id = 801`
      expect(row?.n).toBe(TICKS)
    } finally {
      await frozen.close()
    }
  })

  test('the attack lines of the latest tick: every line the feed lists, with the times it lists it', async () => {
    const { attacks } = (await h.get('/campaigns')).body
    const listed = new Map<string, number>()
    for (const a of REAL.planetAttacks!) listed.set(`${a.source}>${a.target}`, (listed.get(`${a.source}>${a.target}`) ?? 0) + 1)
    expect(new Map(attacks.map((a: any) => [`${a.source}>${a.target}`, a.lanes]))).toEqual(listed)
    expect(attacks.length).toBeGreaterThan(0)
  })

  test("a campaign's history: a defense's bar from its event's health, a liberation's from its planet, tick by tick, equal to the stored rows", async () => {
    const defense = await h.get(`/campaigns/${EVENT.campaignId}/history`)
    expect(defense.status).toBe(200)
    const events = await h.db.sql<{ t: Date; pct: number }[]>`
      SELECT captured_at AS t, (max_health - health)::float8 / max_health * 100 AS pct FROM planet_event_snapshots WHERE event_id = ${EVENT.id} ORDER BY captured_at`
    expect(defense.body).toMatchObject({ warID: 801, campaignId: EVENT.campaignId, planetIndex: EVENT.planetIndex, type: 'defense', eventId: EVENT.id })
    expect(defense.body.points.map((p: any) => p.t)).toEqual(events.map((e) => e.t.toISOString()))
    defense.body.points.forEach((p: any, i: number) => expect(p.progressPct).toBeCloseTo(events[i]!.pct, 4))
    const late = await h.get(`/campaigns/${LATE.campaignId}/history`)
    expect(late.body).toMatchObject({ type: 'liberation', eventId: null, firstSeenAt: tickAt(LATE.fromTick).toISOString() })
    expect(late.body.points).toHaveLength(TICKS - LATE.fromTick)
    const direct = await fitted(h.db.sql, 'planet', late.body.planetIndex, tickAt(LATE.fromTick))
    expect(late.body.points.at(-1).progressPct).toBeCloseTo(direct.pct, 4)
    expect((await h.get('/campaigns/999999/history')).status).toBe(404)
    expect((await h.get(`/campaigns/${EVENT.campaignId}/history?warId=802`)).status).toBe(404)
    expect(errorOf(await h.get('/campaigns/abc/history'))).toContain('campaignId')
  })

  test('the window is validated', async () => {
    expect(errorOf(await h.get('/campaigns?window=0'))).toContain('window')
    expect(errorOf(await h.get('/campaigns?window=abc'))).toContain('window')
  })
})
