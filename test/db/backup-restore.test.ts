/**
 * Backup and restore as README "Operations" describes it, for real: a seeded database on
 * the test TimescaleDB is dumped with pg_dump (custom format) and restored with
 * pg_restore into a fresh database, with TimescaleDB's timescaledb_pre_restore() /
 * timescaledb_post_restore() around the restore (Timescale's documented procedure for
 * hypertables). The tools are the server's own version, run from the test database's
 * chroot (`scripts/testdb.sh client`). The restored database has the same rows in every
 * table, the same rollup answers and the same answers on the read routes, needs no
 * migration, and takes writes.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connect, type Sql } from '../../src/db/connect.ts'
import { pendingMigrations } from '../../src/db/migrate.ts'
import { refreshRollups } from '../../src/storage/rollups.ts'
import { openHarness, type Harness } from '../routes/helpers.ts'
import { createScratchDatabase, describeTimescale, openTimescaleTestDatabase, type TestDatabase } from '../support/db.ts'
import { seedAll } from '../support/seed.ts'

const ROOT = new URL('../../', import.meta.url).pathname
const NOW = new Date('2026-11-20T12:00:07.123Z')

/** Run a PostgreSQL client tool of the test server's version (scripts/testdb.sh client). */
async function client(args: string[], stdin?: Uint8Array): Promise<{ out: Uint8Array; err: string; code: number }> {
  const p = Bun.spawn(['bash', `${ROOT}scripts/testdb.sh`, 'client', ...args], {
    stdin: stdin ? new Blob([stdin]) : 'ignore', stdout: 'pipe', stderr: 'pipe', env: process.env,
  })
  const [out, err, code] = await Promise.all([new Response(p.stdout).arrayBuffer(), new Response(p.stderr).text(), p.exited])
  return { out: new Uint8Array(out), err, code }
}

const connArgs = (url: string) => {
  const u = new URL(url)
  return ['-h', u.hostname, '-p', u.port || '5432', '-U', decodeURIComponent(u.username || 'postgres'), '-d', u.pathname.slice(1)]
}

