/**
 * Realistic history for the read-route tests, written with generate_series so that weeks
 * of data take one statement per dataset. Every time is relative to `now`.
 *
 * What gets written (war 801 is the current war, 800 an older one):
 * - wars 800 and 801; factions 1..4; sectors; planets (801: indexes 0..5, 800: 0..3) and
 *   their planet_war_info;
 * - player counts of 'Game 2': upstream rows every 15 s over the last API_DAYS days,
 *   pcstore rows every 10 min over the last PCSTORE_DAYS days; 'Game' pcstore rows too;
 * - planet status ticks every 5 min over 31 days for planets 0..2 of war 801 (a few for 800),
 *   written as the collector writes them (the ticks, then what changed);
 * - war summary ticks every 5 min over 10 days (801) and a few for 800;
 * - major orders (three in 801, one in 800) and the progress of two of them;
 * - dispatches (801: 30, some with %, _ and \ in the text; 800: 3).
 */
import type { Sql } from '../../src/db/connect.ts'
import type { Edition } from '../../src/db/edition.ts'
import { warInfo } from '../../src/collect/war-info.ts'
import { parseWarInfo, parseWarStatus } from '../../src/feeds/upstream.ts'
import * as planetStatus from '../../src/storage/planet-status.ts'
import { refreshRollups } from '../../src/storage/rollups.ts'
import { claimTicks } from '../../src/storage/ticks.ts'
import { loadSample } from './samples.ts'

export const SEED = {
  warId: 801,
  oldWarId: 800,
  apiDays: 10,
  pcstoreDays: 120,
  planetStatusDays: 31,
  summaryDays: 10,
  /** Planets of war 801 with status history. */
  trackedPlanets: [0, 1, 2],
  planets801: 6,
  planets800: 4,
  orders: { recent: 1001, older: 1002, big: 3_000_000_000, oldWar: 900 },
  progressTicks: 576,
} as const

export interface Seeded {
  now: Date
}

export async function seedWarsAndLookups(sql: Sql, now: Date) {
  await sql`INSERT INTO factions (faction_id, name) VALUES (1, 'Humans'), (2, 'Terminids'), (3, 'Automaton'), (4, 'Illuminate')`
  await sql`INSERT INTO sectors (sector_name, planet_count) VALUES ('Sol', 2), ('Altus', 2), ('Barnard', 2)`
  await sql`
    INSERT INTO wars (war_id, start_date, end_date, minimum_client_version, first_seen_at, updated_at) VALUES
      (800, ${new Date(now.getTime() - 200 * 86_400_000)}, ${new Date(now.getTime() - 100 * 86_400_000)}, '0.9.0',
            ${new Date(now.getTime() - 200 * 86_400_000)}, ${new Date(now.getTime() - 100 * 86_400_000)}),
      (801, ${new Date(now.getTime() - 99 * 86_400_000)}, ${new Date(now.getTime() + 300 * 86_400_000)}, '1.0.0',
            ${new Date(now.getTime() - 99 * 86_400_000)}, ${now})`
  // Planet i: name 'Planet-<war>-<i>', sector by i / 2, owner humans for even i, bugs for odd i.
  await sql`
    INSERT INTO planets (war_id, planet_index, name, sector_name, biome, position_x, position_y, max_health, initial_owner, disabled, waypoints)
    SELECT w.war_id, i, 'Planet-' || w.war_id || '-' || i, (ARRAY['Sol', 'Altus', 'Barnard'])[i / 2 + 1],
           CASE WHEN i % 2 = 0 THEN 'desert' ELSE NULL END, i * 0.1, -i * 0.05, 1000000, CASE WHEN i % 2 = 0 THEN 1 ELSE 2 END,
           i = 5, CASE WHEN i > 0 THEN ARRAY[i - 1] ELSE '{}'::int[] END
    FROM (VALUES (801, 6), (800, 4)) AS w(war_id, n), generate_series(0, 5) AS i
    WHERE i < w.n`
  await sql`
    INSERT INTO planet_war_info (war_id, planet_index, owner, health, regen_per_second, players, upstream_war_time, updated_at)
    SELECT war_id, planet_index, initial_owner, 600000 + planet_index * 1000, 1.5 + planet_index, 100 * planet_index + war_id % 100, 123456,
           ${now}::timestamptz - make_interval(secs => planet_index)
    FROM planets`
}

