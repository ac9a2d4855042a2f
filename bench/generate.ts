/**
 * A realistic war history, generated INSIDE the database: every dataset is a handful of
 * INSERT ... SELECT over generate_series (batched by time, so progress can be reported and
 * hypertable chunks fill in order), never row by row from the client.
 *
 * Shapes (every time is relative to `now`, oldest rows first):
 * - player_count_snapshots, 'Game 2' source 'upstream': one row per 15 s over `years`; a
 *   daily rhythm ~40k (night) .. ~480k (evening peak) on a log scale (the simulator's
 *   curve), a slow trend, slow waves and noise; upstream_war_time increasing (war time runs
 *   at 0.995 x wall time, as the simulator's) up to just below the live war's time at `now`;
 * - pcstore rows every 10 min for 'Game 2' (~22 % of the upstream curve) and 'Game'
 *   (a few thousand), starting no earlier than the upstream series;
 * - planet status and the fight: a full-status tick every 5 min over `planetDays`, the
 *   real captures of March 2024 tiled over them, stored as the collector's write stores
 *   them (bench/war-history.ts): what changed, the ticks, their hours, the campaigns and
 *   defenses with their spans and outcomes;
 * - war_summary_snapshots: a tick every 5 min over `summaryDays`, cumulative counters
 *   growing with the daily rhythm;
 * - major_orders over `years` (each active 3..7 days, the last one active now) with one
 *   progress row per 5-minute tick while active;
 * - dispatches over `years`, ids 1..n, messages from the simulator's texts (50..450 chars).
 */
import type { Sql } from '../src/db/connect.ts'
import { generateWarHistory, type Batch } from './war-history.ts'
import {
  defendedText, defendText, ERADICATE_BRIEFS, FLAVOR_DISPATCHES, LIBERATE_BRIEFS, liberatedText, lostText, newOrderText, orderEndText,
} from '../src/sim/texts.ts'

export interface Scale {
  /** Years of 15-second upstream player counts (and of pcstore rows, orders, dispatches). */
  years: number
  /** Days of 5-minute full-status ticks (planet status and the fight: the real captures tiled). */
  planetDays: number
  /** Days of 5-minute war summary ticks. */
  summaryDays: number
  /** Dispatches over the whole span. */
  dispatches: number
  /** Major orders over the whole span. */
  orders: number
}

export interface GenStep {
  dataset: string
  rows: number
  seconds: number
}

const DAY = 86_400
const LN40K = Math.log(40_000)
const LN12 = Math.log(12) // ln(480k / 40k)

/** SQL text of the daily rhythm (0..1) at epoch seconds `e` (peak in the evening UTC). */
const rhythm = (e: string) => `(0.5 - 0.5 * cos(2 * pi() * ((${e})::numeric % ${DAY} / ${DAY} - 0.3)))`

export interface GenerateOptions {
  now: Date
  warId: number
  /** The live war's time (the simulator's war status) at `now`: generated war times end just below it. */
  warTimeAtNow: number
  progress: (line: string) => void
}

/**
 * Fill an empty, migrated database whose `planets` already holds the war's planets (the
 * war-info collector wrote them). Returns one step per dataset, with its rows and time.
 */
