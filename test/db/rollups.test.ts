import { afterAll, beforeAll, expect, test } from 'bun:test'
import { invalidateRollups, PLAYER_COUNT_ROLLUPS, refreshRollups } from '../../src/storage/rollups.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { writePlanetTicks, type PlanetRowAt } from '../support/seed.ts'

// A fixed "now" so bucket boundaries are known; rows are written relative to it.
const NOW = new Date('2026-11-21T12:00:00Z')
const at = (secondsBefore: number) => new Date(NOW.getTime() - secondsBefore * 1000)

interface Agg { bucket: string; n: number; sum: number; min: number; max: number }

describeOnEachDatabase('rollups', (target) => {
  let db: TestDatabase

  /** The same figures straight from the raw rows: what every rollup must equal. */
  const rawPlayerBuckets = (seconds: number) => db.sql<Agg[]>`
    SELECT time_bucket(make_interval(secs => ${seconds}), captured_at)::text AS bucket, count(*) AS n,
           sum(coalesce(api_total_player_count, total_player_count))::bigint AS sum,
           min(coalesce(api_total_player_count, total_player_count)) AS min,
           max(coalesce(api_total_player_count, total_player_count)) AS max
    FROM player_count_snapshots WHERE game_name = 'Game 2' AND source = 'upstream'
    GROUP BY 1 ORDER BY 1`

  const rollupBuckets = (name: string) => db.sql<Agg[]>`
    SELECT bucket::text AS bucket, n, sum_v AS sum, min_v AS min, max_v AS max
    FROM ${db.sql(name)} WHERE game_name = 'Game 2' AND source = 'upstream' ORDER BY bucket`

  const insertUpstream = (fromSecondsBefore: number, toSecondsBefore: number, seed: number) => db.sql`
    INSERT INTO player_count_snapshots (captured_at, game_name, source, api_total_player_count, upstream_war_time, war_id)
    SELECT ${NOW}::timestamptz - make_interval(secs => g), 'Game 2', 'upstream',
           (100000 + 50000 * sin(g / 3600.0 + ${seed}) + (g::bigint * 7919 + ${seed}) % 1000)::int, 10000000 - g, 801
    FROM generate_series(${toSecondsBefore}::int, ${fromSecondsBefore}::int, 15) AS g
    ON CONFLICT DO NOTHING`

  const expectAllLevelsExact = async () => {
    for (const r of PLAYER_COUNT_ROLLUPS) {
      expect(await rollupBuckets(r.name)).toEqual(await rawPlayerBuckets(r.seconds))
    }
  }

  beforeAll(async () => {
    db = await target.open()
    // Three days of 15-second rows.
    await insertUpstream(3 * 86_400, 0, 1)
  }, 60_000)
  afterAll(() => db?.dispose())

  test('before any refresh, every level equals the raw aggregate (all live)', async () => {
    await expectAllLevelsExact()
  })

  test('after a refresh, materialized buckets plus the live tail equal the raw aggregate', async () => {
    const written = await refreshRollups(db.sql, db.info.edition, NOW)
    if (db.info.edition !== 'timescale') expect(written.player_count_5m).toBeGreaterThan(0)
    await expectAllLevelsExact()
  })

  test('rows newer than the last refresh are included', async () => {
    // Rows in the future of the refresh point: only the live tail can show them.
    await db.sql`
      INSERT INTO player_count_snapshots (captured_at, game_name, source, api_total_player_count, upstream_war_time, war_id)
      VALUES (${new Date(NOW.getTime() + 10_000)}, 'Game 2', 'upstream', 999999, 20000000, 801)`
    await expectAllLevelsExact()
    const [top] = await db.sql<{ max: number }[]>`SELECT max(max_v) AS max FROM player_count_1d WHERE source = 'upstream'`
    expect(top!.max).toBe(999999)
  })

  test('rows backfilled below the watermark are included once invalidated, and after the next refresh', async () => {
    // A week-old gap filled late, as a backfill would.
    await insertUpstream(7 * 86_400, 6 * 86_400, 2)
    await invalidateRollups(db.sql, 'player_count_snapshots', at(7 * 86_400))
    await expectAllLevelsExact()
    await refreshRollups(db.sql, db.info.edition, NOW)
    await expectAllLevelsExact()
  })

  test('planet status hours keep the last state and player totals of each hour in which a planet changed', async () => {
    // Four planets over two days: owners flip every hour, health falls, players move.
    const rows = await db.sql<PlanetRowAt[]>`
      SELECT ${NOW}::timestamptz - make_interval(secs => g) AS at, p AS planet_index, (2 + (g / 3600) % 2)::int AS owner,
             (1000000 - g)::int AS health, 4.1666665::float8 AS regen_per_second, ((g / 300 + p) % 500)::int AS players
      FROM generate_series(0, 2 * 86400, 300) AS g, generate_series(0, 3) AS p`
    await writePlanetTicks(db.sql, 801, rows)
    // Every hour before the latest tick's, from the rows the changes stand for (the view).
    const raw = await db.sql`
      SELECT time_bucket(interval '1 hour', captured_at)::text AS bucket, planet_index, count(*)::int AS n, sum(players)::bigint AS players_sum,
             max(players) AS players_max, (array_agg(owner ORDER BY captured_at DESC))[1] AS owner,
             (array_agg(health ORDER BY captured_at DESC))[1] AS health, (array_agg(players ORDER BY captured_at DESC))[1] AS players,
             max(captured_at)::text AS last_at
      FROM planet_status_snapshots WHERE war_id = 801 AND captured_at < time_bucket(interval '1 hour', ${NOW}::timestamptz)
      GROUP BY 1, 2 ORDER BY 1, 2`
    const kept = await db.sql`
      SELECT bucket::text AS bucket, planet_index, n, players_sum, players_max, owner, health, players, last_at::text AS last_at
      FROM planet_status_hours WHERE war_id = 801 ORDER BY 1, 2`
    // Every planet changes at every tick here: every hour is kept.
    expect(kept.length).toBe(48 * 4)
    expect([...kept]).toEqual([...raw])
  })
})
