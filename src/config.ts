import { Type as T, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

/**
 * Every environment value the service reads, in one place. `loadConfig` is the only
 * reader of `process.env`; everything else receives the typed, frozen result.
 */
const Url = (description: string, defaultUrl?: string) =>
  T.String({ pattern: '^https?://[^\\s]+$', description, ...(defaultUrl ? { default: defaultUrl } : {}) })

const Flag = (description: string, defaultValue: boolean) =>
  T.Union([T.Literal('true'), T.Literal('false'), T.Literal('1'), T.Literal('0')], {
    description,
    default: defaultValue ? 'true' : 'false',
  })

const Cron = (description: string, defaultValue: string) =>
  // Five or six space-separated cron fields; the cron library validates the details.
  T.String({ pattern: '^\\S+( \\S+){4,5}$', description, default: defaultValue })

export const EnvSchema = T.Object({
  DATABASE_URL: T.Optional(
    T.String({ pattern: '^postgres(ql)?://', description: 'PostgreSQL/TimescaleDB URL; unset = embedded database in DATA_DIR' }),
  ),
  DATA_DIR: T.String({ minLength: 1, default: './data', description: 'Folder of the embedded database' }),
  HOST: T.String({ minLength: 1, default: '0.0.0.0', description: 'Address the HTTP server binds' }),
  PORT: T.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'HTTP port (0 = any free port)' }),
  COLLECTOR_SECRET: T.Optional(T.String({ minLength: 1, description: 'Shared secret for POST /api/v1/collect/*' })),
  WAR_ID: T.Integer({ minimum: 1, maximum: 2_147_483_647, default: 801, description: 'Default war id' }),
  UPSTREAM_URL: Url("Game operator's live API base (with /api)", 'https://api.live.prod.thehelldiversgame.com/api'),
  COMMUNITY_API_URL: Url('Community API base', 'https://api.helldivers2.dev'),
  PCSTORE_API_URL: Url('PC store API base', 'https://api.steampowered.com'),
  FEED_TIMEOUT_MS: T.Integer({ minimum: 100, maximum: 120_000, default: 10_000, description: 'Timeout of one feed request' }),
  CLIENT_NAME: T.String({ minLength: 1, default: 'galactic-war-stats', description: 'Sent as X-Super-Client / User-Agent' }),
  CLIENT_CONTACT: T.String({ minLength: 1, default: 'ops@example.invalid', description: 'Sent as X-Super-Contact' }),
  SCHEDULE_ENABLED: Flag('Run collectors on the in-process schedule', true),
  FULL_STATUS_CRON: Cron('Cadence of the full-status collector', '*/5 * * * *'),
  BACKLOG_MAX_TICKS: T.Integer({
    minimum: 0, maximum: 100_000, default: 240,
    description: 'Scheduled ticks kept per collector while the database is down (0 = none)',
  }),
  LOG_LEVEL: T.Union(
    [T.Literal('debug'), T.Literal('info'), T.Literal('warn'), T.Literal('error'), T.Literal('silent')],
    { default: 'info', description: 'Minimum level of the JSON log lines on stdout' },
  ),
  DB_POOL_MAX: T.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Connections in the pool' }),
  DB_STATEMENT_TIMEOUT_MS: T.Integer({ minimum: 100, default: 15_000, description: 'Per-statement timeout' }),
})

export type Env = Static<typeof EnvSchema>

export interface Config {
  readonly databaseUrl: string | undefined
  readonly dataDir: string
  readonly host: string
  readonly port: number
  readonly collectorSecret: string | undefined
  readonly warId: number
  readonly upstreamUrl: string
  readonly communityApiUrl: string
  readonly pcstoreApiUrl: string
  readonly feedTimeoutMs: number
  readonly clientName: string
  readonly clientContact: string
  readonly scheduleEnabled: boolean
  readonly fullStatusCron: string
  readonly backlogMaxTicks: number
  readonly logLevel: Env['LOG_LEVEL']
  readonly dbPoolMax: number
  readonly dbStatementTimeoutMs: number
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

const trimSlash = (url: string) => url.replace(/\/+$/, '')

/**
 * Validate the environment and build the config. Throws a ConfigError whose message is
 * one line naming every bad variable, e.g. `invalid configuration: PORT must be ...`.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const known = Object.keys(EnvSchema.properties)
  // Empty strings mean "unset": that is how most process managers express it.
  const input: Record<string, unknown> = {}
  for (const key of known) {
    const v = env[key]
    if (v !== undefined && v !== '') input[key] = v
  }
  const withDefaults = Value.Default(EnvSchema, Value.Convert(EnvSchema, input))
  const errors = [...Value.Errors(EnvSchema, withDefaults)]
  if (errors.length > 0) {
    const byVar = new Map<string, string>()
    for (const e of errors) {
      const name = e.path.replace(/^\//, '') || '(root)'
      if (!byVar.has(name)) byVar.set(name, `${name}=${JSON.stringify(input[name])}: ${describe(name, e.message)}`)
    }
    throw new ConfigError(`invalid configuration: ${[...byVar.values()].join('; ')}`)
  }
  const e = withDefaults as Env
  const flag = (v: string) => v === 'true' || v === '1'
  return Object.freeze({
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    host: e.HOST,
    port: e.PORT,
    collectorSecret: e.COLLECTOR_SECRET,
    warId: e.WAR_ID,
    upstreamUrl: trimSlash(e.UPSTREAM_URL),
    communityApiUrl: trimSlash(e.COMMUNITY_API_URL),
    pcstoreApiUrl: trimSlash(e.PCSTORE_API_URL),
    feedTimeoutMs: e.FEED_TIMEOUT_MS,
    clientName: e.CLIENT_NAME,
    clientContact: e.CLIENT_CONTACT,
    scheduleEnabled: flag(e.SCHEDULE_ENABLED),
    fullStatusCron: e.FULL_STATUS_CRON,
    backlogMaxTicks: e.BACKLOG_MAX_TICKS,
    logLevel: e.LOG_LEVEL,
    dbPoolMax: e.DB_POOL_MAX,
    dbStatementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
  })
}

function describe(name: string, fallback: string): string {
  const schema = (EnvSchema.properties as Record<string, { description?: string }>)[name]
  return schema?.description ? `${fallback} (${schema.description})` : fallback
}
