/**
 * Major orders in words (services/major-orders.ts), without a database: every task of the
 * real assignment samples, every task type of the shipped table, an unknown type, the
 * rewards, and the projection rules.
 */
import { describe, expect, test } from 'bun:test'
import type { Assignment } from '../../src/feeds/upstream.ts'
import {
  describeTask,
  namedValues,
  orderOnTrack,
  projectTask,
  rewardsInWords,
  taskKind,
  targetsOf,
  thousands,
  vocabulary,
  type ProjectionInput,
} from '../../src/services/major-orders.ts'
import { loadSample } from '../support/samples.ts'

const words = vocabulary()
const sample = (name: string) => (loadSample(`arrowhead/assignment_v2_801_${name}.json`) as Assignment[])[0]!
const ERADICATE = sample('eradicate_multi_task_mockserver')
const CONTROL = sample('hd2api2db_pyrepr_converted')
const EXPAND = sample('2025-05-09_daveydoodles97')

/** A task in words the way the service does it: targets named from the shipped lookup (no stored name). */
function say(task: { type: number | null; values: unknown[]; valueTypes: unknown[] }) {
  const targets = targetsOf(namedValues(task, words.tables), null, words)
  return { kind: taskKind(task.type, words.tables), description: describeTask(task, targets, words), targets }
}

describe('task descriptions of the real samples', () => {
  test('Eradicate (type 3, 10 value slots): the goal with separators, the race in the plural, the weapon item', () => {
    expect(ERADICATE.setting.tasks.map(say)).toEqual([
      { kind: 'eradicate', description: 'Kill 500,000,000 Terminids with item 1978117092', targets: [] },
      { kind: 'eradicate', description: 'Kill 500,000,000 Terminids with item 934703916', targets: [] },
      { kind: 'eradicate', description: 'Kill 500,000,000 Terminids with item 4038802832', targets: [] },
    ])
  })

  test('Control (type 13, location type 1): the planet by name', () => {
    expect(CONTROL.setting.tasks.map(say)).toEqual([
      { kind: 'control', description: "Hold Widow's Harbor", targets: [{ planetIndex: 3, name: "Widow's Harbor" }] },
      { kind: 'control', description: 'Hold Pilen V', targets: [{ planetIndex: 5, name: 'Pilen V' }] },
      { kind: 'control', description: 'Hold New Haven', targets: [{ planetIndex: 4, name: 'New Haven' }] },
    ])
  })

  test('Expand (type 15, a goal and no target): a count of planets', () => {
    expect(EXPAND.setting.tasks.map(say)).toEqual([{ kind: 'expand', description: 'Liberate 1 planet', targets: [] }])
  })
})

describe('task descriptions of every type in the task type table', () => {
  const planet = (index: number) => ({ values: [1, index], valueTypes: [11, 12] })
  const cases: [string, { type: number; values: number[]; valueTypes: number[] }, string, string][] = [
    ['Extract', { type: 2, values: [1000], valueTypes: [3] }, 'extract', 'Extract from 1,000 missions'],
    ['Eradicate, any race', { type: 3, values: [0, 250000], valueTypes: [1, 3] }, 'eradicate', 'Kill 250,000 enemies'],
    ['Eradicate, Automatons on difficulty 7 on a planet', { type: 3, values: [3, 5000, 7, ...planet(64).values], valueTypes: [1, 3, 9, 11, 12] }, 'eradicate', 'Kill 5,000 Automatons on Meridia on difficulty 7 or higher'],
    ['Eradicate, a unit of the Illuminate', { type: 3, values: [4, 100, 2514244534], valueTypes: [1, 3, 4] }, 'eradicate', 'Kill 100 Illuminate (unit 2514244534)'],
    ['CompleteMissions', { type: 7, values: [10], valueTypes: [3] }, 'complete-missions', 'Complete 10 missions'],
    ['CompleteMissions against a race', { type: 7, values: [2, 1], valueTypes: [1, 3] }, 'complete-missions', 'Complete 1 mission against the Terminids'],
    ['CompleteOperations', { type: 9, values: [5], valueTypes: [3] }, 'complete-operations', 'Complete 5 operations'],
    ['Liberation of a planet', { type: 11, values: [1, ...planet(100).values], valueTypes: [3, 11, 12] }, 'liberation', 'Liberate Trandor'],
    ['Liberation of a count', { type: 11, values: [3], valueTypes: [3] }, 'liberation', 'Liberate 3 planets'],
    ['Defense of a count against a race', { type: 12, values: [3, 5], valueTypes: [1, 3] }, 'defense', 'Defend 5 planets against the Automatons'],
    ['Defense of a planet', { type: 12, values: [1, ...planet(100).values], valueTypes: [3, 11, 12] }, 'defense', 'Defend Trandor'],
    ['Control of a count', { type: 13, values: [2], valueTypes: [3] }, 'control', 'Hold 2 planets'],
    ['Expand with a target', { type: 15, values: [1, ...planet(64).values], valueTypes: [3, 11, 12] }, 'expand', 'Liberate Meridia'],
  ]
  for (const [name, task, kind, description] of cases) {
    test(name, () => {
      expect(say(task)).toMatchObject({ kind, description })
    })
  }

  test('every type of the table has a wording of its own (none falls to the generic one)', () => {
    for (const type of words.tables.taskTypes.keys()) expect(say({ type, values: [7], valueTypes: [3] }).description).not.toStartWith('Task type')
  })
})

