/**
 * An archive of status captures alone (the real series, 1,000 captures of March 2024, no
 * war info: what the public archives hold), imported into an empty database: the war view
 * answers from the rows stored and the planet table the project ships, every figure equal
 * to what the last capture says.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import { warInfo } from '../../src/collect/war-info.ts'
import { parseWarInfo, parseWarStatus } from '../../src/feeds/upstream.ts'
import { importCaptures } from '../../src/import/importer.ts'
import { ndjsonSource } from '../../src/import/sources.ts'
import { lookups } from '../../src/lookups.ts'
import { libPctOf } from '../../src/war/liberation.ts'
import { openHarness, type Harness } from '../routes/helpers.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { capture, SERIES_LENGTH, statusPayload } from '../support/series.ts'
import { ndjson, tempDir, WAR_INFO } from './support.ts'

const LAST = SERIES_LENGTH - 1
const round4 = (x: number) => Math.round(x * 1e4) / 1e4

describeOnEachDatabase('status captures imported alone', (target) => {
  let files: ReturnType<typeof tempDir>
  let db: TestDatabase
  let h: Harness
  const last = capture(LAST)
  const status = statusPayload(LAST) as { planetStatus: { index: number; owner: number; health: number; players: number }[] }
  const planet = (index: number) => status.planetStatus.find((p) => p.index === index)!

  beforeAll(async () => {
    files = tempDir('gws-import-alone-')
    const path = join(files.dir, 'series.ndjson')
    writeFileSync(path, ndjson(Array.from({ length: SERIES_LENGTH }, (_, k) => ({ capturedAt: capture(k).at.toISOString(), warId: 801, status: statusPayload(k) }))))
    db = await target.open()
    const summary = await importCaptures({ db, source: await ndjsonSource(path), warId: 801 })
    expect(summary.imported).toBe(SERIES_LENGTH)
    h = await openHarness({ db, now: () => new Date(last.at.getTime() + 60_000), keepDb: true })
  }, 300_000)
  afterAll(async () => {
    await h?.close()
    await db?.dispose()
    files?.remove()
  })

  test('/planets/liberation lists the planets of the last capture\'s campaigns, named by the shipped table, with their figures', async () => {
    const res = await h.get('/planets/liberation')
    expect(res.status).toBe(200)
    const fronts = [...new Set(last.campaigns.map((c) => c.planetIndex))].sort((a, b) => a - b)
    expect(res.body.items.map((i: any) => i.planetIndex)).toEqual(fronts)
    for (const item of res.body.items) {
      const p = planet(item.planetIndex)
      expect(item).toMatchObject({ planetName: lookups().planets.get(item.planetIndex)!.name, owner: p.owner, players: p.players, capturedAt: last.at.toISOString() })
      if (item.eventId === null) expect(item.libPct).toBe(round4(libPctOf(p.owner, p.health, 1_000_000)))
    }
  })

  test('a planet asked for is known: ?planetId=196', async () => {
    const res = await h.get('/planets/liberation?planetId=196')
    expect(res.status).toBe(200)
    const p = planet(196)
    expect(res.body.items[0]).toMatchObject({ planetIndex: 196, planetName: lookups().planets.get(196)!.name, owner: p.owner, libPct: round4(libPctOf(p.owner, p.health, 1_000_000)) })
  })

  test('/campaigns: owner, players, progress and their time for every campaign', async () => {
    const items = (await h.get('/campaigns')).body.items as any[]
    expect(items.map((c) => c.campaignId).sort()).toEqual(last.campaigns.map((c) => c.id).sort())
    for (const c of items) {
      const p = planet(c.planetIndex)
      expect(c).toMatchObject({ owner: p.owner, players: p.players, capturedAt: last.at.toISOString() })
      expect(typeof c.progressPct).toBe('number')
    }
  })

  test('every planet event of the timeline names its planet', async () => {
    const items = (await h.get('/timeline?limit=1000')).body.items as any[]
    const planetEvents = items.filter((e) => e.planetIndex !== null)
    expect(planetEvents.length).toBeGreaterThan(20)
    for (const e of planetEvents) expect(e.planetName).toBe(lookups().planets.get(e.planetIndex)!.name)
  })

  // Last: the war info it writes replaces the shipped table's planets for this war.
  test('/war after a war-info collection whose status is the archive\'s last (a replay): its figures are of that capture, not of the collection', async () => {
    const fetchedAt = new Date(last.at.getTime() + 3 * 86_400_000)
    const fetched = <T>(data: T, at: Date) => ({ data, fetchedAt: at, fromCache: false, stale: false, drift: { missing: [], unknown: [] } })
    const info = fetched(parseWarInfo(WAR_INFO).data, fetchedAt)
    const replayed = fetched(parseWarStatus(statusPayload(LAST)).data, fetchedAt)
    await h.db.sql.begin((tx) => warInfo.write(tx, fetchedAt, { id: 'replay', collector: 'war-info', warId: 801, capturedAt: fetchedAt.toISOString(), rows: warInfo.map({ info, status: replayed }, { warId: 801, now: fetchedAt }).rows }))
    const at = (body: any) => [body.dataCapturedAt, body.planets.find((p: any) => p.indexID === 196).owner]
    expect(at((await h.get('/war')).body)).toEqual([last.at.toISOString(), planet(196).owner])
    // A status newer than every stored tick is current when fetched.
    const later = new Date(fetchedAt.getTime() + 60_000)
    const fresh = fetched({ ...parseWarStatus(statusPayload(LAST)).data, time: last.warTime + 600 }, later)
    fresh.data.planetStatus = fresh.data.planetStatus.map((p) => (p.index === 196 ? { ...p, players: p.players + 1 } : p))
    await h.db.sql.begin((tx) => warInfo.write(tx, later, { id: 'live', collector: 'war-info', warId: 801, capturedAt: later.toISOString(), rows: warInfo.map({ info, status: fresh }, { warId: 801, now: later }).rows }))
    expect((await h.get('/war')).body.dataCapturedAt).toBe(later.toISOString())
  })

  test('the planet history and the historical rows are served as before', async () => {
    const now = last.at.getTime() + 60_000
    const inDay = Array.from({ length: SERIES_LENGTH }, (_, k) => capture(k).at.getTime()).filter((t) => t >= now - 24 * 3600_000 && t <= now)
    expect((await h.get('/planet/196/history?hours=24')).body.points.length).toBe(inDay.length)
    expect((await h.get('/historical-planet-status?planetId=196&limit=5')).body.items[0]).toMatchObject({ planetIndex: 196, owner: planet(196).owner })
  })
})
