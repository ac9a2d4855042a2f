/**
 * `npm run import -- --git REPO --path 801_full_v1.json`: the community's archive
 * (sebsebmc/helldivers-history), each commit one file of the community API's merged v1
 * JSON in every language. An archive built here from the real excerpt (owners, health,
 * players, a defense, an attack line, a new dispatch, a moved supply line, a frozen war
 * clock and a capture without one) is imported, and every row is checked against what the
 * commit's JSON says: the capture time is the commit's, the war time its `war.now`, the
 * texts are stored in every language, and what the JSON cannot give is null or absent and
 * named in the summary. A second import adds nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rebuildCommunity, type CommunityFull } from '../../src/import/community.ts'
import { importCaptures, type ImportSummary } from '../../src/import/importer.ts'
import { gitSource, type SourceItem } from '../../src/import/sources.ts'
import { lookups } from '../../src/lookups.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { loadSample } from '../support/samples.ts'
import { counts, dump, gitArchive } from './support.ts'

const FILE = '801_full_v1.json'
const EXCERPT = loadSample('community/v1_war_planets_dispatch_EXCERPT_sebsebmc_2025.json') as CommunityFull & { _excerpt_note?: string }
/** The excerpt's war clock: `now` is the epoch plus the war's seconds. */
const W0 = Date.parse(EXCERPT.war.now as string) / 1000
const LANGUAGES = Object.keys(EXCERPT.dispatches![0]!.message as object)
const T0 = Date.parse('2025-04-08T12:00:00Z')
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString()
/** The community API syncs a little before the archive commits: its dates are placed by its own clock. */
const SYNC_LAG_S = 7.25

/** A community date (7 fractional digits, as .NET writes them) of war time `t`, for a capture at `capturedAt` with war clock `w`. */
const dateOf = (capturedAt: string, w: number, t: number) =>
  new Date((Date.parse(capturedAt) / 1000 - SYNC_LAG_S - w + t) * 1000).toISOString().replace('Z', '4264Z')
/** What the import makes of such a date: the war time placed by the capture time (docs: "Importing history"). */
const warTimeOf = (date: string, capturedAt: string, w: number) => Math.round((Date.parse(date) - Date.parse(capturedAt)) / 1000 + w)
const every = (text: string) => Object.fromEntries(LANGUAGES.map((l) => [l, `${text} [${l}]`]))

interface Moment {
  minutes: number
  /** War seconds after the excerpt's clock; null: the file has no `now`. */
  dt: number | null
  owner7: string
  health7: number
  players: number
  event: boolean
  eventHealth?: number
  progress: number[]
  dispatch2801?: boolean
  waypoints1?: number[]
  campaigns: { id: number; planet: number; faction: string }[]
}

const EVENT_START = W0 - 3_600
const MOMENTS: Moment[] = [
  { minutes: 0, dt: 0, owner7: 'Automaton', health7: 600_000, players: 5_000, event: false, progress: [0], campaigns: [{ id: 51_000, planet: 7, faction: 'Automaton' }] },
  {
    minutes: 10, dt: 600, owner7: 'Automaton', health7: 550_000, players: 5_300, event: true, eventHealth: 500_000, progress: [1],
    campaigns: [{ id: 51_000, planet: 7, faction: 'Automaton' }, { id: 51_001, planet: 3, faction: 'Automaton' }],
  },
  // The war clock stood still: the same tick, seen again.
  {
    minutes: 20, dt: 600, owner7: 'Automaton', health7: 550_000, players: 5_900, event: true, eventHealth: 500_000, progress: [1],
    campaigns: [{ id: 51_000, planet: 7, faction: 'Automaton' }, { id: 51_001, planet: 3, faction: 'Automaton' }],
  },
  // Planet 7 liberated; a new dispatch; a supply line of planet 1 moved.
  {
    minutes: 30, dt: 1_800, owner7: 'Humans', health7: 1_000_000, players: 4_100, event: true, eventHealth: 300_000, progress: [2],
    dispatch2801: true, waypoints1: [2], campaigns: [{ id: 51_001, planet: 3, faction: 'Automaton' }],
  },
  // No war clock: the capture cannot be keyed.
  { minutes: 40, dt: null, owner7: 'Humans', health7: 1_000_000, players: 4_000, event: true, eventHealth: 200_000, progress: [2], dispatch2801: true, waypoints1: [2], campaigns: [] },
  // The defense is over; a campaign of the Illuminate elsewhere.
  {
    minutes: 50, dt: 3_000, owner7: 'Humans', health7: 1_000_000, players: 3_800, event: false, progress: [3], dispatch2801: true, waypoints1: [2],
    campaigns: [{ id: 51_002, planet: 2, faction: 'Illuminate' }],
  },
]

