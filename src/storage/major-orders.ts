/** major_orders (one row per order, upserted at every sighting) and major_order_progress (one row per order per tick). */
import { t, type Static } from 'elysia'
import { keepPlans, type Sql, type Tx } from '../db/connect.ts'
import { Nullable, repeats, rowAffectedTwice, selectRow, Timestamp } from './model.ts'
import { pageWithTotal, withinRange, type Slice, type PageOf, type TimeRange } from './query.ts'
import { localizedColumn, LocalizedText, type Lang } from './texts.ts'

const Int = (description: string) => t.Integer({ description })

export const MajorOrderRow = t.Object(
  {
    orderId32: Int('Order id (unsigned 32-bit)'),
    warID: Int('War id'),
    title: Nullable(t.String(), 'Title'),
    briefing: Nullable(t.String(), 'Briefing text'),
    brief: Nullable(t.String(), 'The briefing again (same text), under the name public notifiers read (`items[0].brief`)'),
    description: Nullable(t.String(), 'Task description'),
    firstSeenAt: Timestamp('First sighting'),
    lastSeenAt: Timestamp('Last sighting'),
    expiresInLastSeen: Int('Seconds left at the last sighting; with lastSeenAt it tells whether the order is active'),
    startWarTime: Nullable(t.Integer(), 'War time the order started, when known'),
    flags: Nullable(t.Integer(), 'Upstream flags'),
    tasks: t.Union([t.Array(t.Any()), t.Null()], { description: 'Raw upstream task list [{type, values, valueTypes}]; null on rows captured before it existed' }),
    rewards: t.Array(t.Any(), { description: 'Raw upstream reward list [{type, id32, amount}]' }),
    rewardMedals: Int('Medals rewarded (type=1, amount>=2); 0 otherwise'),
  },
  { description: 'Major order row' },
)
export type MajorOrderRow = Static<typeof MajorOrderRow>

/** The row answered with `lang`: its texts in that language, or every language's. */
export const LocalizedMajorOrderRow = t.Object(
  {
    ...MajorOrderRow.properties,
    title: LocalizedText('Title'),
    briefing: LocalizedText('Briefing text'),
    brief: LocalizedText('The briefing again (same text), under the name public notifiers read'),
    description: LocalizedText('Task description'),
  },
  { description: 'Major order row' },
)
export type LocalizedMajorOrderRow = Static<typeof LocalizedMajorOrderRow>

export const ProgressRow = t.Object(
  {
    orderId32: Int('Order id'),
    progress: t.Array(t.Number(), { description: 'Raw upstream progress, one slot per task; non-zero = done' }),
    timestamp: Timestamp('Capture time of the full-status tick'),
  },
  { description: 'Major order progress row' },
)
export type ProgressRow = Static<typeof ProgressRow>

/** /historical-major-orders: last seen first; every war when `warId` is undefined. With `lang`, the texts of that language (or of every one). */
function orders(sql: Sql, f: { warId?: number; lang?: Lang }, p: Slice): Promise<PageOf<LocalizedMajorOrderRow>> {
  const where = f.warId === undefined ? sql`` : sql`WHERE war_id = ${f.warId}`
  const lang = f.lang
  const text = (column: string) => (lang ? localizedColumn(sql, lang, 'major_order_texts', sql`t.order_id32 = major_orders.order_id32`, column) : sql`${sql(column)}`)
  const texts = { title: text('title'), briefing: text('briefing'), brief: text('briefing'), description: text('task_description') }
  return pageWithTotal(
    sql<LocalizedMajorOrderRow[]>`
      SELECT ${selectRow(sql, MajorOrderRow, { warID: sql`war_id`, ...texts })}
      FROM major_orders ${where}
      ORDER BY last_seen_at DESC, order_id32 DESC
      LIMIT ${p.limit} OFFSET ${p.offset}`,
    sql<{ n: number }[]>`SELECT count(*) AS n FROM major_orders ${where}`,
  )
}

