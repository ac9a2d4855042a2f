/**
 * `npm run keys` as a process: create (the key once, on stdout; only its hash stored),
 * list, revoke (announced to every process), and its usage errors.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connect, type Sql } from '../../src/db/connect.ts'
import { migrate } from '../../src/db/migrate.ts'
import { hashApiKey } from '../../src/http/api-keys.ts'
import { API_KEYS_CHANNEL } from '../../src/storage/api-keys.ts'
import { createScratchDatabase, describeTimescale } from '../support/db.ts'
import { migratedDataDir } from '../support/process.ts'

const ROOT = new URL('../../', import.meta.url).pathname

/** `bun src/cli/keys.ts …` to its end. */
async function keys(args: string[], env: Record<string, string>) {
  const p = Bun.spawn([process.execPath, 'src/cli/keys.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  return { stdout, stderr, code }
}

test('bad usage: exit 2 with the usage, before any database is opened', async () => {
  // A database URL nothing answers at: usage errors never get as far as connecting.
  const env = { DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none' }
  for (const args of [[], ['nope'], ['create'], ['create', '--name', ''], ['create', '--name', 'a', '--quota', '0'], ['create', '--name', 'a', '--window', '86401'], ['create', '--name', 'a', '--json'], ['revoke'], ['revoke', 'abc'], ['revoke', '1', '2'], ['list', 'x'], ['list', '--bogus']]) {
    const r = await keys(args, env)
    expect(r.code, args.join(' ')).toBe(2)
    expect(r.stderr).toContain('usage: npm run keys -- create --name NAME')
    expect(r.stdout).toBe('')
  }
})

describeTimescale('npm run keys on PostgreSQL', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>
  let sql: Sql
  let env: Record<string, string>
  beforeAll(async () => {
    scratch = await createScratchDatabase('keys_cli')
    sql = connect({ url: scratch.url, max: 2 })
    await migrate(sql)
    env = { DATABASE_URL: scratch.url }
  }, 60_000)
  afterAll(async () => {
    await sql?.end()
    await scratch?.drop()
  })

  test('create prints the key once; only its SHA-256 and first characters are stored; list shows it; revoke ends it, announced', async () => {
    const heard: string[] = []
    const listening = await sql.listen(API_KEYS_CHANNEL, (payload) => heard.push(payload))

    const made = await keys(['create', '--name', 'stats bot', '--quota', '50000', '--window', '3600'], env)
    expect(made.code).toBe(0)
    expect(made.stdout).toMatch(/^gws_[A-Za-z0-9_-]{43}\n$/)
    const key = made.stdout.trim()
    expect(made.stderr).toContain('created key 1 "stats bot": 50000 units per 3600 s')
    const [row] = await sql<{ key_sha256: string; key_prefix: string; quota: number; window_seconds: number; revoked_at: Date | null }[]>`SELECT * FROM api_keys`
    expect(row).toMatchObject({ key_sha256: hashApiKey(key), key_prefix: key.slice(0, 12), quota: 50000, window_seconds: 3600, revoked_at: null })
    expect(JSON.stringify(await sql`SELECT * FROM api_keys`)).not.toContain(key.slice(12))

    const other = await keys(['create', '--name', 'default limits'], env)
    expect(other.code).toBe(0)
    expect(other.stderr).toContain('RATE_LIMIT_KEY_QUOTA units per RATE_LIMIT_WINDOW_SECONDS s')
    expect(other.stdout.trim()).not.toBe(key)

    const listed = await keys(['list'], env)
    expect(listed.code).toBe(0)
    const lines = listed.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^id\s+name\s+key\s+quota\s+window\s+created\s+revoked$/)
    expect(lines[1]).toMatch(new RegExp(`^1\\s+stats bot\\s+${key.slice(0, 12)}…\\s+50000\\s+3600s\\s+\\S+Z\\s+-$`))
    expect(lines[2]).toMatch(/^2\s+default limits\s+gws_\S+…\s+default\s+default\s+\S+Z\s+-$/)

    expect((await keys(['revoke', '1'], env)).code).toBe(0)
    const again = await keys(['revoke', '1'], env)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('no live key has id 1')
    expect((await keys(['revoke', '99'], env)).code).toBe(1)

    const json = JSON.parse((await keys(['list', '--json'], env)).stdout) as { id: number; revokedAt: string | null; name: string }[]
    expect(json.map((k) => [k.id, k.name, k.revokedAt !== null])).toEqual([[1, 'stats bot', true], [2, 'default limits', false]])
    // Every change was announced: two creations and one revocation (not the refused ones).
    await Bun.sleep(100)
    expect(heard.length).toBe(3)
    await listening.unlisten()
  }, 60_000)
})

test('on the embedded database (DATA_DIR, no DATABASE_URL): create, then list', async () => {
  const env = { DATA_DIR: await migratedDataDir() }
  const made = await keys(['create', '--name', 'local'], env)
  expect(made.code).toBe(0)
  expect((await keys(['list'], env)).stdout).toContain('local')
}, 60_000)