/** The file of a moment: the real excerpt, changed as the moment says, with campaigns, an order and dispatches in every language. */
function communityAt(m: Moment): CommunityFull {
  const doc = structuredClone(EXCERPT)
  delete doc._excerpt_note
  const capturedAt = at(m.minutes)
  const w = W0 + (m.dt ?? 0)
  if (m.dt === null) delete doc.war.now
  else doc.war.now = new Date(w * 1000).toISOString().replace('.000Z', 'Z')
  const stats = doc.war.statistics as Record<string, number>
  for (const k of ['missionsWon', 'terminidKills', 'automatonKills', 'deaths', 'bulletsFired', 'timePlayed', 'missionTime']) stats[k]! += m.minutes * 1_000
  const planets = doc.planets as Record<string, any>[]
  planets.forEach((p, i) => (p.statistics.playerCount = i * 10 + m.minutes))
  const p7 = planets.find((p) => p.index === 7)!
  Object.assign(p7, { currentOwner: m.owner7, health: m.health7, regenPerSecond: m.owner7 === 'Humans' ? 1388.8889 : 4.1666665 })
  p7.statistics.playerCount = m.players
  p7.attacking = m.event ? [3, 3] : []
  const p3 = planets.find((p) => p.index === 3)!
  p3.event = m.event
    ? {
        id: 4_400, eventType: 1, faction: 'Automaton', health: m.eventHealth, maxHealth: 1_000_000, startTime: dateOf(capturedAt, w, EVENT_START),
        endTime: dateOf(capturedAt, w, EVENT_START + 86_400), campaignId: 51_001, jointOperationIds: [4_400],
      }
    : null
  if (m.waypoints1) planets.find((p) => p.index === 1)!.waypoints = m.waypoints1
  doc.campaigns = m.campaigns.map((c) => ({ id: c.id, planet: structuredClone(planets.find((p) => p.index === c.planet)!), type: 0, count: 2, faction: c.faction }))
  doc.assignments = [
    {
      id: 1_168_723_785, progress: m.progress, title: every('MAJOR ORDER'), briefing: every('Liberate Zea Rugosia'), description: every('Hold it'),
      tasks: [{ type: 11, values: [1, 1, 7], valueTypes: [3, 11, 12] }], reward: { type: 1, amount: 50 }, rewards: [{ type: 1, amount: 50 }],
      expiration: dateOf(capturedAt, 0, 2 * 86_400), flags: 1,
    },
  ]
  if (m.dispatch2801) {
    doc.dispatches!.push({ id: 2_801, published: dateOf(capturedAt, w, W0 + 1_500), type: 0, message: every('NEW DISPATCH\nThe bots fall back.') })
  }
  return doc
}

const DOCS = MOMENTS.map(communityAt)
const IMPORTED = MOMENTS.flatMap((m, i) => (m.dt === null ? [] : [{ m, doc: DOCS[i]!, at: at(m.minutes), w: W0 + m.dt }]))
/** The captures that wrote a tick: the frozen one is that tick seen again. */
const TICKS = IMPORTED.filter(({ m }) => m.minutes !== 20)
const LAST = IMPORTED.at(-1)!
const FACTION = { Humans: 1, Terminids: 2, Automaton: 3, Illuminate: 4 } as Record<string, number>
const iso = (d: Date | null) => d?.toISOString() ?? null