/** /historical-major-orders/:orderId/progress: newest first. */
function progress(sql: Sql, f: { orderId32: number; range: TimeRange }, p: Slice): Promise<PageOf<ProgressRow>> {
  const where = sql`WHERE order_id32 = ${f.orderId32} ${withinRange(sql, 'captured_at', f.range)}`
  return pageWithTotal(
    sql<ProgressRow[]>`
      SELECT ${selectRow(sql, ProgressRow, { timestamp: sql`captured_at` })}
      FROM major_order_progress ${where}
      ORDER BY captured_at DESC
      LIMIT ${p.limit} OFFSET ${p.offset}`,
    sql<{ n: number }[]>`SELECT count(*) AS n FROM major_order_progress ${where}`,
  )
}

// ------------------------------------------------------------------ derived state (/major-orders)

export const ORDER_STATUSES = ['active', 'completed', 'failed', 'withdrawn'] as const

export const OrderTask = t.Object({
  index: Int('Position in the task list (and in the progress array)'),
  type: Nullable(t.Integer(), 'Upstream task type; null when the order carries no task list'),
  value: Nullable(t.Number(), 'Latest progress slot; null before any progress row'),
  target: Nullable(t.Number(), "The task's goal (its value of valueType 3); null when it has none (or 0)"),
  done: t.Boolean({ description: 'value >= target; without a target, value is non-zero (the spec\'s rule)' }),
  fraction: Nullable(t.Number(), 'value / target, capped at 1; null without a target or a value'),
})

/**
 * A task as `states()` reads it: the answered fields, plus what the service puts into words
 * (services/major-orders.ts) and then drops: the raw values, the stored name of the planet
 * it targets, and its rate over the window.
 */
export const OrderTaskRow = t.Object({
  ...OrderTask.properties,
  values: t.Array(t.Number()),
  valueTypes: t.Array(t.Number()),
  planetName: Nullable(t.String(), "Name of the targeted planet (valueType 11 = 1, index at valueType 12) in the order's war, when stored"),
  ratePerHour: Nullable(t.Number(), 'Least-squares slope of the progress slot per hour over the snapshots in the window'),
  rateSamples: Int('Snapshots in the window with the slot'),
})
export type OrderTaskRow = Static<typeof OrderTaskRow>

export const OrderState = t.Object(
  {
    orderId32: Int('Order id'),
    warID: Int('War id'),
    title: LocalizedText('Title'),
    briefing: LocalizedText('Briefing text'),
    description: LocalizedText('Task description'),
    status: t.UnionEnum(ORDER_STATUSES, {
      description: 'completed: every task done at some snapshot; failed: time ran out first; withdrawn: gone from the feed before its time ran out; active: otherwise',
    }),
    tasksDone: Int('Tasks done at the latest progress snapshot'),
    tasksTotal: Int('Tasks of the order'),
    expiresAt: Timestamp('lastSeenAt + expiresInLastSeen'),
    completedAt: Nullable(Timestamp(), 'First progress snapshot at which every task was done'),
    firstSeenAt: Timestamp('First sighting'),
    lastSeenAt: Timestamp('Last sighting'),
    progressAt: Nullable(Timestamp(), 'Time of the latest progress snapshot (the moment of the tasks\' values); null before any'),
    tasks: t.Array(OrderTask),
    rewards: t.Array(t.Any(), { description: 'Raw upstream reward list [{type, id32, amount}]' }),
    rewardMedals: Int('Medals rewarded'),
  },
  { description: 'Major order with its derived state' },
)
export type OrderState = Static<typeof OrderState>
export type OrderStateRow = Omit<OrderState, 'tasks'> & { tasks: OrderTaskRow[] }

/**
 * The war's orders, last seen first, with their state as of `asOf` (rules in sql/0008 and
 * the OrderState descriptions). An order is "in the feed" when it was seen at the war's
 * latest full-status tick. With `lang`, the texts of that language (or of every one).
 * Each task also carries its raw values, the stored name of the planet it targets
 * (location type 1 at valueType 11, the planet index at valueType 12: upstream-feeds.md)
 * and the least-squares slope per hour of its progress slot over the order's progress
 * snapshots in (asOf - rateHours, asOf], x in hours from asOf.
 *
 * One statement, shaped for speed (GET /major-orders runs it at every request): the `limit`
 * orders are chosen first (the index on war and last sighting), and only then read their
 * latest progress, their rates (one pass over the window's snapshots per order, none for an
 * order last seen before the window) and their tasks. A task's goal and done flag are
 * mo_task_target and mo_task_done of sql/0008 written out inline (the same rules: the
 * first value of valueType 3; done when the value reaches a goal > 0, else when it is
 * non-zero), as those functions cost a call each; tasksDone counts the done tasks as
 * mo_tasks_done does.
 */
