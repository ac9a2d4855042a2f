/**
 * Ingest: the real full-status collector (the runner's runOnce, as a POST does) against the
 * simulator at speed 0, the war advanced 5 minutes between ticks and the feed clients'
 * cache clock moved past every TTL, so each tick fetches four fresh feeds and writes a
 * status row per planet, a summary row, the orders and their progress, new dispatches.
 */
import { COLLECTORS } from '../src/collect/index.ts'
import { CollectorRunner } from '../src/collect/runner.ts'
import type { Database } from '../src/db/index.ts'
import { createStore } from '../src/storage/index.ts'
import type { Sql } from '../src/db/connect.ts'
import { silentLogger } from '../src/log.ts'
import type { Feeds } from '../src/feeds/index.ts'
import { WAR_ID } from './setup.ts'
import { summarize, type Timing } from './stats.ts'

export interface IngestResult {
  ticks: number
  /** Wall time of one tick, as the schedule would see it (fetches + one write transaction). */
  wall: Timing
  /** The collector's own durationMs (same span, rounded to ms). */
  reported: Timing
  planetsPerTick: number
  rowsPerTick: number
  /** Planet-status rows written per second through the collector path. */
  planetRowsPerS: number
  rowsPerS: number
}

export async function measureIngest(
  db: Pick<Database, 'sql' | 'gate'>,
  feeds: Feeds,
  later: (seconds: number) => void,
  o: { ticks: number; warmup: number; progress: (line: string) => void },
): Promise<IngestResult> {
  const runner = new CollectorRunner({ db, store: createStore(db), feeds, log: silentLogger, config: { warId: WAR_ID } })
  const wall: number[] = []
  const reported: number[] = []
  let planets = 0
  let rows = 0
  for (let i = 0; i < o.warmup + o.ticks; i++) {
    later(300)
    const t = performance.now()
    const s = await runner.runOnce(COLLECTORS['full-status'], { now: new Date() })
    const el = performance.now() - t
    if (s.outcome !== 'written' || !(s.written.planetStatus! > 0)) {
      throw new Error(`full-status tick ${i + 1} wrote nothing: ${JSON.stringify(s)}`)
    }
    if (i < o.warmup) continue
    wall.push(el)
    reported.push(s.durationMs)
    planets += s.written.planetStatus!
    rows += Object.values(s.written).reduce((a, b) => a + b, 0)
    if ((i - o.warmup + 1) % 5 === 0 || i === o.warmup + o.ticks - 1) {
      o.progress(`ingest: ${i - o.warmup + 1}/${o.ticks} full-status ticks, last ${el.toFixed(1)} ms (${s.written.planetStatus} planet rows)`)
    }
  }
  const totalS = wall.reduce((a, b) => a + b, 0) / 1000
  return {
    ticks: wall.length,
    wall: summarize(wall),
    reported: summarize(reported),
    planetsPerTick: planets / wall.length,
    rowsPerTick: rows / wall.length,
    planetRowsPerS: planets / totalS,
    rowsPerS: rows / totalS,
  }
}