/** Rows of every table of the schema (raw hypertables count their chunks' rows). */
async function rowCounts(sql: Sql): Promise<Record<string, number>> {
  const tables = await sql<{ name: string }[]>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`
  const out: Record<string, number> = {}
  for (const { name } of tables) out[name] = (await sql<{ n: number }[]>`SELECT count(*)::bigint AS n FROM ${sql(name)}`)[0]!.n
  return out
}

/** A rollup answer: the daily player-count buckets and the kept planet hours, summed. */
const rollupAnswer = (sql: Sql) => sql`
  SELECT 'pc' AS k, game_name AS a, source AS b, count(*)::bigint AS buckets, sum(n)::bigint AS n, sum(sum_v)::bigint AS s, min(min_v) AS lo, max(max_v) AS hi
  FROM player_count_1d GROUP BY 2, 3
  UNION ALL
  SELECT 'ps', war_id::text, planet_index::text, count(*)::bigint, sum(n)::bigint, sum(players_sum)::bigint, min(players_max), max(players_max)
  FROM planet_status_hours GROUP BY 2, 3
  ORDER BY 1, 2, 3`

describeTimescale('backup and restore (pg_dump / pg_restore, TimescaleDB pre/post restore)', () => {
  let source: TestDatabase
  let target: Awaited<ReturnType<typeof createScratchDatabase>>
  let restored: Sql
  let dumpBytes = 0
  const harnesses: Harness[] = []

  beforeAll(async () => {
    source = await openTimescaleTestDatabase('backup_source')
    await seedAll(source.sql, source.info.edition, NOW)
    await refreshRollups(source.sql, source.info.edition, NOW)

    const dump = await client(['pg_dump', '-Fc', ...connArgs(source.url!)])
    if (dump.code !== 0) throw new Error(`pg_dump failed (${dump.code}): ${dump.err}`)
    dumpBytes = dump.out.length

    target = await createScratchDatabase('backup_target')
    restored = connect({ url: target.url, max: 2 })
    const timescale = source.info.edition !== 'postgres'
    if (timescale) {
      await restored`CREATE EXTENSION IF NOT EXISTS timescaledb`
      await restored`SELECT timescaledb_pre_restore()`
    }
    const res = await client(['pg_restore', '--no-owner', ...connArgs(target.url)], dump.out)
    if (timescale) await restored`SELECT timescaledb_post_restore()`
    if (res.code !== 0) throw new Error(`pg_restore failed (${res.code}): ${res.err}`)
  }, 180_000)
  afterAll(async () => {
    for (const h of harnesses) await h.close()
    await restored?.end({ timeout: 1 })
    await target?.drop()
    await source?.dispose()
  })

  test('the dump is a real one, and the restored database has every row of every table', async () => {
    expect(dumpBytes).toBeGreaterThan(100_000)
    const before = await rowCounts(source.sql)
    expect(before.player_count_snapshots).toBeGreaterThan(10_000)
    expect(await rowCounts(restored)).toEqual(before)
  })

  test('hypertables are hypertables again, with their chunks; no migration pending', async () => {
    if (source.info.edition !== 'postgres') {
      const hts = (sql: Sql) => sql`SELECT hypertable_name, num_chunks FROM timescaledb_information.hypertables ORDER BY 1`
      expect([...(await hts(restored))]).toEqual([...(await hts(source.sql))])
    }
    expect(await pendingMigrations(restored, source.info.edition)).toBe(0)
    if (source.info.edition !== 'postgres') {
      // post_restore took the database out of restore mode (background jobs run again) for new sessions.
      const fresh = connect({ url: target.url, max: 1 })
      try {
        expect((await fresh<{ v: string }[]>`SELECT current_setting('timescaledb.restoring') AS v`)[0]!.v).toBe('off')
      } finally {
        await fresh.end({ timeout: 1 })
      }
    }
  })

  test('the same rollup answers and the same read-route answers', async () => {
    expect([...(await rollupAnswer(restored))]).toEqual([...(await rollupAnswer(source.sql))])
    const { openDatabase } = await import('../../src/db/index.ts')
    const { silentLogger } = await import('../../src/log.ts')
    const db2 = await openDatabase({ databaseUrl: target.url, dataDir: '', dbPoolMax: 4, dbStatementTimeoutMs: 30_000 }, silentLogger)
    const a = await openHarness({ db: source, keepDb: true, now: () => NOW })
    const b = await openHarness({ db: { ...db2, dispose: () => db2.close() }, now: () => NOW })
    harnesses.push(a, b)
    for (const path of [
      '/divers/history?range=all', '/divers/history?range=7d',
      '/historical-player-count?startDate=2000-01-01&endDate=2100-01-01&page=3&limit=500',
      '/historical-planet-status?planetId=0&startDate=2026-10-01&endDate=2026-11-21',
      '/historical-war-summary?startDate=2026-11-01', '/historical-dispatches', '/historical-major-orders',
      '/planet/0/history?hours=720', '/war/801',
    ]) {
      const [x, y] = [await a.get(path), await b.get(path)]
      expect({ path, status: y.status }).toEqual({ path, status: 200 })
      expect({ path, body: y.body }).toEqual({ path, body: x.body })
    }
  })

  test('the restored database takes writes and refreshes its rollups', async () => {
    await restored`
      INSERT INTO player_count_snapshots (captured_at, game_name, source, api_total_player_count, upstream_war_time, war_id)
      VALUES (${new Date(NOW.getTime() + 60_000)}, 'Game 2', 'upstream', 123456, 99999999, 801)`
    await refreshRollups(restored, source.info.edition, new Date(NOW.getTime() + 3_600_000))
    const [row] = await restored<{ n: number }[]>`SELECT count(*)::bigint AS n FROM player_count_5m WHERE max_v = 123456`
    expect(row!.n).toBe(1)
  })
})
