import { keepPlans, type Tx } from '../db/connect.ts'
import type { Fetched } from '../feeds/throttle.ts'
import { GALAXY_COUNTER_NAMES, type Assignment, type NewsItem, type Reward, type WarStatus, type WarSummary } from '../feeds/upstream.ts'
import * as dispatches from '../storage/dispatches.ts'
import * as fight from '../storage/fight.ts'
import * as majorOrders from '../storage/major-orders.ts'
import * as planetEffects from '../storage/planet-effects.ts'
import * as planetStatus from '../storage/planet-status.ts'
import * as texts from '../storage/texts.ts'
import { claimTicks, type Claim } from '../storage/ticks.ts'
import { decideDefenses } from '../storage/timeline.ts'
import * as warItems from '../storage/war-items.ts'
import * as warSummary from '../storage/war-summary.ts'
import { COLLECTOR_FETCH, defineCollector, fetchAll, type WriteResult } from './collector.ts'
import { fetchLanguages, textRows, type LanguagePayloads } from './languages.ts'
import { fetchStations, surfacesOf } from './surfaces.ts'
import type { SpaceStation } from '../feeds/upstream-2025.ts'
import * as surfaces from '../storage/surfaces.ts'

/** Reward type 1 is medals. */
const MEDALS = 1

/**
 * The spec's rule: medals count only from a type-1 reward with amount >= 2; a reward of
 * exactly 1 is a unique item, worth 0 medals here.
 */
export function rewardMedals(rewards: Reward[]): number {
  return rewards.filter((r) => r.type === MEDALS && r.amount >= 2).reduce((sum, r) => sum + r.amount, 0)
}

/**
 * `rewards` (newer payloads, may hold nulls) or else the single `reward`, as the spec
 * describes them: {type, id32, amount} (fields the feed adds later are not stored).
 */
export function rewardsOf(a: Assignment): Reward[] {
  const list = a.setting.rewards ?? (a.setting.reward ? [a.setting.reward] : [])
  return list
    .filter((r): r is Reward => r !== null)
    .map(({ type, id32, amount }) => (id32 === undefined ? { type, amount } : { type, id32, amount }))
}

/**
 * When a dispatch was published, in wall-clock time: war time runs slower than wall time
 * and can stop, so each dispatch is placed relative to the status captured with it,
 * never as startDate + war time. The newsfeed can be newer than that status (fetched a
 * moment later, or the status came from the cache): such a dispatch is stamped with the
 * capture time, never later.
 */
export function publishedAt(capturedAt: Date, statusWarTime: number, publishedWarTime: number): string {
  return new Date(capturedAt.getTime() - Math.max(0, statusWarTime - publishedWarTime) * 1000).toISOString()
}

/**
 * A war time of the status as a wall-clock time: the status's own time was "now" at the
 * capture, and war seconds pass as wall seconds while the war runs, so a time `d` war
 * seconds away from it is `d` seconds away from the capture (before it or, for a
 * deadline, after it).
 */
export function wallClockOf(capturedAt: Date, statusWarTime: number, warTime: number): string {
  return new Date(capturedAt.getTime() + (warTime - statusWarTime) * 1000).toISOString()
}

/** The fight of a status payload: its campaigns, planet events, attack lines (with their lanes) and joint operations. */
export function fightOf(status: WarStatus, at: Date): fight.FightInput {
  const lanes = new Map<string, { source_index: number; target_index: number; lanes: number }>()
  for (const { source, target } of status.planetAttacks ?? []) {
    const key = `${source}>${target}`
    const line = lanes.get(key)
    if (line) line.lanes++
    else lanes.set(key, { source_index: source, target_index: target, lanes: 1 })
  }
  return {
    campaigns: status.campaigns.map((c) => ({ campaign_id: c.id, planet_index: c.planetIndex, type: c.type, count: c.count, race: c.race ?? null })),
    events: (status.planetEvents ?? []).map((e) => ({
      event_id: e.id,
      planet_index: e.planetIndex,
      event_type: e.eventType,
      race: e.race,
      health: e.health,
      max_health: e.maxHealth,
      start_war_time: e.startTime,
      expire_war_time: e.expireTime,
      starts_at: wallClockOf(at, status.time, e.startTime),
      expires_at: wallClockOf(at, status.time, e.expireTime),
      campaign_id: e.campaignId,
      joint_operation_ids: [...e.jointOperationIds],
    })),
    attacks: [...lanes.values()],
    jointOperations: (status.jointOperations ?? []).map((j) => ({ operation_id: j.id, planet_index: j.planetIndex, hq_node_index: j.hqNodeIndex })),
  }
}

