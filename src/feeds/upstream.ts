/**
 * The game operator's live API ("upstream"): its payloads (field notes:
 * shared/spec/upstream-feeds.md) and its client, cached and throttled per endpoint by the
 * spec's rule. Plain fields are read by the service (required, checked); `Unread` ones
 * are documented for the simulator and for drift reports, never checked.
 * Integers are JS numbers: counters exceed 2^32 but stay far below 2^53.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { FetchLike } from './http.ts'
import { fetchJson } from './http.ts'
import { compileParser, UnknownFields, Unread, type Parsed, type Parser, type UnknownFieldCount } from './schema.ts'
import { RequestCounts, THROTTLE_CONFIG, ThrottledEndpoint, type EndpointStats, type Fetched, type GetOptions, type RequestStats } from './throttle.ts'
import {
  GlobalEventSchema,
  GlobalResourceSchema,
  parseGalacticWarEffects,
  parseSpaceStation,
  PlanetRegionInfoSchema,
  PlanetRegionStatusSchema,
  SpaceStationStatusSchema,
  type GalacticWarEffect,
  type SpaceStation,
} from './upstream-2025.ts'

export { GlobalEventSchema, type GlobalEvent } from './upstream-2025.ts'

const Int = Type.Integer()
const Num = Type.Number()
const IntArray = Type.Array(Int)
const Position = Type.Object({ x: Num, y: Num })

// ---------------------------------------------------------------- WarSeason/current/WarID

// A war id names every URL the collectors fetch and every row they write: only a valid one moves collection.
export const CurrentWarSchema = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) })

// ---------------------------------------------------------------- WarSeason/{id}/Status

export const PlanetStatusSchema = Type.Object({
  index: Int,
  /** Faction id: 1 Humans, 2 Terminids, 3 Automatons, 4 Illuminate. */
  owner: Int,
  health: Int,
  regenPerSecond: Num,
  players: Int,
  /** Where the planet is now (2025+): some planets move, WarInfo keeps where they started. */
  position: Unread(Position, true),
})

export const CampaignSchema = Type.Object({
  id: Int,
  planetIndex: Int,
  type: Int,
  count: Int,
  /** Absent in 2024 captures, present later. */
  race: Type.Optional(Int),
})

export const PlanetEventSchema = Type.Object({
  id: Int,
  planetIndex: Int,
  eventType: Int,
  race: Int,
  health: Int,
  maxHealth: Int,
  /** War time, like expireTime. */
  startTime: Int,
  expireTime: Int,
  campaignId: Int,
  jointOperationIds: IntArray,
  potentialBuildUp: Type.Optional(Int),
  /** The global resource the event draws on (2025+; globalResources[].id32). */
  globalResourceId: Unread(Int, true),
})

export const WarStatusSchema = Type.Object({
  warId: Unread(Int),
  /** War time (seconds since war start, multiple of 10); not wall-clock. */
  time: Int,
  impactMultiplier: Unread(Num),
  storyBeatId32: Unread(Int, true),
  planetStatus: Type.Array(PlanetStatusSchema),
  /** Absent from a payload: no attack lines at that tick (likewise the events and joint operations). */
  planetAttacks: Type.Optional(Type.Array(Type.Object({ source: Int, target: Int }))),
  campaigns: Type.Array(CampaignSchema),
  communityTargets: Unread(Type.Array(Type.Unknown()), true),
  jointOperations: Type.Optional(Type.Array(Type.Object({ id: Int, planetIndex: Int, hqNodeIndex: Int }))),
  planetEvents: Type.Optional(Type.Array(PlanetEventSchema)),
  /** Galactic effects active on planets (`[]` in 2024, populated later); absent: none at that tick. */
  planetActiveEffects: Type.Optional(Type.Array(Type.Object({ index: Int, galacticEffectId: Int }))),
  activeElectionPolicyEffects: Unread(Type.Array(Type.Unknown()), true),
  globalEvents: Unread(Type.Array(GlobalEventSchema)),
  superEarthWarResults: Unread(Type.Array(Type.Unknown()), true),
  // The 2025+ surfaces (feeds/upstream-2025.ts), not stored yet: typed, never checked.
  /** The planets' regions in play at this tick. */
  planetRegions: Unread(Type.Array(PlanetRegionStatusSchema), true),
  spaceStations: Unread(Type.Array(SpaceStationStatusSchema), true),
  globalResources: Unread(Type.Array(GlobalResourceSchema), true),
  layoutVersion: Unread(Int, true),
})
export type PlanetStatus = Static<typeof PlanetStatusSchema>
export type Campaign = Static<typeof CampaignSchema>
export type PlanetEvent = Static<typeof PlanetEventSchema>
export type WarStatus = Static<typeof WarStatusSchema>

