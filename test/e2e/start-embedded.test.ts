import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startService, type ServiceProcess } from '../support/process.ts'

describe('the service with no DATABASE_URL (embedded default)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gws-embedded-'))
  let svc: ServiceProcess
  beforeAll(async () => {
    // Feeds point at a closed port: this test is about start-up, not collection.
    svc = await startService({ DATA_DIR: dataDir, SCHEDULE_ENABLED: 'false', UPSTREAM_URL: 'http://127.0.0.1:9/api' })
  }, 60_000)
  afterAll(async () => {
    await svc?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('starts, migrates the embedded database and answers /health/ready', async () => {
    const res = await fetch(`${svc.baseUrl}/health/ready`)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ status: 'ready', edition: 'postgres', embedded: true, checks: { pendingMigrations: 0 } })
    expect(svc.lines.some((l) => l.msg === 'database ready' && l.edition === 'postgres')).toBe(true)
    // A new data folder starts from the shipped template, not from PGlite's initdb.
    expect(svc.lines.find((l) => l.msg === 'embedded database started')?.origin).toBe('template')
  })

  test('/health/live answers without touching the database', async () => {
    const res = await fetch(`${svc.baseUrl}/health/live`)
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(await res.json()).toEqual({ status: 'ok' })
  })

  test('unknown routes get 404 {error}', async () => {
    const res = await fetch(`${svc.baseUrl}/api/v1/nope`)
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ error: 'not found' })
  })

  test('SIGTERM stops it cleanly, and the data folder reopens', async () => {
    expect(await svc.stop('SIGTERM')).toBe(0)
    expect(svc.lines.some((l) => l.msg === 'stopped')).toBe(true)
    // A second start on the same folder finds the schema already there.
    const again = await startService({ DATA_DIR: dataDir, SCHEDULE_ENABLED: 'false' })
    try {
      expect((await fetch(`${again.baseUrl}/health/ready`)).status).toBe(200)
      expect(again.lines.some((l) => l.msg === 'migrations applied')).toBe(false)
      expect(again.lines.find((l) => l.msg === 'embedded database started')?.origin).toBe('existing')
    } finally {
      expect(await again.stop('SIGINT')).toBe(0)
    }
  })
})

describe('a bad configuration', () => {
  test('stops start-up with one line naming the variable', async () => {
    const proc = Bun.spawn([process.execPath, 'src/main.ts'], {
      cwd: new URL('../../', import.meta.url).pathname,
      env: { PATH: process.env.PATH ?? '', PORT: 'eighty' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect(await proc.exited).toBe(2)
    const err = await new Response(proc.stderr).text()
    expect(err.trim().split('\n')).toHaveLength(1)
    expect(err).toContain('PORT="eighty"')
  })
})
