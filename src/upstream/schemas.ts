/**
 * TypeBox schemas of every feed payload (field notes: shared/spec/upstream-feeds.md).
 * Objects allow unknown properties (the feeds keep adding fields); fields the service
 * reads, or that every real capture carries, are required. Integers are JS numbers:
 * counters exceed 2^32 but stay far below 2^53.
 */
import { Type, type Static } from '@sinclair/typebox'
import { compileParser } from './parse.ts'

const Int = Type.Integer()
const Num = Type.Number()
const IntArray = Type.Array(Int)
const Position = Type.Object({ x: Num, y: Num })

// ---------------------------------------------------------------- upstream: WarSeason/current/WarID

// A war id names every URL the collectors fetch and every row they write: only a valid one moves collection.
export const WarIdSchema = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) })
export type WarId = Static<typeof WarIdSchema>

// ---------------------------------------------------------------- upstream: WarSeason/{id}/Status

export const PlanetStatusSchema = Type.Object({
  index: Int,
  /** Faction id: 1 Humans, 2 Terminids, 3 Automatons, 4 Illuminate. */
  owner: Int,
  health: Int,
  regenPerSecond: Num,
  players: Int,
  position: Type.Optional(Position),
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
})

export const GlobalEventSchema = Type.Object({
  eventId: Int,
  id32: Int,
  portraitId32: Int,
  /** Missing while the war was frozen (March 2024). */
  title: Type.Optional(Type.String()),
  titleId32: Int,
  message: Type.Optional(Type.String()),
  messageId32: Int,
  race: Int,
  flag: Int,
  assignmentId32: Int,
  effectIds: IntArray,
  planetIndices: IntArray,
  expireTime: Type.Optional(Int),
})

export const WarStatusSchema = Type.Object({
  warId: Int,
  /** War time (seconds since war start, multiple of 10); not wall-clock. */
  time: Int,
  impactMultiplier: Num,
  storyBeatId32: Type.Optional(Int),
  planetStatus: Type.Array(PlanetStatusSchema),
  planetAttacks: Type.Array(Type.Object({ source: Int, target: Int })),
  campaigns: Type.Array(CampaignSchema),
  communityTargets: Type.Optional(Type.Array(Type.Unknown())),
  jointOperations: Type.Array(Type.Object({ id: Int, planetIndex: Int, hqNodeIndex: Int })),
  planetEvents: Type.Array(PlanetEventSchema),
  planetActiveEffects: Type.Optional(Type.Array(Type.Object({ index: Int, galacticEffectId: Int }))),
  activeElectionPolicyEffects: Type.Optional(Type.Array(Type.Unknown())),
  globalEvents: Type.Array(GlobalEventSchema),
  superEarthWarResults: Type.Optional(Type.Array(Type.Unknown())),
  planetRegions: Type.Optional(
    Type.Array(
      Type.Object({
        planetIndex: Int,
        regionIndex: Int,
        owner: Int,
        health: Int,
        /** Upstream spelling. */
        regerPerSecond: Type.Optional(Num),
        availabilityFactor: Type.Optional(Num),
        isAvailable: Type.Optional(Type.Boolean()),
        players: Int,
      }),
    ),
  ),
  spaceStations: Type.Optional(Type.Array(Type.Object({ id32: Int, planetIndex: Int }))),
  globalResources: Type.Optional(Type.Array(Type.Object({ id32: Int, currentValue: Num, maxValue: Num }))),
  layoutVersion: Type.Optional(Int),
})
export type PlanetStatus = Static<typeof PlanetStatusSchema>
export type Campaign = Static<typeof CampaignSchema>
export type PlanetEvent = Static<typeof PlanetEventSchema>
export type GlobalEvent = Static<typeof GlobalEventSchema>
export type WarStatus = Static<typeof WarStatusSchema>

// ---------------------------------------------------------------- upstream: WarSeason/{id}/WarInfo

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
  warId: Int,
  /** Unix seconds (the only wall-clock times in the upstream feed). */
  startDate: Int,
  endDate: Int,
  minimumClientVersion: Type.Optional(Type.String()),
  planetInfos: Type.Array(PlanetInfoSchema),
  homeWorlds: Type.Array(Type.Object({ race: Int, planetIndices: IntArray })),
  capitalInfos: Type.Optional(Type.Array(Type.Unknown())),
  planetPermanentEffects: Type.Optional(Type.Array(Type.Unknown())),
  layoutVersion: Type.Optional(Int),
  planetRegions: Type.Optional(Type.Array(Type.Object({ planetIndex: Int, regionIndex: Int, settingsHash: Int }))),
})
export type PlanetInfo = Static<typeof PlanetInfoSchema>
export type WarInfo = Static<typeof WarInfoSchema>