/** The galactic effects active on each planet (absent from a payload: none at that tick). */
export function effectsOf(status: WarStatus): planetEffects.PlanetEffectInput[] {
  return (status.planetActiveEffects ?? []).map((e) => ({ planet_index: e.index, effect_id: e.galacticEffectId }))
}

/**
 * The payloads of a full-status tick. A live tick always has every part; a capture
 * imported from an archive (src/import/) may lack the summary, the assignments or the
 * newsfeed (null): its tick then has no war-summary row, no orders and no dispatches.
 */
export interface FullStatusPayload {
  status: Fetched<WarStatus>
  summary: Fetched<WarSummary> | null
  assignments: Fetched<Assignment[]> | null
  news: Fetched<NewsItem[]> | null
  languages: LanguagePayloads
  primary: string
  /** GET /SpaceStation of each station the status lists (absent from an imported capture). */
  stations?: Fetched<SpaceStation>[]
}

/** The rows of a full-status tick captured at `at`, as spooled and written. */
function rowsOf({ status, summary, assignments, news, languages, primary, stations }: FullStatusPayload, at: Date) {
  const warTime = status.data.time
  // The tick's time is the status's; each other part keeps its own fetch time (a part may
  // come from the feed client's cache, up to its TTL older or newer than the status).
  const partsFetchedAt = { summary: summary?.fetchedAt.toISOString(), assignments: assignments?.fetchedAt.toISOString(), newsfeed: news?.fetchedAt.toISOString() }
  const orders = assignments?.data ?? []
  const newsItems = news?.data ?? []
  return {
    warTime,
    partsFetchedAt,
    planets: status.data.planetStatus.map((p) => ({
      planet_index: p.index, owner: p.owner, health: p.health, regen_per_second: p.regenPerSecond, players: p.players,
    })),
    campaigns: status.data.campaigns.map((c) => ({ campaign_id: c.id, planet_index: c.planetIndex, type: c.type, count: c.count })),
    fight: fightOf(status.data, at),
    effects: effectsOf(status.data),
    // Null: the tick had no summary (an imported capture without one).
    counters: summary ? warSummary.countersOf(summary.data.galaxy_stats, GALAXY_COUNTER_NAMES) : null,
    orders: orders.map((a): majorOrders.OrderInput => {
      const rewards = rewardsOf(a)
      return {
        order_id32: a.id32,
        expires_in: a.expiresIn,
        start_war_time: a.startTime ?? null,
        setting_type: a.setting.type,
        flags: a.setting.flags,
        title: a.setting.overrideTitle,
        briefing: a.setting.overrideBrief,
        task_description: a.setting.taskDescription,
        // The spec's {type, values, valueTypes}; fields the feed adds later are not stored.
        tasks: a.setting.tasks.map(({ type, values, valueTypes }) => ({ type, values, valueTypes })),
        rewards,
        reward_medals: rewardMedals(rewards),
        progress: a.progress,
      }
    }),
    dispatches: newsItems.map((n): dispatches.DispatchInput => ({
      dispatch_id: n.id,
      published_war_time: n.published,
      published_at: publishedAt(at, warTime, n.published),
      type: n.type,
      message: n.message ?? null,
    })),
    texts: textRows(primary, orders, newsItems, languages),
    surfaces: surfacesOf(status.data, stations ?? [], primary),
  }
}

type MappedRows = ReturnType<typeof rowsOf>
/** A full-status tick's rows; a tick spooled by an older version may lack the parts kept since. */
export type FullStatusRows = Omit<MappedRows, Later> & Partial<Pick<MappedRows, Later>>
type Later = 'partsFetchedAt' | 'fight' | 'effects' | 'texts' | 'surfaces'

/**
 * One archival tick, in one transaction: a status row per planet, one war-summary row
 * (cumulative counters), every major order upserted with a progress row, and the
 * dispatches not stored yet. The tick is keyed by the upstream war-status time: the
 * same tick twice (a cached or frozen status) writes nothing the second time.
 */
