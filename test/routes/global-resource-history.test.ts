/** GET /global-resources/:id32/history (contract): the value over a range, its ticks as stored; unknown resource 404; errors. */
import { expect, test } from 'bun:test'
import { describeOnEachDatabase } from '../support/editions.ts'
import { NOW, RESOURCE, rows, TICKS, withSurfaces } from '../support/surfaces.ts'
import { errorOf } from './helpers.ts'

describeOnEachDatabase('GET /global-resources/:id32/history', (target) => {
  const surfaces = withSurfaces(target)

  test('24h by default: a point per 5-minute bucket, oldest first', async () => {
    const res = await surfaces.h.get(`/global-resources/${RESOURCE}/history`)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ warID: 801, id32: RESOURCE, range: '24h', bucketSeconds: 600 })
    expect(res.body.points.map((p: any) => p.current)).toEqual([1, 3, 5].map((k) => rows.resource(k)))
    const all = await surfaces.h.get(`/global-resources/${RESOURCE}/history?range=all`)
    expect(all.body.range).toBe('all')
    expect(all.body.bucketSeconds).toBe(300)
    expect(all.body.points.map((p: any) => p.current)).toEqual(Array.from({ length: TICKS }, (_, k) => rows.resource(k)))
  })

  test('errors: unknown resource 404, bad id32 or range 400', async () => {
    expect((await surfaces.h.get('/global-resources/42/history')).status).toBe(404)
    expect(errorOf(await surfaces.h.get('/global-resources/x/history'))).toContain('id32')
    expect(errorOf(await surfaces.h.get(`/global-resources/${RESOURCE}/history?range=1y`))).toContain('range')
  })
})
