/** Answers kept per data version, and JSON templates, directly. */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { Answers, JsonTemplate } from '../../src/http/answers.ts'
import { DataVersions } from '../../src/storage/changes.ts'

describe('JsonTemplate', () => {
  test('a rendered template is JSON.stringify of the value with its holes set, wherever the holes are', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue(), fc.jsonValue(), fc.boolean(), (value, a, b, aFirst) => {
        const body = aFirst ? { hole_a: null, ...value, hole_b: null } : { hole_b: null, ...value, hole_a: null }
        const template = new JsonTemplate(body, ['hole_a', 'hole_b'])
        expect(template.render({ hole_a: a, hole_b: b })).toBe(JSON.stringify({ ...body, hole_a: a, hole_b: b }))
        expect(template.renderJson({ hole_a: JSON.stringify(a), hole_b: JSON.stringify(b) })).toBe(JSON.stringify({ ...body, hole_a: a, hole_b: b }))
      }),
      { seed: 5, numRuns: 300 },
    )
  })

  test('renderings in a row with changing holes are each right, whatever the last one kept', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.tuple(fc.jsonValue(), fc.jsonValue()), { minLength: 1, maxLength: 8 }), (value, holes) => {
        const template = new JsonTemplate({ ...value, a: null, b: null }, ['a', 'b'])
        for (const [a, b] of [...holes, ...holes.slice().reverse()]) {
          expect(template.render({ a, b })).toBe(JSON.stringify({ ...value, a, b }))
        }
      }),
      { seed: 7, numRuns: 200 },
    )
  })
})

describe('Answers', () => {
  test('computed once per version of the datasets read, concurrent readers included; other datasets do not matter', async () => {
    const versions = new DataVersions()
    const answers = new Answers(versions)
    let runs = 0
    const compute = async () => {
      runs++
      await Bun.sleep(5)
      return `run ${runs}`
    }
    const many = await Promise.all(Array.from({ length: 20 }, () => answers.get('k', ['player-counts'], compute)))
    expect(new Set(many)).toEqual(new Set(['run 1']))
    versions.bump(['dispatches'])
    expect(await answers.get('k', ['player-counts'], compute)).toBe('run 1')
    versions.bump(['player-counts'])
    expect(await answers.get('k', ['player-counts'], compute)).toBe('run 2')
    versions.bumpAll()
    expect(await answers.get('k', ['player-counts'], compute)).toBe('run 3')
    expect(runs).toBe(3)
  })

  test('a failed computation is not kept', async () => {
    const answers = new Answers(new DataVersions())
    await expect(answers.get('k', [], () => Promise.reject(new Error('database unavailable')))).rejects.toThrow('database unavailable')
    expect(await answers.get('k', [], async () => 'ok')).toBe('ok')
  })
})