export async function seedPlayerCounts(sql: Sql, now: Date) {
  // Upstream 'Game 2' rows every 15 s. Values repeat (daily sine plus a small pattern), so
  // the first occurrence of the peak matters.
  await sql`
    INSERT INTO player_count_snapshots (captured_at, game_name, source, api_total_player_count, upstream_war_time, war_id)
    SELECT ${now}::timestamptz - make_interval(secs => g), 'Game 2', 'upstream',
           (120000 + round(40000 * sin(g / 13751.0)) + (g / 15) % 7 * 100)::int, 9000000 - g, 801
    FROM generate_series(0, ${SEED.apiDays * 86_400}::int, 15) AS g`
  // pcstore rows every 10 min, both games, starting 37 s off the 15 s grid.
  await sql`
    INSERT INTO player_count_snapshots (captured_at, game_name, source, pcstore_player_count, console_player_count, total_player_count, war_id)
    SELECT ${now}::timestamptz - make_interval(secs => g + 37), game,
           'pcstore', v, 0, v, 801
    FROM generate_series(0, ${SEED.pcstoreDays * 86_400}::int, 600) AS g,
         (VALUES ('Game 2', 50000), ('Game', 4000)) AS games(game, base),
         LATERAL (SELECT (base + round(base * 0.3 * sin(g / 20000.0)) + (g / 600) % 5 * 10)::int AS v) AS val`
}

/** A planet's row at a tick, as the seeds make them. */
export interface PlanetRowAt {
  at: Date
  planet_index: number
  owner: number
  health: number
  regen_per_second: number
  players: number
}

/**
 * Planet rows written as the full-status collector writes its ticks: each tick claimed
 * (its war time: its second), then the planets of the ticks in order, in batches (what
 * changed: storage/planet-status.ts). The ticks must be later than every stored one of the war.
 */
export async function writePlanetTicks(sql: Sql, warId: number, rows: readonly PlanetRowAt[]) {
  const byTick = new Map<number, PlanetRowAt[]>()
  for (const r of rows) byTick.set(r.at.getTime(), [...(byTick.get(r.at.getTime()) ?? []), r])
  const ticks = [...byTick].sort((a, b) => a[0] - b[0]).map(([t, planets]) => ({ at: new Date(t), planets: planets.sort((a, b) => a.planet_index - b.planet_index) }))
  for (let i = 0; i < ticks.length; i += 500) {
    const batch = ticks.slice(i, i + 500)
    await sql.begin(async (tx) => {
      const claims = await claimTicks(tx, batch.map((t) => ({ warId, warTime: Math.floor(t.at.getTime() / 1000), at: t.at, planets: t.planets.length })))
      if (claims.some((c) => !c.claimed || c.next)) throw new Error('writePlanetTicks: ticks must be new and later than the stored ones')
      await planetStatus.insertTicks(tx, warId, batch, { before: claims[0]!.before, next: null })
    })
  }
}

/**
 * One tick of a war's planets written as the collector writes it, wherever it falls (a
 * tick before a stored one is written late): its claim, then what changed.
 */
export async function writeTick(sql: Sql, warId: number, at: Date, planets: readonly Omit<PlanetRowAt, 'at'>[]) {
  await sql.begin(async (tx) => {
    const [claim] = await claimTicks(tx, [{ warId, warTime: Math.floor(at.getTime() / 1000), at, planets: planets.length }])
    if (!claim!.claimed) throw new Error(`writeTick: a tick at ${at.toISOString()} is stored already`)
    await planetStatus.insertTicks(tx, warId, [{ at, planets: [...planets] }], { before: claim!.before, next: claim!.next })
  })
}

/**
 * Take a tick written by writeTick out again (a test's clean-up): the tick, its rows and
 * its counts; the owner changes and the planet-hours around it computed again. For ticks
 * whose next tick has rows of its own for the planets it changed (no restated rows).
 */
export async function deleteTick(sql: Sql, warId: number, at: Date) {
  await sql.begin(async (tx) => {
    await tx`DELETE FROM full_status_ticks WHERE war_id = ${warId} AND captured_at = ${at}`
    await tx`DELETE FROM planet_status_changes WHERE war_id = ${warId} AND captured_at = ${at}`
    await tx`UPDATE full_status_tick_hours SET n = n - 1 WHERE war_id = ${warId} AND bucket = time_bucket(interval '1 hour', ${at}::timestamptz)`
    await tx`UPDATE full_status_tick_days SET n = n - 1 WHERE war_id = ${warId} AND bucket = time_bucket(interval '1 day', ${at}::timestamptz)`
    await tx`SELECT planet_owner_changes_rebuild(${warId}, ${at}::timestamptz - interval '1 day', ${at}::timestamptz + interval '1 day')`
    await tx`
      UPDATE planet_status_latest l SET (owner, health, regen_per_second, players) = (
        SELECT c.owner, c.health, c.regen_per_second, c.players FROM planet_status_changes c
        WHERE c.war_id = l.war_id AND c.planet_index = l.planet_index ORDER BY c.captured_at DESC LIMIT 1),
        last_owner = (SELECT c.owner FROM planet_status_changes c
                      WHERE c.war_id = l.war_id AND c.planet_index = l.planet_index AND c.owner IS NOT NULL ORDER BY c.captured_at DESC LIMIT 1)
      WHERE l.war_id = ${warId}`
    await tx`
      SELECT planet_status_hours_rebuild(${warId}, time_bucket(interval '1 hour', ${at}::timestamptz),
        least(time_bucket(interval '1 hour', ${at}::timestamptz) + interval '1 hour',
              (SELECT time_bucket(interval '1 hour', max(captured_at)) FROM full_status_ticks WHERE war_id = ${warId} AND planets_written > 0)))`
  })
}