describe('rebuilding a community file', () => {
  const doc = DOCS[1]!
  const rebuilt = (d: CommunityFull, language = 'en-US') => rebuildCommunity(d, new Date(at(10)), language)

  test('the war time is war.now, the epoch plus the war seconds; a date past the war start is not the war clock', () => {
    const r = rebuilt(doc)
    expect((r.parts!.status as { time: number }).time).toBe(W0 + 600)
    expect(rebuilt({ ...doc, war: { ...doc.war, now: '2025-04-08T12:00:00Z' } }).error).toContain('not the war clock')
    expect(rebuilt({ ...doc, war: { ...doc.war, now: 'soon' } }).error).toContain('no war time')
  })

  test('texts: the primary language in the parts, every other one beside; a plain string is the primary language and a gap', () => {
    const r = rebuilt(doc, 'de-DE')
    expect(r.rebuilt!.language).toBe('de-DE')
    expect((r.parts!.newsfeed as { message: string }[])[0]!.message).toBe((EXCERPT.dispatches![0]!.message as Record<string, string>)['de-DE']!)
    expect(r.rebuilt!.languages.map((l) => l.language).sort()).toEqual(LANGUAGES.filter((l) => l !== 'de-DE').sort())
    const plain = rebuilt({ ...doc, dispatches: [{ ...doc.dispatches![0]!, message: 'ONE LANGUAGE' }] })
    expect((plain.parts!.newsfeed as { message: string }[])[0]!.message).toBe('ONE LANGUAGE')
    expect(plain.rebuilt!.gaps).toContain('texts.plain')
  })

  test('a faction the table does not know leaves its planet out of the status and says so', () => {
    const odd = structuredClone(doc)
    ;(odd.planets[0] as { currentOwner: string }).currentOwner = ''
    const r = rebuilt(odd)
    expect((r.parts!.status as { planetStatus: { index: number }[] }).planetStatus.map((p) => p.index)).toEqual([1, 2, 3, 7])
    expect(r.rebuilt!.gaps).toContain('planetStatus.owner')
  })
})