describe('what the tables do not know is described generically, never an error', () => {
  test('an unknown task type: "Task type N (goal G)", kind type-N', () => {
    expect(say({ type: 99, values: [123], valueTypes: [3] })).toEqual({ kind: 'type-99', description: 'Task type 99 (goal 123)', targets: [] })
    expect(say({ type: 42, values: [], valueTypes: [] })).toEqual({ kind: 'type-42', description: 'Task type 42', targets: [] })
  })

  test('no task list, unknown value types, an unknown race, a planet nobody knows, malformed values', () => {
    expect(say({ type: null, values: [], valueTypes: [] })).toEqual({ kind: 'unknown', description: 'Unknown task', targets: [] })
    expect(say({ type: 3, values: [1, 2, 3], valueTypes: [6, 8, 3] }).description).toBe('Kill 3 enemies')
    expect(say({ type: 3, values: [9, 10], valueTypes: [1, 3] }).description).toBe('Kill 10 enemies of faction 9')
    expect(say({ type: 13, values: [1, 1, 9999], valueTypes: [3, 11, 12] })).toEqual({
      kind: 'control', description: 'Hold Planet 9999', targets: [{ planetIndex: 9999, name: 'Planet 9999' }],
    })
    // Values that are not numbers, shorter than their types, or not arrays at all.
    expect(say({ type: 3, values: ['x', null], valueTypes: [1, 3, 9] }).description).toBe('Kill enemies')
    expect(say({ type: 11, values: null as never, valueTypes: 'nope' as never })).toMatchObject({ kind: 'liberation', description: 'Liberate planets' })
  })

  test('the stored planet name of the war comes first', () => {
    const values = namedValues(CONTROL.setting.tasks[0]!, words.tables)
    expect(targetsOf(values, 'Stored Name', words)).toEqual([{ planetIndex: 3, name: 'Stored Name' }])
  })

  test('thousands separators', () => {
    expect([0, 999, 1000, 1234567, 500000000, -4500, 12.5].map(thousands)).toEqual(['0', '999', '1,000', '1,234,567', '500,000,000', '-4,500', '12.5'])
  })
})

test('rewards in words: the reward table lower-cased, an unknown type "type-N", the raw fields kept', () => {
  expect(rewardsInWords(ERADICATE.setting.rewards!, words.tables)).toEqual([{ type: 1, id32: 897894480, amount: 55, kind: 'medals' }])
  expect(rewardsInWords([{ type: 7, amount: 1 }, null, 'x', { amount: 3 }], words.tables)).toEqual([{ type: 7, amount: 1, kind: 'type-7' }])
})

describe('projection', () => {
  const expiresAt = new Date('2026-01-02T00:00:00Z')
  const active: ProjectionInput = { status: 'active', expiresAt, progressAt: new Date('2026-01-01T14:00:00Z'), frozen: false }
  const task = { value: 100, target: 500, done: false, ratePerHour: 30 }

  test('progressPct, projectedAtExpiry = value + rate × hours left from the latest snapshot, onTrack against the goal', () => {
    expect(projectTask(task, active)).toEqual({ progressPct: 20, projectedAtExpiry: 100 + 30 * 10, onTrack: false })
    expect(projectTask({ ...task, ratePerHour: 40 }, active)).toEqual({ progressPct: 20, projectedAtExpiry: 500, onTrack: true })
    expect(projectTask({ ...task, value: 900, done: true }, active)).toMatchObject({ progressPct: 100, onTrack: true })
    // Without a goal: 0 or 100 by the done flag; no goal to be on track for.
    expect(projectTask({ value: 0, target: null, done: false, ratePerHour: 0 }, active)).toEqual({ progressPct: 0, projectedAtExpiry: 0, onTrack: null })
    expect(projectTask({ value: 1, target: null, done: true, ratePerHour: 0 }, active)).toMatchObject({ progressPct: 100, onTrack: true })
  })

  test('no projection without a rate, for an order that is over, or while the war is frozen', () => {
    expect(projectTask({ ...task, ratePerHour: null }, active)).toMatchObject({ projectedAtExpiry: null, onTrack: null })
    expect(projectTask(task, { ...active, frozen: true })).toMatchObject({ projectedAtExpiry: null, onTrack: null })
    expect(projectTask(task, { ...active, status: 'failed' })).toMatchObject({ projectedAtExpiry: null, onTrack: false })
    expect(projectTask(task, { ...active, status: 'withdrawn' })).toMatchObject({ projectedAtExpiry: null, onTrack: null })
    expect(projectTask(task, { ...active, status: 'completed' })).toMatchObject({ projectedAtExpiry: null, onTrack: true })
    expect(projectTask(task, { ...active, progressAt: expiresAt })).toMatchObject({ projectedAtExpiry: null })
  })

  test('the whole order: every task on track', () => {
    expect(orderOnTrack('active', [{ onTrack: true }, { onTrack: true }])).toBe(true)
    expect(orderOnTrack('active', [{ onTrack: true }, { onTrack: false }, { onTrack: null }])).toBe(false)
    expect(orderOnTrack('active', [{ onTrack: true }, { onTrack: null }])).toBeNull()
    expect(orderOnTrack('active', [])).toBeNull()
    expect(orderOnTrack('completed', [{ onTrack: null }])).toBe(true)
    expect(orderOnTrack('failed', [{ onTrack: true }])).toBe(false)
    expect(orderOnTrack('withdrawn', [{ onTrack: true }])).toBeNull()
  })
})
