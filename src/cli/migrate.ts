import { ConfigError, loadConfig } from '../config.ts'
import { openDatabase } from '../db/index.ts'
import { createLogger, errorText } from '../log.ts'

/** `npm run migrate`: apply pending migrations and exit (for deploy steps and one-shot containers). */
try {
  const config = loadConfig()
  const db = await openDatabase({ ...config, databaseReadUrl: undefined }, createLogger(config.logLevel))
  await db.close()
} catch (err) {
  process.stderr.write(`${err instanceof ConfigError ? err.message : `migrate failed: ${errorText(err)}`}\n`)
  process.exit(err instanceof ConfigError ? 2 : 1)
}