// ---------------------------------------------------------------- WarSeason/{id}/WarInfo

export const PlanetInfoSchema = Type.Object({
  index: Int,
  settingsHash: Int,
  position: Position,
  /** Supply lines, each stored on one end only. */
  waypoints: IntArray,
  /** Upstream sector id; does not map 1:1 onto community sector names. */
  sector: Int,
  maxHealth: Int,
  disabled: Type.Boolean(),
  initialOwner: Int,
})

export const WarInfoSchema = Type.Object({
  warId: Unread(Int),
  /** Unix seconds (the only wall-clock times in the upstream feed). */
  startDate: Int,
  endDate: Int,
  minimumClientVersion: Type.Optional(Type.String()),
  planetInfos: Type.Array(PlanetInfoSchema),
  homeWorlds: Unread(Type.Array(Type.Object({ race: Int, planetIndices: IntArray }))),
  capitalInfos: Unread(Type.Array(Type.Unknown()), true),
  planetPermanentEffects: Unread(Type.Array(Type.Unknown()), true),
  layoutVersion: Unread(Int, true),
  /** The planets' regions (cities, 2025+): settingsHash is the key of the region table (planetRegion.json); absent: none listed. */
  planetRegions: Type.Optional(Type.Array(PlanetRegionInfoSchema)),
})
export type WarInfo = Static<typeof WarInfoSchema>

// ---------------------------------------------------------------- Stats/War/{id}/Summary

/** The statistics counters as the upstream names them (the community feed mirrors them, feeds/community.ts). */
export const STAT_COUNTERS = {
  missionsWon: Int,
  missionsLost: Int,
  /** Equal to timePlayed in every capture. */
  missionTime: Int,
  bugKills: Int,
  automatonKills: Int,
  illuminateKills: Int,
  bulletsFired: Int,
  /** Exceeds bulletsFired galaxy-wide (upstream quirk). */
  bulletsHit: Int,
  timePlayed: Int,
  deaths: Int,
  /** Stuck at 2 galaxy-wide (broken upstream counter). */
  revives: Int,
  friendlies: Int,
  missionSuccessRate: Int,
  /** Upstream spelling; percent clamped to 100. */
  accurracy: Int,
}

export const GalaxyStatsSchema = Type.Object(STAT_COUNTERS)
export const PlanetStatsSchema = Type.Object({
  /** May be a negative placeholder (-1337, -420). */
  planetIndex: Int,
  ...STAT_COUNTERS,
})
export const WarSummarySchema = Type.Object({
  galaxy_stats: GalaxyStatsSchema,
  /** The per-planet statistics the service stores come from the community feed instead. */
  planets_stats: Unread(Type.Array(PlanetStatsSchema)),
})
export type GalaxyStats = Static<typeof GalaxyStatsSchema>
export type PlanetStats = Static<typeof PlanetStatsSchema>
export type WarSummary = Static<typeof WarSummarySchema>

/** The model's name of each galaxy counter the summary spells otherwise. */
export const GALAXY_COUNTER_NAMES = { accuracy: 'accurracy' } as const

// ---------------------------------------------------------------- v2/Assignment/War/{id}

