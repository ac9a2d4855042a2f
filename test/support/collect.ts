/** Running collectors in tests: through the same runner as the routes, the CLI and the schedule. */
import type { Tick } from '../../src/collect/collector.ts'
import { fullStatus } from '../../src/collect/full-status.ts'
import { COLLECTORS, type CollectorName } from '../../src/collect/index.ts'
import { CollectorRunner, type RunnerDeps, type RunOptions } from '../../src/collect/runner.ts'
import type { Config } from '../../src/config.ts'
import type { Database } from '../../src/db/index.ts'
import type { Feeds } from '../../src/feeds/index.ts'
import type { WarStatus } from '../../src/feeds/upstream.ts'
import { silentLogger, type Logger } from '../../src/log.ts'
import { createStore } from '../../src/storage/index.ts'

export interface TestRunnerOptions {
  config?: Pick<Config, 'warId'>
  log?: Logger
  /** Routes' and CLI's behaviour: planet-stats refuses a war that is not the upstream's current one. */
  currentWar?: RunnerDeps['currentWar']
}

export function testRunner(db: Pick<Database, 'sql' | 'gate'>, feeds: Feeds, opts: TestRunnerOptions = {}): CollectorRunner {
  return new CollectorRunner({
    db, store: createStore(db), feeds, log: opts.log ?? silentLogger, config: opts.config ?? { warId: 801 }, currentWar: opts.currentWar,
  })
}

/** One run of a collector now (fetch and write), as a POST route does. */
export const collect = (runner: CollectorRunner, name: CollectorName, opts?: RunOptions) => runner.runOnce(COLLECTORS[name], opts)

/**
 * A status payload captured at `at` as the full-status collector maps it (status only, as
 * an archive holds it: no summary, orders or dispatches), ready for `runner.write` or a
 * batch write.
 */
export function statusTick(status: WarStatus, at: Date, warId = 801): Tick<ReturnType<typeof fullStatus.map>['rows']> {
  const payload = { status: { data: status, fetchedAt: at }, summary: null, assignments: null, news: null, languages: { fetched: [], stored: new Map() }, primary: 'en-US' }
  const { rows } = fullStatus.map(payload as never, { warId, now: at })
  return { id: `status-${warId}-${at.toISOString()}`, collector: 'full-status', warId, capturedAt: at.toISOString(), rows }
}