function states(sql: Sql, f: { warId: number; asOf: Date; limit: number; lang?: Lang; rateHours: number }): Promise<OrderStateRow[]> {
  // Its plan for the values looks at every chunk of major_order_progress, and costs more
  // than the run: the plan kept per connection instead (keepPlans).
  return sql.begin('read only', async (tx) => (await Promise.all([keepPlans(tx), statesIn(tx, f)]))[1])
}

async function statesIn(sql: Tx, f: { warId: number; asOf: Date; limit: number; lang?: Lang; rateHours: number }): Promise<OrderStateRow[]> {
  const lang = f.lang
  const text = (column: string) => (lang ? localizedColumn(sql, lang, 'major_order_texts', sql`t.order_id32 = o.order_id32`, column) : sql`o.${sql(column)}`)
  const rateFrom = new Date(f.asOf.getTime() - f.rateHours * 3_600_000)
  const hoursFromAsOf = sql`(extract(epoch FROM w.captured_at - ${f.asOf}::timestamptz) / 3600)::float8`
  // The first value of a task whose valueType is `code` (over vt, the task's valueTypes with their positions).
  const valueAt = (code: string) => sql`(array_agg((tv.task -> 'values' ->> (vt.k - 1)::int)::numeric ORDER BY vt.k) FILTER (WHERE vt.code = ${code}))[1]`
  return [...(await sql<OrderStateRow[]>`
    WITH latest AS (SELECT max(captured_at) AS t FROM full_status_ticks WHERE war_id = ${f.warId}),
         o AS (SELECT * FROM major_orders WHERE war_id = ${f.warId} ORDER BY last_seen_at DESC, order_id32 DESC LIMIT ${f.limit})
    SELECT o.order_id32 AS "orderId32", o.war_id AS "warID",
           ${text('title')} AS title, ${text('briefing')} AS briefing, ${text('task_description')} AS description,
           CASE WHEN o.completed_at IS NOT NULL THEN 'completed'
                WHEN x.expires_at <= ${f.asOf} THEN 'failed'
                WHEN o.last_seen_at < (SELECT t FROM latest) THEN 'withdrawn'
                ELSE 'active' END AS status,
           tk.done AS "tasksDone", tk.total AS "tasksTotal",
           x.expires_at AS "expiresAt", o.completed_at AS "completedAt",
           o.first_seen_at AS "firstSeenAt", o.last_seen_at AS "lastSeenAt", p.captured_at AS "progressAt",
           tk.tasks, o.rewards, o.reward_medals AS "rewardMedals"
    FROM o
    CROSS JOIN LATERAL (SELECT o.last_seen_at + make_interval(secs => o.expires_in_last_seen) AS expires_at) x
    LEFT JOIN LATERAL (
      SELECT progress, captured_at FROM major_order_progress WHERE order_id32 = o.order_id32 ORDER BY captured_at DESC LIMIT 1
    ) p ON true
    LEFT JOIN LATERAL (
      SELECT jsonb_object_agg(s.i, jsonb_build_array(s.rate, s.n)) AS by_index
      FROM (
        SELECT e.i - 1 AS i, regr_slope(e.v::float8, ${hoursFromAsOf}) AS rate, regr_count(e.v::float8, ${hoursFromAsOf})::int AS n
        FROM major_order_progress w
        CROSS JOIN LATERAL jsonb_array_elements_text(w.progress) WITH ORDINALITY AS e(v, i)
        WHERE o.last_seen_at > ${rateFrom} AND w.order_id32 = o.order_id32 AND w.captured_at > ${rateFrom} AND w.captured_at <= ${f.asOf}
        GROUP BY e.i) s
    ) r ON true
    CROSS JOIN LATERAL (
      SELECT count(*) FILTER (WHERE t.done)::int AS done, count(*)::int AS total,
             coalesce(jsonb_agg(jsonb_build_object(
               'index', t.i, 'type', (t.task ->> 'type')::int, 'value', t.v, 'target', CASE WHEN t.target > 0 THEN t.target END,
               'done', t.done, 'fraction', CASE WHEN t.target > 0 AND t.v IS NOT NULL THEN least(t.v / t.target, 1)::float8 END,
               'values', coalesce(t.task -> 'values', '[]'), 'valueTypes', coalesce(t.task -> 'valueTypes', '[]'),
               'planetName', CASE WHEN t.location_type = 1 THEN (
                 SELECT name FROM planets_of_war(o.war_id) WHERE planet_index = t.location_index::bigint) END,
               'ratePerHour', r.by_index -> t.i::text -> 0, 'rateSamples', coalesce((r.by_index -> t.i::text ->> 1)::int, 0)) ORDER BY t.i), '[]') AS tasks
      FROM (
        SELECT i, tv.task, tv.v, vals.target, vals.location_type, vals.location_index,
               coalesce(CASE WHEN vals.target > 0 THEN tv.v >= vals.target ELSE tv.v <> 0 END, false) AS done
        FROM generate_series(0, greatest(jsonb_array_length(coalesce(o.tasks, '[]')), jsonb_array_length(coalesce(p.progress, '[]'))) - 1) AS i
        CROSS JOIN LATERAL (SELECT o.tasks -> i AS task, (p.progress ->> i)::numeric AS v) tv
        CROSS JOIN LATERAL (
          SELECT ${valueAt('3')} AS target, ${valueAt('11')} AS location_type, ${valueAt('12')} AS location_index
          FROM jsonb_array_elements_text(coalesce(tv.task -> 'valueTypes', '[]')) WITH ORDINALITY AS vt(code, k)) vals
      ) t
    ) tk
    ORDER BY o.last_seen_at DESC, o.order_id32 DESC`)]
}