describeOnEachDatabase('importing the community archive (801_full_v1.json)', (target) => {
  let archive: ReturnType<typeof gitArchive>
  let db: TestDatabase
  let first: ImportSummary
  let hashes: string[]

  beforeAll(async () => {
    archive = gitArchive(MOMENTS.map((m, i) => ({ at: at(m.minutes), files: { [FILE]: JSON.stringify(DOCS[i], null, 2) } })))
    hashes = (await Bun.$`git -C ${archive.dir} log --reverse --format=%H`.text()).trim().split('\n')
    db = await target.open()
    first = await importCaptures({ db, source: await gitSource(archive.dir, [FILE]), warId: 801, batchSize: 2 })
  }, 60_000)
  afterAll(async () => {
    archive?.remove()
    await db?.dispose()
  })

  test('every commit is a capture at its commit time, keyed by the war clock; the one without a clock is skipped and named', async () => {
    expect(first).toMatchObject({ captures: 6, imported: 4, duplicates: 1, skipped: 1, skippedByReason: { unreadable: 1 }, from: at(0), to: at(50) })
    expect(first.skippedCaptures).toEqual([{ ref: `commit ${hashes[4]!.slice(0, 12)}`, reason: 'unreadable', detail: expect.stringContaining(`${FILE}: war.now undefined is not a date`) }])
    const ticks = await db.sql<{ war_id: number; upstream_war_time: string; captured_at: Date; last_seen_at: Date | null }[]>`
      SELECT war_id, upstream_war_time, captured_at, last_seen_at FROM full_status_ticks ORDER BY captured_at`
    expect(ticks.map((t) => [t.war_id, Number(t.upstream_war_time), iso(t.captured_at), iso(t.last_seen_at)])).toEqual([
      [801, W0, at(0), null], [801, W0 + 600, at(10), at(20)], [801, W0 + 1_800, at(30), null], [801, W0 + 3_000, at(50), null],
    ])
    // Never the community's `now` (a 1971 date) as a time of capture.
    const [early] = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM planet_status_snapshots WHERE captured_at < '2000-01-01'`
    expect(early!.n).toBe(0)
  })

  test('planet status: owner, health, regeneration and players of every planet at every tick', async () => {
    const rows = await db.sql<{ captured_at: Date; planet_index: number; owner: number; health: string; regen_per_second: number; players: number }[]>`
      SELECT captured_at, planet_index, owner, health, regen_per_second, players FROM planet_status_snapshots ORDER BY captured_at, planet_index`
    const want = TICKS.flatMap(({ doc, at: t }) =>
      (doc.planets as Record<string, any>[]).map((p) => [t, p.index, FACTION[p.currentOwner], p.health, p.regenPerSecond, p.statistics.playerCount]),
    )
    expect(rows.map((r) => [iso(r.captured_at), r.planet_index, r.owner, Number(r.health), r.regen_per_second, r.players])).toEqual(want)
    const changes = await db.sql<{ planet_index: number; captured_at: Date; from_owner: number; to_owner: number }[]>`
      SELECT planet_index, captured_at, from_owner, to_owner FROM planet_owner_changes`
    expect(changes.map((c) => [c.planet_index, iso(c.captured_at), c.from_owner, c.to_owner])).toEqual([[7, at(30), 3, 1]])
    const upstream = await db.sql<{ captured_at: Date; api_total_player_count: number; upstream_war_time: string }[]>`
      SELECT captured_at, api_total_player_count, upstream_war_time FROM player_count_snapshots WHERE source = 'upstream' ORDER BY captured_at`
    expect(upstream.map((u) => [iso(u.captured_at), u.api_total_player_count, Number(u.upstream_war_time)])).toEqual(
      TICKS.map(({ doc, at: t, w }) => [t, (doc.planets as Record<string, any>[]).reduce((s, p) => s + p.statistics.playerCount, 0), w]),
    )
  })

  test('campaigns, the defense and the attack line, as each capture lists them', async () => {
    const campaigns = await db.sql<{ captured_at: Date; campaign_id: string; planet_index: number; type: number; count: number; race: number | null }[]>`
      SELECT captured_at, campaign_id, planet_index, type, count, race FROM campaign_snapshots ORDER BY captured_at, campaign_id`
    expect<unknown>(campaigns.map((c) => [iso(c.captured_at), Number(c.campaign_id), c.planet_index, c.type, c.count, c.race])).toEqual(
      TICKS.flatMap(({ m, at: t }) => m.campaigns.map((c) => [t, c.id, c.planet, 0, 2, FACTION[c.faction]])),
    )
    const current = await db.sql<{ campaign_id: string; planet_index: number }[]>`SELECT campaign_id, planet_index FROM campaigns`
    expect(current.map((c) => [Number(c.campaign_id), c.planet_index])).toEqual([[51_002, 2]])

    const events = await db.sql<Record<string, any>[]>`
      SELECT captured_at, event_id, planet_index, event_type, race, health, max_health, start_war_time, expire_war_time, starts_at, expires_at,
             campaign_id, joint_operation_ids
      FROM planet_event_snapshots ORDER BY captured_at`
    const withEvent = TICKS.filter(({ m }) => m.event)
    expect(events.map((e) => [iso(e.captured_at), Number(e.event_id), e.planet_index, e.event_type, e.race, Number(e.health), Number(e.max_health), e.campaign_id, e.joint_operation_ids.map(Number)])).toEqual(
      withEvent.map(({ m, at: t }) => [t, 4_400, 3, 1, 3, m.eventHealth, 1_000_000, expect.anything(), [4_400]]),
    )
    events.forEach((e, i) => {
      const { doc, at: t, w } = withEvent[i]!
      const ev = (doc.planets as Record<string, any>[]).find((p) => p.index === 3)!.event
      expect(Number(e.campaign_id)).toBe(ev.campaignId)
      // War times placed by the capture time: early by the community's sync lag, never later.
      expect([Number(e.start_war_time), Number(e.expire_war_time)]).toEqual([warTimeOf(ev.startTime, t, w), warTimeOf(ev.endTime, t, w)])
      expect(Number(e.expire_war_time) - Number(e.start_war_time)).toBe(86_400)
      expect(EVENT_START - Number(e.start_war_time)).toBe(Math.round(SYNC_LAG_S))
      // The wall-clock times are the JSON's, to the second.
      expect(Math.abs(e.starts_at.getTime() - Date.parse(ev.startTime))).toBeLessThan(1_000)
      expect(Math.abs(e.expires_at.getTime() - Date.parse(ev.endTime))).toBeLessThan(1_000)
    })
    const attacks = await db.sql<{ captured_at: Date; source_index: number; target_index: number; lanes: number }[]>`
      SELECT captured_at, source_index, target_index, lanes FROM planet_attack_snapshots ORDER BY captured_at`
    expect(attacks.map((a) => [iso(a.captured_at), a.source_index, a.target_index, a.lanes])).toEqual(withEvent.map(({ at: t }) => [t, 7, 3, 2]))
    const [joint] = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM joint_operation_snapshots`
    expect(joint!.n).toBe(0)
  })

  test('war summary: the counters of war.statistics at every tick, the community renames undone', async () => {
    const rows = await db.sql<Record<string, any>[]>`SELECT * FROM war_summary_snapshots ORDER BY captured_at`
    expect(rows.length).toBe(TICKS.length)
    rows.forEach((r, i) => {
      const { doc, at: t, w } = TICKS[i]!
      const s = doc.war.statistics as Record<string, number>
      expect([iso(r.captured_at), Number(r.upstream_war_time)]).toEqual([t, w])
      expect<unknown>({
        bug_kills: Number(r.bug_kills), automaton_kills: Number(r.automaton_kills), illuminate_kills: Number(r.illuminate_kills), deaths: Number(r.deaths),
        missions_won: Number(r.missions_won), missions_lost: Number(r.missions_lost), mission_time: Number(r.mission_time), bullets_fired: Number(r.bullets_fired),
        bullets_hit: Number(r.bullets_hit), time_played: Number(r.time_played), revives: Number(r.revives), friendlies: Number(r.friendlies),
        mission_success_rate: r.mission_success_rate, accuracy: r.accuracy,
      }).toEqual({
        bug_kills: s.terminidKills, automaton_kills: s.automatonKills, illuminate_kills: s.illuminateKills, deaths: s.deaths, missions_won: s.missionsWon,
        missions_lost: s.missionsLost, mission_time: s.missionTime, bullets_fired: s.bulletsFired, bullets_hit: s.bulletsHit, time_played: s.timePlayed,
        revives: s.revives, friendlies: s.friendlies, mission_success_rate: s.missionSuccessRate, accuracy: s.accuracy,
      })
    })
  })

  test('the major order: its fields, its progress at every tick, its texts in every language; what the JSON lacks is null', async () => {
    const a = LAST.doc.assignments![0]!
    const [order] = await db.sql<Record<string, any>[]>`SELECT * FROM major_orders`
    expect(order).toMatchObject({
      war_id: 801, setting_type: null, start_war_time: null, flags: 1, title: 'MAJOR ORDER [en-US]', briefing: 'Liberate Zea Rugosia [en-US]',
      task_description: 'Hold it [en-US]', tasks: a.tasks, rewards: [{ type: 1, amount: 50 }], reward_medals: 50,
    })
    expect(Number(order!.order_id32)).toBe(a.id as number)
    expect([iso(order!.first_seen_at), iso(order!.last_seen_at)]).toEqual([at(0), at(50)])
    expect(order!.expires_in_last_seen).toBe(Math.round(Date.parse(a.expiration as string) / 1000 - Date.parse(LAST.at) / 1000))
    const progress = await db.sql<{ captured_at: Date; progress: number[] }[]>`SELECT captured_at, progress FROM major_order_progress ORDER BY captured_at`
    expect(progress.map((p) => [iso(p.captured_at), p.progress])).toEqual(TICKS.map(({ m, at: t }) => [t, m.progress]))
    const texts = await db.sql<{ lang: string; title: string; briefing: string; task_description: string }[]>`
      SELECT lang, title, briefing, task_description FROM major_order_texts ORDER BY lang`
    expect(texts.map((t) => [t.lang, t.title, t.briefing, t.task_description])).toEqual(
      [...LANGUAGES].sort().map((l) => [l, `MAJOR ORDER [${l}]`, `Liberate Zea Rugosia [${l}]`, `Hold it [${l}]`]),
    )
  })

  test('dispatches: published as the JSON dates them, the en-US text in the row, every language in dispatch_texts', async () => {
    const rows = await db.sql<{ dispatch_id: string; published_war_time: string; published_at: Date; type: number; message: string; first_seen_at: Date }[]>`
      SELECT dispatch_id, published_war_time, published_at, type, message, first_seen_at FROM dispatches ORDER BY dispatch_id`
    const firstSeen = (id: number) => IMPORTED.find(({ doc }) => doc.dispatches!.some((d) => d.id === id))!
    expect(rows.map((r) => Number(r.dispatch_id))).toEqual([2_800, 2_801])
    for (const r of rows) {
      const { doc, at: t, w } = firstSeen(Number(r.dispatch_id))
      const d = doc.dispatches!.find((x) => x.id === Number(r.dispatch_id))!
      expect([Number(r.published_war_time), r.type, r.message, iso(r.first_seen_at)]).toEqual([
        warTimeOf(d.published as string, t, w), 0, (d.message as Record<string, string>)['en-US']!, t,
      ])
      expect(Math.abs(r.published_at.getTime() - Date.parse(d.published as string))).toBeLessThan(1_000)
    }
    const texts = await db.sql<{ dispatch_id: string; lang: string; message: string }[]>`SELECT dispatch_id, lang, message FROM dispatch_texts ORDER BY dispatch_id, lang`
    expect<unknown>(texts.map((t) => [Number(t.dispatch_id), t.lang, t.message])).toEqual(
      [2_800, 2_801].flatMap((id) => {
        const d = LAST.doc.dispatches!.find((x) => x.id === id)!
        return [...LANGUAGES].sort().map((l) => [id, l, (d.message as Record<string, string>)[l]])
      }),
    )
  })

  test('war info: the war and each planet as the last capture has them, the sector id null; the current planet states the last capture\'s', async () => {
    const [war] = await db.sql<{ start_date: Date; end_date: Date; minimum_client_version: string }[]>`SELECT start_date, end_date, minimum_client_version FROM wars WHERE war_id = 801`
    expect<unknown>([iso(war!.start_date), iso(war!.end_date), war!.minimum_client_version]).toEqual([
      new Date(EXCERPT.war.started as string).toISOString(), new Date(EXCERPT.war.ended as string).toISOString(), EXCERPT.war.clientVersion,
    ])
    const planets = await db.sql<Record<string, any>[]>`
      SELECT planet_index, name, sector_name, position_x, position_y, max_health, initial_owner, disabled, settings_hash, upstream_sector_id, waypoints, updated_at
      FROM planets ORDER BY planet_index`
    expect(planets.map((p) => [p.planet_index, p.name, p.sector_name, p.position_x, p.position_y, Number(p.max_health), p.initial_owner, p.disabled, Number(p.settings_hash), p.upstream_sector_id, p.waypoints])).toEqual(
      (LAST.doc.planets as Record<string, any>[]).map((p) => [
        p.index, lookups().planets.get(p.index)!.name, p.sector, p.position.x, p.position.y, p.maxHealth, FACTION[p.initialOwner], p.disabled, p.hash, null, p.waypoints,
      ]),
    )
    // Carried by the first capture and by the one whose supply lines moved; identical ones change nothing.
    expect(planets.map((p) => [p.planet_index, iso(p.updated_at)])).toEqual([[0, at(0)], [1, at(30)], [2, at(0)], [3, at(0)], [7, at(0)]])
    const states = await db.sql<{ planet_index: number; owner: number; health: string; players: number; upstream_war_time: string }[]>`
      SELECT planet_index, owner, health, players, upstream_war_time FROM planet_war_info ORDER BY planet_index`
    expect(states.map((s) => [s.planet_index, s.owner, Number(s.health), s.players, Number(s.upstream_war_time)])).toEqual(
      (LAST.doc.planets as Record<string, any>[]).map((p) => [p.index, FACTION[p.currentOwner], p.health, p.statistics.playerCount, LAST.w]),
    )
  })

  test('the summary names what the JSON could not give, and what reading cost per capture', () => {
    const gaps = Object.fromEntries(first.notRebuilt.map((g) => [g.gap, g.captures]))
    expect(gaps).toEqual({
      'warInfo.planetInfos.sector': 5, 'status.jointOperations': 5, 'status.planetActiveEffects': 5, 'planets.statistics': 5,
      'assignments.setting.type': 5, 'assignments.reward.id32': 5, 'assignments.startTime': 5, warTimes: 5,
    })
    expect(first.notRebuilt.every((g) => g.detail.length > 0)).toBe(true)
    const { bytes, waitMs, parseMs, rebuildMs, gcMs, prepareMs, totalMs } = first.reading!
    expect(bytes).toBeGreaterThan(10_000)
    for (const ms of [waitMs, parseMs, rebuildMs, gcMs, prepareMs]) expect(ms).toBeGreaterThanOrEqual(0)
    expect(totalMs).toBeCloseTo(waitMs + parseMs + rebuildMs + gcMs + prepareMs, 2)
  })

  test('a second import of the archive adds nothing', async () => {
    const before = await dump(db)
    const again = await importCaptures({ db, source: await gitSource(archive.dir, [FILE]), warId: 801, batchSize: 4 })
    expect(again).toMatchObject({ captures: 6, imported: 0, duplicates: 5, skipped: 1, rows: {} })
    const after = await dump(db)
    expect(counts(after)).toEqual(counts(before))
    expect(after).toEqual(before)
  })
})

