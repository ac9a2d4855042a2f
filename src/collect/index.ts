import type { Collector, CollectorName } from './collector.ts'
import { fullStatus } from './full-status.ts'
import { planetStats } from './planet-stats.ts'
import { playerCount } from './player-count.ts'
import { warInfo } from './war-info.ts'

export { COLLECTOR_NAMES, type CollectorName, type Tick } from './collector.ts'

// Each collector has its own payload and row types; the registry holds them side by side.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCollector = Collector<any, any>

/** Every collector by its route/CLI name: the POST routes, the schedule and the CLI share it. */
export const COLLECTORS: Record<CollectorName, AnyCollector> = {
  'player-count': playerCount,
  'war-info': warInfo,
  'full-status': fullStatus,
  'planet-stats': planetStats,
}
