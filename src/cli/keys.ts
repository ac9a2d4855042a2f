import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from '../config.ts'
import { EmbeddedDatabaseInUseError } from '../db/embedded.ts'
import { openDatabase, type Database } from '../db/index.ts'
import { hashApiKey, newApiKey, SHOWN_PREFIX_LENGTH } from '../http/api-keys.ts'
import { createLogger, errorText } from '../log.ts'
import { createKey, listKeys, revokeKey, type ApiKeyRow } from '../storage/api-keys.ts'

/**
 * `npm run keys -- create|list|revoke`: the API keys of heavy users (X-API-Key, their own
 * budgets; docs/operations.md "Rate limits and API keys"). Only a key's SHA-256 is
 * stored: `create` prints the key once, on stdout (words on stderr). A change is announced
 * to every service process on the database, which reloads its keys at once.
 *
 * Exit 0 when done, 1 when it failed (or `revoke` found no live key of that id), 2 on bad
 * usage or configuration, 3 when the embedded database is in use (stop the service first).
 */
const USAGE = `usage: npm run keys -- create --name NAME [--quota UNITS] [--window SECONDS]
       npm run keys -- list [--json]
       npm run keys -- revoke ID
  create  a key (printed once, on stdout); without --quota/--window it has
          RATE_LIMIT_KEY_QUOTA units per RATE_LIMIT_WINDOW_SECONDS
  list    every key (its first characters, never the key), revoked ones included
  revoke  a key: every service process refuses it at once (401)
The database is DATABASE_URL, or the embedded one in DATA_DIR (the service must be stopped).`

function usage(message?: string): never {
  process.stderr.write(`${message ? `keys: ${message}\n` : ''}${USAGE}\n`)
  process.exit(2)
}

let parsed: ReturnType<typeof parse>
const parse = () =>
  parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      quota: { type: 'string' },
      window: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
try {
  parsed = parse()
} catch (err) {
  usage(errorText(err))
}
const { values, positionals } = parsed
if (values.help) usage()
const [command, ...rest] = positionals
const positiveInt = (what: string, v: string | undefined, max: number) => {
  if (v === undefined) return null
  if (!/^[1-9]\d{0,9}$/.test(v) || Number(v) > max) usage(`${what} must be an integer from 1 to ${max}`)
  return Number(v)
}
const only = (allowed: (keyof typeof values)[]) => {
  const extra = (Object.keys(values) as (keyof typeof values)[]).filter((k) => values[k] !== undefined && !allowed.includes(k))
  if (extra.length) usage(`${command} takes no --${extra[0]}`)
}

let run: (db: Database) => Promise<number>
switch (command) {
  case 'create': {
    only(['name', 'quota', 'window'])
    const name = values.name?.trim()
    if (!name || name.length > 200 || rest.length) usage('create needs --name NAME (1 to 200 characters) and nothing else')
    const quota = positiveInt('--quota', values.quota, 10_000_000)
    const windowSeconds = positiveInt('--window', values.window, 86_400)
    run = async (db) => {
      const key = newApiKey()
      const id = await createKey(db.sql, { name, keySha256: hashApiKey(key), keyPrefix: key.slice(0, SHOWN_PREFIX_LENGTH), quota, windowSeconds })
      process.stderr.write(
        `keys: created key ${id} "${name}": ${quota ?? 'RATE_LIMIT_KEY_QUOTA'} units per ${windowSeconds ?? 'RATE_LIMIT_WINDOW_SECONDS'} s. ` +
          'It is shown this once (only its hash is stored): give it to its holder, who sends it as X-API-Key.\n',
      )
      process.stdout.write(`${key}\n`)
      return 0
    }
    break
  }
  case 'list':
    only(['json'])
    if (rest.length) usage('list takes no argument')
    run = async (db) => {
      const keys = await listKeys(db.sql)
      process.stdout.write(values.json ? `${JSON.stringify(keys)}\n` : table(keys))
      return 0
    }
    break
  case 'revoke': {
    only([])
    const id = rest.length === 1 ? positiveInt('ID', rest[0], 2_147_483_647) : usage('revoke needs the ID of one key (npm run keys -- list)')
    run = async (db) => {
      if (await revokeKey(db.sql, id!)) {
        process.stderr.write(`keys: revoked key ${id}: every service process on this database refuses it from now on\n`)
        return 0
      }
      process.stderr.write(`keys: no live key has id ${id} (npm run keys -- list)\n`)
      return 1
    }
    break
  }
  default:
    usage(command === undefined ? undefined : `unknown command "${command}"`)
}

let config
try {
  config = loadConfig()
} catch (err) {
  process.stderr.write(`${errorText(err)}\n`)
  process.exit(err instanceof ConfigError ? 2 : 1)
}

let code: number
try {
  // Log lines go to stderr: stdout carries only the key, or the list.
  const db = await openDatabase({ ...config, databaseReadUrl: undefined }, createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, (line) => process.stderr.write(`${line}\n`)))
  try {
    code = await run(db)
  } finally {
    await db.close()
  }
} catch (err) {
  if (err instanceof EmbeddedDatabaseInUseError) {
    process.stderr.write(
      `keys: the embedded database in ${err.dataDir} is in use by process ${err.pid} (the service).\n` +
        `  Stop it, run this, then start it again: it reads the keys when it starts.\n` +
        `  (With DATABASE_URL, a PostgreSQL or TimescaleDB, the service may keep running: it hears of every change.)\n`,
    )
    process.exit(3)
  }
  process.stderr.write(`keys failed: ${errorText(err)}\n`)
  process.exit(1)
}
process.exit(code)

function table(keys: ApiKeyRow[]): string {
  if (!keys.length) return 'no keys (npm run keys -- create --name NAME)\n'
  const rows = [
    ['id', 'name', 'key', 'quota', 'window', 'created', 'revoked'],
    ...keys.map((k) => [
      String(k.id), k.name, `${k.keyPrefix}…`, k.quota === null ? 'default' : String(k.quota), k.windowSeconds === null ? 'default' : `${k.windowSeconds}s`,
      k.createdAt.toISOString(), k.revokedAt?.toISOString() ?? '-',
    ]),
  ]
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n') + '\n'
}
