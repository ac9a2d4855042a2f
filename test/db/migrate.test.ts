import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connect } from '../../src/db/connect.ts'
import { migrate, migrationsFor, pendingMigrations } from '../../src/db/migrate.ts'
import { timeBucket } from '../../src/storage/rollups.ts'
import { createScratchDatabase, describeTimescale } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import type { TestDatabase } from '../support/db.ts'

const TIME_SERIES = ['player_count_snapshots', 'war_summary_snapshots', 'major_order_progress', 'planet_stats_snapshots']
const TABLES = [
  ...TIME_SERIES, 'wars', 'planets', 'sectors', 'factions', 'planet_war_info', 'major_orders', 'dispatches', 'full_status_ticks',
  // Planet status as what changed (sql/0021), and the view of its per-tick rows.
  'planet_status_changes', 'planet_status_latest', 'planet_status_hours', 'full_status_tick_hours', 'full_status_tick_days', 'planet_status_snapshots',
  // The sets of a tick as what changed (sql/0022), and the views of their per-tick rows.
  'tick_sets', 'campaign_snapshots', 'planet_attack_snapshots', 'joint_operation_snapshots', 'planet_effect_snapshots',
]
const ROLLUPS = ['player_count_5m', 'player_count_1h', 'player_count_1d']

describeOnEachDatabase('migrations', (target) => {
  let db: TestDatabase
  beforeAll(async () => {
    db = await target.open()
  }, 60_000)
  afterAll(() => db?.dispose())

  test('create every dataset table and rollup', async () => {
    const rows = await db.sql<{ name: string }[]>`
      SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v', 'p')`
    const names = new Set(rows.map((r) => r.name))
    for (const t of [...TABLES, ...ROLLUPS]) expect(names.has(t)).toBe(true)
  })

  test('record each file once, and a second run applies nothing', async () => {
    const recorded = await db.sql<{ file: string }[]>`SELECT file FROM schema_migrations ORDER BY version`
    expect(recorded.map((r) => r.file)).toEqual(migrationsFor(db.info.edition).map((m) => m.file))
    expect((await migrate(db.sql)).applied).toEqual([])
    expect(await pendingMigrations(db.sql, db.info.edition)).toBe(0)
  })

  test('edition detection matches the server', async () => {
    if (target.label === 'embedded') {
      expect(db.info.edition).toBe('postgres')
      expect(db.info.timescaledbVersion).toBeNull()
    } else {
      // The Debian package is the Apache-2 build.
      expect(db.info.edition).toBe('apache')
      expect(db.info.timescaledbVersion).toMatch(/^2\./)
    }
  })

  test('time_bucket buckets with the TimescaleDB origin on every edition', async () => {
    const [row] = await db.sql<{ a: Date; b: Date }[]>`
      SELECT time_bucket(interval '4 days', timestamptz '2026-11-21 08:00:00+00') AS a,
             time_bucket(interval '5 minutes', timestamptz '2026-11-21 08:07:31+00') AS b`
    // 9819 days after 2000-01-03 is 11-21; 9819 mod 4 = 3, so the bucket starts 11-18.
    expect(row!.a.toISOString()).toBe('2026-11-18T00:00:00.000Z')
    expect(row!.b.toISOString()).toBe('2026-11-21T08:05:00.000Z')
  })

  test('timeBucket (computed in the service) aligns exactly like the database', async () => {
    const at = new Date('2026-11-21T08:07:31.250Z')
    for (const widthS of [300, 600, 3300, 3600, 14_400, 39_600, 86_400, 4 * 86_400]) {
      const [row] = await db.sql<{ b: Date }[]>`SELECT time_bucket(make_interval(secs => ${widthS}), ${at}::timestamptz) AS b`
      expect({ widthS, b: timeBucket(widthS, at).toISOString() }).toEqual({ widthS, b: row!.b.toISOString() })
    }
  })
})

describeTimescale('migrations on TimescaleDB', () => {
  test('turn every time series into a hypertable', async () => {
    const scratch = await createScratchDatabase('hyper')
    const sql = connect({ url: scratch.url, max: 2 })
    try {
      await migrate(sql)
      const rows = await sql<{ hypertable_name: string }[]>`SELECT hypertable_name FROM timescaledb_information.hypertables`
      expect(rows.map((r) => r.hypertable_name).sort()).toEqual([...TIME_SERIES].sort())
    } finally {
      await sql.end()
      await scratch.drop()
    }
  })

  test('two migrators starting together do not conflict and apply each file once', async () => {
    const scratch = await createScratchDatabase('concurrent')
    const a = connect({ url: scratch.url, max: 1 })
    const b = connect({ url: scratch.url, max: 1 })
    try {
      const [ra, rb] = await Promise.all([migrate(a), migrate(b)])
      const expected = migrationsFor('apache').map((m) => m.file)
      // One of them did all the work, the other found nothing pending.
      expect([ra.applied, rb.applied].sort((x, y) => y.length - x.length)).toEqual([expected, []])
      const [{ n }] = (await a`SELECT count(*) AS n FROM schema_migrations`) as unknown as [{ n: number }]
      expect(n).toBe(expected.length)
    } finally {
      await a.end()
      await b.end()
      await scratch.drop()
    }
  })
})