export async function generate(sql: Sql, scale: Scale, opts: GenerateOptions): Promise<GenStep[]> {
  const steps: GenStep[] = []
  const t0s = Math.floor(opts.now.getTime() / 1000)
  const spanS = Math.round(scale.years * 365 * DAY)
  const startS = t0s - spanS
  // The counters' clock: the war started a day before the history.
  const warStartS = startS - DAY
  // War time = 0.995 x wall time, ending one second below the live war's time at `now`: the
  // collectors that run after generation (against the simulator) continue the same clock
  // and never meet a generated (war, war time) key, which would make them write nothing.
  // Rows older than the live war's age get negative war times.
  const warTime = (e: string) => `(${opts.warTimeAtNow - 1} - round((${t0s} - (${e})) * 0.995))::bigint`
  const warId = opts.warId
  await sql`SELECT setseed(0.42)`

  const step = async (dataset: string, batches: Batch[]) => {
    const t = performance.now()
    let rows = 0
    for (const [i, b] of batches.entries()) {
      const bt = performance.now()
      const n = await b.run()
      rows += n
      const el = (performance.now() - t) / 1000
      opts.progress(
        `generate ${dataset}: batch ${i + 1}/${batches.length} (${b.label}) ${n.toLocaleString('en')} rows in ${((performance.now() - bt) / 1000).toFixed(1)} s; ` +
          `total ${rows.toLocaleString('en')} rows, ${el.toFixed(1)} s, ${Math.round(rows / Math.max(el, 1e-3)).toLocaleString('en')} rows/s`,
      )
    }
    const s = { dataset, rows, seconds: (performance.now() - t) / 1000 }
    steps.push(s)
    return s
  }

  // ---------------------------------------------------------------- upstream player counts
  // Row k (0 = oldest) at startS + 15k. Batches of 30 days.
  const upstreamRows = Math.floor(spanS / 15) + 1
  const perBatch = (30 * DAY) / 15
  const upstreamBatches = []
  for (let lo = 0; lo < upstreamRows; lo += perBatch) {
    const hi = Math.min(upstreamRows - 1, lo + perBatch - 1)
    upstreamBatches.push({
      label: `${new Date((startS + lo * 15) * 1000).toISOString().slice(0, 10)}`,
      run: async () =>
        (
          await sql.unsafe(`
            INSERT INTO player_count_snapshots (captured_at, game_name, source, api_total_player_count, upstream_war_time, war_id)
            SELECT to_timestamp(e), 'Game 2', 'upstream',
                   round(exp(${LN40K} + ${rhythm('e')} * ${LN12})
                         * (0.85 + 0.3 * (e - ${startS}) / ${spanS}.0 + 0.08 * sin(2 * pi() * (e - ${startS}) / (${DAY} * 47.0)))
                         * (1 + 0.05 * sin(e / 1700.0) + 0.03 * sin(e / 530.0 + 1.3) + 0.02 * (random() - 0.5)))::int,
                   ${warTime('e')}, ${warId}
            FROM (SELECT ${startS}::bigint + 15 * k AS e FROM generate_series(${lo}::bigint, ${hi}::bigint) AS k) g`)
        ).count,
    })
  }
  await step('player_count_snapshots (upstream, 15 s)', upstreamBatches)

  // ---------------------------------------------------------------- pcstore player counts
  // Every 600 s, 37 s off the 15-second grid, not before the upstream series starts.
  const pcFirst = startS + 37
  const pcRows = Math.floor((t0s - pcFirst) / 600) + 1
  await step('player_count_snapshots (pcstore, 10 min, 2 games)', [
    {
      label: 'all',
      run: async () =>
        (
          await sql.unsafe(`
            INSERT INTO player_count_snapshots (captured_at, game_name, source, pcstore_player_count, console_player_count, total_player_count, war_id)
            SELECT to_timestamp(e), game, 'pcstore', v, 0, v, ${warId}
            FROM (SELECT ${pcFirst}::bigint + 600 * k AS e FROM generate_series(0, ${pcRows - 1}) AS k) g,
                 LATERAL (VALUES
                   ('Game', round(6000 * (0.6 + 0.4 * ${rhythm('e')}) * (1 + 0.05 * (random() - 0.5)))::int),
                   ('Game 2', round(0.22 * exp(${LN40K} + ${rhythm('e')} * ${LN12})
                                    * (0.85 + 0.3 * (e - ${startS}) / ${spanS}.0) * (1 + 0.04 * (random() - 0.5)))::int)
                 ) AS x(game, v)
            ORDER BY e, game`)
        ).count,
    },
  ])

  // ---------------------------------------------------------------- planet status and the fight
  // Ticks on the collector's 5-minute grid (+2 s), the newest just before `now`: the real
  // captures tiled over them (bench/war-history.ts).
  const grid = Math.floor(t0s / 300) * 300
  const ticks = Math.round(scale.planetDays * 288)
  const planetCount = (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM planets WHERE war_id = ${warId}`)[0]!.n
  if (planetCount === 0) throw new Error(`no planets for war ${warId}: run the war-info collector first`)
  await generateWarHistory(sql, { warId, ticks, base: grid + 2 - 300 * (ticks - 1), warTime }, step)

  // ---------------------------------------------------------------- war summary
  // Cumulative counters: base + rate * I(D), I the integral of the daily rhythm (days).
  const sTicks = Math.round(scale.summaryDays * 288)
  const integral = (e: string) => `(0.5 * ((${e}) - ${warStartS}) / ${DAY}.0 - sin(2 * pi() * (((${e}) - ${warStartS}) / ${DAY}.0 - 0.3)) / (4 * pi()))`
  await step('war_summary_snapshots (5 min)', [
    {
      label: 'all',
      run: async () =>
        (
          await sql.unsafe(`
            INSERT INTO war_summary_snapshots (captured_at, war_id, upstream_war_time, bug_kills, automaton_kills, illuminate_kills, deaths,
              missions_won, missions_lost, mission_time, bullets_fired, bullets_hit, time_played, revives, friendlies, mission_success_rate, accuracy)
            SELECT to_timestamp(e), ${warId}, ${warTime('e')}, bug, bot, squid, deaths, won, lost, mtime, fired, hit, played, 2, friendly,
                   round(100.0 * won / (won + lost)), round(100.0 * hit / fired)
            FROM (SELECT e, i,
                         (50000000000 + 900000000 * i)::bigint AS bug, (30000000000 + 600000000 * i)::bigint AS bot,
                         (2000000000 + 150000000 * i)::bigint AS squid, (900000000 + 40000000 * i)::bigint AS deaths,
                         (60000000 + 2500000 * i)::bigint AS won, (9000000 + 500000 * i)::bigint AS lost,
                         (400000000000 + 15000000000 * i)::bigint AS mtime, (1500000000000 + 60000000000 * i)::bigint AS fired,
                         (1200000000000 + 47000000000 * i)::bigint AS hit, (400000000000 + 15000000000 * i)::bigint AS played,
                         (20000000 + 900000 * i)::bigint AS friendly
                  FROM (SELECT e, ${integral('e')} AS i
                        FROM (SELECT ${grid}::bigint + 4 - 300 * j AS e FROM generate_series(${sTicks - 1}, 0, -1) AS j) g) x) y`)
        ).count,
    },
  ])

  // ---------------------------------------------------------------- major orders + progress
  // Order i (0 = oldest) starts at startS + i * span / n and lasts 3..7 days; the last one
  // is still active now (expires in the future).
  const n = scale.orders
  const briefs = [...ERADICATE_BRIEFS, ...LIBERATE_BRIEFS]
  await step('major_orders', [
    {
      label: 'all',
      run: async () =>
        (
          await sql.unsafe(
            `
            INSERT INTO major_orders (order_id32, war_id, first_seen_at, last_seen_at, expires_in_last_seen, start_war_time, setting_type,
              flags, title, briefing, task_description, tasks, rewards, reward_medals)
            SELECT 1000000000 + 7919 * i, ${warId}, to_timestamp(s), to_timestamp(least(s + d, ${t0s})), greatest(0, s + d - ${t0s}),
                   ${warTime('s')}, 4, 1, 'MAJOR ORDER', ($1::text[])[1 + i % array_length($1::text[], 1)], '',
                   jsonb_build_array(
                     jsonb_build_object('type', 3, 'values', jsonb_build_array(2, 1, 500000000, 0, 1, 1978117092, 0, 0, 0, 0),
                                        'valueTypes', jsonb_build_array(1, 2, 3, 4, 6, 5, 8, 9, 11, 12)),
                     jsonb_build_object('type', 3, 'values', jsonb_build_array(2, 1, 500000000, 0, 1, 934703916, 0, 0, 0, 0),
                                        'valueTypes', jsonb_build_array(1, 2, 3, 4, 6, 5, 8, 9, 11, 12)),
                     jsonb_build_object('type', 11, 'values', jsonb_build_array(1, 1, 0, 0, 1, 0, 0, 0, 0, 0),
                                        'valueTypes', jsonb_build_array(3, 11, 12, 1, 2, 4, 5, 6, 8, 9))),
                   jsonb_build_array(jsonb_build_object('type', 1, 'id32', 897894480, 'amount', 25 + 5 * (i % 7))),
                   25 + 5 * (i % 7)
            FROM (SELECT i, CASE WHEN i = ${n - 1} THEN ${t0s} - 2 * ${DAY} ELSE ${startS} + i * ${Math.floor(spanS / Math.max(1, n))} END AS s,
                         ${DAY} * (3 + i % 5) AS d
                  FROM generate_series(0, ${n - 1}) AS i) o`,
            [briefs],
          )
        ).count,
    },
  ])
  await step('major_order_progress (5 min while active)', [
    {
      label: 'all',
      run: async () =>
        (
          await sql.unsafe(`
            INSERT INTO major_order_progress (captured_at, order_id32, war_id, progress)
            SELECT to_timestamp(e), o.order_id32, ${warId},
                   jsonb_build_array(floor(500000000 * f)::bigint, floor(500000000 * f * f)::bigint, CASE WHEN f > 0.7 THEN 1 ELSE 0 END)
            FROM major_orders o
            CROSS JOIN LATERAL (SELECT (extract(epoch FROM o.first_seen_at)::bigint / 300 + 1) * 300 + 5 AS e0,
                                       extract(epoch FROM o.last_seen_at)::bigint AS e1) b
            CROSS JOIN LATERAL generate_series(b.e0, b.e1, 300) AS e
            CROSS JOIN LATERAL (SELECT (e - b.e0)::float8 / greatest(1, b.e1 - b.e0) AS f) x
            WHERE o.war_id = ${warId}
            ORDER BY e, o.order_id32`)
        ).count,
    },
  ])

  // Each order's first progress row with every task done. Every task done needs the first
  // one done: that cheap test first, the whole count only where it holds.
  await step('major_orders: completion', [
    {
      label: 'all',
      run: async () =>
        (
          await sql`
            UPDATE major_orders o SET completed_at = d.at
            FROM (
              SELECT p.order_id32, min(p.captured_at) AS at
              FROM major_order_progress p JOIN major_orders m ON m.order_id32 = p.order_id32
              WHERE m.war_id = ${warId} AND jsonb_array_length(p.progress) > 0
                AND CASE WHEN mo_task_done(m.tasks -> 0, (p.progress ->> 0)::numeric)
                         THEN mo_tasks_done(m.tasks, p.progress) = jsonb_array_length(p.progress) ELSE false END
              GROUP BY p.order_id32) d
            WHERE o.order_id32 = d.order_id32`
        ).count,
    },
  ])

  // ---------------------------------------------------------------- dispatches
  // Templates from the simulator; {P} is a planet name ({P_UP} upper-case). Ids 1..n, below the simulator's.
  const planetTemplates = [liberatedText, defendedText, lostText, defendText].map((f) => f('{P}').replace('{P}', '{P_UP}'))
  const templates = [...FLAVOR_DISPATCHES, ...planetTemplates, ...briefs.map(newOrderText), orderEndText(true), orderEndText(false)]
  const long = FLAVOR_DISPATCHES[0]!
  const d = scale.dispatches
  await step('dispatches', [
    {
      label: 'all',
      run: async () =>
        (
          await sql.unsafe(
            `
            INSERT INTO dispatches (war_id, dispatch_id, published_war_time, published_at, type, message, first_seen_at)
            SELECT ${warId}, i, ${warTime('e')}, to_timestamp(e), CASE WHEN i % 10 = 0 THEN 1 ELSE 0 END,
                   replace(replace(($1::text[])[1 + (i * 7) % array_length($1::text[], 1)], '{P}', pl.name), '{P_UP}', upper(pl.name))
                     || CASE WHEN i % 3 = 0 THEN E'\\n\\n' || $2::text ELSE '' END,
                   to_timestamp(e + 90)
            FROM (SELECT i, ${startS} + 3600 + (i - 1)::bigint * ${Math.floor((spanS - 7200) / Math.max(1, d))} AS e FROM generate_series(1, ${d}) AS i) g
            CROSS JOIN LATERAL (SELECT name FROM planets WHERE war_id = ${warId} ORDER BY planet_index OFFSET (i * 13) % ${planetCount} LIMIT 1) pl`,
            [templates, long],
          )
        ).count,
    },
  ])
  return steps
}

/** ANALYZE every table written, as autovacuum would have long since done on a live database. */
export async function analyze(sql: Sql): Promise<number> {
  const t = performance.now()
  await sql`ANALYZE`
  return (performance.now() - t) / 1000
}
