import { COLLECTORS, COLLECTOR_NAMES, type CollectorName } from '../collect/index.ts'
import { CollectorRunner } from '../collect/runner.ts'
import { ConfigError, loadConfig } from '../config.ts'
import { openDatabase } from '../db/index.ts'
import { createFeeds } from '../feeds/index.ts'
import { createLogger, errorText } from '../log.ts'
import { createStore } from '../storage/index.ts'
import { CurrentWar } from '../war/current-war.ts'

/**
 * `npm run collect -- <collector> [warId]`: run one collector once and print its summary
 * as JSON (for backfills and cron outside the process). Exit 0 on success (also when the
 * lock was held elsewhere: the tick is being collected), 1 on failure, 2 on bad usage.
 */
const [name, warArg] = process.argv.slice(2)
if (!name || !(COLLECTOR_NAMES as readonly string[]).includes(name) || (warArg !== undefined && !/^[1-9]\d{0,9}$/.test(warArg))) {
  process.stderr.write(`usage: npm run collect -- <${COLLECTOR_NAMES.join('|')}> [warId]\n`)
  process.exit(2)
}
try {
  const config = loadConfig()
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel)
  const db = await openDatabase({ ...config, databaseReadUrl: undefined }, log)
  try {
    const feeds = createFeeds(config, { log })
    const runner = new CollectorRunner({ db, store: createStore(db), feeds, log, config, currentWar: new CurrentWar(config.warId, feeds.upstream, log) })
    const summary = await runner.runOnce(COLLECTORS[name as CollectorName], { warId: warArg ? Number(warArg) : undefined })
    process.stdout.write(JSON.stringify(summary) + '\n')
  } finally {
    await db.close()
  }
} catch (err) {
  process.stderr.write(`${err instanceof ConfigError ? err.message : `collect ${name} failed: ${errorText(err)}`}\n`)
  process.exit(1)
}