// ------------------------------------------------------------------ writes (full-status collector)

export interface OrderInput {
  order_id32: number
  expires_in: number
  start_war_time: number | null
  setting_type: number
  flags: number
  title: string
  briefing: string
  task_description: string
  tasks: unknown[]
  rewards: unknown[]
  reward_medals: number
  progress: number[]
}

/**
 * Every task of an order done at a progress snapshot (`r.tasks`, `r.progress`): the rule
 * of sql/0008 (mo_tasks_done equal to the number of progress slots, at least one),
 * written out inline as states() does, since a call of those SQL functions is planned
 * anew every time.
 */
const allTasksDone = (tx: Tx) => tx`(
  jsonb_array_length(r.progress) > 0 AND NOT EXISTS (
    SELECT 1
    FROM jsonb_array_elements_text(r.progress) WITH ORDINALITY AS e(v, i)
    CROSS JOIN LATERAL (SELECT r.tasks -> (e.i - 1)::int AS task) x
    LEFT JOIN LATERAL (
      SELECT (x.task -> 'values' ->> (vt.i - 1)::int)::numeric AS target
      FROM jsonb_array_elements_text(coalesce(x.task -> 'valueTypes', '[]')) WITH ORDINALITY AS vt(code, i)
      WHERE vt.code = '3' ORDER BY vt.i LIMIT 1
    ) g ON true
    WHERE NOT coalesce(CASE WHEN coalesce(g.target, 0) > 0 THEN e.v::numeric >= g.target ELSE e.v::numeric <> 0 END, false)))`

/** Every order of one tick, upserted, plus its progress row (upsertTicks). */
export async function upsertWithProgress(tx: Tx, at: Date, warId: number, orders: OrderInput[]) {
  const [counts] = await upsertTicks(tx, warId, [{ at, orders }])
  return counts!
}