export const fullStatus = defineCollector({
  name: 'full-status',
  summary: 'Run one full archival tick: planet status, war summary, major orders with progress, dispatches.',
  changes: {
    planetStatus: 'planet-status', campaigns: 'planet-status', campaignHistory: 'planet-status', planetEvents: 'planet-status', planetAttacks: 'planet-status',
    jointOperations: 'planet-status', planetEffects: 'planet-status', defenseOutcomes: 'planet-status', warSummary: 'war-summary', majorOrders: 'major-orders', majorOrderProgress: 'major-orders',
    dispatches: 'dispatches', majorOrderTexts: 'major-orders', dispatchTexts: 'dispatches',
    warItems: 'planet-status', globalEventTexts: 'planet-status',
  },
  async fetch(ctx): Promise<FullStatusPayload> {
    const { feeds, warId } = ctx
    const up = feeds.upstream
    const [status, summary, assignments, news] = await fetchAll([
      up.status(warId, COLLECTOR_FETCH),
      up.summary(warId, COLLECTOR_FETCH),
      up.assignments(warId, COLLECTOR_FETCH),
      up.newsfeed(warId, COLLECTOR_FETCH),
    ])
    // After the primary's: a tick the primary fails asks nothing more.
    const [languages, stations] = await Promise.all([fetchLanguages(ctx, news.data.map((n) => n.id)), fetchStations(ctx, status.data)])
    return { status, summary, assignments, news, languages, primary: up.languages[0]!, stations }
  },
  map(payload, { now }) {
    const at = now ?? payload.status.fetchedAt
    return { capturedAt: at, rows: rowsOf(payload, at) }
  },
  async write(tx, at, { warId, rows }) {
    return (await writeTicks(tx, [{ at, warId, rows }], false))[0]!
  },
  // A batch's planets are compared with their latest states read once (storage/planet-status.ts insertTicks).
  writeBatch: (tx, ticks) => writeTicks(tx, ticks.map(({ at, tick }) => ({ at, warId: tick.warId, rows: tick.rows })), true),
})

/** A tick as written: its capture time, war and rows. */
interface TickRows {
  at: Date
  warId: number
  rows: FullStatusRows
}

/** Claimed ticks of one war written together (groupsOf); `ks`: their positions among the ticks written. */
interface Group {
  warId: number
  ks: number[]
  /** The neighbours of the group's first tick, as the ticks written before it left them. */
  around: planetStatus.Neighbours
  /** The war's planets and items as the ticks written before the group left them, when compared here (insertTicks). */
  latest?: { planets: planetStatus.LatestStates; items: warItems.LatestItems }
}

const NOTHING = {
  planetStatus: 0, campaigns: 0, campaignHistory: 0, planetEvents: 0, planetAttacks: 0, jointOperations: 0,
  planetEffects: 0, defenseOutcomes: 0, warSummary: 0, majorOrders: 0, majorOrderProgress: 0, dispatches: 0, ...surfaces.NO_SURFACES,
}

/**
 * Ticks in order, each with what writing them one after the other would leave, in few
 * statements and round trips:
 * 1. the claims of every tick in one statement (storage/ticks.ts), sent together with
 *    every tick's texts: texts are keyed (item, language), so they are written even for
 *    a tick already stored (a language missing at that tick's first write comes in at a
 *    later one); with `compare`, and the latest states of the ticks' wars' planets and items;
 * 2. the claimed ticks by group (groupsOf): each table's rows of a group in one
 *    statement, which leaves what the ticks one after the other would (storage/*
 *    insertTicks and the like). No table's writes read another's, so a group's
 *    statements go out together on the transaction's connection (postgres.js pipelines
 *    them);
 * 3. per war, the defenses the ticks decided or corrected (decideDefenses), counted on
 *    the war's last tick written.
 * A failure fails them all and the transaction rolls back.
 */
