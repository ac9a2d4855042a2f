import { describe, expect, test } from 'bun:test'
import { PayloadError, type Parser } from '../../src/feeds/schema.ts'
import { parseCommunityPlanets } from '../../src/feeds/community.ts'
import { parsePcstorePlayers } from '../../src/feeds/pcstore.ts'
import {
  parseAssignments,
  parseCurrentWar,
  parseNewsFeed,
  parseWarInfo,
  parseWarStatus,
  parseWarSummary,
} from '../../src/feeds/upstream.ts'

import { loadSample as load, sampleFiles } from '../support/samples.ts'
const clone = <T>(v: T): T => structuredClone(v)

function rejection(parse: Parser<unknown>, value: unknown): PayloadError {
  try {
    parse(value)
  } catch (e) {
    if (e instanceof PayloadError) return e
    throw e
  }
  throw new Error('payload was accepted')
}

describe('real samples are accepted', () => {
  test('upstream status, warinfo, summary, warid', () => {
    const status = parseWarStatus(load('arrowhead/warstatus_801_2024-03-08_sector-hq.json')).data
    expect(status.planetStatus).toHaveLength(261)
    expect(status.time).toBe(2610780)
    expect(parseWarInfo(load('arrowhead/warinfo_801_2024-03-25_sector-hq.json')).data.planetInfos).toHaveLength(261)
    const summary = parseWarSummary(load('arrowhead/DERIVED_summary_801_from_community_excerpt.json')).data
    expect(summary.galaxy_stats.accurracy).toBe(100)
    expect(summary.galaxy_stats.missionTime).toBeGreaterThan(2 ** 32)
    expect(parseCurrentWar(load('arrowhead/warid_current_HANDMADE.json')).data.id).toBe(801)
  })

  test('every assignment sample', () => {
    const files = sampleFiles('arrowhead', 'assignment_')
    expect(files).toHaveLength(3)
    for (const file of files) {
      const [mo] = parseAssignments(load(`arrowhead/${file}`)).data
      expect(mo?.progress.length).toBe(mo?.setting.tasks.length)
      expect(mo?.setting.reward?.id32).toBe(897894480)
    }
  })

  test('both newsfeeds, including the one without message', () => {
    const full = parseNewsFeed(load('arrowhead/newsfeed_801_default_10_items_daveydoodles97.json')).data
    const bare = parseNewsFeed(load('arrowhead/newsfeed_801_no_message_field_issue23.json')).data
    expect(full.every((n) => typeof n.message === 'string')).toBe(true)
    expect(bare.every((n) => n.message === undefined)).toBe(true)
    expect(bare.map((n) => n.id)).toEqual(full.map((n) => n.id))
  })

  test('community planets excerpt (names as locale objects, "Automaton")', () => {
    const excerpt = load('community/v1_war_planets_dispatch_EXCERPT_sebsebmc_2025.json') as { planets: unknown }
    const planets = parseCommunityPlanets(excerpt.planets).data
    expect(planets.map((p) => p.index)).toEqual([0, 1, 2, 3, 7])
    expect(typeof planets[0]?.name).toBe('object')
    expect(parseCommunityPlanets([{ ...clone(planets[0]), name: 'SUPER EARTH', currentOwner: 'Automaton' }]).data[0]?.name).toBe('SUPER EARTH')
  })

  test('pcstore shapes', () => {
    const shapes = load('steam/getnumberofcurrentplayers_shapes_HANDMADE.json') as { ok: unknown; unknown_app: unknown }
    expect(parsePcstorePlayers(shapes.ok).data.response.player_count).toBe(123456)
    expect(parsePcstorePlayers(shapes.unknown_app).data.response).toEqual({ result: 42 })
  })

  test('negative placeholder planets_stats rows parse (the service does not read planets_stats: any rows pass)', () => {
    const summary = clone(parseWarSummary(load('arrowhead/DERIVED_summary_801_from_community_excerpt.json')).data)
    const row = summary.planets_stats![0]!
    summary.planets_stats!.push({ ...row, planetIndex: -1337 }, { ...row, planetIndex: -420 }, { planetIndex: 'x' } as never)
    const parsed = parseWarSummary(summary).data
    expect(parsed.planets_stats).toHaveLength(8)
    expect(parsed.planets_stats!.slice(0, 7).map((r) => r.planetIndex)).toEqual([0, 1, 2, 3, 7, -1337, -420])
  })
})

describe('corrupted copies are rejected naming the field', () => {
  test('status: wrong type deep inside', () => {
    const status = clone(load('arrowhead/warstatus_801_2024-03-08_sector-hq.json')) as { planetStatus: { health: unknown }[] }
    status.planetStatus[3]!.health = '1000000'
    const e = rejection(parseWarStatus, status)
    expect(e.message).toBe('upstream status: /planetStatus/3/health: Expected integer')
  })

  test('status: float where an integer is required', () => {
    const status = clone(load('arrowhead/warstatus_801_2024-03-08_sector-hq.json')) as { time: number }
    status.time = 2610780.5
    expect(rejection(parseWarStatus, status).path).toBe('/time')
  })

  test('warinfo: field removed', () => {
    const info = clone(load('arrowhead/warinfo_801_2024-03-25_sector-hq.json')) as { planetInfos: Record<string, unknown>[] }
    delete info.planetInfos[10]!.position
    const e = rejection(parseWarInfo, info)
    expect(e.path).toBe('/planetInfos/10/position')
    expect(e.message).toContain('upstream warinfo: /planetInfos/10/position')
  })

  test('summary: misspelled key is the required one', () => {
    const summary = clone(load('arrowhead/DERIVED_summary_801_from_community_excerpt.json')) as { galaxy_stats: Record<string, unknown> }
    summary.galaxy_stats.accuracy = summary.galaxy_stats.accurracy
    delete summary.galaxy_stats.accurracy
    expect(rejection(parseWarSummary, summary).path).toBe('/galaxy_stats/accurracy')
  })

  test('assignment: task values of the wrong type', () => {
    const list = clone(load('arrowhead/assignment_v2_801_2025-05-09_daveydoodles97.json')) as { setting: { tasks: { values: unknown }[] } }[]
    list[0]!.setting.tasks[0]!.values = 'x'
    expect(rejection(parseAssignments, list).path).toBe('/0/setting/tasks/0/values')
  })

  test('newsfeed: published missing', () => {
    const feed = clone(load('arrowhead/newsfeed_801_default_10_items_daveydoodles97.json')) as Record<string, unknown>[]
    delete feed[4]!.published
    expect(rejection(parseNewsFeed, feed).path).toBe('/4/published')
  })

  test('community: statistics field missing', () => {
    const excerpt = clone(load('community/v1_war_planets_dispatch_EXCERPT_sebsebmc_2025.json')) as { planets: { statistics: Record<string, unknown> }[] }
    delete excerpt.planets[2]!.statistics.playerCount
    expect(rejection(parseCommunityPlanets, excerpt.planets).path).toBe('/2/statistics/playerCount')
  })

  test('pcstore: result of the wrong type', () => {
    expect(rejection(parsePcstorePlayers, { response: { result: '1', player_count: 3 } }).path).toBe('/response/result')
  })

  test('unknown fields are tolerated', () => {
    const status = clone(load('arrowhead/warstatus_801_2024-03-08_sector-hq.json')) as Record<string, unknown>
    status.somethingNew = { nested: true }
    expect(parseWarStatus(status).data.warId).toBe(801)
  })
})
