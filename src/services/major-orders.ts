/**
 * Major orders in words and in time (GET /major-orders; docs/api.md "War intelligence"):
 * each task's kind, a plain description, its target planets, its progress in %, its rate
 * over the last RATE_WINDOW_HOURS and where that rate leads by the order's expiry; the
 * rewards in words; whether the order is on track. The derived state and the rates come
 * from one storage read (storage/major-orders.ts `states`), the war's clock (is it frozen?)
 * from a small one beside it; the words and the projection are decided here, from the
 * shipped code tables (lookups.ts).
 *
 * Wording (a task's values are named by the value type table: race, goal, unit_id,
 * item_id, difficulty, location_type, location_index; the goal is formatted with
 * thousands separators; a race is its faction's name in the plural, "enemies" for 0 or
 * none, "enemies of faction N" for a faction the table does not know; a target is the
 * planet at location_index when location_type is 1):
 *   Eradicate            "Kill 500,000,000 Terminids"
 *   Liberation           "Liberate Fenrir III", or without a target "Liberate 3 planets"
 *   Defense              "Defend 5 planets against the Automatons", "Defend Fenrir III"
 *   Control              "Hold Fenrir III", or "Hold 3 planets"
 *   Expand               "Liberate 3 planets" (or "Liberate Fenrir III" with a target)
 *   CompleteMissions     "Complete 10 missions", CompleteOperations "Complete 5 operations"
 *   Extract              "Extract from 1,000 missions"
 *   another type N       "Task type N (goal 123)", or "Task type N" without a goal
 * then, when set (non-zero), " against the <race>" (" from the <race>" for a liberation;
 * Eradicate names it already), " on <planet>" (for the counting kinds), " (unit N)",
 * " with item N" and " on difficulty N or higher": the raw ids, as no shipped table names
 * units or items.
 */
import { t, type Static } from 'elysia'
import { lookups, unknownPlanetName, type AssignmentTables } from '../lookups.ts'
import type { Store } from '../storage/index.ts'
import { OrderState, OrderTask, type OrderStateRow, type OrderTaskRow } from '../storage/major-orders.ts'
import { Nullable } from '../storage/model.ts'
import type { Lang } from '../storage/texts.ts'
import { frozenSince } from './intelligence.ts'

/** The hours of progress snapshots a task's rate is fitted over. */
export const RATE_WINDOW_HOURS = 6
const HOUR_MS = 3_600_000
/** location_type 1: location_index is a planet index (the Control sample's 3, 4, 5 are planets). */
const PLANET_LOCATION = 1

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits

// ------------------------------------------------------------------ response model

export const TaskTarget = t.Object({
  planetIndex: t.Integer({ description: 'Planet index (the task value of type location_index, its location_type being 1)' }),
  name: t.String({ description: "Planet name: the stored name in the order's war, else the shipped lookup, else \"Planet N\"" }),
})

export const MajorOrderTask = t.Object({
  ...OrderTask.properties,
  kind: t.String({
    description:
      'The task type in words, from the task type table: extract, eradicate, complete-missions, complete-operations, liberation, defense, control, expand; "type-N" for a type the table does not know, "unknown" without a task list',
  }),
  description: t.String({ description: 'The task in plain words, built from its values ("Kill 500,000,000 Terminids", "Liberate Fenrir III"); rules: docs/api.md "War intelligence"' }),
  targets: t.Array(TaskTarget, { description: 'The planets the task names (none for a task on any planet)' }),
  progressPct: t.Number({ description: 'min(100, value / target × 100) with a target; without one 100 when done, else 0' }),
  ratePerHour: Nullable(t.Number(), `Least-squares slope of the progress slot per hour over the order's progress snapshots of the last ${RATE_WINDOW_HOURS} hours; null with fewer than two`),
  rateSamples: t.Integer({ description: 'Progress snapshots the rate was fitted over' }),
  projectedAtExpiry: Nullable(t.Number(), 'value + ratePerHour × hours from the latest progress snapshot to expiresAt; null without a rate, for an order that is not active, or while the war is frozen'),
  onTrack: Nullable(t.Boolean(), 'true when done (or the order completed); false when the order failed or projectedAtExpiry < target; true when projectedAtExpiry >= target; null when it cannot be told (no projection or no target, a withdrawn order)'),
})
export type MajorOrderTask = Static<typeof MajorOrderTask>

export const RewardInWords = t.Object({
  type: t.Integer({ description: 'Upstream reward type' }),
  id32: t.Optional(t.Integer({ description: 'Upstream reward id' })),
  amount: t.Number({ description: 'Amount' }),
  kind: t.String({ description: 'The reward type in words from the reward type table, lower-cased ("medals"); "type-N" for a type it does not know' }),
})