// ---------------------------------------------------------------- upstream: Stats/War/{id}/Summary

const statCounters = {
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

export const GalaxyStatsSchema = Type.Object(statCounters)
export const PlanetStatsSchema = Type.Object({
  /** May be a negative placeholder (-1337, -420): see realPlanetStats. */
  planetIndex: Int,
  ...statCounters,
})
export const WarSummarySchema = Type.Object({
  galaxy_stats: GalaxyStatsSchema,
  planets_stats: Type.Array(PlanetStatsSchema),
})
export type GalaxyStats = Static<typeof GalaxyStatsSchema>
export type PlanetStats = Static<typeof PlanetStatsSchema>
export type WarSummary = Static<typeof WarSummarySchema>

/** planets_stats without the placeholder rows that have a negative planetIndex. */
export function realPlanetStats(summary: WarSummary): PlanetStats[] {
  return summary.planets_stats.filter((row) => row.planetIndex >= 0)
}

// ---------------------------------------------------------------- upstream: v2/Assignment/War/{id}

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

// ---------------------------------------------------------------- upstream: NewsFeed/{id}

export const NewsItemSchema = Type.Object({
  id: Int,
  /** War time, not unix. */
  published: Int,
  type: Int,
  tagIds: Type.Array(Type.Unknown()),
  /** Absent when the request carried no usable language. */
  message: Type.Optional(Type.String()),
})
export const NewsFeedSchema = Type.Array(NewsItemSchema)
export type NewsItem = Static<typeof NewsItemSchema>

// ---------------------------------------------------------------- community: /api/v1/planets

export const CommunityStatisticsSchema = Type.Object({
  missionsWon: Int,
  missionsLost: Int,
  missionTime: Int,
  terminidKills: Int,
  automatonKills: Int,
  illuminateKills: Int,
  bulletsFired: Int,
  bulletsHit: Int,
  timePlayed: Int,
  deaths: Int,
  revives: Int,
  friendlies: Int,
  missionSuccessRate: Int,
  accuracy: Int,
  playerCount: Int,
})

export const CommunityPlanetSchema = Type.Object({
  index: Int,
  /** A string, or an object of locales when fetched with `Accept-Language: ivl-IV`. */
  name: Type.Union([Type.String(), Type.Record(Type.String(), Type.String())]),
  sector: Type.String(),
  maxHealth: Int,
  health: Int,
  /** "Humans" | "Terminids" | "Automaton" (singular) | "Illuminate" | "". */
  currentOwner: Type.String(),
  initialOwner: Type.String(),
  regenPerSecond: Num,
  statistics: CommunityStatisticsSchema,
})
export const CommunityPlanetListSchema = Type.Array(CommunityPlanetSchema)
export type CommunityStatistics = Static<typeof CommunityStatisticsSchema>
export type CommunityPlanet = Static<typeof CommunityPlanetSchema>

// ---------------------------------------------------------------- pcstore: GetNumberOfCurrentPlayers

export const PcstorePlayersSchema = Type.Object({
  response: Type.Object({
    /** 1 = ok; 42 = no such app (with HTTP 404). */
    result: Int,
    player_count: Type.Optional(Int),
  }),
})
export type PcstorePlayers = Static<typeof PcstorePlayersSchema>

// ---------------------------------------------------------------- compiled parsers

export const parseWarId = compileParser(WarIdSchema, 'upstream warid')
export const parseWarStatus = compileParser(WarStatusSchema, 'upstream status')
export const parseWarInfo = compileParser(WarInfoSchema, 'upstream warinfo')
export const parseWarSummary = compileParser(WarSummarySchema, 'upstream summary')
export const parseAssignments = compileParser(AssignmentListSchema, 'upstream assignment')
export const parseNewsFeed = compileParser(NewsFeedSchema, 'upstream newsfeed')
export const parseCommunityPlanets = compileParser(CommunityPlanetListSchema, 'community planets')
export const parsePcstorePlayers = compileParser(PcstorePlayersSchema, 'pcstore players')
