/** GET /global-resources (contract): current, max, % and the rate per hour against a direct computation over the stored rows; errors. */
import { expect, test } from 'bun:test'
import { describeOnEachDatabase } from '../support/editions.ts'
import { NOW, RESOURCE, rows, slopePerHour, TICKS, withSurfaces } from '../support/surfaces.ts'
import { errorOf } from './helpers.ts'

describeOnEachDatabase('GET /global-resources', (target) => {
  const surfaces = withSurfaces(target)

  test('each resource with its rate over the window', async () => {
    const res = await surfaces.h.get('/global-resources')
    expect(res.status).toBe(200)
    const stored = await surfaces.h.db.sql<{ t: Date; v: number }[]>`
      SELECT captured_at AS t, (state->>'current')::float8 AS v FROM war_item_changes WHERE war_id = 801 AND kind = 'resource' AND item_key = ${RESOURCE} ORDER BY 1`
    const last = rows.resource(TICKS - 1)
    expect(res.body).toMatchObject({ warID: 801, windowHours: 6, items: [{ id32: RESOURCE, current: last, max: 40_000_000, flags: 0, samples: TICKS }] })
    expect(res.body.items[0].pct).toBeCloseTo((last / 40_000_000) * 100, 4)
    expect(res.body.items[0].ratePerHour).toBeCloseTo(slopePerHour(stored), 3)
    // The shortest window still holds the six ticks (25 minutes).
    expect((await surfaces.h.get('/global-resources?hours=1')).body.items[0].ratePerHour).not.toBeNull()
  })

  test('errors: 400 naming the parameter', async () => {
    expect(errorOf(await surfaces.h.get('/global-resources?hours=49'))).toContain('hours')
  })
})