export const RewardSchema = Type.Object({ type: Int, id32: Type.Optional(Int), amount: Int })
export const TaskSchema = Type.Object({ type: Int, values: IntArray, valueTypes: IntArray })
export const AssignmentSchema = Type.Object({
  id32: Int,
  /** One entry per task. */
  progress: IntArray,
  /** Seconds from the response until expiry. */
  expiresIn: Int,
  /** War time; only in newer payloads. */
  startTime: Type.Optional(Int),
  setting: Type.Object({
    type: Int,
    overrideTitle: Type.String(),
    overrideBrief: Type.String(),
    taskDescription: Type.String(),
    tasks: Type.Array(TaskSchema),
    reward: Type.Optional(RewardSchema),
    /** The community model allows null entries. */
    rewards: Type.Optional(Type.Array(Type.Union([RewardSchema, Type.Null()]))),
    flags: Int,
  }),
})
export const AssignmentListSchema = Type.Array(AssignmentSchema)
export type Reward = Static<typeof RewardSchema>
export type Task = Static<typeof TaskSchema>
export type Assignment = Static<typeof AssignmentSchema>

// ---------------------------------------------------------------- NewsFeed/{id}

export const NewsItemSchema = Type.Object({
  id: Int,
  /** War time, not unix. */
  published: Int,
  type: Int,
  tagIds: Unread(Type.Array(Type.Unknown())),
  /** Absent when the request carried no usable language. */
  message: Type.Optional(Type.String()),
})
export const NewsFeedSchema = Type.Array(NewsItemSchema)
export type NewsItem = Static<typeof NewsItemSchema>

// ---------------------------------------------------------------- parsers

export const parseCurrentWar = compileParser(CurrentWarSchema, 'upstream warid')
export const parseWarStatus = compileParser(WarStatusSchema, 'upstream status')
export const parseWarInfo = compileParser(WarInfoSchema, 'upstream warinfo')
export const parseWarSummary = compileParser(WarSummarySchema, 'upstream summary')
export const parseAssignments = compileParser(AssignmentListSchema, 'upstream assignment')
export const parseNewsFeed = compileParser(NewsFeedSchema, 'upstream newsfeed')

// ---------------------------------------------------------------- client

/** The five cached upstream endpoints, in the order the health snapshot lists them. */
export const UPSTREAM_ENDPOINTS = ['status', 'summary', 'assignment', 'newsfeed', 'warinfo'] as const
export type UpstreamEndpoint = (typeof UPSTREAM_ENDPOINTS)[number]
/**
 * The cached endpoints of the 2025+ surfaces (feeds/upstream-2025.ts): counted in
 * `requestStats` (/metrics) but not in the snapshot, whose endpoint list the spec fixes.
 */
export const UPSTREAM_2025_ENDPOINTS = ['spacestation', 'galacticwareffects'] as const
/** The endpoints whose texts (titles, briefings, messages) come in the language of the request. */
export const LOCALIZED_ENDPOINTS = ['assignment', 'newsfeed'] as const
export type LocalizedEndpoint = (typeof LOCALIZED_ENDPOINTS)[number]

export interface UpstreamClientOptions {
  /** Including the `/api` part, e.g. https://api.live.prod.thehelldiversgame.com/api */
  baseUrl: string
  timeoutMs: number
  userAgent: string
  /**
   * Accept-Language values, the primary first (default `['en-US']`). Every request carries
   * the primary: without a language texts come back in a random language or not at all.
   * Assignments and the newsfeed can also be asked in the others, each language with its
   * own cache entries.
   */
  languages?: readonly string[]
  now?: () => number
  fetch?: FetchLike
  /** Called once per endpoint and top-level field the first time a payload carries a field its schema does not declare (main.ts logs it). */
  onUnknownField?: (seen: { feed: string; endpoint: string; field: string }) => void
}

/** A cache entry's counters; the entries of a language other than the primary name it. */
export type SnapshotEntry = EndpointStats<UpstreamEndpoint> & { language?: string }

export interface ThrottleSnapshot {
  config: { initialTtlS: number; backoffStepS: number; maxTtlS: number }
  endpoints: SnapshotEntry[]
}

interface LocalizedEntries {
  assignment: ThrottledEndpoint<Assignment[], 'assignment'>
  newsfeed: ThrottledEndpoint<NewsItem[], 'newsfeed'>
}

export interface LanguageOptions extends GetOptions {
  /** One of the client's languages; default the primary. */
  language?: string
}

