/**
 * The community API's merged v1 JSON as the upstream payloads it was made from: the public
 * archive sebsebmc/helldivers-history keeps, in `801_full_v1.json` at each commit,
 * api.helldivers2.dev's `/api/v1/{war,planets,campaigns,assignments,dispatches}` fetched
 * with `Accept-Language: ivl-IV` (every text an object of languages) and combined into one
 * object. The community maps the upstream payloads one way (helldivers-2/api,
 * `src/Helldivers-2-Core/Mapping/V1/*`; this service's own rendering is
 * sim/community-view.ts); this file maps them back.
 *
 * What the JSON does not hold is left out or null, never made up: each rebuilt capture
 * names its gaps (`GAPS`), and the import summary counts them. Mapping, field by field:
 * docs/operations.md "Importing history".
 */
import { Type } from '@sinclair/typebox'
import { compileParser } from '../feeds/schema.ts'
import { AssignmentSchema, PlanetInfoSchema, WarInfoSchema } from '../feeds/upstream.ts'
import { lookups } from '../lookups.ts'

/** The archive's file: the community's war, planets, campaigns, assignments and dispatches. */
export function isCommunityFull(value: unknown): value is CommunityFull {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const v = value as Record<string, unknown>
  return v.war !== null && typeof v.war === 'object' && !Array.isArray(v.war) && Array.isArray(v.planets)
}

/** The fields read (the community models V1/War, Planet, Campaign, Assignment, Dispatch); values unchecked until rebuilt. */
export interface CommunityFull {
  war: {
    started?: unknown
    ended?: unknown
    /** `UnixEpoch + status.time` (WarMapper): the war clock written as a 1970s date. */
    now?: unknown
    clientVersion?: unknown
    impactMultiplier?: unknown
    statistics?: Record<string, unknown>
  }
  planets: CommunityPlanet[]
  campaigns?: { id?: unknown; planet?: { index?: unknown }; type?: unknown; count?: unknown; faction?: unknown }[]
  assignments?: CommunityAssignment[]
  dispatches?: { id?: unknown; published?: unknown; type?: unknown; message?: unknown }[]
}

interface CommunityPlanet {
  index?: unknown
  hash?: unknown
  position?: unknown
  waypoints?: unknown
  maxHealth?: unknown
  health?: unknown
  disabled?: unknown
  initialOwner?: unknown
  currentOwner?: unknown
  regenPerSecond?: unknown
  event?: {
    id?: unknown
    eventType?: unknown
    faction?: unknown
    health?: unknown
    maxHealth?: unknown
    startTime?: unknown
    endTime?: unknown
    campaignId?: unknown
    jointOperationIds?: unknown
  } | null
  statistics?: { playerCount?: unknown }
  attacking?: unknown
  regions?: { id?: unknown; hash?: unknown; maxHealth?: unknown; size?: unknown }[]
}

interface CommunityAssignment {
  id?: unknown
  progress?: unknown
  title?: unknown
  briefing?: unknown
  description?: unknown
  tasks?: unknown
  reward?: unknown
  rewards?: unknown
  expiration?: unknown
  flags?: unknown
}

/**
 * What a rebuilt capture cannot give, by key, in words for the summary. The first ones hold
 * for every capture of the format; the others are counted where they occur.
 */
export const GAPS = {
  'warInfo.planetInfos.sector': 'the upstream sector id (the JSON names the sector instead): planets.upstream_sector_id stored as null',
  'status.jointOperations': 'joint operations (the events list their ids, not their HQ node): none stored',
  'status.planetActiveEffects': 'galactic effects on planets: not in the JSON, none stored for these ticks',
  'planets.statistics': "per-planet statistics (the planet-stats collector's data): not imported; playerCount is the planets' players",
  'assignments.setting.type': 'the major order setting type: major_orders.setting_type stored as null',
  'assignments.reward.id32': 'the reward item id32: rewards stored as {type, amount}',
  'assignments.startTime': 'the war time a major order started: major_orders.start_war_time stored as null',
  warTimes:
    "approximate: events' start/expiry and dispatches' publication war times, and the orders' expiresIn, rebuilt from the JSON's dates " +
    'against the capture time (early by the time between the community sync and the commit; the wall-clock times are as the JSON says)',
  'planetStatus.owner': 'a planet whose currentOwner is no known faction: left out of the status (and its war info state)',
  'planetInfos.initialOwner': "a planet whose initialOwner is no known faction: left out of the war info",
  'planetEvents.faction': 'an event whose faction is no known faction: left out',
  'texts.primary': 'an order or dispatch without a text in the primary language: order texts stored as "", dispatch message null',
  'texts.plain': "a text given as one string (not fetched with ivl-IV): taken as the primary language's",
} as const
export type Gap = keyof typeof GAPS

