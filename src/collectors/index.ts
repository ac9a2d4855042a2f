import { collectFullStatus } from './full-status.ts'
import { collectPlanetStats } from './planet-stats.ts'
import { collectPlayerCount } from './player-count.ts'
import type { CollectorDeps, CollectorName, CollectorOptions, CollectorSummary } from './run.ts'
import { collectWarInfo } from './war-info.ts'

export { COLLECTOR_NAMES, type CollectorDeps, type CollectorName, type CollectorOptions, type CollectorSummary } from './run.ts'

/** Every collector by its route/CLI name: the POST routes, the schedule and the CLI share it. */
export const collectors: Record<CollectorName, (deps: CollectorDeps, opts?: CollectorOptions) => Promise<CollectorSummary>> = {
  'player-count': collectPlayerCount,
  'war-info': collectWarInfo,
  'full-status': collectFullStatus,
  'planet-stats': collectPlanetStats,
}
