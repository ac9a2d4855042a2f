/**
 * The war's planet status and fight, generated from the real captures: the 1,000
 * consecutive status captures of March 2024 (test/support/series.ts) tiled over the
 * history, capture k of tile t at tick 1000 t + k of the 5-minute grid. Each capture is
 * read as the full-status collector maps it; its changes are worked out once here, and
 * the tables are filled with what writing those ticks through the collector's write
 * (collect/full-status.ts writeBatch, one batch in order) stores, set by set:
 * - full_status_ticks, one per tick, war time on the history's clock (and war_item_ticks:
 *   each lists global events, none);
 * - planet_status_changes: a planet's row at a tick where its state differs from the
 *   tick before (across tiles too: capture 0 of a tile against capture 999 of the one
 *   before; every planet at the first tick); planet_status_latest; planet_owner_changes;
 *   full_status_tick_hours/_days; planet_status_hours (planetHours: set-based, equal to
 *   what planet_status_hours_rebuild computes, test/bench/war-history.test.ts);
 * - the fight (fight()): campaigns and planet events per tick with ids unique per tile,
 *   their spans, the current campaigns, the defenses' outcomes (defense_decide).
 * Every capture lists every planet, so no row says a planet left the feed.
 */
import type { Sql } from '../src/db/connect.ts'
import { numbers } from '../src/storage/model.ts'
import { SERIES_LENGTH, seriesTick } from '../test/support/series.ts'

/** Captures per tile: the whole series. */
export const TILE_CAPTURES = SERIES_LENGTH

/** What a campaign or event id of the series becomes in tile `t`: unique per tile, apart from the simulator's (below 100,000). */
const ID_STRIDE = 100_000
export const tileIdOffset = (t: number) => ID_STRIDE * (t + 1)

/** The ticks generated: tick i at epoch second `base + 300 i`, its war time `warTime(e)` (SQL over epoch seconds `e`). */
export interface TickPlan {
  warId: number
  ticks: number
  base: number
  warTime: (e: string) => string
}

export type Batch = { label: string; run: () => Promise<number> }
export type Step = (dataset: string, batches: Batch[]) => Promise<unknown>

const STEP_S = 300
/** Tiles per INSERT: about five weeks of ticks. */
const TILES_PER_BATCH = 12

/** Batches of whole tiles over the plan's ticks, each labelled with its first day. */
function tileBatches(plan: TickPlan, run: (lo: number, hi: number) => Promise<number>): Batch[] {
  const tiles = Math.ceil(plan.ticks / TILE_CAPTURES)
  const out: Batch[] = []
  for (let lo = 0; lo < tiles; lo += TILES_PER_BATCH) {
    const hi = Math.min(tiles, lo + TILES_PER_BATCH) - 1
    out.push({ label: new Date((plan.base + STEP_S * TILE_CAPTURES * lo) * 1000).toISOString().slice(0, 10), run: () => run(lo, hi) })
  }
  return out
}

/**
 * Tiles lo..hi (t) of a series table (`alias`, its capture in column k): tick i, its epoch
 * second e and its war time, within the plan's ticks.
 */
const tiled = (plan: TickPlan, lo: number, hi: number, table: string, alias: string) => `
  FROM generate_series(${lo}, ${hi}) AS t
  CROSS JOIN ${table} ${alias}
  CROSS JOIN LATERAL (SELECT ${TILE_CAPTURES}::bigint * t + ${alias}.k AS i) ti
  CROSS JOIN LATERAL (SELECT ${plan.base}::bigint + ${STEP_S} * ti.i AS e) te
  CROSS JOIN LATERAL (SELECT ${plan.warTime('te.e')} AS war_time) g
  WHERE ti.i < ${plan.ticks}`

/**
 * The series as the collector maps it, into bench_series_* tables: each planet's state
 * where it differs from the capture before (kind 1), capture 0 against capture 999 (kind
 * 2: where a tile follows another), every planet at capture 0 (kind 0: the first tick);
 * the campaigns and events of each capture (event times relative to the capture's war time).
 */