/**
 * The seeded planet ticks: every 5 minutes over SEED.planetStatusDays for the tracked
 * planets of war 801 (with `extra` rows of war 801 at the same ticks), a few of war 800.
 */
export async function seedPlanetStatus(sql: Sql, now: Date, extra: readonly PlanetRowAt[] = []) {
  // Ticks on the 5-minute grid of the full-status collector, 3 s after the minute.
  const rows = await sql<PlanetRowAt[]>`
    SELECT ${now}::timestamptz - make_interval(secs => g + 3) AS at, p AS planet_index,
           CASE WHEN p % 2 = 0 THEN 1 ELSE 2 END AS owner,
           (500000 + 400000 * sin(g / 200000.0 + p))::bigint AS health,
           (1.25 + p)::float8 AS regen_per_second,
           (1000 + 500 * cos(g / 50000.0) + g / 300 % 13)::int + p AS players
    FROM generate_series(0, ${SEED.planetStatusDays * 86_400}::int, 300) AS g, unnest(${SEED.trackedPlanets as unknown as number[]}::int[]) AS p`
  await writePlanetTicks(sql, 801, [...rows.map((r) => ({ ...r, health: Number(r.health) })), ...extra])
  const old = await sql<PlanetRowAt[]>`
    SELECT ${now}::timestamptz - make_interval(secs => g + 3) AS at, 0 AS planet_index, 1 AS owner, 42 AS health, 0::float8 AS regen_per_second, 7 AS players
    FROM generate_series(0, 3600, 300) AS g`
  await writePlanetTicks(sql, 800, old)
}

export async function seedWarSummary(sql: Sql, now: Date) {
  await sql`
    INSERT INTO war_summary_snapshots (captured_at, war_id, upstream_war_time, bug_kills, automaton_kills, illuminate_kills, deaths,
      missions_won, missions_lost, mission_time, bullets_fired, bullets_hit, time_played, revives, friendlies, mission_success_rate, accuracy)
    SELECT ${now}::timestamptz - make_interval(secs => g + 5), w.war_id, 5000000 - g,
           3000000000 - g * 100, 2000000000 - g * 80, 500000000 - g * 10, 90000000 - g * 5,
           4000000 - g, 900000 - g / 10, 7000000000 - g * 20, 80000000000 - g * 1000, 81000000000 - g * 1100,
           7000000000 - g * 20, 2, 1200000 - g, 83, 98
    FROM (VALUES (801, ${SEED.summaryDays * 86_400}::int), (800, 1200)) AS w(war_id, span), generate_series(0, w.span, 300) AS g`
}