async function writeTicks(tx: Tx, ticks: readonly TickRows[], compare: boolean): Promise<WriteResult[]> {
  // For the rest of this transaction, each statement is planned once per connection and its
  // plan kept: the rows come as JSON or arrays, so a plan made for the values would be the
  // same plan, yet the server would make one anew at each of a statement's first five runs
  // on a connection (a write takes the pool's connection idle the longest: writes take
  // turns on every open connection).
  const planned = keepPlans(tx)
  const texting = writeTexts(tx, ticks, compare)
  texting.catch(() => {}) // awaited below, after the claims
  const wars = compare ? [...new Set(ticks.filter((t) => t.rows.planets.length).map((t) => t.warId))] : []
  const [claims, , planets, items] = await Promise.all([
    claimTicks(tx, ticks.map(({ at, warId, rows }) => ({ warId, warTime: rows.warTime, at, planets: rows.planets.length, parts: rows.partsFetchedAt }))),
    planned,
    planetStatus.latestStates(tx, wars),
    warItems.latestItems(tx, wars),
  ])
  const written: (typeof NOTHING)[] = ticks.map(() => NOTHING)
  // Every group's statements, then the defenses' decisions, go out together (one round
  // trip): the connection runs them in the order they are sent, and each storage write is
  // sent as it is called (one statement), so a group's statements see what the groups
  // before it wrote (a late tick's neighbours) and the decisions see every group's.
  const groups = groupsOf(ticks, claims, { planets, items }).map((group) => ({ group, counts: writeGroup(tx, group, group.ks.map((k) => ticks[k]!)) }))
  const decisions = [...defendedWars(ticks, claims)].map(([warId, { since, last, inOrder }]) => ({ last, n: decideDefenses(tx, warId, since, inOrder) }))
  const [counts, decided] = await Promise.all([Promise.all(groups.map((g) => g.counts)), Promise.all(decisions.map((d) => d.n))])
  groups.forEach(({ group }, g) => group.ks.forEach((k, i) => (written[k] = counts[g]![i]!)))
  decisions.forEach(({ last }, d) => (written[last] = { ...written[last]!, defenseOutcomes: decided[d]! }))
  const localized = await texting
  return ticks.map(({ rows }, k): WriteResult =>
    claims[k]!.claimed
      ? { written: { ...written[k]!, ...localized[k]! }, unchanged: { tick: 0, dispatches: rows.dispatches.length - written[k]!.dispatches } }
      : { written: { ...NOTHING, ...localized[k]! }, unchanged: { tick: 1 } },
  )
}

/**
 * The wars whose claimed ticks stored planets, each with the stored tick before the
 * earliest of them (null: none; what the defenses' decision looks back to), the
 * position of its last one, and whether they came in time order: each later, in capture
 * time and in war time, than every tick stored before it and than the ones before it here.
 */
function defendedWars(ticks: readonly TickRows[], claims: readonly Claim[]): Map<number, { since: Date | null; last: number; inOrder: boolean }> {
  const wars = new Map<number, { since: Date | null; last: number; inOrder: boolean; at: number; warTime: number }>()
  ticks.forEach(({ at, warId, rows }, k) => {
    const claim = claims[k]!
    if (!claim.claimed || !rows.planets.length) return
    const known = wars.get(warId)
    const since = !known ? claim.before : known.since === null || claim.before === null ? null : claim.before < known.since ? claim.before : known.since
    const inOrder = claim.next === null && claim.rising && (!known || (known.inOrder && at.getTime() > known.at && rows.warTime > known.warTime))
    wars.set(warId, { since, last: k, inOrder, at: Math.max(known?.at ?? -Infinity, at.getTime()), warTime: Math.max(known?.warTime ?? -Infinity, rows.warTime) })
  })
  return wars
}

/**
 * The claimed ticks in groups written together, in order: a group is a run of ticks of
 * one war, each later than the one before it and than every tick stored before it (the
 * usual case: live, or an import in order); a tick written before a stored one (a late
 * tick) is a group of its own. The neighbours of each tick are those the ticks before it
 * left: the stored ones its claim found, and the claimed ones before it. A war's latest
 * states (`latest`) go with its groups when none of them is late (a late tick's write
 * moves them in the database).
 */
function groupsOf(
  ticks: readonly TickRows[], claims: readonly Claim[], latest: { planets: Map<number, planetStatus.LatestStates>; items: Map<number, warItems.LatestItems> },
): Group[] {
  const groups: Group[] = []
  const claimed: { warId: number; at: number }[] = []
  let last: { group: Group; at: number } | null = null
  ticks.forEach(({ at, warId, rows }, k) => {
    const claim = claims[k]!
    if (!claim.claimed) return
    const t = at.getTime()
    let before = claim.before?.getTime() ?? null
    let next = claim.next?.getTime() ?? null
    for (const c of claimed) {
      if (c.warId !== warId) continue
      if (c.at < t && (before === null || c.at > before)) before = c.at
      if (c.at > t && (next === null || c.at < next)) next = c.at
    }
    if (rows.planets.length) claimed.push({ warId, at: t })
    if (last && last.group.warId === warId && last.group.around.next === null && next === null && t > last.at) {
      last.group.ks.push(k)
    } else {
      const group = { warId, ks: [k], around: { before: before === null ? null : new Date(before), next: next === null ? null : new Date(next) } }
      groups.push(group)
      last = { group, at: t }
    }
    last!.at = t
  })
  const late = new Set(groups.filter((g) => g.around.next !== null).map((g) => g.warId))
  for (const g of groups) {
    const [planets, items] = [latest.planets.get(g.warId), latest.items.get(g.warId)]
    if (!late.has(g.warId) && planets && items) g.latest = { planets, items }
  }
  return groups
}