export interface UpstreamClient {
  /** Primary first. */
  readonly languages: readonly string[]
  status(warId: number, opts?: GetOptions): Promise<Fetched<WarStatus>>
  /** The status answer when the cache holds a fresh one, without a request; else undefined. */
  freshStatus(warId: number): Fetched<WarStatus> | undefined
  /** The same for the war summary (the live /war-stats route). */
  freshSummary(warId: number): Fetched<WarSummary> | undefined
  warInfo(warId: number, opts?: GetOptions): Promise<Fetched<WarInfo>>
  summary(warId: number, opts?: GetOptions): Promise<Fetched<WarSummary>>
  assignments(warId: number, opts?: LanguageOptions): Promise<Fetched<Assignment[]>>
  newsfeed(warId: number, opts?: LanguageOptions): Promise<Fetched<NewsItem[]>>
  /** A space station's tactical actions and election (`GET /SpaceStation/{war}/{id32}`; id32: DEMOCRACY_SPACE_STATION). */
  spaceStation(warId: number, id32: number, opts?: GetOptions): Promise<Fetched<SpaceStation>>
  /** The galactic war effects' definitions (`GET /WarSeason/GalacticWarEffects`; not per war). */
  galacticWarEffects(opts?: GetOptions): Promise<Fetched<GalacticWarEffect[]>>
  /**
   * Uncached and not in the snapshot (whose endpoint list the spec fixes). The schedule
   * asks at start-up, once a minute and before planet-stats; CurrentWar keeps it to one
   * request at a time.
   */
  currentWarId(): Promise<number>
  snapshot(): ThrottleSnapshot
  /** Moves whenever `snapshot()` would change (a sum of its counters, see ThrottledEndpoint.changes). */
  snapshotVersion(): number
  /** Every endpoint's calls by outcome and TTL, the current-war one included (/metrics). */
  requestStats(): RequestStats[]
  /** Payloads that carried a top-level field their schema does not declare, per endpoint and field (/metrics). */
  unknownFields(): UnknownFieldCount[]
}

