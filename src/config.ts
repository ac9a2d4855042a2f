import { Type as T, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { isIP } from 'node:net'

/**
 * Every environment value the service reads, declared once: each key's variable is its
 * name in SCREAMING_SNAKE_CASE (`dbPoolMax` ← DB_POOL_MAX), the type of the config is the
 * schema's. `loadConfig` is the only reader of `process.env`; everything else receives
 * the typed, frozen result.
 */
const Url = (description: string, defaultUrl: string) => T.String({ pattern: '^https?://[^\\s]+$', description, default: defaultUrl })
/** The languages the community API syncs (shared/spec/upstream-feeds.md, Accept-Language); the first is the primary. */
export const DEFAULT_FEED_LANGUAGES = ['en-US', 'de-DE', 'es-ES', 'ru-RU', 'fr-FR', 'it-IT', 'pl-PL', 'zh-Hans', 'zh-Hant'] as const
/** A language tag as Accept-Language takes it; `all` is the read routes' word for every language, never a tag. */
const LANGUAGE_TAG = '^(?![Aa][Ll][Ll]$)[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$'
const Cron = (description: string, defaultValue: string) =>
  // Five or six space-separated cron fields; the cron library validates the details.
  T.String({ pattern: '^\\S+( \\S+){4,5}$', description, default: defaultValue })

export const ConfigSchema = T.Object({
  databaseUrl: T.Optional(T.String({ pattern: '^postgres(ql)?://', description: 'PostgreSQL/TimescaleDB URL; unset = embedded database in DATA_DIR' })),
  databaseReadUrl: T.Optional(T.String({
    pattern: '^\\s*postgres(ql)?://[^,\\s]+(\\s*,\\s*postgres(ql)?://[^,\\s]+)*\\s*$',
    description: 'Streaming read replicas of DATABASE_URL (comma-separated URLs) for the read routes',
  })),
  readReplicaMaxLagMs: T.Integer({
    minimum: 0, maximum: 3_600_000, default: 5000,
    description: 'A read replica further behind the primary than this is taken out of rotation',
  }),
  dataDir: T.String({ minLength: 1, default: './data', description: 'Folder of the embedded database (and, by default, of the spool)' }),
  spoolDir: T.Optional(T.String({ description: 'Folder of the tick spool; default DATA_DIR/spool' })),
  host: T.String({ minLength: 1, default: '0.0.0.0', description: 'Address the HTTP server binds' }),
  port: T.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'HTTP port (0 = any free port)' }),
  collectorSecret: T.Optional(T.String({ minLength: 1, description: 'Shared secret for POST /api/v1/collect/*' })),
  warId: T.Integer({ minimum: 1, maximum: 2_147_483_647, default: 801, description: 'Default war id' }),
  upstreamUrl: Url("Game operator's live API base (with /api)", 'https://api.live.prod.thehelldiversgame.com/api'),
  communityApiUrl: Url('Community API base', 'https://api.helldivers2.dev'),
  pcstoreApiUrl: Url('PC store API base', 'https://api.steampowered.com'),
  feedLanguages: T.Array(T.String({ pattern: LANGUAGE_TAG }), {
    minItems: 1, maxItems: 20, default: [...DEFAULT_FEED_LANGUAGES],
    description: 'Comma-separated languages whose dispatch and major-order texts are collected (Accept-Language); the first is the primary (default answers)',
  }),
  feedTimeoutMs: T.Integer({ minimum: 100, maximum: 120_000, default: 10_000, description: 'Timeout of one feed request' }),
  clientName: T.String({ minLength: 1, default: 'galactic-war-stats', description: 'Sent as X-Super-Client / User-Agent' }),
  clientContact: T.String({ minLength: 1, default: 'ops@example.invalid', description: 'Sent as X-Super-Contact' }),
  scheduleEnabled: T.Boolean({ default: true, description: 'Run collectors on the in-process schedule (true/false/1/0)' }),
  fullStatusCron: Cron('Cadence of the full-status collector', '*/5 * * * *'),
  backlogMaxTicks: T.Integer({
    minimum: 0, maximum: 100_000, default: 240,
    description: 'Scheduled ticks kept per collector until written (the newest is always kept)',
  }),
  logLevel: T.Union(
    [T.Literal('debug'), T.Literal('info'), T.Literal('warn'), T.Literal('error'), T.Literal('silent')],
    { default: 'info', description: 'Minimum level of the JSON log lines on stdout' },
  ),
  compressAfterDays: T.Integer({
    minimum: 0, maximum: 36_500, default: 7,
    description: 'TimescaleDB Community: compress raw chunks older than this many days (0 = no compression policy)',
  }),
  rawRetentionDays: T.Optional(T.Integer({
    minimum: 2, maximum: 36_500,
    description: 'Drop raw player counts (the 15-second series) older than this many days, keeping the rollups; unset = keep all',
  })),
  dbPoolMax: T.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Connections in the pool' }),
  dbStatementTimeoutMs: T.Integer({ minimum: 100, default: 15_000, description: 'Per-statement timeout' }),
  streamMaxClients: T.Integer({ minimum: 1, maximum: 1_000_000, default: 20_000, description: 'Open event streams a process serves (beyond: 503)' }),
  streamMaxPerAddress: T.Integer({ minimum: 1, maximum: 100_000, default: 50, description: 'Open event streams per client address (beyond: 429)' }),
  webhookAllowPrivate: T.Boolean({ default: false, description: 'Allow webhook URLs on loopback and private addresses (tests, a LAN receiver)' }),
  eventLogRetentionDays: T.Integer({
    minimum: 1, maximum: 3650, default: 7,
    description: 'Days the pushed events are kept: how far back a stream client can resume (Last-Event-ID)',
  }),
  rateLimit: T.Union([T.Literal('on'), T.Literal('off')], { default: 'on', description: 'Budgets per client address and per API key (on/off)' }),
  rateLimitQuota: T.Integer({
    minimum: 1, maximum: 10_000_000, default: 600,
    description: 'Units a client address may spend per window (a kept answer costs 1, a computed one RATE_LIMIT_COMPUTE_COST)',
  }),
  rateLimitWindowSeconds: T.Integer({ minimum: 1, maximum: 86_400, default: 60, description: 'Seconds in which an empty budget refills entirely' }),
  rateLimitComputeCost: T.Integer({ minimum: 1, maximum: 10_000, default: 10, description: 'Units an answer costs when it is computed (reaches the database) instead of kept' }),
  rateLimitKeyQuota: T.Integer({
    minimum: 1, maximum: 10_000_000, default: 6000,
    description: 'Units per window of a request with an API key, unless the key has its own quota',
  }),
  rateLimitProcesses: T.Integer({
    minimum: 1, maximum: 1000, default: 1,
    description: 'Service processes behind the proxy: each enforces its share of every budget',
  }),
  trustedProxies: T.Array(T.String({ pattern: '^[0-9A-Fa-f:.]+(/[0-9]{1,3})?$' }), {
    maxItems: 100, default: [],
    description: 'Comma-separated addresses or CIDR ranges of the proxies whose client-address header is believed',
  }),
  trustedProxyHeader: T.Union([T.Literal('x-forwarded-for'), T.Literal('forwarded')], {
    default: 'x-forwarded-for',
    description: 'The header the trusted proxies write the client address in (x-forwarded-for or forwarded)',
  }),
})

