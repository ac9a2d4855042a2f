/**
 * The embedded database's template (src/db/embedded-template.ts): one for the installed
 * PGlite, a new database started from it, the archive format it is packed in, and a folder
 * left half unpacked.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startEmbeddedDatabase } from '../../src/db/embedded.ts'
import { makeTemplate, pgliteVersion, readTemplate, tarEntries, templateFile, unpackTemplate } from '../../src/db/embedded-template.ts'
import { connect } from '../../src/db/connect.ts'

const work = mkdtempSync(join(tmpdir(), 'gws-template-test-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const serverVersion = async (url: string) => {
  const sql = connect({ url, max: 1 })
  try {
    const [row] = await sql<{ v: string }[]>`SELECT current_setting('server_version') AS v`
    return row!.v
  } finally {
    await sql.end()
  }
}

describe('the embedded template', () => {
  test('there is one for the installed PGlite (after an upgrade: npx bun scripts/embedded-template.ts)', () => {
    expect(existsSync(templateFile()), `no ${templateFile()} for PGlite ${pgliteVersion()}`).toBe(true)
  })

  test('a new data folder starts from it, and opens as it is the next time', async () => {
    const dir = join(work, 'new')
    const first = await startEmbeddedDatabase(dir)
    try {
      expect(first.origin).toBe('template')
      expect(await serverVersion(first.url)).toMatch(/^\d+\.\d+/)
    } finally {
      await first.close()
    }
    const again = await startEmbeddedDatabase(dir)
    try {
      expect(again.origin).toBe('existing')
    } finally {
      await again.close()
    }
  })

  test('an in-memory database starts from it too', async () => {
    const db = await startEmbeddedDatabase(null)
    try {
      expect(db.origin).toBe('template')
      expect(await serverVersion(db.url)).toMatch(/^\d+\.\d+/)
    } finally {
      await db.close()
    }
  })

  test('a folder left without PG_VERSION (a crash while unpacking) is unpacked again', async () => {
    const dir = join(work, 'half')
    expect(await unpackTemplate(dir)).toBe(true)
    unlinkSync(join(dir, 'PG_VERSION'))
    writeFileSync(join(dir, 'global', 'pg_control'), 'torn')
    const db = await startEmbeddedDatabase(dir)
    try {
      expect(db.origin).toBe('template')
      expect(await serverVersion(db.url)).toMatch(/^\d+\.\d+/)
    } finally {
      await db.close()
    }
  })

  test('packs a folder and unpacks it as it was: files, modes, empty folders', async () => {
    const src = join(work, 'src')
    mkdirSync(join(src, 'base', '1'), { recursive: true })
    mkdirSync(join(src, 'pg_tblspc'))
    writeFileSync(join(src, 'PG_VERSION'), '18\n', { mode: 0o600 })
    const big = new Uint8Array(70_000).map((_, i) => i % 251)
    writeFileSync(join(src, 'base', '1', '1255'), big, { mode: 0o600 })
    writeFileSync(join(src, 'base', '1', 'empty'), '')
    const file = join(work, 'made.tar.br')
    writeFileSync(file, makeTemplate(src))
    const names = [...tarEntries(readTemplate(file)!)].map((e) => `${e.type} ${e.name}`)
    expect(names).toEqual(['dir base', 'dir base/1', 'file base/1/1255', 'file base/1/empty', 'dir pg_tblspc', 'file PG_VERSION'])
    const out = join(work, 'out')
    expect(await unpackTemplate(out, file)).toBe(true)
    expect(new Uint8Array(readFileSync(join(out, 'base', '1', '1255')))).toEqual(big)
    expect(readFileSync(join(out, 'base', '1', 'empty')).byteLength).toBe(0)
    expect(readFileSync(join(out, 'PG_VERSION'), 'utf8')).toBe('18\n')
    expect(statSync(join(out, 'PG_VERSION')).mode & 0o777).toBe(0o600)
    expect(statSync(join(out, 'pg_tblspc')).isDirectory()).toBe(true)
  })

  test('no template: false, nothing written', async () => {
    expect(await unpackTemplate(join(work, 'none'), join(work, 'missing.tar.br'))).toBe(false)
    expect(existsSync(join(work, 'none'))).toBe(false)
  })
})