export const MajorOrder = t.Object(
  {
    ...OrderState.properties,
    tasks: t.Array(MajorOrderTask),
    rewards: t.Array(RewardInWords, { description: 'The upstream reward list [{type, id32, amount}], each with its kind in words' }),
    onTrack: Nullable(t.Boolean(), 'The whole order: completed → true; failed → false; withdrawn → null; active → true when every task is on track, false when one is not, else null'),
  },
  { description: 'Major order with its derived state, its tasks in words and its projection' },
)
export type MajorOrder = Static<typeof MajorOrder>

// ------------------------------------------------------------------ words

/** What the wording reads: the code tables, faction names and the lookup's planet names. */
export interface Vocabulary {
  tables: AssignmentTables
  factions: ReadonlyMap<number, string>
  planetName(index: number): string | undefined
}

export function vocabulary(): Vocabulary {
  const l = lookups()
  return { tables: l.assignments, factions: l.factions, planetName: (i) => l.planets.get(i)?.name }
}

/** 500000000 → "500,000,000". */
export function thousands(n: number): string {
  const [int, frac] = String(Math.abs(n)).split('.')
  return `${n < 0 ? '-' : ''}${int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${frac ? `.${frac}` : ''}`
}

/** "Automaton" → "Automatons"; names already plural (Terminids, Humans) or collective (Illuminate) stay. */
export const pluralRace = (name: string) => (name.endsWith('s') || name === 'Illuminate' ? name : `${name}s`)

/** "CompleteMissions" → "complete-missions"; an unknown type "type-N"; no type (no task list) "unknown". */
export function taskKind(type: number | null, tables: AssignmentTables): string {
  if (type === null) return 'unknown'
  const name = tables.taskTypes.get(type)
  return name ? name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase() : `type-${type}`
}

/** A task's values by the value type table's names ("goal", "race", ...), the first of each; unknown value types are left out. */
export function namedValues(task: { values: readonly unknown[]; valueTypes: readonly unknown[] }, tables: AssignmentTables): Map<string, number> {
  const out = new Map<string, number>()
  const values = Array.isArray(task.values) ? task.values : []
  const types = Array.isArray(task.valueTypes) ? task.valueTypes : []
  types.forEach((code, k) => {
    const name = tables.valueTypes.get(Number(code))
    const value = Number(values[k])
    if (name && !out.has(name) && Number.isFinite(value)) out.set(name, value)
  })
  return out
}

/** The planets a task names: location_index when location_type is 1. */
export function targetsOf(values: Map<string, number>, storedName: string | null, words: Vocabulary): { planetIndex: number; name: string }[] {
  const index = values.get('location_index')
  if (values.get('location_type') !== PLANET_LOCATION || index === undefined || !Number.isInteger(index) || index < 0) return []
  return [{ planetIndex: index, name: storedName ?? words.planetName(index) ?? unknownPlanetName(index) }]
}

const counted = (n: number | undefined, noun: string) => (n === undefined ? `${noun}s` : `${thousands(n)} ${noun}${n === 1 ? '' : 's'}`)

/** A task in plain words (rules in the header). Never throws: anything it cannot read is left out. */
export function describeTask(
  task: { type: number | null; values: readonly unknown[]; valueTypes: readonly unknown[] },
  targets: readonly { name: string }[],
  words: Vocabulary,
): string {
  const v = namedValues(task, words.tables)
  const goal = v.has('goal') && v.get('goal')! > 0 ? v.get('goal') : undefined
  const raceId = v.get('race') ?? 0
  const race = raceId > 0 ? (words.factions.has(raceId) ? pluralRace(words.factions.get(raceId)!) : `enemies of faction ${raceId}`) : null
  const planet = targets[0]?.name
  const against = race ? ` against the ${race}` : ''
  const on = planet ? ` on ${planet}` : ''
  let text: string
  switch (taskKind(task.type, words.tables)) {
    case 'eradicate':
      text = `Kill ${goal === undefined ? '' : `${thousands(goal)} `}${race ?? 'enemies'}${on}`
      break
    case 'liberation':
    case 'expand':
      text = `Liberate ${planet ?? counted(goal, 'planet')}${race ? ` from the ${race}` : ''}`
      break
    case 'defense':
      text = `Defend ${planet ?? counted(goal, 'planet')}${against}`
      break
    case 'control':
      text = `Hold ${planet ?? counted(goal, 'planet')}${against}`
      break
    case 'complete-missions':
      text = `Complete ${counted(goal, 'mission')}${against}${on}`
      break
    case 'complete-operations':
      text = `Complete ${counted(goal, 'operation')}${against}${on}`
      break
    case 'extract':
      text = `Extract from ${counted(goal, 'mission')}${against}${on}`
      break
    default:
      text = task.type === null ? 'Unknown task' : `Task type ${task.type}${goal === undefined ? '' : ` (goal ${thousands(goal)})`}`
  }
  const unit = v.get('unit_id') ?? 0
  const item = v.get('item_id') ?? 0
  const difficulty = v.get('difficulty') ?? 0
  if (unit > 0) text += ` (unit ${unit})`
  if (item > 0) text += ` with item ${item}`
  if (difficulty > 0) text += ` on difficulty ${difficulty} or higher`
  return text
}