describe('the git source reads a community archive as captures', () => {
  test('each commit one whole capture: every part, the texts of every other language beside', async () => {
    const archive = gitArchive(MOMENTS.slice(0, 2).map((m, i) => ({ at: at(m.minutes), files: { [FILE]: JSON.stringify(DOCS[i]) } })))
    try {
      const source = await gitSource(archive.dir, [FILE], { language: 'fr-FR' })
      const items: SourceItem[] = []
      for await (const item of source.items()) items.push(item)
      await source.close()
      // The war info goes with the first capture and the last (it did not change between them).
      expect(items.map((i) => Object.keys(i.capture!.parts).sort())).toEqual([
        ['assignments', 'newsfeed', 'status', 'summary', 'warInfo'], ['assignments', 'newsfeed', 'status', 'summary', 'warInfo'],
      ])
      expect(items[0]!.capture!.rebuilt).toMatchObject({ from: 'community', language: 'fr-FR' })
      expect(items[0]!.capture!.rebuilt!.languages.map((l) => l.language)).toEqual(LANGUAGES.filter((l) => l !== 'fr-FR'))
      expect(items[0]!.capture!.capturedAt.toISOString()).toBe(at(0))
      expect(source.cost!()).toMatchObject({ bytes: expect.any(Number), parseMs: expect.any(Number), rebuildMs: expect.any(Number) })
    } finally {
      archive.remove()
    }
  })

  test('unchanged war info is not carried again between the first and the last capture', async () => {
    // The first three moments: players and health move, the war info stays.
    const archive = gitArchive([0, 1, 2].map((i) => ({ at: at(MOMENTS[i]!.minutes), files: { [FILE]: JSON.stringify(DOCS[i]) } })))
    try {
      const source = await gitSource(archive.dir, [FILE])
      const infos: boolean[] = []
      for await (const item of source.items()) infos.push(item.capture!.parts.warInfo !== undefined)
      expect(infos).toEqual([true, false, true])
    } finally {
      archive.remove()
    }
  })
})
