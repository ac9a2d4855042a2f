/**
 * What the game's API gained after the March 2024 captures (shared/spec/upstream-2025.md):
 * planet regions, the space station and its tactical actions, war-wide resources and
 * events, galactic war effect definitions. Every field here is optional where it sits in
 * an older payload: the 2024 captures and archives have none of it.
 *
 * Inside Status and WarInfo these arrays are `Unread` (feeds/schema.ts) until the service
 * stores them: documented and typed, never checked, so a region or a station of an
 * unexpected shape can never fail a tick. A reader that starts using one checks it item by
 * item (`compileItemsReader`) or drops its `Unread`.
 */
import { Type, type Static } from '@sinclair/typebox'
import { compileItemsReader, compileParser, Unread } from './schema.ts'

const Int = Type.Integer()
const Num = Type.Number()
const IntArray = Type.Array(Int)

// ---------------------------------------------------------------- Status

/** A region in play at this tick (only those are listed). Health is on the region's own scale (its maxHealth is in WarInfo). */
export const PlanetRegionStatusSchema = Type.Object({
  planetIndex: Int,
  regionIndex: Int,
  /** Faction id, as a planet's owner. */
  owner: Int,
  health: Int,
  /** Upstream spelling (the planets' field is regenPerSecond). */
  regerPerSecond: Type.Optional(Num),
  availabilityFactor: Type.Optional(Num),
  isAvailable: Type.Optional(Type.Boolean()),
  players: Int,
})

/** A space station as every Status lists it: where it orbits, and when its election ends (then it moves). */
export const SpaceStationStatusSchema = Type.Object({
  id32: Int,
  planetIndex: Int,
  /** War time. */
  currentElectionEndWarTime: Type.Optional(Int),
  flags: Type.Optional(Int),
  activeEffectIds: Type.Optional(IntArray),
})

/** A war-wide meter (e.g. an enemy fleet's strength); changes at every tick. */
export const GlobalResourceSchema = Type.Object({
  id32: Int,
  currentValue: Num,
  maxValue: Num,
  flags: Type.Optional(Int),
})

/** A war-wide briefing or result. Texts in the request's language; `flag` 0 stratagem, 1 briefing, 2 success, 3 fail (globalEvents_flags table). */
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
  introMediaId32: Type.Optional(Int),
  outroMediaId32: Type.Optional(Int),
  /** The major order it announces or closes (0: none). */
  assignmentId32: Int,
  effectIds: IntArray,
  planetIndices: IntArray,
  /** War time; absent in 2024. */
  expireTime: Type.Optional(Int),
})

// ---------------------------------------------------------------- WarInfo

/** Every region of every planet (WarInfo lists them all); settingsHash is the key of the shipped region table (planetRegion.json). */
export const PlanetRegionInfoSchema = Type.Object({
  planetIndex: Int,
  regionIndex: Int,
  settingsHash: Int,
  maxHealth: Unread(Int, true),
  /** 0 Settlement, 1 Town, 2 City, 3 MegaCity (community enum). */
  regionSize: Unread(Int, true),
  damageMultiplier: Unread(Num, true),
  flags: Unread(Int, true),
})

// ---------------------------------------------------------------- SpaceStation/{war}/{id32}

/** The station's id32 (the Democracy Space Station, the only one so far). */
export const DEMOCRACY_SPACE_STATION = 749875195

/** What donations an action needs: `currentValue` of `targetValue`, filling at `deltaPerSecond`. */
export const TacticalActionCostSchema = Type.Object({
  id: Unread(Type.String()),
  itemMixId: Unread(Int),
  targetValue: Num,
  currentValue: Num,
  deltaPerSecond: Num,
  maxDonationAmount: Unread(Num),
  maxDonationPeriodSeconds: Unread(Int),
})

/** The status a tactical action is in (as the bots read `status`). */
export const TACTICAL_ACTION_STATUS = { preparing: 1, active: 2, cooldown: 3 } as const

export const TacticalActionSchema = Type.Object({
  id32: Int,
  mediaId32: Unread(Int),
  /** Texts in the request's language. */
  name: Type.String(),
  description: Unread(Type.String()),
  strategicDescription: Unread(Type.String()),
  /** TACTICAL_ACTION_STATUS. */
  status: Int,
  /** War time the current status ends (active → cooldown, cooldown → preparing). */
  statusExpireAtWarTimeSeconds: Int,
  cost: Type.Array(TacticalActionCostSchema),
  effectIds: IntArray,
  /** The effects in force (while active). */
  activeEffectIds: IntArray,
})

export const SpaceStationSchema = Type.Object({
  id32: Int,
  planetIndex: Int,
  lastElectionId: Unread(Type.String()),
  currentElectionId: Unread(Type.String()),
  nextElectionId: Unread(Type.String(), true),
  /** War time the current election ends: the station then moves to the planet it chose. */
  currentElectionEndWarTime: Int,
  flags: Unread(Int),
  tacticalActions: Type.Array(TacticalActionSchema),
})

// ---------------------------------------------------------------- WarSeason/GalacticWarEffects

/** An effect's definition; `id` is the `galacticEffectId` of planetActiveEffects (names: the shipped planetEffects table). */
export const GalacticWarEffectSchema = Type.Object({
  id: Int,
  gameplayEffectId32: Unread(Int),
  effectType: Int,
  flags: Unread(Int),
  nameHash: Unread(Int),
  descriptionFluffHash: Unread(Int),
  descriptionGamePlayLongHash: Unread(Int),
  descriptionGamePlayShortHash: Unread(Int),
  /** Paired with values, as a task's valueTypes. */
  valueTypes: IntArray,
  values: Type.Array(Num),
})
export const GalacticWarEffectListSchema = Type.Array(GalacticWarEffectSchema)

export type PlanetRegionStatus = Static<typeof PlanetRegionStatusSchema>
export type SpaceStationStatus = Static<typeof SpaceStationStatusSchema>
export type GlobalResource = Static<typeof GlobalResourceSchema>
export type GlobalEvent = Static<typeof GlobalEventSchema>
export type PlanetRegionInfo = Static<typeof PlanetRegionInfoSchema>
export type TacticalActionCost = Static<typeof TacticalActionCostSchema>
export type TacticalAction = Static<typeof TacticalActionSchema>
export type SpaceStation = Static<typeof SpaceStationSchema>
export type GalacticWarEffect = Static<typeof GalacticWarEffectSchema>

export const parseSpaceStation = compileParser(SpaceStationSchema, 'upstream spacestation')
export const parseGalacticWarEffects = compileParser(GalacticWarEffectListSchema, 'upstream galacticwareffects')

/** The Status arrays above, item by item: the items of the documented shape, the others counted out (see compileItemsReader). */
export const readRegions = compileItemsReader(PlanetRegionStatusSchema, 'upstream status planetRegions')
export const readSpaceStations = compileItemsReader(SpaceStationStatusSchema, 'upstream status spaceStations')
export const readGlobalResources = compileItemsReader(GlobalResourceSchema, 'upstream status globalResources')
export const readGlobalEvents = compileItemsReader(GlobalEventSchema, 'upstream status globalEvents')