async function loadSeries(sql: Sql, lastK: number): Promise<{ planets: number; last: number[] }> {
  const caps = Array.from({ length: TILE_CAPTURES }, (_, k) => seriesTick(k).rows)
  const ids = caps[0]!.planets.map((p) => p.planet_index).join()
  if (caps.some((c) => c.planets.map((p) => p.planet_index).join() !== ids)) throw new Error('series: every capture must list the same planets')
  // What the generator does not model: the series has none.
  if (caps.some((c) => c.fight.attacks.length || c.fight.jointOperations.length || c.effects.length)) throw new Error('series: attack lines, joint operations or effects')
  const ch: number[][] = [[], [], [], [], [], [], [], []]
  // prev_owner: the owner at the capture before (every planet is in every capture: its last
  // owner in the feed, which the writes' owner changes compare with); -1 where none.
  const push = (k: number, p: (typeof caps)[0]['planets'][0], prevOwner: number | null, kind: number) => {
    for (const [j, v] of [k, p.planet_index, p.owner, p.health, p.regen_per_second, p.players, prevOwner ?? -1, kind].entries()) ch[j]!.push(v)
  }
  caps.forEach((c, k) => {
    const before = caps[(k + TILE_CAPTURES - 1) % TILE_CAPTURES]!.planets
    c.planets.forEach((p, j) => {
      const b = before[j]!
      if (k === 0) push(k, p, null, 0)
      if (p.owner !== b.owner || p.health !== b.health || p.regen_per_second !== b.regen_per_second || p.players !== b.players) push(k, p, b.owner, k === 0 ? 2 : 1)
    })
  })
  await sql`DROP TABLE IF EXISTS bench_series_changes, bench_series_campaigns, bench_series_events`
  await sql`
    CREATE TABLE bench_series_changes AS
    SELECT * FROM unnest(${numbers(ch[0]!)}::int[], ${numbers(ch[1]!)}::int[], ${numbers(ch[2]!)}::smallint[], ${numbers(ch[3]!)}::bigint[],
                         ${numbers(ch[4]!)}::float8[], ${numbers(ch[5]!)}::int[], ${numbers(ch[6]!)}::smallint[], ${numbers(ch[7]!)}::smallint[])
      AS c(k, planet_index, owner, health, regen_per_second, players, prev_owner, kind)`
  const campaigns = caps.flatMap((c, k) => c.fight.campaigns.map((x) => ({ k, ...x })))
  await sql`
    CREATE TABLE bench_series_campaigns AS
    SELECT * FROM jsonb_to_recordset(${JSON.stringify(campaigns)}::text::jsonb)
      AS c(k integer, campaign_id bigint, planet_index integer, type integer, count integer, race integer)`
  const events = caps.flatMap((c, k) =>
    c.fight.events.map((e) => ({ ...e, k, rel_start: e.start_war_time - c.warTime, rel_expire: e.expire_war_time - c.warTime })),
  )
  await sql`
    CREATE TABLE bench_series_events AS
    SELECT * FROM jsonb_to_recordset(${JSON.stringify(events)}::text::jsonb)
      AS e(k integer, event_id bigint, planet_index integer, event_type integer, race integer, health bigint, max_health bigint,
           rel_start bigint, rel_expire bigint, campaign_id bigint, joint_operation_ids bigint[])`
  const last = caps[lastK]!.planets.flatMap((p) => [p.planet_index, p.owner, p.health, p.regen_per_second, p.players])
  return { planets: caps[0]!.planets.length, last }
}

