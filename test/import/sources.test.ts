/** The import's sources (src/import/sources.ts): feeds told by their shape, git archives of several files, NDJSON lines. */
import { afterAll, describe, expect, test } from 'bun:test'
import { detectFeed, gitSource, ndjsonLine, parseCapture, SourceError, type SourceItem } from '../../src/import/sources.ts'
import { loadSample } from '../support/samples.ts'
import { ASSIGNMENTS, gitArchive, NEWSFEED, statusAt, SUMMARY, WAR_INFO } from './support.ts'

describe('a payload tells its feed by its shape', () => {
  test('every real sample', () => {
    expect(detectFeed(loadSample('arrowhead/warstatus_801_2024-03-08_sector-hq.json'))).toBe('status')
    expect(detectFeed(WAR_INFO)).toBe('warInfo')
    expect(detectFeed(SUMMARY)).toBe('summary')
    expect(detectFeed(ASSIGNMENTS)).toBe('assignments')
    expect(detectFeed(NEWSFEED)).toBe('newsfeed')
  })

  test('an empty array, or anything else, tells nothing', () => {
    for (const v of [[], {}, { id: 801 }, 'text', 3, null, [1, 2]]) expect(detectFeed(v)).toBeNull()
  })
})

describe('a git archive of several files', () => {
  const archive = gitArchive([
    { at: '2024-03-08T12:00:00Z', files: { 'api/status.json': JSON.stringify(statusAt(0)), 'api/assignment.json': JSON.stringify(ASSIGNMENTS), 'api/news.json': JSON.stringify(NEWSFEED) } },
    // Only the status changed: the other files are read as they are at this commit.
    { at: '2024-03-08T12:05:00+01:00', files: { 'api/status.json': JSON.stringify(statusAt(300)) } },
    // No major order any more: an empty array keeps its path's feed.
    { at: '2024-03-08T12:10:00Z', files: { 'api/assignment.json': '[]' } },
    { at: '2024-03-08T12:15:00Z', files: { 'api/news.json': '{"nope": 1}' } },
  ])
  afterAll(() => archive.remove())

  test('one capture per commit that changed any of them, oldest first, each with every file as it is then', async () => {
    const source = await gitSource(archive.dir, ['api/status.json', `${archive.dir}/api/assignment.json`, './api/news.json'])
    expect(source.total).toBe(4)
    const items: SourceItem[] = []
    for await (const item of source.items()) items.push(item)
    await source.close()
    expect(items.map((i) => i.capture?.capturedAt.toISOString() ?? null)).toEqual(['2024-03-08T12:00:00.000Z', '2024-03-08T11:05:00.000Z', '2024-03-08T12:10:00.000Z', null])
    expect(items.slice(0, 3).map((i) => Object.keys(i.capture!.parts).sort())).toEqual(Array(3).fill(['assignments', 'newsfeed', 'status']))
    expect(items.map((i) => (i.capture?.parts.status as { time: number } | undefined)?.time)).toEqual([statusAt(0).time, statusAt(300).time, statusAt(300).time, undefined])
    expect(items[2]!.capture!.parts.assignments).toEqual([])
    expect(items[3]!.error).toContain('api/news.json: not an upstream feed payload')
    expect(items.every((i) => /^commit [0-9a-f]{12}$/.test(i.ref))).toBe(true)
  })

  test('a path outside the repository, a file no commit touched, a folder that is no repository: the import does not start', async () => {
    await expect(gitSource(archive.dir, ['../elsewhere.json'])).rejects.toBeInstanceOf(SourceError)
    await expect(gitSource(archive.dir, ['api/none.json'])).rejects.toThrow('no commit')
    await expect(gitSource('/nonexistent-gws-archive', ['status.json'])).rejects.toBeInstanceOf(SourceError)
  })
})

describe('an NDJSON line', () => {
  const line = (v: unknown) => ndjsonLine(7, new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v)))

  test('a capture with its parts and war; a blank line is nothing', () => {
    const item = line({ capturedAt: '2024-03-08T12:00:00Z', warId: 802, status: { time: 1 }, summary: { galaxy_stats: {} }, newsfeed: [], extra: 1 })
    expect(item).toMatchObject({ ref: 'line 7', capture: { warId: 802, parts: { status: { time: 1 }, summary: { galaxy_stats: {} }, newsfeed: [] } } })
    expect(item!.capture!.capturedAt.toISOString()).toBe('2024-03-08T12:00:00.000Z')
    expect(line('   ')).toBeNull()
  })

  test('what cannot be a capture says why', () => {
    expect(line('{"capturedAt": "2024-03-08T12:00:00Z", "status": {')!.error).toContain('malformed JSON')
    expect(line([1])!.error).toBe('not a JSON object')
    expect(line({ status: {} })!.error).toContain('capturedAt')
    expect(line({ capturedAt: 'soon', status: {} })!.error).toContain('capturedAt')
    expect(line({ capturedAt: '2024-03-08T12:00:00Z', warId: -1, status: {} })!.error).toContain('warId')
  })
})

describe('a capture parsed without the per-planet statistics', () => {
  const stats = (SUMMARY as { planets_stats: unknown[] }).planets_stats
  const without = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (k, x) => (k === 'planets_stats' ? undefined : x)))
  const parse = (text: string) => parseCapture(new TextEncoder().encode(text))

  test('a summary, alone or in an NDJSON line, first or last member: JSON.parse of it without them', () => {
    expect(stats.length).toBeGreaterThan(0)
    const line = { capturedAt: '2024-03-08T12:00:00Z', status: statusAt(0), summary: SUMMARY, newsfeed: NEWSFEED }
    for (const v of [SUMMARY, line, { planets_stats: stats, galaxy_stats: { a: 1 } }]) {
      expect(parse(JSON.stringify(v))).toEqual(without(v))
    }
  })

  test('statistics holding brackets or strings, another layout, a malformed text: as JSON.parse does', () => {
    for (const text of [
      '{"galaxy_stats":{},"planets_stats":[{"a":[1,2]},{"b":3}]}',
      '{"galaxy_stats":{},"planets_stats":[{"name":"x]y"}]}',
      '{"planets_stats":[{"a":[1],"b":2}],"galaxy_stats":{}}',
      '{"planets_stats":[{"s":"a],"}],"galaxy_stats":{}}',
      JSON.stringify(SUMMARY, null, 2),
    ]) {
      expect(parse(text)).toEqual(JSON.parse(text))
    }
    expect(() => parse('{"galaxy_stats":{},"planets_stats":[{"a":1}')).toThrow()
  })
})