export function createUpstreamClient(opts: UpstreamClientOptions): UpstreamClient {
  const base = opts.baseUrl.replace(/\/+$/, '')
  const now = opts.now ?? Date.now
  const languages = opts.languages?.length ? [...opts.languages] : ['en-US']
  const primary = languages[0]!
  const headersOf = (language: string) => ({ Accept: 'application/json', 'Accept-Language': language, 'User-Agent': opts.userAgent })
  const unknownFields = new UnknownFields('upstream', opts.onUnknownField)
  const get = <T>(endpoint: string, path: string, parse: Parser<T>, language = primary): Promise<Parsed<T>> =>
    fetchJson({ feed: 'upstream', endpoint, url: base + path, headers: headersOf(language), timeoutMs: opts.timeoutMs, parse, fetch: opts.fetch }).then((parsed) => {
      unknownFields.note(endpoint, parsed.drift)
      return parsed
    })

  const throttled = {
    status: new ThrottledEndpoint<WarStatus, 'status'>('status', now),
    summary: new ThrottledEndpoint<WarSummary, 'summary'>('summary', now),
    assignment: new ThrottledEndpoint<Assignment[], 'assignment'>('assignment', now),
    newsfeed: new ThrottledEndpoint<NewsItem[], 'newsfeed'>('newsfeed', now),
    warinfo: new ThrottledEndpoint<WarInfo, 'warinfo'>('warinfo', now),
  }
  const later = {
    spacestation: new ThrottledEndpoint<SpaceStation, 'spacestation'>('spacestation', now),
    galacticwareffects: new ThrottledEndpoint<GalacticWarEffect[], 'galacticwareffects'>('galacticwareffects', now),
  }
  // The other languages' entries exist from the start, so the snapshot shows every
  // configured language before its first fetch. Each has its own TTL and counters: the
  // spec's rule applied per endpoint and language.
  const byLanguage = new Map<string, LocalizedEntries>(
    languages.map((language, i) => [
      language,
      i === 0
        ? { assignment: throttled.assignment, newsfeed: throttled.newsfeed }
        : { assignment: new ThrottledEndpoint('assignment', now), newsfeed: new ThrottledEndpoint('newsfeed', now) },
    ]),
  )
  const otherLanguages = [...byLanguage].slice(1)
  const entriesOf = (language: string) => {
    const entries = byLanguage.get(language)
    // Callers pass the client's own languages: anything else is a bug, not an input.
    if (!entries) throw new Error(`upstream client: language ${JSON.stringify(language)} is not configured`)
    return entries
  }
  const warIdRequests = new RequestCounts('warid')

  const cached = <T>(endpoint: ThrottledEndpoint<T, UpstreamEndpoint>, path: (warId: number) => string, parse: Parser<T>) =>
    (warId: number, o?: GetOptions) => endpoint.get(String(warId), () => get(endpoint.name, path(warId), parse), o)
  const inLanguage = <T, E extends LocalizedEndpoint>(pick: (e: LocalizedEntries) => ThrottledEndpoint<T, E>, path: (warId: number) => string, parse: Parser<T>) =>
    (warId: number, o: LanguageOptions = {}) => {
      const language = o.language ?? primary
      const endpoint = pick(entriesOf(language))
      return endpoint.get(String(warId), () => get(endpoint.name, path(warId), parse, language), o)
    }

  return {
    languages,
    status: cached(throttled.status, (w) => `/WarSeason/${w}/Status`, parseWarStatus),
    freshStatus: (warId) => throttled.status.fresh(String(warId)),
    freshSummary: (warId) => throttled.summary.fresh(String(warId)),
    warInfo: cached(throttled.warinfo, (w) => `/WarSeason/${w}/WarInfo`, parseWarInfo),
    summary: cached(throttled.summary, (w) => `/Stats/War/${w}/Summary`, parseWarSummary),
    assignments: inLanguage((e) => e.assignment, (w) => `/v2/Assignment/War/${w}`, parseAssignments),
    // Without maxEntries only ~10 items come back; without fromTimestamp the upstream
    // sometimes fails. These are the values the community API syncs with.
    newsfeed: inLanguage((e) => e.newsfeed, (w) => `/NewsFeed/${w}?maxEntries=1024&fromTimestamp=1000`, parseNewsFeed),
    spaceStation: (warId, id32, o) =>
      later.spacestation.get(`${warId}/${id32}`, () => get('spacestation', `/SpaceStation/${warId}/${id32}`, parseSpaceStation), o),
    galacticWarEffects: (o) => later.galacticwareffects.get('all', () => get('galacticwareffects', '/WarSeason/GalacticWarEffects', parseGalacticWarEffects), o),
    currentWarId: async () => (await warIdRequests.track(get('warid', '/WarSeason/current/WarID', parseCurrentWar))).data.id,
    snapshot: () => ({
      config: { ...THROTTLE_CONFIG },
      // The spec's five entries first, unchanged (they are the primary language's), then
      // one entry per other language and localized endpoint, naming its language.
      endpoints: [
        ...UPSTREAM_ENDPOINTS.map((name): SnapshotEntry => throttled[name].stats()),
        ...otherLanguages.flatMap(([language, entries]) =>
          LOCALIZED_ENDPOINTS.map((name): SnapshotEntry => {
            const { endpoint, ...counters } = entries[name].stats()
            return { endpoint, language, ...counters }
          }),
        ),
      ],
    }),
    snapshotVersion: () => {
      let version = 0
      for (const name of UPSTREAM_ENDPOINTS) version += throttled[name].changes
      for (const [, entries] of otherLanguages) for (const name of LOCALIZED_ENDPOINTS) version += entries[name].changes
      return version
    },
    requestStats: () => [
      ...[...UPSTREAM_ENDPOINTS.map((name) => throttled[name]), ...UPSTREAM_2025_ENDPOINTS.map((name) => later[name])].map((entry) => {
        const { endpoint, ttlS, hits, ok, rateLimited, errors } = entry.stats()
        return { endpoint, ttlS, hits, ok, rateLimited, errors }
      }),
      warIdRequests.stats(),
    ],
    unknownFields: () => unknownFields.stats(),
  }
}
