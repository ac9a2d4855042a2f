/**
 * Makes the embedded database's template for the installed PGlite
 * (assets/embedded/pglite-<version>.tar.br; src/db/embedded-template.ts says why): PGlite's
 * initdb in a temporary folder, the database closed, the folder packed. Templates of other
 * PGlite versions are removed. Run it after upgrading @electric-sql/pglite:
 *
 *   npx bun scripts/embedded-template.ts
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { makeTemplate, pgliteVersion, TEMPLATE_DIR, templateFile, unpackTemplate } from '../src/db/embedded-template.ts'

const version = pgliteVersion()
const work = mkdtempSync(join(tmpdir(), 'gws-template-'))
try {
  const made = join(work, 'initdb')
  const db = await PGlite.create(made)
  await db.close()
  const file = templateFile(version)
  writeFileSync(file, makeTemplate(made))
  for (const other of readdirSync(TEMPLATE_DIR)) if (/^pglite-.*\.tar\.br$/.test(other) && other !== basename(file)) rmSync(join(TEMPLATE_DIR, other))
  // The template must open as a database.
  const check = join(work, 'check')
  await unpackTemplate(check, file)
  const again = await PGlite.create(check)
  const [row] = (await again.query<{ v: string }>('SELECT version() AS v')).rows
  await again.close()
  process.stderr.write(`${file}: ${(Bun.file(file).size / 2 ** 20).toFixed(2)} MB, PGlite ${version}, ${row?.v}\n`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