/** `{type, id32, amount}` with its kind: the reward type table's name lower-cased, or "type-N". Entries without an integer type (none are stored) are left out. */
export function rewardsInWords(rewards: readonly unknown[], tables: AssignmentTables): Static<typeof RewardInWords>[] {
  return rewards.flatMap((r) => {
    const { type, id32, amount } = (typeof r === 'object' && r !== null ? r : {}) as { type?: unknown; id32?: unknown; amount?: unknown }
    if (!Number.isInteger(type)) return []
    const code = type as number
    const out: Static<typeof RewardInWords> = { type: code, amount: Number(amount) || 0, kind: tables.rewardTypes.get(code)?.toLowerCase() ?? `type-${code}` }
    if (Number.isInteger(id32)) out.id32 = id32 as number
    return [out]
  })
}

// ------------------------------------------------------------------ time

export interface ProjectionInput {
  status: OrderState['status']
  expiresAt: Date
  /** The latest progress snapshot (the value's moment); null without one. */
  progressAt: Date | null
  /** The war's clock stands still: nothing is projected. */
  frozen: boolean
}

/** A task's progress %, projection and whether it is on track (formulas on MajorOrderTask). */
export function projectTask(task: Pick<OrderTaskRow, 'value' | 'target' | 'done' | 'ratePerHour'>, o: ProjectionInput) {
  const value = task.value ?? 0
  const progressPct = task.target !== null && task.target > 0 ? Math.min(100, (value / task.target) * 100) : task.done ? 100 : 0
  let projectedAtExpiry: number | null = null
  if (o.status === 'active' && !o.frozen && task.ratePerHour !== null && o.progressAt !== null) {
    const hoursLeft = (o.expiresAt.getTime() - o.progressAt.getTime()) / HOUR_MS
    if (hoursLeft > 0) projectedAtExpiry = value + task.ratePerHour * hoursLeft
  }
  let onTrack: boolean | null
  if (task.done || o.status === 'completed') onTrack = true
  else if (o.status === 'failed') onTrack = false
  else if (o.status === 'withdrawn' || projectedAtExpiry === null || task.target === null) onTrack = null
  else onTrack = projectedAtExpiry >= task.target
  return { progressPct: round(progressPct, 4), projectedAtExpiry: projectedAtExpiry === null ? null : round(projectedAtExpiry, 2), onTrack }
}

/** Every task on track → true, one not → false, else (some unknown) null; by status when the order is over. */
export function orderOnTrack(status: OrderState['status'], tasks: readonly { onTrack: boolean | null }[]): boolean | null {
  if (status === 'completed') return true
  if (status === 'failed') return false
  if (status === 'withdrawn') return null
  if (tasks.some((x) => x.onTrack === false)) return false
  return tasks.length > 0 && tasks.every((x) => x.onTrack === true) ? true : null
}

/** One order of `states()` in words and in time. */
export function inWordsAndTime(row: OrderStateRow, o: { frozen: boolean }, words: Vocabulary): MajorOrder {
  const at: ProjectionInput = { status: row.status, expiresAt: row.expiresAt, progressAt: row.progressAt, frozen: o.frozen }
  const tasks = row.tasks.map((x): MajorOrderTask => {
    const { values, valueTypes, planetName, ratePerHour, rateSamples, ...task } = x
    const targets = targetsOf(namedValues(x, words.tables), planetName, words)
    return {
      ...task,
      kind: taskKind(task.type, words.tables),
      description: describeTask(x, targets, words),
      targets,
      ratePerHour: ratePerHour === null ? null : round(ratePerHour, 4),
      rateSamples,
      ...projectTask(x, at),
    }
  })
  return { ...row, tasks, rewards: rewardsInWords(Array.isArray(row.rewards) ? row.rewards : [], words.tables), onTrack: orderOnTrack(row.status, tasks) }
}

/** The war's orders, last seen first, in words and in time as of `asOf`, and since when the war is frozen (null: it runs). */
export async function majorOrders(store: Pick<Store, 'majorOrders' | 'ticks'>, f: { warId: number; asOf: Date; limit: number; lang?: Lang }) {
  const [rows, clock] = await Promise.all([store.majorOrders.states({ ...f, rateHours: RATE_WINDOW_HOURS }), store.ticks.clock(f.warId)])
  const since = frozenSince(clock)
  const words = vocabulary()
  return { frozenSince: since, items: rows.map((row): MajorOrder => inWordsAndTime(row, { frozen: since !== null }, words)) }
}
