import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig, readUrlsOf } from '../src/config.ts'

describe('config', () => {
  test('defaults: embedded database, port 3000, war 801, schedule on', () => {
    const c = loadConfig({})
    expect(c.databaseUrl).toBeUndefined()
    expect(c.dataDir).toBe('./data')
    expect(c.port).toBe(3000)
    expect(c.warId).toBe(801)
    expect(c.scheduleEnabled).toBe(true)
    expect(c.fullStatusCron).toBe('*/5 * * * *')
    expect(c.collectorSecret).toBeUndefined()
  })

  test('reads and converts values; empty strings count as unset; trailing slashes go', () => {
    const c = loadConfig({ PORT: '8080', WAR_ID: '802', SCHEDULE_ENABLED: 'false', UPSTREAM_URL: 'http://127.0.0.1:4010/upstream/api/', COLLECTOR_SECRET: '' })
    expect(c.port).toBe(8080)
    expect(c.warId).toBe(802)
    expect(c.scheduleEnabled).toBe(false)
    expect(c.upstreamUrl).toBe('http://127.0.0.1:4010/upstream/api')
    expect(c.collectorSecret).toBeUndefined()
  })

  const bad: [string, Record<string, string>][] = [
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '70000' }],
    ['WAR_ID', { WAR_ID: '-1' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ['UPSTREAM_URL', { UPSTREAM_URL: 'not a url' }],
    ['SCHEDULE_ENABLED', { SCHEDULE_ENABLED: 'maybe' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['FULL_STATUS_CRON', { FULL_STATUS_CRON: 'often' }],
    ['DATABASE_READ_URL', { DATABASE_READ_URL: 'postgres://r1/db,mysql://r2/db', DATABASE_URL: 'postgres://p/db' }],
    ['READ_REPLICA_MAX_LAG_MS', { READ_REPLICA_MAX_LAG_MS: '-5' }],
    ['COMPRESS_AFTER_DAYS', { COMPRESS_AFTER_DAYS: '-1' }],
    ['RAW_RETENTION_DAYS', { RAW_RETENTION_DAYS: '1' }],
    ['FEED_LANGUAGES', { FEED_LANGUAGES: 'en-US,all' }],
    ['FEED_LANGUAGES', { FEED_LANGUAGES: 'en-US,de-DE,EN-us' }],
    ['FEED_LANGUAGES', { FEED_LANGUAGES: 'en_US' }],
    ['FEED_LANGUAGES', { FEED_LANGUAGES: 'en-US,,de-DE' }],
    ['RATE_LIMIT', { RATE_LIMIT: 'maybe' }],
    ['RATE_LIMIT_QUOTA', { RATE_LIMIT_QUOTA: '0' }],
    ['RATE_LIMIT_PROCESSES', { RATE_LIMIT_PROCESSES: '0' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '10.0.0.0/33' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '127.0.0.1,,::1' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: 'proxy.internal' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '1.2.3' }],
    ['TRUSTED_PROXY_HEADER', { TRUSTED_PROXY_HEADER: 'x-real-ip' }],
  ]
  for (const [name, env] of bad) {
    test(`a bad ${name} (${JSON.stringify(Object.values(env)[0])}) fails with one line naming it`, () => {
      let err: unknown
      try {
        loadConfig(env)
      } catch (e) {
        err = e
      }
      expect(err).toBeInstanceOf(ConfigError)
      const message = (err as Error).message
      expect(message).toStartWith('invalid configuration: ')
      expect(message).toContain(`${name}=`)
      expect(message).not.toContain('\n')
    })
  }

  test('read replicas: one or more comma-separated URLs, only with a primary; a lag bound', () => {
    const none = loadConfig({ DATABASE_URL: 'postgres://p/db' })
    expect(readUrlsOf(none)).toEqual([])
    expect(none.readReplicaMaxLagMs).toBe(5000)
    const two = loadConfig({ DATABASE_URL: 'postgres://p/db', DATABASE_READ_URL: 'postgres://r1:5433/db, postgresql://u:pw@r2/db', READ_REPLICA_MAX_LAG_MS: '2500' })
    expect(readUrlsOf(two)).toEqual(['postgres://r1:5433/db', 'postgresql://u:pw@r2/db'])
    expect(two.readReplicaMaxLagMs).toBe(2500)
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://r1/db' })).toThrow(/DATABASE_READ_URL is set without DATABASE_URL/)
  })

  test('storage policies: compression after 7 days by default, retention off unless set', () => {
    const d = loadConfig({})
    expect(d.compressAfterDays).toBe(7)
    expect(d.rawRetentionDays).toBeUndefined()
    const set = loadConfig({ COMPRESS_AFTER_DAYS: '0', RAW_RETENTION_DAYS: '400' })
    expect(set.compressAfterDays).toBe(0)
    expect(set.rawRetentionDays).toBe(400)
  })

  test('FEED_LANGUAGES: the nine languages by default, en-US first; a list of tags otherwise, spaces around commas ignored', () => {
    expect(loadConfig({}).feedLanguages).toEqual(['en-US', 'de-DE', 'es-ES', 'ru-RU', 'fr-FR', 'it-IT', 'pl-PL', 'zh-Hans', 'zh-Hant'])
    expect(loadConfig({ FEED_LANGUAGES: 'en-US, de-DE ,zh-Hant' }).feedLanguages).toEqual(['en-US', 'de-DE', 'zh-Hant'])
    expect(loadConfig({ FEED_LANGUAGES: 'de-DE' }).feedLanguages).toEqual(['de-DE'])
  })

  test('budgets per client: on by default with a public deployment\'s values; trusted proxies a list of addresses and ranges', () => {
    const d = loadConfig({})
    expect([d.rateLimit, d.rateLimitQuota, d.rateLimitWindowSeconds, d.rateLimitComputeCost, d.rateLimitKeyQuota, d.rateLimitProcesses]).toEqual(['on', 600, 60, 10, 6000, 1])
    expect(d.trustedProxies).toEqual([])
    expect(d.trustedProxyHeader).toBe('x-forwarded-for')
    const set = loadConfig({ RATE_LIMIT: 'off', TRUSTED_PROXIES: '10.0.0.0/8, 172.28.0.10 ,::1,fd00::/8', TRUSTED_PROXY_HEADER: 'forwarded' })
    expect(set.rateLimit).toBe('off')
    expect(set.trustedProxies).toEqual(['10.0.0.0/8', '172.28.0.10', '::1', 'fd00::/8'])
    expect(set.trustedProxyHeader).toBe('forwarded')
  })

  test('several bad values are all named', () => {
    expect(() => loadConfig({ PORT: 'x', WAR_ID: 'y' })).toThrow(/PORT=.*WAR_ID=/)
  })
})