/** A capture rebuilt from another shape: what the importer needs beyond its parts. */
export interface Rebuilt {
  from: 'community'
  /** The language of the parts' texts (assignments, newsfeed): the import's primary. */
  language: string
  /** Every other language's assignments and newsfeed, upstream-shaped and unchecked, as the live collector fetches them. */
  languages: { language: string; assignments?: unknown; newsfeed?: unknown }[]
  gaps: readonly Gap[]
}

/** The parts rebuilt from one file, or why it cannot be: `war.now` is what keys the tick. */
export type RebuiltParts = { parts: Record<string, unknown>; rebuilt: Rebuilt; error?: undefined } | { error: string; parts?: undefined; rebuilt?: undefined }

// The upstream schemas with the fields the JSON cannot give made nullable: null reaches
// the rows as null (the collectors' map copies it), never a made-up value. A raw upstream
// payload is still checked by the strict schemas.
const RebuiltPlanetInfoSchema = Type.Object({ ...PlanetInfoSchema.properties, sector: Type.Union([Type.Integer(), Type.Null()]) })
const RebuiltAssignmentSchema = Type.Object({
  ...AssignmentSchema.properties,
  setting: Type.Object({ ...AssignmentSchema.properties.setting.properties, type: Type.Union([Type.Integer(), Type.Null()]) }),
})
export const parseRebuiltWarInfo = compileParser(Type.Object({ ...WarInfoSchema.properties, planetInfos: Type.Array(RebuiltPlanetInfoSchema) }), 'war info rebuilt from community JSON')
export const parseRebuiltAssignments = compileParser(Type.Array(RebuiltAssignmentSchema), 'assignments rebuilt from community JSON')

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/

/** Seconds since the epoch of an ISO-8601 date (the community writes up to 7 fractional digits); undefined when it is none. */
function isoSeconds(v: unknown): number | undefined {
  if (typeof v !== 'string' || !ISO.test(v)) return undefined
  const ms = Date.parse(v)
  return Number.isNaN(ms) ? undefined : ms / 1000
}

let factionIds: Map<string, number> | null = null
/** The faction id of a community faction name (factions.json, as the community maps them); undefined for "" or an unknown name. */
function factionId(name: unknown): number | undefined {
  factionIds ??= new Map([...lookups().factions].map(([id, n]) => [n, id]))
  return typeof name === 'string' ? factionIds.get(name) : undefined
}

/** The community's RegionSize enum, serialized as its name or its number. */
const REGION_SIZES = ['Settlement', 'Town', 'City', 'MegaCity']
const regionSize = (v: unknown) => (typeof v === 'string' && REGION_SIZES.includes(v) ? REGION_SIZES.indexOf(v) : v)

/**
 * A localized text: under ivl-IV an object {language: text}; a plain string when fetched
 * otherwise (taken as the primary's, a gap); null when the community had none.
 */
function texts(v: unknown, primary: string, gaps: Set<Gap>): Record<string, unknown> | null {
  if (typeof v === 'string') {
    gaps.add('texts.plain')
    return { [primary]: v }
  }
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null
}

const textIn = (t: Record<string, unknown> | null, language: string) => (typeof t?.[language] === 'string' ? (t[language] as string) : undefined)

/**
 * The upstream payloads of one community file captured at `at`, texts in `language`:
 * - status: `time` from `war.now` (the war clock, exact: two captures of one state share
 *   it, a later state has a later one); planetStatus from each planet's currentOwner,
 *   health, regenPerSecond and statistics.playerCount; planetAttacks from `attacking`
 *   (a lane per entry); campaigns; planetEvents from each planet's `event`;
 * - war info: started, ended, clientVersion and each planet's hash, position, waypoints,
 *   maxHealth, disabled, initialOwner and regions;
 * - summary: war.statistics, the community's renames undone;
 * - assignments and newsfeed in `language`, and in every other language in `languages`.
 * War times the JSON only gives as dates are placed by the capture time (`warTimes`).
 */
