/**
 * sql/0019 on a database written before it: every stored defense is decided by the rules
 * from the ticks kept, and an outcome the event stream already pushed that the rules give
 * otherwise (the old rule order pushed 4307 won, then lost) is corrected by an event of
 * its own, which the next write pushes. The ticks are the real series' (4307's end, and
 * the first captures past its expiry), written as the collectors wrote them then.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { fightOf } from '../../src/collect/full-status.ts'
import { migrate } from '../../src/db/migrate.ts'
import { parseWarStatus } from '../../src/feeds/upstream.ts'
import { record } from '../../src/storage/events.ts'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { migrateBefore, rebuildDenseSpans, writeDenseFight, writeDenseTick } from '../support/older-layout.ts'
import { capture, statusPayload } from '../support/series.ts'

const BEFORE = 19
const TICKS = [...Array.from({ length: 16 }, (_, i) => 440 + i), 597, 598]

describeOnEachDatabase('0019 on a database of the layout before it', (target) => {
  let db: TestDatabase

  beforeAll(async () => {
    db = await target.open({ migrate: false })
    await migrateBefore(db.sql, BEFORE)
    // The ticks as the full-status writes stored them then: planets, the fight and its spans.
    for (const k of TICKS) {
      const status = parseWarStatus(statusPayload(k)).data
      const at = capture(k).at
      const planets = status.planetStatus.map((p) => ({ planet_index: p.index, owner: p.owner, health: p.health, regen_per_second: p.regenPerSecond, players: p.players }))
      await writeDenseTick(db.sql, 801, at, status.time, planets, (tx) => writeDenseFight(tx, 801, at, fightOf(status, at)))
    }
    await rebuildDenseSpans(db.sql)
    // What the stream said then: won when 4307 left the feed, lost once a tick passed its expiry.
    await db.sql`
      INSERT INTO event_log (type, war_id, key, at, data) VALUES
        ('defense_won', 801, '4307', ${capture(452).at}, '{"eventId": 4307}'),
        ('defense_lost', 801, '4307', ${capture(597).at}, '{"eventId": 4307}')`
  }, 120_000)
  afterAll(async () => {
    await db?.dispose()
  })

  test('decides 4307 won where the captures say, and corrects the lost the stream pushed, naming it; the next write pushes the correction', async () => {
    expect((await migrate(db.sql)).applied.map((m) => m.slice(0, 4))).toContain('0019')
    const [won, lost] = await db.sql<{ id: number }[]>`SELECT id FROM event_log WHERE key = '4307' ORDER BY id`
    const outcomes = await db.sql`SELECT seq, outcome, ended_at, was_outcome, was_ended_at, corrects FROM defense_outcomes WHERE event_id = 4307 ORDER BY seq`
    expect(outcomes.map((o): Record<string, unknown> => ({ ...o, corrects: o.corrects === null ? null : Number(o.corrects) }))).toEqual([
      { seq: 0, outcome: 'defense_won', ended_at: capture(452).at, was_outcome: null, was_ended_at: null, corrects: null },
      { seq: 1, outcome: 'defense_won', ended_at: capture(452).at, was_outcome: 'defense_lost', was_ended_at: capture(597).at, corrects: Number(lost!.id) },
    ])
    expect(won).toBeDefined()
    // The next write (a tick of its war) pushes the correction, once.
    const at = capture(598).at
    await db.sql.begin((tx) => record(tx, { collector: 'full-status', warId: 801, at, written: { planetStatus: 1 } }))
    const pushed = await db.sql<{ type: string; key: string; data: any }[]>`SELECT type, key, data FROM event_log WHERE type = 'event_corrected'`
    expect(pushed).toHaveLength(1)
    expect(pushed[0]).toMatchObject({ key: '4307#1', data: { eventId: 4307, correction: { corrects: Number(lost!.id), was: { type: 'defense_lost' }, now: { type: 'defense_won' } } } })
  })
})