export async function seedMajorOrders(sql: Sql, now: Date) {
  const ago = (s: number) => new Date(now.getTime() - s * 1000)
  const tasks = [{ type: 3, values: [2, 0, 1000000], valueTypes: [1, 2, 3] }]
  const rewards = [{ type: 1, id32: 897894480, amount: 45 }]
  const orders = [
    { id: SEED.orders.recent, war: 801, first: ago(3 * 86_400), last: ago(3600), title: 'MAJOR ORDER', briefing: 'Hold the line', desc: 'Liberate 2 planets', tasks, rewards, medals: 45 },
    { id: SEED.orders.older, war: 801, first: ago(9 * 86_400), last: ago(2 * 86_400), title: 'MAJOR ORDER', briefing: 'Defend', desc: 'Defend', tasks: null, rewards: [], medals: 0 },
    { id: SEED.orders.big, war: 801, first: ago(5 * 86_400), last: ago(3 * 86_400), title: null, briefing: null, desc: null, tasks, rewards, medals: 45 },
    { id: SEED.orders.oldWar, war: 800, first: ago(150 * 86_400), last: ago(140 * 86_400), title: 'OLD', briefing: 'Old war', desc: 'x', tasks, rewards, medals: 45 },
  ]
  for (const o of orders) {
    await sql`
      INSERT INTO major_orders (order_id32, war_id, first_seen_at, last_seen_at, expires_in_last_seen, start_war_time, flags,
        title, briefing, task_description, tasks, rewards, reward_medals)
      VALUES (${o.id}, ${o.war}, ${o.first}, ${o.last}, 86400, 4000000, 1, ${o.title}, ${o.briefing}, ${o.desc},
        ${o.tasks === null ? null : sql.json(o.tasks)}, ${sql.json(o.rewards)}, ${o.medals})`
  }
  // Order 1001: a tick every 5 minutes for 2 days; its only task completes 12 hours ago.
  await sql`
    INSERT INTO major_order_progress (captured_at, order_id32, war_id, progress)
    SELECT ${now}::timestamptz - make_interval(secs => g * 300 + 7), ${SEED.orders.recent}, 801,
           to_jsonb(ARRAY[CASE WHEN g < 144 THEN 1 ELSE 0 END])
    FROM generate_series(0, ${SEED.progressTicks - 1}::int) AS g`
  await sql`
    INSERT INTO major_order_progress (captured_at, order_id32, war_id, progress)
    SELECT ${now}::timestamptz - make_interval(secs => 2 * 86400 + g * 300), ${SEED.orders.older}, 801, '[0, 0]'::jsonb
    FROM generate_series(0, 9) AS g`
}

/** Messages of war 801's dispatches, newest last (id 1..30, war time 10000 * id). */
export const DISPATCH_MESSAGES: string[] = Array.from({ length: 30 }, (_, i) => {
  const id = i + 1
  const special: Record<number, string> = {
    3: 'Liberation at 100% on Malevelon Creek',
    4: 'Liberation at 100 percent on Draupnir',
    5: 'Use the code snake_case in transmissions',
    6: 'Use the code snakeXcase in transmissions',
    7: 'Path C:\\galaxy\\sector is secured',
    8: 'Path C:galaxysector is blocked',
    9: 'Message in CAPITALS: SUPER EARTH',
  }
  return special[id] ?? `Routine dispatch number ${id}`
})

export async function seedDispatches(sql: Sql, now: Date) {
  const ids = DISPATCH_MESSAGES.map((_, i) => i + 1)
  await sql`
    INSERT INTO dispatches (war_id, dispatch_id, published_war_time, published_at, type, message, first_seen_at)
    SELECT 801, id, id * 10000, ${now}::timestamptz - make_interval(hours => 31 - id), 0, msg, ${now}
    FROM unnest(${ids}::int[], ${DISPATCH_MESSAGES}::text[]) AS d(id, msg)`
  // Two dispatches of war 801 share a publication time: the id breaks the tie.
  await sql`UPDATE dispatches SET published_at = (SELECT published_at FROM dispatches WHERE war_id = 801 AND dispatch_id = 20) WHERE war_id = 801 AND dispatch_id = 21`
  await sql`
    INSERT INTO dispatches (war_id, dispatch_id, published_war_time, published_at, type, message, first_seen_at)
    SELECT 800, 900 + g, g * 100, ${now}::timestamptz - make_interval(days => 150 - g), 1, 'Old war dispatch ' || g, ${now}
    FROM generate_series(1, 3) AS g`
}

/** Everything above, then a rollup refresh (as the service's schedule would do). */
export async function seedAll(sql: Sql, edition: Edition, now: Date): Promise<Seeded> {
  await seedWarsAndLookups(sql, now)
  await seedPlayerCounts(sql, now)
  await seedPlanetStatus(sql, now)
  await seedWarSummary(sql, now)
  await seedMajorOrders(sql, now)
  await seedDispatches(sql, now)
  await refreshRollups(sql, edition, now)
  return { now }
}

/** The real March-2024 war info (261 planets, names from the shipped lookup) written as the war-info collector writes it, at `at`. */
export async function seedRealWarInfo(sql: Sql, at: Date, warId = 801) {
  const info = parseWarInfo(loadSample('arrowhead/warinfo_801_2024-03-25_sector-hq.json')).data
  const status = parseWarStatus(loadSample('arrowhead/warstatus_801_2024-03-08_sector-hq.json')).data
  const mapped = warInfo.map({ info: { data: info, fetchedAt: at }, status: { data: status, fetchedAt: at } } as never, { warId, now: at })
  await sql.begin((tx) => warInfo.write(tx, at, { id: 'seed', collector: 'war-info', warId, capturedAt: at.toISOString(), rows: mapped.rows } as never))
}
