/**
 * The embedded database's stand-in for autovacuum (src/db/embedded-maintenance.ts): a table
 * that has grown past its last count is vacuumed and analyzed, and planned as what it holds.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { connect, type Sql } from '../../src/db/connect.ts'
import { maintainEmbedded, type EmbeddedMaintenance } from '../../src/db/embedded-maintenance.ts'
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded.ts'
import { migrate } from '../../src/db/migrate.ts'
import { silentLogger } from '../../src/log.ts'
import { insertUpstreamOfTicks } from '../../src/storage/player-counts.ts'

describe('embedded maintenance', () => {
  let db: EmbeddedDatabase
  let sql: Sql
  let maintenance: EmbeddedMaintenance
  beforeAll(async () => {
    db = await startEmbeddedDatabase(null)
    sql = connect({ url: db.url, max: 1 })
    await migrate(sql)
    maintenance = maintainEmbedded(db.url, silentLogger, 3_600_000)
  })
  afterAll(async () => {
    await maintenance?.stop()
    await sql?.end()
    await db?.close()
  })

  const counted = async (table: string) => (await sql<{ n: number }[]>`SELECT reltuples::float8 AS n FROM pg_class WHERE oid = ${table}::regclass`)[0]!.n
  /** The planner's estimate of the upstream rows: what the import's check of its war times is planned on. */
  const estimated = async () => {
    const [row] = await sql.unsafe(`EXPLAIN SELECT 1 FROM player_count_snapshots WHERE source = 'upstream' AND game_name = 'Game 2'`)
    return Number(/rows=(\d+)/.exec(String(row!['QUERY PLAN']))![1])
  }
  const ticks = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ at: new Date(Date.UTC(2026, 0, 1) + i * 300_000), warId: 801, warTime: 1_000_000 + i * 300, total: 1000 }))

  test('a table grown past its last count is vacuumed and analyzed, and planned as it is; then nothing is due', async () => {
    await sql.begin((tx) => insertUpstreamOfTicks(tx, ticks(5000)))
    // Never counted: planned as a table of almost nothing (the import read every stored row per capture).
    expect(await counted('player_count_snapshots')).toBeLessThan(0)
    expect(await estimated()).toBeLessThan(50)
    expect(await maintenance.run()).toContain('public.player_count_snapshots')
    expect(await counted('player_count_snapshots')).toBe(5000)
    expect(await estimated()).toBe(5000)
    expect(await maintenance.run()).toEqual([])
  })
})