/**
 * The orders of ticks of one war, oldest first, each later than the one before, with a
 * progress row each, in one statement. Each order is upserted once with what its
 * sightings, one after the other, would have left: first and last sighting, the time
 * left and the texts of its latest (a sighting older than the stored one changes
 * neither), its start time when one was given, and its completion, the first snapshot
 * with every task done (an older tick can move it earlier). Returns the rows per tick.
 */
export async function upsertTicks(tx: Tx, warId: number, ticks: readonly { at: Date; orders: OrderInput[] }[]) {
  const counts = ticks.map(({ orders }) => ({ majorOrders: orders.length, majorOrderProgress: 0 }))
  // No order at these ticks (none running, or imported captures without assignments): no statement.
  if (!ticks.some((t) => t.orders.length)) return counts
  // An order upserted once for all the ticks: a tick listing one twice fails as its own upsert would.
  if (ticks.some((t) => repeats(t.orders.map((o) => o.order_id32)))) throw rowAffectedTwice()
  const json = JSON.stringify(ticks.flatMap((t, k) => t.orders.map((o) => ({ k, at: t.at, ...o }))))
  const progress = await tx<{ at: Date; n: number }[]>`
    WITH r AS (
      SELECT r.*, ${allTasksDone(tx)} AS done
      FROM jsonb_to_recordset(${json}::text::jsonb) AS r(
        k integer, at timestamptz, order_id32 bigint, expires_in integer, start_war_time bigint, setting_type integer, flags integer,
        title text, briefing text, task_description text, tasks jsonb, rewards jsonb, reward_medals integer, progress jsonb)
    ), o AS (
      SELECT DISTINCT ON (order_id32) order_id32, expires_in, setting_type, flags, title, briefing, task_description, tasks, rewards, reward_medals,
             min(at) OVER w AS first_seen_at, max(at) OVER w AS last_seen_at, min(at) FILTER (WHERE done) OVER w AS completed_at,
             first_value(start_war_time) OVER (PARTITION BY order_id32 ORDER BY start_war_time IS NULL, k DESC) AS start_war_time
      FROM r WINDOW w AS (PARTITION BY order_id32)
      ORDER BY order_id32, k DESC
    ), upserted AS (
      INSERT INTO major_orders (order_id32, war_id, first_seen_at, last_seen_at, expires_in_last_seen, start_war_time,
        setting_type, flags, title, briefing, task_description, tasks, rewards, reward_medals, completed_at)
      SELECT order_id32, ${warId}, first_seen_at, last_seen_at, expires_in, start_war_time, setting_type, flags, title,
             briefing, task_description, tasks, rewards, reward_medals, completed_at
      FROM o
      ON CONFLICT (order_id32) DO UPDATE SET
        last_seen_at = greatest(major_orders.last_seen_at, excluded.last_seen_at),
        first_seen_at = least(major_orders.first_seen_at, excluded.first_seen_at),
        expires_in_last_seen = CASE WHEN excluded.last_seen_at >= major_orders.last_seen_at
                                    THEN excluded.expires_in_last_seen ELSE major_orders.expires_in_last_seen END,
        start_war_time = coalesce(excluded.start_war_time, major_orders.start_war_time), setting_type = excluded.setting_type,
        flags = excluded.flags, title = excluded.title, briefing = excluded.briefing,
        task_description = excluded.task_description, tasks = excluded.tasks, rewards = excluded.rewards,
        reward_medals = excluded.reward_medals, completed_at = least(major_orders.completed_at, excluded.completed_at)
    ), progress AS (
      INSERT INTO major_order_progress (captured_at, order_id32, war_id, progress)
      SELECT at, order_id32, ${warId}, progress FROM r ORDER BY k
      ON CONFLICT DO NOTHING
      RETURNING captured_at
    )
    SELECT captured_at AS at, count(*)::int AS n FROM progress GROUP BY captured_at`
  const byAt = new Map(ticks.map((t, k) => [t.at.getTime(), k]))
  for (const p of progress) counts[byAt.get(p.at.getTime())!]!.majorOrderProgress = p.n
  return counts
}

/** The reads of this table family; the store (storage/index.ts) runs them through the gate. */
export const reads = { orders, progress, states }
