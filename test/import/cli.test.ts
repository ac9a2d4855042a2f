/**
 * `npm run import` as a process (issue 26): refused, saying so, while the service has the
 * embedded database open, and done once it is stopped; on DATABASE_URL, killed (SIGKILL)
 * in the middle of a batch and run again, it ends with exactly the rows of one whole import.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { EMBEDDED_LOCK_FILE } from '../../src/db/embedded.ts'
import { importCaptures } from '../../src/import/importer.ts'
import { ndjsonSource } from '../../src/import/sources.ts'
import { createScratchDatabase, describeTimescale, openTimescaleTestDatabase, type TestDatabase } from '../support/db.ts'
import { migratedDataDir, startService, type ServiceProcess } from '../support/process.ts'
import { ndjson, statusAt, tempDir, IMPORT_TABLES, ROLLUP_VIEWS, type TestCapture } from './support.ts'

const ROOT = new URL('../../', import.meta.url).pathname
const T0 = Date.parse('2024-03-08T12:00:00Z')

/** `n` captures 5 minutes apart; planet 34 changes hands every 25th. */
const captures = (n: number): TestCapture[] =>
  Array.from({ length: n }, (_, i) => ({
    capturedAt: new Date(T0 + i * 300_000).toISOString(),
    warId: 801,
    status: statusAt(i * 300, { players: i, owners: { 34: Math.floor(i / 25) % 2 ? 1 : 2 } }),
  }))

function importProcess(args: string[], env: Record<string, string>) {
  return Bun.spawn([process.execPath, 'src/cli/import.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
}

async function finished(p: ReturnType<typeof importProcess>) {
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  return { stdout, stderr, code }
}

/** Every table and rollup as one digest per table (sorted rows). */
async function digest(db: Pick<TestDatabase, 'sql'>): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const t of [...IMPORT_TABLES, ...ROLLUP_VIEWS]) {
    const [row] = await db.sql<{ n: number; h: string | null }[]>`
      SELECT count(*)::int AS n, md5(string_agg(r, ',' ORDER BY r)) AS h FROM (SELECT to_jsonb(x)::text AS r FROM ${db.sql(t)} x) s`
    out[t] = `${row!.n}:${row!.h}`
  }
  return out
}

describe('the embedded database in use', () => {
  let files: ReturnType<typeof tempDir>
  let svc: ServiceProcess | undefined
  beforeAll(() => {
    files = tempDir('gws-import-cli-')
    writeFileSync(join(files.dir, 'captures.ndjson'), ndjson(captures(3)))
  })
  afterAll(async () => {
    await svc?.stop()
    files?.remove()
  })

  test('while the service runs on it the import is refused, naming the process; once it is stopped the import runs', async () => {
    const dataDir = await migratedDataDir()
    svc = await startService({ DATA_DIR: dataDir, SCHEDULE_ENABLED: 'false', UPSTREAM_URL: 'http://127.0.0.1:9/api' })
    const refused = await finished(importProcess([join(files.dir, 'captures.ndjson')], { DATA_DIR: dataDir }))
    expect(refused.code).toBe(3)
    expect(refused.stderr).toContain(`in use by process ${svc.proc.pid}`)
    expect(refused.stderr).toContain('Stop it')
    expect(refused.stdout).toBe('')

    expect(await svc.stop('SIGTERM')).toBe(0)
    svc = undefined
    const done = await finished(importProcess([join(files.dir, 'captures.ndjson')], { DATA_DIR: dataDir }))
    expect(done.code).toBe(0)
    expect(JSON.parse(done.stdout)).toMatchObject({ captures: 3, imported: 3, skipped: 0, aborted: false })
    expect(done.stderr).toContain('import done: 3 captures')
    // The lock is released with the database.
    expect(await Bun.file(join(dataDir, EMBEDDED_LOCK_FILE)).exists()).toBe(false)
  }, 90_000)

  test('bad usage: exit 2 with the usage', async () => {
    for (const args of [[], ['--git', files.dir], ['a.ndjson', 'b.ndjson'], ['a.ndjson', '--batch', '0']]) {
      const r = await finished(importProcess(args, { DATA_DIR: join(files.dir, 'unused') }))
      expect(r.code).toBe(2)
      expect(r.stderr).toContain('usage: npm run import')
    }
    const missing = await finished(importProcess([join(files.dir, 'none.ndjson')], { DATA_DIR: join(files.dir, 'unused') }))
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('cannot read')
  })
})

describeTimescale('killed in the middle of an import on DATABASE_URL', () => {
  let files: ReturnType<typeof tempDir>
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>
  let reference: TestDatabase
  const N = 400
  beforeAll(async () => {
    files = tempDir('gws-import-kill-')
    writeFileSync(join(files.dir, 'captures.ndjson'), ndjson(captures(N)))
    scratch = await createScratchDatabase('import_kill')
    reference = await openTimescaleTestDatabase('import_kill_ref')
  }, 60_000)
  afterAll(async () => {
    await reference?.dispose()
    await scratch?.drop()
    files?.remove()
  })

  test('SIGKILL after its first progress line, then run again: the rows of one whole import, none doubled', async () => {
    const file = join(files.dir, 'captures.ndjson')
    const first = importProcess([file, '--batch', '10'], { DATABASE_URL: scratch.url })
    // The first progress line comes after a batch has committed; the next batch is then being written.
    let seen = ''
    for await (const chunk of first.stderr) {
      seen += new TextDecoder().decode(chunk)
      if (/import: \d+ captures/.test(seen)) break
    }
    first.kill('SIGKILL')
    expect(await first.exited).not.toBe(0)

    const second = await finished(importProcess([file, '--batch', '10'], { DATABASE_URL: scratch.url }))
    expect(second.code).toBe(0)
    const summary = JSON.parse(second.stdout)
    expect(summary).toMatchObject({ captures: N, skipped: 0, aborted: false })
    // What the first run committed is passed over; the rest is written now.
    expect(summary.duplicates).toBeGreaterThanOrEqual(10)
    expect(summary.imported).toBeGreaterThan(0)
    expect(summary.imported + summary.duplicates).toBe(N)
    expect(second.stderr).toMatch(/import: \d+ captures \(\d+\.\d % of the file\), \d+\/s, ETA \d+/)

    await importCaptures({ db: reference, source: await ndjsonSource(file), warId: 801, batchSize: 50 })
    const { connect } = await import('../../src/db/connect.ts')
    const sql = connect({ url: scratch.url, max: 1 })
    try {
      const [got, want] = [await digest({ sql }), await digest(reference)]
      expect(got.full_status_ticks).toStartWith(`${N}:`)
      expect(got.planet_status_snapshots).toStartWith(`${N * 261}:`)
      expect(got).toEqual(want)
    } finally {
      await sql.end()
    }
  }, 180_000)
})
