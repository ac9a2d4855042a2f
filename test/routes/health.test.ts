/**
 * /health/ready says how much history each dataset holds: its oldest and newest capture,
 * equal to a direct min/max over the stored rows, and up to date after a write.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { TestDatabase } from '../support/db.ts'
import { describeOnEachDatabase } from '../support/editions.ts'
import { seedAll } from '../support/seed.ts'
import { openHarness, type Harness } from './helpers.ts'

const NOW = new Date('2026-11-20T12:00:00.000Z')
const iso = (d: Date | null) => (d === null ? null : d.toISOString())

describeOnEachDatabase('/health/ready: the history of each dataset', (target) => {
  let db: TestDatabase
  let h: Harness

  beforeAll(async () => {
    db = await target.open()
    await seedAll(db.sql, db.info.edition, NOW)
    h = await openHarness({ db, now: () => NOW })
  }, 120_000)
  afterAll(async () => {
    await h?.close()
  })

  /** The direct answer: min and max of each dataset's capture times. */
  async function direct() {
    const span = async (q: Promise<{ oldest: Date | null; newest: Date | null }[]>) => {
      const [r] = await q
      return { oldest: iso(r!.oldest), newest: iso(r!.newest) }
    }
    const sql = db.sql
    return {
      'player-counts-upstream': await span(sql`SELECT min(captured_at) AS oldest, max(captured_at) AS newest FROM player_count_snapshots WHERE source = 'upstream'`),
      'player-counts-pcstore': await span(sql`SELECT min(captured_at) AS oldest, max(captured_at) AS newest FROM player_count_snapshots WHERE source = 'pcstore'`),
      'full-status': await span(sql`SELECT min(captured_at) AS oldest, max(captured_at) AS newest FROM full_status_ticks WHERE planets_written > 0`),
      'planet-stats': await span(sql`SELECT min(captured_at) AS oldest, max(captured_at) AS newest FROM planet_stats_snapshots`),
      'major-orders': await span(sql`SELECT min(first_seen_at) AS oldest, max(last_seen_at) AS newest FROM major_orders`),
      dispatches: await span(sql`SELECT min(published_at) AS oldest, max(published_at) AS newest FROM dispatches`),
    }
  }

  test('oldest and newest capture of every dataset equal a direct min/max; none yet is null', async () => {
    const res = await h.get('/health/ready')
    expect(res.status).toBe(200)
    expect(res.body.history).toEqual(await direct())
    expect(res.body.history['player-counts-upstream'].oldest).not.toBeNull()
    expect(res.body.history['planet-stats']).toEqual({ oldest: null, newest: null })
  })

  test('a write moves it at once (kept per data version, never stale)', async () => {
    const later = new Date(NOW.getTime() + 60_000)
    await h.db.sql`
      INSERT INTO player_count_snapshots (captured_at, game_name, source, api_total_player_count, war_id, upstream_war_time)
      VALUES (${later}, 'Game 2', 'upstream', 123, 801, 99999999)`
    const res = await h.get('/health/ready')
    expect(res.body.history['player-counts-upstream'].newest).toBe(later.toISOString())
    expect(res.body.history).toEqual(await direct())
  })
})