export function rebuildCommunity(doc: CommunityFull, at: Date, language: string): RebuiltParts {
  const { war } = doc
  const now = isoSeconds(war.now)
  const started = isoSeconds(war.started)
  if (now === undefined) return { error: `war.now ${JSON.stringify(war.now)} is not a date: no war time to key the capture's tick by` }
  // The war clock reads as a date before the war's start; a wall-clock `now` would not.
  if (!Number.isInteger(now) || now < 0 || (started !== undefined && now >= started)) {
    return { error: `war.now ${JSON.stringify(war.now)} is not the war clock (epoch + war seconds): no war time to key the capture's tick by` }
  }
  const time = now
  const atS = at.getTime() / 1000
  // A date the community placed as relativeGameStart + t, t war seconds: relativeGameStart
  // is its sync time minus the status time, taken here as the capture time minus it.
  const warTimeOf = (iso: unknown) => {
    const s = isoSeconds(iso)
    return s === undefined ? undefined : Math.round(s - atS + time)
  }
  const gaps = new Set<Gap>(['warInfo.planetInfos.sector', 'status.jointOperations', 'status.planetActiveEffects', 'planets.statistics'])

  const planetStatus: unknown[] = []
  const planetAttacks: { source: unknown; target: unknown }[] = []
  const planetEvents: unknown[] = []
  const planetInfos: unknown[] = []
  const planetRegions: unknown[] = []
  for (const p of doc.planets) {
    const owner = factionId(p.currentOwner)
    if (owner === undefined) gaps.add('planetStatus.owner')
    else planetStatus.push({ index: p.index, owner, health: p.health, regenPerSecond: p.regenPerSecond, players: p.statistics?.playerCount })
    // The community keeps one entry per lane (planetAttacks' repeated pairs).
    if (Array.isArray(p.attacking)) for (const target of p.attacking) planetAttacks.push({ source: p.index, target })
    const e = p.event
    if (e) {
      const race = factionId(e.faction)
      if (race === undefined) gaps.add('planetEvents.faction')
      else {
        gaps.add('warTimes')
        planetEvents.push({
          id: e.id, planetIndex: p.index, eventType: e.eventType, race, health: e.health, maxHealth: e.maxHealth,
          startTime: warTimeOf(e.startTime), expireTime: warTimeOf(e.endTime), campaignId: e.campaignId, jointOperationIds: e.jointOperationIds,
        })
      }
    }
    const initialOwner = factionId(p.initialOwner)
    if (initialOwner === undefined) gaps.add('planetInfos.initialOwner')
    else {
      planetInfos.push({
        index: p.index, settingsHash: p.hash, position: p.position, waypoints: p.waypoints, sector: null, maxHealth: p.maxHealth, disabled: p.disabled, initialOwner,
      })
    }
    if (Array.isArray(p.regions)) {
      for (const r of p.regions) planetRegions.push({ planetIndex: p.index, regionIndex: r.id, settingsHash: r.hash, maxHealth: r.maxHealth, regionSize: regionSize(r.size) })
    }
  }

  const status: Record<string, unknown> = {
    time,
    impactMultiplier: war.impactMultiplier,
    planetStatus,
    planetAttacks,
    // Absent key, absent campaigns: the schema says so (the capture is skipped, not emptied).
    campaigns: doc.campaigns?.map((c) => {
      const race = factionId(c.faction)
      return { id: c.id, planetIndex: c.planet?.index, type: c.type, count: c.count, ...(race === undefined ? {} : { race }) }
    }),
    planetEvents,
  }
  const warInfo: Record<string, unknown> = {
    startDate: started === undefined ? war.started : Math.round(started),
    endDate: ((s) => (s === undefined ? war.ended : Math.round(s)))(isoSeconds(war.ended)),
    minimumClientVersion: war.clientVersion,
    planetInfos,
    ...(planetRegions.length ? { planetRegions } : {}),
  }
  const parts: Record<string, unknown> = { status, warInfo }

  const stats = war.statistics
  if (stats && typeof stats === 'object') {
    const { terminidKills, accuracy, playerCount: _players, ...rest } = stats
    parts.summary = { galaxy_stats: { ...rest, bugKills: terminidKills, accurracy: accuracy } }
  }

  // Texts: every language any order or dispatch has, the primary's in the parts.
  const orders = (doc.assignments ?? []).map((a) => ({ a, title: texts(a.title, language, gaps), briefing: texts(a.briefing, language, gaps), description: texts(a.description, language, gaps) }))
  const news = (doc.dispatches ?? []).map((d) => ({ d, message: texts(d.message, language, gaps), published: warTimeOf(d.published) }))
  const languages: string[] = []
  const seen = new Set<string>([language])
  const note = (t: Record<string, unknown> | null) => {
    if (t) for (const l of Object.keys(t)) if (!seen.has(l)) (seen.add(l), languages.push(l))
  }
  for (const o of orders) (note(o.title), note(o.briefing), note(o.description))
  for (const n of news) note(n.message)

  const order = (o: (typeof orders)[number], l: string) => ({
    id32: o.a.id,
    progress: o.a.progress,
    expiresIn: ((s) => (s === undefined ? undefined : Math.round(s - atS)))(isoSeconds(o.a.expiration)),
    setting: {
      type: null,
      overrideTitle: textIn(o.title, l) ?? '',
      overrideBrief: textIn(o.briefing, l) ?? '',
      taskDescription: textIn(o.description, l) ?? '',
      tasks: o.a.tasks,
      ...(o.a.reward === undefined || o.a.reward === null ? {} : { reward: o.a.reward }),
      ...(o.a.rewards === undefined ? {} : { rewards: o.a.rewards }),
      flags: o.a.flags,
    },
  })
  const hasIn = (o: (typeof orders)[number], l: string) => [o.title, o.briefing, o.description].some((t) => textIn(t, l) !== undefined)
  const item = (n: (typeof news)[number], l: string) => {
    const message = textIn(n.message, l)
    return { id: n.d.id, published: n.published, type: n.d.type, ...(message === undefined ? {} : { message }) }
  }
  if (doc.assignments) {
    parts.assignments = orders.map((o) => order(o, language))
    if (orders.length) (gaps.add('assignments.setting.type'), gaps.add('assignments.reward.id32'), gaps.add('assignments.startTime'), gaps.add('warTimes'))
    if (orders.some((o) => !hasIn(o, language))) gaps.add('texts.primary')
  }
  if (doc.dispatches) {
    parts.newsfeed = news.map((n) => item(n, language))
    if (news.length) gaps.add('warTimes')
    if (news.some((n) => textIn(n.message, language) === undefined)) gaps.add('texts.primary')
  }
  return {
    parts,
    rebuilt: {
      from: 'community',
      language,
      languages: languages.map((l) => ({
        language: l,
        ...(doc.assignments ? { assignments: orders.filter((o) => hasIn(o, l)).map((o) => order(o, l)) } : {}),
        ...(doc.dispatches ? { newsfeed: news.filter((n) => textIn(n.message, l) !== undefined).map((n) => item(n, l)) } : {}),
      })),
      gaps: [...gaps],
    },
  }
}

