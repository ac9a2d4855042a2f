/**
 * sql/0021 and sql/0022 on a database written by the layout before them (a row per planet,
 * campaign, event, attack line, joint operation and active effect per tick): the rows are
 * converted to what changed, a day at a time, resumably, and verified by counts; every row
 * reads back as before. The ticks are the real series' (its first 300 captures), with one
 * planet out of the feed for a few of them, attack lines and effects that come and go.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { migrate } from '../../src/db/migrate.ts'
import { fightOf } from '../../src/collect/full-status.ts'
import { parseWarStatus } from '../../src/feeds/upstream.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { loadSample } from '../support/samples.ts'
import { migrateBefore, rebuildDenseSpans, writeDenseFight, writeDenseTick } from '../support/older-layout.ts'
import { capture, statusPayload } from '../support/series.ts'

const CAPTURES = 300
/** Out of the feed at these captures. */
const GONE = { planet: 5, from: 40, to: 44 }
/** The real capture's attack lines, listed at some captures; an effect on planet 5 at others. */
const ATTACKS = (loadSample('arrowhead/warstatus_801_2024-03-08_sector-hq.json') as { planetAttacks: { source: number; target: number }[] }).planetAttacks
const attacksAt = (k: number) => (k % 50 < 25 ? ATTACKS.slice(0, 5 + (k % 7)) : [])
const effectsAt = (k: number) => (k >= 100 && k < 150 ? [{ planet_index: 5, effect_id: 1_190 }, { planet_index: 7, effect_id: 1_200 + (k % 2) }] : [])
const SETS = {
  campaign_snapshots: 'campaign_id, planet_index, type, count, race',
  planet_attack_snapshots: 'source_index, target_index, lanes',
  joint_operation_snapshots: 'operation_id, planet_index, hq_node_index',
  planet_effect_snapshots: 'planet_index, effect_id',
}

