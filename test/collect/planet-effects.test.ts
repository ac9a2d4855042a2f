/**
 * The planets' world as the collectors keep it: the galactic effects of each full-status
 * tick (status `planetActiveEffects`, history) and the regions of the war info
 * (`planetRegions`). Mapped from payloads, and written by the collectors on both editions.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { effectsOf, fullStatus } from '../../src/collect/full-status.ts'
import type { CollectorRunner } from '../../src/collect/runner.ts'
import { regionsOf } from '../../src/collect/war-info.ts'
import { parseWarInfo, parseWarStatus } from '../../src/feeds/upstream.ts'
import { createStore } from '../../src/storage/index.ts'
import { collect, testRunner } from '../support/collect.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { loadSample } from '../support/samples.ts'
import { simulatedFeeds } from '../support/sim.ts'

const STATUS = loadSample('arrowhead/warstatus_801_2024-03-08_sector-hq.json') as Record<string, unknown>
const INFO = loadSample('arrowhead/warinfo_801_2024-03-25_sector-hq.json') as Record<string, unknown>

describe('effects and regions of a payload', () => {
  test('the real 2024 status lists no effect (an empty array); a status without the field parses and has none', () => {
    expect(STATUS.planetActiveEffects).toEqual([])
    expect(effectsOf(parseWarStatus(STATUS).data)).toEqual([])
    const { planetActiveEffects: _, ...bare } = STATUS
    const parsed = parseWarStatus(bare)
    expect(parsed.drift.missing).not.toContain('/planetActiveEffects')
    expect(effectsOf(parsed.data)).toEqual([])
  })

  test('effects as listed, each planet and effect id; unknown fields in an entry are drift, not an error', () => {
    const parsed = parseWarStatus({ ...STATUS, planetActiveEffects: [{ index: 5, galacticEffectId: 1186 }, { index: 0, galacticEffectId: 1329, extra: 1 }] })
    expect(effectsOf(parsed.data)).toEqual([{ planet_index: 5, effect_id: 1186 }, { planet_index: 0, effect_id: 1329 }])
    expect(parsed.drift.unknown).toEqual(['/planetActiveEffects/*/extra'])
    expect(() => parseWarStatus({ ...STATUS, planetActiveEffects: [{ index: 5 }] })).toThrow('/planetActiveEffects/0/galacticEffectId')
  })

  test('regions: none in the real 2024 war info; newer payloads by planet, then region index', () => {
    expect(regionsOf(parseWarInfo(INFO).data).size).toBe(0)
    const info = parseWarInfo({
      ...INFO,
      planetRegions: [
        { planetIndex: 7, regionIndex: 3, settingsHash: 3_106_360_883, maxHealth: 1, regionSize: 2 },
        { planetIndex: 7, regionIndex: 1, settingsHash: 324_613_052, maxHealth: 1, regionSize: 3 },
        { planetIndex: 9, regionIndex: 0, settingsHash: 1 },
      ],
    })
    expect(info.drift).toEqual({ missing: [], unknown: [] })
    expect([...regionsOf(info.data)]).toEqual([
      [7, [{ index: 1, hash: 324_613_052 }, { index: 3, hash: 3_106_360_883 }]],
      [9, [{ index: 0, hash: 1 }]],
    ])
  })
})

describeOnEachDatabase('the planets\' effects kept per full-status tick', (target) => {
  let db: TestDatabase
  let s: Awaited<ReturnType<typeof simulatedFeeds>>
  let runner: CollectorRunner

  beforeAll(async () => {
    db = await target.open()
    s = await simulatedFeeds()
    runner = testRunner(db, s.feeds)
  }, 60_000)
  afterAll(async () => {
    await s?.stop()
    await db?.dispose()
  })

  const count = async () => (await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM planet_effect_snapshots`)[0]!.n

  test('a tick stores the effects the feed listed and reads back as the latest; the same tick again adds nothing', async () => {
    const summary = await collect(runner, 'full-status')
    const status = (await s.feeds.upstream.status(801)).data
    // The simulator puts one effect on each front.
    expect(status.planetActiveEffects!.length).toBeGreaterThan(0)
    const expected = [...new Map(effectsOf(status).map((e) => [`${e.planet_index}:${e.effect_id}`, e])).values()]
    expect(summary.written.planetEffects).toBe(expected.length)
    const [tick] = await db.sql<{ t: Date }[]>`SELECT max(captured_at) AS t FROM full_status_ticks WHERE war_id = 801`
    const latest = await createStore(db).planetEffects.latest()
    expect(latest).toEqual({
      warId: 801,
      at: tick!.t,
      effects: expected.map((e) => ({ planetIndex: e.planet_index, effectId: e.effect_id })).sort((a, b) => a.planetIndex - b.planetIndex || a.effectId - b.effectId),
    })

    const before = await count()
    const again = await collect(runner, 'full-status')
    expect(again.outcome).toBe('unchanged')
    expect(again.written.planetEffects).toBe(0)
    expect(await count()).toBe(before)
  })

  test('a tick spooled before the effects were kept (no effects in its rows) is written without them', async () => {
    s.later(60)
    const { tick } = await runner.capture(fullStatus)
    delete (tick.rows as { effects?: unknown }).effects
    const before = await count()
    const summary = await runner.write(fullStatus, tick)
    expect(summary.outcome).toBe('written')
    expect(summary.written.planetEffects).toBe(0)
    expect(await count()).toBe(before)
    // That tick is now the latest: it had none.
    expect((await createStore(db).planetEffects.latest()).effects).toEqual([])
  })
})
