/**
 * GET /regions (contract): the regions in play with liberation on their own scale, rate,
 * outlook and ETA, checked against a direct computation over the stored rows; a planet's
 * regions; errors.
 */
import { expect, test } from 'bun:test'
import { describeOnEachDatabase } from '../support/editions.ts'
import { NOW, OTHER_REGION, REGION, slopePerHour, withSurfaces } from '../support/surfaces.ts'
import { errorOf } from './helpers.ts'

describeOnEachDatabase('GET /regions', (target) => {
  const surfaces = withSurfaces(target)

  test('every region in play, its figures from the stored rows', async () => {
    const res = await surfaces.h.get('/regions')
    expect(res.status).toBe(200)
    expect(res.body.items.map((r: any) => [r.planetIndex, r.regionIndex])).toEqual([[REGION.planetIndex, REGION.regionIndex], [OTHER_REGION.planetIndex, OTHER_REGION.regionIndex]])
    const r = res.body.items[0]
    // The region's state at each tick that listed regions: its latest row at or before it.
    const stored = await surfaces.h.db.sql<{ t: Date; health: number; owner: number }[]>`
      SELECT k.captured_at AS t, (c.state->>'health')::float8 AS health, (c.state->>'owner')::int AS owner FROM war_item_ticks k
      CROSS JOIN LATERAL (SELECT state FROM war_item_changes c WHERE c.war_id = k.war_id AND c.kind = 'region' AND c.item_key = ${REGION.planetIndex * 1000 + REGION.regionIndex}
                          AND c.captured_at <= k.captured_at ORDER BY c.captured_at DESC LIMIT 1) c
      WHERE k.war_id = 801 AND k.kind = 'region' ORDER BY 1`
    const pcts = stored.map((s) => ({ t: s.t, v: ((REGION.maxHealth - s.health) / REGION.maxHealth) * 100 }))
    const rate = slopePerHour(pcts)
    const last = pcts.at(-1)!
    expect(r).toMatchObject({
      planetName: expect.any(String), name: 'DEMOCRACY ALWAYS', type: 'Metropolis', faction: 'Super Earth', size: 'megacity', sizeId: REGION.size,
      owner: stored.at(-1)!.owner, health: stored.at(-1)!.health, maxHealth: REGION.maxHealth, regenPerSecond: 2.5,
      players: 1205, available: true, availabilityFactor: 1, outlook: 'winning',
    })
    expect(r.libPct).toBeCloseTo(last.v, 4)
    expect(r.ratePctPerHour).toBeCloseTo(rate, 3)
    const eta = last.t.getTime() + ((100 - last.v) / rate) * 3_600_000
    expect(Math.abs(new Date(r.eta).getTime() - eta)).toBeLessThan(60_000)
    // A players' region standing still: health on its own scale, no rate to speak of.
    expect(res.body.items[1]).toMatchObject({ owner: 1, libPct: 75, ratePctPerHour: 0, outlook: 'stalemate', eta: null, available: false, size: 'town' })
  })

  test('one planet\'s regions; a planet without any in play has none', async () => {
    expect((await surfaces.h.get(`/regions?planetId=${REGION.planetIndex}`)).body.items).toHaveLength(1)
    expect((await surfaces.h.get('/regions?planetId=100')).body.items).toEqual([])
  })

  test('errors: 400 naming the parameter', async () => {
    expect(errorOf(await surfaces.h.get('/regions?planetId=x'))).toContain('planetId')
    expect(errorOf(await surfaces.h.get('/regions?hours=0'))).toContain('hours')
    expect((await surfaces.h.get('/regions?hours=99')).status).toBe(400)
  })
})