/** Captures in a row that carry a dispatch (as it is): one of them skipped does not lose it. */
const CARRIED_TIMES = 3

/**
 * Rebuilds the files of one archive in order, carrying from one to the next what the
 * rows need once only:
 * - the war info changes seldom (waypoints, a planet's position), yet the file repeats it
 *   at every commit: it goes with the first capture, with each whose war info differs from
 *   the one before, and with the last (whose planet states are then the current ones); an
 *   identical war info written again would change no row;
 * - the dispatches are the whole feed at every commit (hundreds, each in every language),
 *   and a dispatch and its texts are stored at their first sighting only: a dispatch goes
 *   with the first CARRIED_TIMES captures that list it, or list it with another type or
 *   text, so that a capture skipped (a schema or write failure) does not lose it. Its
 *   `published` date is not compared: the community places it anew at each sync.
 * A capture that cannot be rebuilt leaves this state as it was.
 */
export function communityReader(language: string) {
  let lastInfo: string[] | null = null
  // What a planet gives the war info, by the planet's object: an element of the file that did
  // not change is the object of the commit before (incremental.ts), so it is written out once.
  const infoOf = new WeakMap<object, string>()
  const planetInfo = (p: CommunityPlanet) => {
    let info = infoOf.get(p)
    if (info === undefined) {
      const regions = Array.isArray(p.regions) ? p.regions.map((r) => [r.id, r.hash, r.maxHealth, r.size]) : null
      info = JSON.stringify([p.index, p.hash, p.position, p.waypoints, p.maxHealth, p.disabled, p.initialOwner, regions])
      infoOf.set(p, info)
    }
    return info
  }
  const carried = new Map<unknown, { type: unknown; message: unknown; times: number }>()
  const sameText = (a: unknown, b: unknown) => {
    if (a === b) return true
    if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
    const ka = Object.keys(a)
    if (ka.length !== Object.keys(b).length) return false
    return ka.every((k) => (a as Record<string, unknown>)[k] === (b as Record<string, unknown>)[k])
  }
  return (doc: CommunityFull, at: Date, last: boolean): RebuiltParts => {
    const fresh = (d: NonNullable<CommunityFull['dispatches']>[number]) => {
      const known = carried.get(d.id)
      return known && known.type === d.type && sameText(known.message, d.message) ? known.times < CARRIED_TIMES : true
    }
    const dispatches = doc.dispatches?.filter(fresh)
    const r = rebuildCommunity(dispatches === undefined ? doc : { ...doc, dispatches }, at, language)
    if (r.error !== undefined) return r
    for (const d of dispatches ?? []) {
      const known = carried.get(d.id)
      const same = known && known.type === d.type && sameText(known.message, d.message)
      carried.set(d.id, { type: d.type, message: d.message, times: same ? known.times + 1 : 1 })
    }
    // The war info is made of these fields alone (rebuildCommunity).
    const info = [JSON.stringify([doc.war.started, doc.war.ended, doc.war.clientVersion]), ...doc.planets.map(planetInfo)]
    if (!last && lastInfo && info.length === lastInfo.length && info.every((x, i) => x === lastInfo![i])) delete r.parts.warInfo
    lastInfo = info
    return r
  }
}
