/**
 * Ingest: the real collectors (the runner's capture and write, the steps of runOnce that a POST runs) against the simulator
 * at speed 0, the feed clients' cache clock moved past every TTL between ticks so each
 * tick fetches fresh feeds:
 * - full-status, the war advanced 5 minutes between ticks: four feeds, a status row per
 *   planet, a summary row, the orders and their progress, new dispatches;
 * - player-count, the war advanced 15 s between ticks: the war status (and the PC store
 *   when its rows are due, ~every 10 minutes), one upstream row.
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

export type IngestCollector = 'full-status' | 'player-count'

export interface IngestResult {
  collector: IngestCollector
  ticks: number
  /** Seconds the war (and the clients' cache clock) moved between ticks. */
  advanceS: number
  /** Wall time of one tick, as the schedule would see it (fetches + one write transaction). */
  wall: Timing
  /** The two steps of the wall time: the feed fetches (and mapping), the write transaction. */
  fetch: Timing
  write: Timing
  /** Rows of the collector's main dataset per tick (planet status; upstream player counts). */
  mainPerTick: number
  rowsPerTick: number
  /** Main-dataset rows written per second through the collector path. */
  mainRowsPerS: number
  rowsPerS: number
}

/** What each collector's tick must write, and how far the war moves between ticks. */
const PLAN: Record<IngestCollector, { main: string; advanceS: number }> = {
  // The full-status cadence: 5 minutes of war between ticks.
  'full-status': { main: 'planetStatus', advanceS: 300 },
  // The player-count cadence: 15 s of war (the simulator moves in 10-second steps, so every tick sees a new war time).
  'player-count': { main: 'upstreamRows', advanceS: 15 },
}

export async function measureIngest(
  db: Pick<Database, 'sql' | 'gate'>,
  feeds: Feeds,
  later: (seconds: number) => void,
  o: { collector: IngestCollector; ticks: number; warmup: number; progress: (line: string) => void },
): Promise<IngestResult> {
  const runner = new CollectorRunner({ db, store: createStore(db), feeds, log: silentLogger, config: { warId: WAR_ID } })
  const { main, advanceS } = PLAN[o.collector]
  const wall: number[] = []
  const fetches: number[] = []
  const writes: number[] = []
  let mainRows = 0
  let rows = 0
  for (let i = 0; i < o.warmup + o.ticks; i++) {
    later(advanceS)
    const t = performance.now()
    const { tick } = await runner.capture(COLLECTORS[o.collector], { now: new Date(), checkCurrentWar: true })
    const fetched = performance.now()
    const s = await runner.write(COLLECTORS[o.collector], tick)
    const el = performance.now() - t
    if (s.outcome !== 'written' || !(s.written[main]! > 0)) {
      throw new Error(`${o.collector} tick ${i + 1} wrote nothing: ${JSON.stringify(s)}`)
    }
    if (i < o.warmup) continue
    wall.push(el)
    fetches.push(fetched - t)
    writes.push(el - (fetched - t))
    mainRows += s.written[main]!
    rows += Object.values(s.written).reduce((a, b) => a + b, 0)
    if ((i - o.warmup + 1) % 5 === 0 || i === o.warmup + o.ticks - 1) {
      o.progress(`ingest: ${i - o.warmup + 1}/${o.ticks} ${o.collector} ticks, last ${el.toFixed(1)} ms (${s.written[main]} ${main} rows)`)
    }
  }
  const totalS = wall.reduce((a, b) => a + b, 0) / 1000
  return {
    collector: o.collector,
    ticks: wall.length,
    advanceS,
    wall: summarize(wall),
    fetch: summarize(fetches),
    write: summarize(writes),
    mainPerTick: mainRows / wall.length,
    rowsPerTick: rows / wall.length,
    mainRowsPerS: mainRows / totalS,
    rowsPerS: rows / totalS,
  }
}