/** The rows of one group of claimed ticks (groupsOf), per tick: each table's in one statement. */
async function writeGroup(tx: Tx, { warId, around, latest }: Group, ticks: readonly TickRows[]): Promise<(typeof NOTHING)[]> {
  const [planets, campaigns, fought, effects, , orders, news, surfaced] = await Promise.all([
    planetStatus.insertTicks(tx, warId, ticks.map(({ at, rows }) => ({ at, planets: rows.planets })), around, latest?.planets),
    planetStatus.replaceCampaignsOfTicks(tx, warId, ticks.map(({ at, rows }) => ({ at, campaigns: rows.campaigns }))),
    // A tick spooled before the fight was kept has none; likewise the effects.
    fight.insertTicks(tx, warId, ticks.map(({ at, rows }) => ({ at, warTime: rows.warTime, fight: rows.fight ?? fight.NO_FIGHT })), around.next),
    planetEffects.insertTicks(tx, warId, ticks.map(({ at, rows }) => ({ at, effects: rows.effects ?? [] })), around.next),
    warSummary.insertTicks(tx, warId, ticks.flatMap(({ at, rows }) => (rows.counters ? [{ at, warTime: rows.warTime, counters: rows.counters }] : []))),
    majorOrders.upsertTicks(tx, warId, ticks.map(({ at, rows }) => ({ at, orders: rows.orders }))),
    dispatches.insertNewOfTicks(tx, warId, ticks.map(({ at, rows }) => ({ at, dispatches: rows.dispatches }))),
    surfaces.writeTicks(tx, warId, ticks.map(({ at, rows }) => ({ at, surfaces: rows.surfaces })), around.next, latest?.items),
  ])
  return ticks.map(({ rows }, i) => ({
    planetStatus: planets[i]!, campaigns: campaigns[i]!, ...fought[i]!, planetEffects: effects[i]!, defenseOutcomes: 0,
    // A summary row per tick that has one (no conflict clause: stored, or the statement failed).
    warSummary: rows.counters ? 1 : 0, ...orders[i]!, dispatches: news[i]!, ...surfaced[i]!,
  }))
}

/**
 * Every language's texts of each tick: the primary's from the tick's own rows, the
 * others' as fetched. A tick spooled before languages existed has no `texts`: its texts
 * were fetched with Accept-Language en-US. The dispatch texts of every tick in one
 * statement (a text stored at its first tick). The order texts (a text replaced only when
 * it changed) of each tick in a statement of its own, in order; with `compare`, folded
 * over the ticks from the stored ones and written once (storage/texts.ts).
 */
async function writeTexts(tx: Tx, ticks: readonly TickRows[], compare: boolean): Promise<{ majorOrderTexts: number; dispatchTexts: number }[]> {
  const of = ticks.map(({ rows }) => {
    const primary = rows.texts?.primary ?? 'en-US'
    return {
      orders: [...rows.orders.map(({ order_id32, title, briefing, task_description }) => ({ order_id32, lang: primary, title, briefing, task_description })), ...(rows.texts?.orders ?? [])],
      dispatches: [...rows.dispatches.flatMap(({ dispatch_id, message }) => (message === null ? [] : [{ dispatch_id, lang: primary, message }])), ...(rows.texts?.dispatches ?? [])],
    }
  })
  const ordering = async () => {
    if (!compare) return Promise.all(ticks.map(({ at }, k) => texts.upsertOrderTexts(tx, at, of[k]!.orders)))
    const stored = await texts.storedOrderTexts(tx, [...new Set(of.flatMap((o) => o.orders.map((t) => t.order_id32)))])
    return texts.upsertOrderTextsOfTicks(tx, ticks.map(({ at }, k) => ({ at, texts: of[k]!.orders })), stored)
  }
  const [dispatchTexts, orderTexts] = await Promise.all([
    texts.insertDispatchTextsOfTicks(tx, ticks.map(({ at, warId }, k) => ({ at, warId, texts: of[k]!.dispatches }))),
    ordering(),
  ])
  return ticks.map((_, k) => ({ majorOrderTexts: orderTexts[k]!, dispatchTexts: dispatchTexts[k]! }))
}
