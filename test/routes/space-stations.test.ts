/**
 * GET /space-stations (contract): the station's planet, next move by the tick's war clock,
 * its tactical action in words with donations, rate per hour and ETA against a direct
 * computation over the stored rows, its effects; errors.
 */
import { expect, test } from 'bun:test'
import { DEMOCRACY_SPACE_STATION } from '../../src/feeds/upstream-2025.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { ELECTION_END, NOW, REGION, rows, slopePerHour, TICKS, withSurfaces } from '../support/surfaces.ts'
import { errorOf } from './helpers.ts'

describeOnEachDatabase('GET /space-stations', (target) => {
  const surfaces = withSurfaces(target)

  test('the station, its next move and its action, from the stored rows', async () => {
    const res = await surfaces.h.get('/space-stations')
    expect(res.status).toBe(200)
    const [s] = res.body.items
    const last = TICKS - 1
    // capturedAt + (currentElectionEndWarTime − Status.time) of the latest tick.
    expect(s).toMatchObject({
      id32: DEMOCRACY_SPACE_STATION, planetIndex: REGION.planetIndex, planetName: expect.any(String), flags: 1,
      nextMoveAt: new Date(rows.at(last).getTime() + (ELECTION_END - rows.warTime(last)) * 1000).toISOString(),
    })
    expect(s.effects.map((e: any) => e.id)).toEqual([1])
    const [a] = s.tacticalActions
    expect(a).toMatchObject({ name: 'Orbital Blockade', status: 'preparing', statusId: 1, statusExpiresAt: new Date(rows.at(last).getTime() + (3_600 - 1_500) * 1000).toISOString() })
    const stored = await surfaces.h.db.sql<{ t: Date; current: number }[]>`
      SELECT captured_at AS t, (state->'costs'->0->>'current')::float8 AS current FROM war_item_changes
      WHERE war_id = 801 AND kind = 'tactical_action' ORDER BY captured_at`
    expect(stored).toHaveLength(TICKS) // the donations move at every tick: a row each
    const rate = slopePerHour(stored.map((r) => ({ t: r.t, v: r.current })))
    const c = a.costs[0]
    expect(c).toMatchObject({ current: rows.donated(last), target: 86_400, deltaPerSecond: 0.42 })
    expect(c.pct).toBeCloseTo((rows.donated(last) / 86_400) * 100, 4)
    expect(c.ratePerHour).toBeCloseTo(rate, 3)
    expect(c.etaHours).toBeCloseTo((86_400 - rows.donated(last)) / rate, 3)
    expect(Math.abs(new Date(c.etaFull).getTime() - (NOW.getTime() + c.etaHours * 3_600_000))).toBeLessThan(1_000)
  })

  test('errors: 400 naming the parameter', async () => {
    expect(errorOf(await surfaces.h.get('/space-stations?hours=abc'))).toContain('hours')
    expect(errorOf(await surfaces.h.get('/space-stations?warId=-1'))).toContain('warId')
  })
})