/** Generate the planet status and the fight of `plan`'s ticks (the tables empty for its war). */
export async function generateWarHistory(sql: Sql, plan: TickPlan, step: Step): Promise<void> {
  const w = plan.warId
  let series: Awaited<ReturnType<typeof loadSeries>> | undefined
  await step('the real series: 1,000 captures read, their changes worked out', [
    { label: 'all', run: async () => ((series = await loadSeries(sql, (plan.ticks - 1) % TILE_CAPTURES)), (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM bench_series_changes`)[0]!.n) },
  ])
  const { planets, last } = series!

  await step('full_status_ticks (5 min) and their hours and days', [
    {
      label: 'all',
      run: async () => {
        const ticks = await sql.unsafe(`
          INSERT INTO full_status_ticks (war_id, upstream_war_time, captured_at, planets_written)
          SELECT ${w}, ${plan.warTime('e')}, to_timestamp(e), ${planets}
          FROM (SELECT ${plan.base}::bigint + ${STEP_S} * i AS e FROM generate_series(0, ${plan.ticks - 1}) AS i) g`)
        // The captures list global events (none): where sql/0027 keeps which ticks listed each kind, every tick did.
        const [items] = await sql<{ kept: boolean }[]>`SELECT to_regclass('war_item_ticks') IS NOT NULL AS kept`
        if (items!.kept) {
          await sql.unsafe(`
            INSERT INTO war_item_ticks (war_id, kind, captured_at)
            SELECT ${w}, 'global_event', captured_at FROM full_status_ticks WHERE war_id = ${w} AND planets_written > 0`)
        }
        for (const [table, width] of [['full_status_tick_hours', '1 hour'], ['full_status_tick_days', '1 day']]) {
          await sql.unsafe(`
            INSERT INTO ${table} (war_id, bucket, n)
            SELECT war_id, time_bucket(interval '${width}', captured_at) AS b, count(*)
            FROM full_status_ticks WHERE war_id = ${w} AND planets_written > 0 GROUP BY 1, 2 ORDER BY 2`)
        }
        return ticks.count
      },
    },
  ])

  // Kind 0 rows at tile 0 only, kind 2 at every later tile.
  const kinds = `(c.kind = 1 OR (c.kind = 0 AND t = 0) OR (c.kind = 2 AND t > 0))`
  await step(`planet_status_changes (${planets} planets, what changed at each tick)`, tileBatches(plan, async (lo, hi) =>
    (await sql.unsafe(`
      INSERT INTO planet_status_changes (captured_at, war_id, planet_index, owner, health, regen_per_second, players)
      SELECT to_timestamp(e), ${w}, c.planet_index, c.owner, c.health, c.regen_per_second, c.players
      ${tiled(plan, lo, hi, 'bench_series_changes', 'c')} AND ${kinds}
      ORDER BY e, c.planet_index`)).count,
  ))

  await step('planet_status_latest, planet_owner_changes', [
    {
      label: 'all',
      run: async () => {
        // Every planet's state at the last tick (its capture's).
        const col = (j: number) => numbers(last.filter((_, x) => x % 5 === j))
        const latest = await sql`
          INSERT INTO planet_status_latest (war_id, planet_index, owner, health, regen_per_second, players, last_owner)
          SELECT ${w}, p, o, h, r, n, o
          FROM unnest(${col(0)}::int[], ${col(1)}::smallint[], ${col(2)}::bigint[], ${col(3)}::float8[], ${col(4)}::int[]) AS x(p, o, h, r, n)`
        const owners = await sql.unsafe(`
          INSERT INTO planet_owner_changes (captured_at, war_id, planet_index, from_owner, to_owner)
          SELECT to_timestamp(e), ${w}, c.planet_index, c.prev_owner, c.owner
          ${tiled(plan, 0, Math.ceil(plan.ticks / TILE_CAPTURES) - 1, 'bench_series_changes', 'c')} AND ${kinds} AND c.kind <> 0 AND c.owner <> c.prev_owner
          ORDER BY e, c.planet_index`)
        return latest.count + owners.count
      },
    },
  ])

  await step('planet_status_hours (the planet-hours in which something changed)', [{ label: 'all', run: () => planetHours(sql, plan) }])
  await fight(sql, plan, step)
  await sql`DROP TABLE bench_series_changes, bench_series_campaigns, bench_series_events`
}

/**
 * planet_status_hours of the plan's ticks, set-based: each change row covers its ticks up
 * to the planet's next row; the part of that in its own hour, and the part in the hour of
 * the next row (when that row is not the hour's first tick), are pieces of those
 * planet-hours, summed there. What planet_status_hours_rebuild gives over the whole
 * history (every hour before the latest tick's), tick by tick.
 */
export async function planetHours(sql: Sql, plan: TickPlan): Promise<number> {
  const { base, ticks } = plan
  const hourOf = (i: string) => `((${base}::bigint + ${STEP_S} * (${i})) / 3600)`
  // The first tick at or after the start of hour h.
  const first = (h: string) => `greatest(0, ((${h}) * 3600 - ${base} + ${STEP_S - 1}) / ${STEP_S})`
  const open = Math.floor((base + STEP_S * (ticks - 1)) / 3600)
  const r = await sql.unsafe(`
    INSERT INTO planet_status_hours (war_id, planet_index, bucket, n, players_sum, players_max, owner, health, regen_per_second, players, last_at, absent_after)
    WITH c AS (
      SELECT planet_index, owner, health, regen_per_second, players, i, lead(i, 1, ${ticks}::bigint) OVER (PARTITION BY planet_index ORDER BY captured_at) AS nx
      FROM (SELECT *, (extract(epoch FROM captured_at)::bigint - ${base}) / ${STEP_S} AS i FROM planet_status_changes WHERE war_id = ${plan.warId}) x
    ), p AS (
      SELECT c.*, ${hourOf('c.i')} AS h, ${hourOf('c.nx')} AS hn FROM c
    ), pieces AS (
      SELECT planet_index, h AS hour, owner, health, regen_per_second, players, least(nx, ${first('h + 1')}) - i AS cnt, least(nx, ${first('h + 1')}) - 1 AS last
      FROM p WHERE h < ${open}
      UNION ALL
      SELECT planet_index, hn, owner, health, regen_per_second, players, nx - ${first('hn')}, nx - 1
      FROM p WHERE nx < ${ticks} AND hn > h AND hn < ${open} AND ${first('hn')} < nx
    )
    SELECT ${plan.warId}, planet_index, to_timestamp(hour * 3600),
           coalesce(sum(cnt) FILTER (WHERE owner IS NOT NULL), 0), coalesce(sum(players * cnt), 0), max(players),
           (array_agg(owner ORDER BY last DESC) FILTER (WHERE owner IS NOT NULL))[1],
           (array_agg(health ORDER BY last DESC) FILTER (WHERE owner IS NOT NULL))[1],
           (array_agg(regen_per_second ORDER BY last DESC) FILTER (WHERE owner IS NOT NULL))[1],
           (array_agg(players ORDER BY last DESC) FILTER (WHERE owner IS NOT NULL))[1],
           to_timestamp(${base} + ${STEP_S} * max(last) FILTER (WHERE owner IS NOT NULL)),
           (array_agg(owner ORDER BY last DESC))[1] IS NULL
    FROM pieces
    GROUP BY planet_index, hour
    ORDER BY hour, planet_index`)
  return r.count
}

/**
 * The fight tables of the plan's ticks, as the full-status write keeps them
 * (storage/fight.ts insertTicks, sql/0014, sql/0019): the campaigns of each tick (a row
 * per campaign per tick; or, where sql/0022 keeps the sets a tick lists in tick_sets, the
 * campaigns' set where it changes and the empty sets of the kinds the series never lists
 * at the first tick), the events of each tick (their war times at their capture's
 * distance from the tick's war time, their wall-clock times as far from the tick's capture
 * time), the spans of both, the campaigns of the latest tick, and every defense decided.
 */
async function fight(sql: Sql, plan: TickPlan, step: Step): Promise<void> {
  const w = plan.warId
  // tileIdOffset(t), in SQL.
  const id = (col: string) => `${col} + ${ID_STRIDE} * (t + 1)`
  const tiles = Math.ceil(plan.ticks / TILE_CAPTURES)
  const [layout] = await sql<{ sets: boolean }[]>`SELECT to_regclass('tick_sets') IS NOT NULL AS sets`
  // The campaigns of capture `k` as a set's items, ids plus `off`, sorted as the writes sort
  // them (storage/tick-sets.ts canonical: field by field, nulls first).
  const items = (k: string, off: string) => `coalesce((
    SELECT jsonb_agg(jsonb_build_array(c.campaign_id + ${off}, c.planet_index, c.type, c.count, c.race)
                     ORDER BY c.campaign_id, c.planet_index, c.type, c.count, c.race NULLS FIRST)
    FROM bench_series_campaigns c WHERE c.k = ${k}), '[]')`
  if (layout!.sets) {
    await step('tick_sets: the campaigns where they change, the empty sets at the first tick', [
      {
        label: 'all',
        run: async () => {
          // A capture's set differs from the one before it where the series' does; the first of a
          // tile from the last of the tile before (other ids) unless both are empty.
          const changed = await sql.unsafe(`
            WITH caps AS (SELECT g.k, ${items('g.k', '0')} AS items FROM generate_series(0, ${TILE_CAPTURES - 1}) AS g(k)),
            marked AS (
              SELECT k, items IS DISTINCT FROM lag(items) OVER (ORDER BY k) AS step,
                     items <> '[]' OR (SELECT items FROM caps WHERE k = ${TILE_CAPTURES - 1}) <> '[]' AS wrap
              FROM caps)
            INSERT INTO tick_sets (war_id, kind, captured_at, items)
            SELECT ${w}, 'campaigns', to_timestamp(e), ${items('m.k', `${ID_STRIDE} * (t + 1)`)}
            ${tiled(plan, 0, tiles - 1, 'marked', 'm')} AND CASE WHEN m.k > 0 THEN m.step ELSE t = 0 OR m.wrap END
            ORDER BY e`)
          const empty = await sql`
            INSERT INTO tick_sets (war_id, kind, captured_at, items)
            SELECT ${w}, kind, to_timestamp(${plan.base}), '[]' FROM unnest(${['attacks', 'joint_operations', 'effects']}::text[]) AS kind`
          return changed.count + empty.count
        },
      },
    ])
  } else {
    await step('campaign_snapshots (the series\' campaigns per tick)', tileBatches(plan, async (lo, hi) =>
      (await sql.unsafe(`
        INSERT INTO campaign_snapshots (captured_at, war_id, campaign_id, planet_index, type, count, race)
        SELECT to_timestamp(e), ${w}, ${id('c.campaign_id')}, c.planet_index, c.type, c.count, c.race
        ${tiled(plan, lo, hi, 'bench_series_campaigns', 'c')}
        ORDER BY e, 3`)).count,
    ))
  }
  await step('planet_event_snapshots (the series\' defenses per tick)', tileBatches(plan, async (lo, hi) =>
    (await sql.unsafe(`
      INSERT INTO planet_event_snapshots (captured_at, war_id, event_id, planet_index, event_type, race, health, max_health,
                                          start_war_time, expire_war_time, starts_at, expires_at, campaign_id, joint_operation_ids)
      SELECT to_timestamp(e), ${w}, ${id('x.event_id')}, x.planet_index, x.event_type, x.race, x.health, x.max_health,
             g.war_time + x.rel_start, g.war_time + x.rel_expire, to_timestamp(e + x.rel_start), to_timestamp(e + x.rel_expire),
             ${id('x.campaign_id')}, x.joint_operation_ids
      ${tiled(plan, lo, hi, 'bench_series_events', 'x')}
      ORDER BY e, 3`)).count,
  ))
  await step('fight spans, current campaigns, defense outcomes (defense_decide)', [
    {
      label: 'all',
      run: async () => {
        // An event's state at its last sighting, the war time of that tick.
        const events = await sql`
          INSERT INTO planet_event_spans (war_id, event_id, planet_index, event_type, race, campaign_id, max_health, first_seen_at, last_seen_at,
                                          last_health, last_war_time, expire_war_time, expires_at, zero_at)
          SELECT DISTINCT ON (e.event_id) e.war_id, e.event_id, e.planet_index, e.event_type, e.race, e.campaign_id, e.max_health,
                 min(e.captured_at) OVER x, max(e.captured_at) OVER x, e.health, f.upstream_war_time, e.expire_war_time, e.expires_at,
                 min(e.captured_at) FILTER (WHERE e.health <= 0) OVER x
          FROM planet_event_snapshots e
          JOIN full_status_ticks f ON f.war_id = e.war_id AND f.captured_at = e.captured_at AND f.planets_written > 0
          WHERE e.war_id = ${w}
          WINDOW x AS (PARTITION BY e.event_id)
          ORDER BY e.event_id, e.captured_at DESC`
        // A campaign's planet and type at its first sighting; the campaigns of the last tick.
        const campaigns = await sql.unsafe(`
          INSERT INTO campaign_spans (war_id, campaign_id, planet_index, type, first_seen_at, last_seen_at)
          SELECT ${w}, ${id('c.campaign_id')}, (array_agg(c.planet_index ORDER BY e))[1], (array_agg(c.type ORDER BY e))[1], to_timestamp(min(e)), to_timestamp(max(e))
          ${tiled(plan, 0, tiles - 1, 'bench_series_campaigns', 'c')}
          GROUP BY t, c.campaign_id`)
        const current = await sql.unsafe(`
          INSERT INTO campaigns (war_id, campaign_id, planet_index, type, count, updated_at)
          SELECT DISTINCT ON (c.campaign_id) ${w}, ${id('c.campaign_id')}, c.planet_index, c.type, c.count, to_timestamp(e)
          ${tiled(plan, tiles - 1, tiles - 1, 'bench_series_campaigns', 'c')} AND ti.i = ${plan.ticks - 1}
          ORDER BY c.campaign_id`)
        const [decided] = await sql<{ n: number }[]>`SELECT defense_decide(${w}, NULL) AS n`
        return events.count + campaigns.count + current.count + decided!.n
      },
    },
  ])
}