export type Config = Readonly<Static<typeof ConfigSchema>>

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** The environment variable of a config key: `dbPoolMax` → `DB_POOL_MAX`. */
export const envName = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()

const URL_KEYS = ['upstreamUrl', 'communityApiUrl', 'pcstoreApiUrl'] as const
/** Comma-separated values read as lists. */
const LIST_KEYS = new Set(['feedLanguages', 'trustedProxies'])

/**
 * Validate the environment and build the config. Throws a ConfigError whose message is
 * one line naming every bad variable, e.g. `invalid configuration: PORT="x": ...`.
 * Empty strings mean "unset" (that is how most process managers express it), except for
 * SPOOL_DIR, where an empty value keeps the spool in memory only.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const input: Record<string, unknown> = {}
  for (const key of Object.keys(ConfigSchema.properties)) {
    const v = env[envName(key)]
    if (v !== undefined && (v !== '' || key === 'spoolDir')) input[key] = LIST_KEYS.has(key) ? v.split(',').map((x) => x.trim()) : v
  }
  const value = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, input)) as Record<string, unknown>
  const errors: { path: string; message: string }[] = [...Value.Errors(ConfigSchema, value)]
  // Tags are case-insensitive: `en-US` and `en-us` would be one language fetched twice.
  const langs = value.feedLanguages
  if (Array.isArray(langs) && new Set(langs.map((l) => String(l).toLowerCase())).size !== langs.length) {
    errors.push({ path: '/feedLanguages', message: 'a language is listed twice' })
  }
  const proxies = value.trustedProxies
  if (Array.isArray(proxies)) {
    const bad = proxies.findIndex((p) => !isAddressOrRange(String(p)))
    if (bad >= 0) errors.push({ path: '/trustedProxies', message: `item ${bad + 1} is not an IP address or a CIDR range` })
  }
  if (errors.length > 0) {
    const byVar = new Map<string, string>()
    for (const e of errors) {
      // `/feedLanguages/2` is a list item: the variable is the list's.
      const key = e.path.replace(/^\//, '').split('/')[0] ?? ''
      const name = key ? envName(key) : '(root)'
      const described = (ConfigSchema.properties as Record<string, { description?: string }>)[key]?.description
      const given = LIST_KEYS.has(key) && Array.isArray(input[key]) ? (input[key] as string[]).join(',') : input[key]
      if (!byVar.has(name)) byVar.set(name, `${name}=${JSON.stringify(given)}: ${e.message}${described ? ` (${described})` : ''}`)
    }
    throw new ConfigError(`invalid configuration: ${[...byVar.values()].join('; ')}`)
  }
  for (const key of URL_KEYS) value[key] = (value[key] as string).replace(/\/+$/, '')
  if (value.databaseReadUrl !== undefined && value.databaseUrl === undefined) {
    throw new ConfigError('invalid configuration: DATABASE_READ_URL is set without DATABASE_URL (replicas need a primary; the embedded database has none)')
  }
  return Object.freeze(value as Config)
}

/** An IPv4 or IPv6 address, or one with a prefix length in its family's range (`10.0.0.0/8`, `fd00::/8`). */
export function isAddressOrRange(text: string): boolean {
  const [address = '', prefix, ...rest] = text.split('/')
  const family = isIP(address)
  if (family === 0 || rest.length > 0) return false
  if (prefix === undefined) return true
  return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)
}

/** Where the spool lives: SPOOL_DIR, else DATA_DIR/spool; null = memory only. */
export const spoolDirOf = (config: Pick<Config, 'spoolDir' | 'dataDir'>): string | null =>
  config.spoolDir === undefined ? `${config.dataDir.replace(/\/+$/, '')}/spool` : config.spoolDir || null

/** The read replicas' URLs (DATABASE_READ_URL, comma-separated); empty without replicas. */
export const readUrlsOf = (config: Pick<Config, 'databaseReadUrl'>): string[] =>
  (config.databaseReadUrl ?? '').split(',').map((u) => u.trim()).filter(Boolean)