describeOnEachDatabase('0021 and 0022 on a database of the layouts before them', (target) => {
  let db: TestDatabase
  /** The per-tick rows and owner changes as the old layout stored them. */
  let rows: string[]
  let owners: string[]
  let sets: Record<string, string[]>
  const rowsOf = async (table: string) =>
    (await db.sql<{ r: string }[]>`
      SELECT concat_ws(' ', to_char(captured_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), war_id, planet_index, owner, health, regen_per_second, players) AS r
      FROM ${db.sql(table)} ORDER BY captured_at, planet_index`).map((r) => r.r)
  const setsNow = async () =>
    Object.fromEntries(await Promise.all(Object.entries(SETS).map(async ([table, cols]) =>
      [table, (await db.sql.unsafe(`SELECT concat_ws(' ', captured_at, ${cols}) AS r FROM ${table} ORDER BY 1`)).map((r: any) => r.r as string)] as const)))
  const ownersNow = async () =>
    (await db.sql<{ r: string }[]>`SELECT concat_ws(' ', captured_at, planet_index, from_owner, to_owner) AS r FROM planet_owner_changes ORDER BY 1`).map((r) => r.r)

  beforeAll(async () => {
    db = await target.open({ migrate: false })
    await migrateBefore(db.sql, 21)
    for (let k = 0; k < CAPTURES; k++) {
      const status = parseWarStatus(statusPayload(k)).data
      const planets = status.planetStatus
        .filter((p) => !(p.index === GONE.planet && k >= GONE.from && k <= GONE.to))
        .map((p) => ({ planet_index: p.index, owner: p.owner, health: p.health, regen_per_second: p.regenPerSecond, players: p.players }))
      const fight = fightOf({ ...status, planetAttacks: attacksAt(k) }, capture(k).at)
      await writeDenseTick(db.sql, 801, capture(k).at, status.time, planets, (tx) => writeDenseFight(tx, 801, capture(k).at, fight, effectsAt(k)))
    }
    await rebuildDenseSpans(db.sql)
    rows = await rowsOf('planet_status_snapshots')
    owners = await ownersNow()
    sets = await setsNow()
  }, 300_000)
  afterAll(async () => {
    await db?.dispose()
  })

  test('the old rows are kept until converted, and the conversion goes on where it stopped', async () => {
    expect(rows.length).toBe(CAPTURES * 261 - (GONE.to - GONE.from + 1))
    await migrate(db.sql, { dataSteps: false })
    // Two days converted, then a stop (a restart): the rest on the next start.
    expect(await db.sql`SELECT planet_status_convert() AS line`).toMatchObject([{ line: expect.stringContaining('converted up to') }])
    expect(await db.sql`SELECT planet_status_convert() AS line`).toMatchObject([{ line: expect.stringContaining('converted up to') }])
    const [half] = await db.sql<{ n: number }[]>`SELECT rows_converted::int AS n FROM planet_status_conversion`
    expect(half!.n).toBeGreaterThan(0)
    expect(half!.n).toBeLessThan(rows.length)
    expect((await db.sql`SELECT to_regclass('planet_status_dense') IS NOT NULL AS kept`)[0]).toEqual({ kept: true })
    const { steps } = await migrate(db.sql)
    expect(steps).toEqual(['planet status as changes', 'tick sets as changes'])
    expect((await db.sql`SELECT to_regclass('planet_status_dense') IS NULL AS gone`)[0]).toEqual({ gone: true })
  }, 120_000)

  test('every row reads back as before, from far fewer, and the owner changes are the same', async () => {
    expect(await rowsOf('planet_status_snapshots')).toEqual(rows)
    expect(sets.planet_attack_snapshots!.length).toBeGreaterThan(500)
    expect(sets.planet_effect_snapshots!.length).toBe(100)
    expect(await setsNow()).toEqual(sets)
    const [kept] = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM tick_sets`
    expect(kept!.n).toBeLessThan(300)
    expect(await ownersNow()).toEqual(owners)
    const [stored] = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM planet_status_changes`
    expect(stored!.n).toBeLessThan(rows.length / 4)
    // The planet out of the feed: a row that says so, and one when it is back.
    const gone = await db.sql`SELECT owner IS NULL AS out FROM planet_status_changes WHERE planet_index = ${GONE.planet} AND captured_at IN (${capture(GONE.from).at}, ${capture(GONE.to + 1).at}) ORDER BY captured_at`
    expect(gone.map((g) => g.out)).toEqual([true, false])
    // Every hour before the last one's is kept where something changed.
    const [hours] = await db.sql<{ n: number }[]>`SELECT count(DISTINCT bucket)::int AS n FROM planet_status_hours`
    expect(hours!.n).toBeGreaterThan(20)
  })

  test('a count that does not match stops the conversion', async () => {
    const other = await target.open({ migrate: false })
    try {
      await migrateBefore(other.sql, 21)
      for (let k = 0; k < 3; k++) {
        const status = parseWarStatus(statusPayload(k)).data
        await writeDenseTick(other.sql, 801, capture(k).at, status.time, status.planetStatus.map((p) => ({ planet_index: p.index, owner: p.owner, health: p.health, regen_per_second: p.regenPerSecond, players: p.players })))
      }
      await migrate(other.sql, { dataSteps: false })
      // A row of a planet the converted ticks do not stand for, in a tick already converted.
      expect((await other.sql`SELECT planet_status_convert() AS line`)[0]!.line).toContain('converted up to')
      await other.sql`INSERT INTO planet_status_dense (captured_at, war_id, planet_index, owner, health, regen_per_second, players) VALUES (${capture(1).at}, 801, 999, 1, 1, 1, 1)`
      await other.sql`UPDATE planet_status_conversion SET rows_converted = rows_converted + 1`
      await expect(migrate(other.sql)).rejects.toThrow(/conversion/)
      expect((await other.sql`SELECT to_regclass('planet_status_dense') IS NOT NULL AS kept`)[0]).toEqual({ kept: true })
    } finally {
      await other.dispose()
    }
  }, 120_000)
})
