/**
 * Budgets with three real service processes on one database (RATE_LIMIT=on): an API key
 * made with `npm run keys` works on every process, and once revoked is refused by every
 * process within a second (each reloads its keys when PostgreSQL delivers the change);
 * a client's budget, each process holding a third (RATE_LIMIT_PROCESSES=3), holds across
 * the three when its requests are spread over them.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connect, type Sql } from '../../src/db/connect.ts'
import { migrate } from '../../src/db/migrate.ts'
import { createScratchDatabase, describeTimescale } from '../support/db.ts'
import { startService, type ServiceProcess } from '../support/process.ts'

const ROOT = new URL('../../', import.meta.url).pathname

describeTimescale('budgets and API keys across three service processes', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>
  let sql: Sql
  let services: ServiceProcess[] = []

  const keys = async (...args: string[]) => {
    const p = Bun.spawn([process.execPath, 'src/cli/keys.ts', ...args], {
      cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', DATABASE_URL: scratch.url }, stdout: 'pipe', stderr: 'pipe',
    })
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
    if (code !== 0) throw new Error(`keys ${args.join(' ')}: ${code}: ${stderr}`)
    return stdout.trim()
  }
  const status = async (svc: ServiceProcess, key?: string) => (await fetch(`${svc.baseUrl}/api/v1/sectors`, { headers: key ? { 'x-api-key': key } : {} })).status
  /** Poll until every process answers `want`; the time it took, or a failure after `limitMs`. */
  const everywhere = async (want: number, key: string, limitMs: number) => {
    const t0 = performance.now()
    const took = await Promise.all(services.map(async (svc) => {
      while ((await status(svc, key)) !== want) {
        if (performance.now() - t0 > limitMs) throw new Error(`${svc.baseUrl} does not answer ${want} within ${limitMs} ms`)
        await Bun.sleep(10)
      }
      return performance.now() - t0
    }))
    return Math.max(...took)
  }

  beforeAll(async () => {
    scratch = await createScratchDatabase('api_keys_e2e')
    sql = connect({ url: scratch.url, max: 2 })
    await migrate(sql)
    const env = {
      DATABASE_URL: scratch.url, SCHEDULE_ENABLED: 'false', UPSTREAM_URL: 'http://127.0.0.1:9/api',
      RATE_LIMIT: 'on', RATE_LIMIT_QUOTA: '30', RATE_LIMIT_COMPUTE_COST: '1', RATE_LIMIT_KEY_QUOTA: '100000', RATE_LIMIT_PROCESSES: '3',
    }
    services = await Promise.all([startService(env), startService(env), startService(env)])
  }, 60_000)
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()))
    await sql?.end()
    await scratch?.drop()
  })

  test('a client spread over the three processes gets the quota in total (each holds a third)', async () => {
    let accepted = 0
    for (let i = 0; i < 60; i++) if ((await status(services[i % 3]!)) === 200) accepted++
    // 30 units a minute: the burst, and what refilled while it ran (one unit per 2 s).
    expect(accepted).toBeGreaterThanOrEqual(30)
    expect(accepted).toBeLessThanOrEqual(33)
  }, 30_000)

  test('a key made by the CLI works on the three processes; revoked, every process refuses it within a second', async () => {
    const key = await keys('create', '--name', 'e2e')
    // Made after the processes started: they heard of it.
    await everywhere(200, key, 1000)
    const res = await fetch(`${services[0]!.baseUrl}/api/v1/sectors`, { headers: { 'x-api-key': key } })
    expect(res.headers.get('ratelimit-policy')).toBe('"key";q=100000;w=60')

    const id = JSON.parse(await keys('list', '--json'))[0].id as number
    const t0 = performance.now()
    await keys('revoke', String(id))
    const cli = performance.now() - t0
    const ms = await everywhere(401, key, 1000)
    expect(ms).toBeLessThan(1000)
    const refused = await fetch(`${services[2]!.baseUrl}/api/v1/sectors`, { headers: { 'x-api-key': key } })
    expect(await refused.json()).toEqual({ error: 'unknown or revoked API key (X-API-Key)' })
    process.stderr.write(`revoked key refused by all three processes ${ms.toFixed(0)} ms after the CLI returned (the CLI took ${cli.toFixed(0)} ms)\n`)
  }, 30_000)
})
