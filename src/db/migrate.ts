import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Sql } from './connect.ts'
import { detectEdition, type Edition } from './edition.ts'

export const SQL_DIR = join(import.meta.dir, '..', '..', 'sql')

// Arbitrary but fixed: every process of this service serialises migrations on it.
const MIGRATION_LOCK_KEY = 804_201_001

export interface Migration {
  version: number
  name: string
  file: string
  checksum: string
  text: string
}

const FILE = /^(\d{4})_([a-z0-9_]+?)(?:\.(timescale|apache|postgres))?\.sql$/

/**
 * The migrations for one edition, in order. `NNNN_name.sql` applies everywhere unless a
 * variant `NNNN_name.<edition>.sql` exists for the database's edition, which replaces it.
 */
export function migrationsFor(edition: Edition, dir = SQL_DIR): Migration[] {
  // The files do not change while the process runs; readiness probes ask often.
  const key = `${edition}:${dir}`
  const known = loaded.get(key)
  if (known) return known
  const list = readMigrations(edition, dir)
  loaded.set(key, list)
  return list
}

const loaded = new Map<string, Migration[]>()

function readMigrations(edition: Edition, dir: string): Migration[] {
  const byVersion = new Map<number, { generic?: string; variant?: string; name: string }>()
  for (const file of readdirSync(dir).sort()) {
    const m = FILE.exec(file)
    if (!m) continue
    const version = Number(m[1])
    const entry = byVersion.get(version) ?? { name: m[2]! }
    if (m[2] !== entry.name) throw new Error(`migration ${version} has two names: ${entry.name}, ${m[2]}`)
    if (!m[3]) entry.generic = file
    else if (m[3] === edition) entry.variant = file
    byVersion.set(version, entry)
  }
  const out: Migration[] = []
  for (const [version, entry] of [...byVersion].sort((a, b) => a[0] - b[0])) {
    const file = entry.variant ?? entry.generic
    if (!file) continue // only variants for other editions
    const text = readFileSync(join(dir, file), 'utf8')
    out.push({ version, name: entry.name, file, text, checksum: createHash('sha256').update(text).digest('hex') })
  }
  return out
}

export interface MigrateResult {
  edition: Edition
  applied: string[]
  /** Data steps completed (runDataSteps). */
  steps: string[]
}

/**
 * Apply pending migrations, then their data steps (runDataSteps; `dataSteps: false`
 * leaves them for later). Safe when several processes start together: the migrations run
 * in one transaction holding an advisory lock, so the second process waits, then finds
 * nothing to do. Each migration is recorded once, with the checksum of the file applied;
 * a recorded file that has since changed stops start-up instead of drifting silently.
 */
export async function migrate(
  sql: Sql,
  opts: { dir?: string; progress?: (step: string, line: string) => void; dataSteps?: boolean } = {},
): Promise<MigrateResult> {
  const result = await applyMigrations(sql, opts.dir)
  return { ...result, steps: opts.dataSteps === false ? [] : await runDataSteps(sql, opts.progress) }
}

async function applyMigrations(sql: Sql, dir?: string): Promise<Omit<MigrateResult, 'steps'>> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`
    const [avail] = await tx`SELECT 1 AS ok FROM pg_available_extensions WHERE name = 'timescaledb'`
    if (avail) {
      // Needs the library preloaded and enough rights; without them we run as plain PG.
      await tx`SAVEPOINT ext`
      try {
        await tx`CREATE EXTENSION IF NOT EXISTS timescaledb`
      } catch {
        await tx`ROLLBACK TO SAVEPOINT ext`
      }
    }
    const { edition } = await detectEdition(tx)
    await tx`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version    integer     PRIMARY KEY,
        name       text        NOT NULL,
        file       text        NOT NULL,
        checksum   text        NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`
    const done = new Map(
      (await tx<{ version: number; file: string; checksum: string }[]>`SELECT version, file, checksum FROM schema_migrations`).map(
        (r) => [r.version, r],
      ),
    )
    const applied: string[] = []
    for (const m of migrationsFor(edition, dir)) {
      const prior = done.get(m.version)
      if (prior) {
        if (prior.checksum !== m.checksum) {
          throw new Error(`migration ${prior.file} was changed after it was applied (checksum mismatch)`)
        }
        continue
      }
      await tx.unsafe(m.text).simple()
      await tx`INSERT INTO schema_migrations (version, name, file, checksum) VALUES (${m.version}, ${m.name}, ${m.file}, ${m.checksum})`
      applied.push(m.file)
    }
    return { edition, applied }
  })
}

/**
 * A migration that rewrites the stored rows (sql/0021: planet status to change rows) is a
 * data step: a function it names in `schema_data_steps`, called again and again, each
 * call a transaction of its own that does one bounded part and returns a line of
 * progress, until it returns null. Stopped halfway (a crash, a restart), the next start
 * goes on where the last committed part left it. Runs after the migrations (migrate), under
 * the same lock, so two processes never run one at once. Returns the steps completed.
 */
async function runDataSteps(sql: Sql, progress: (step: string, line: string) => void = () => {}): Promise<string[]> {
  const [exists] = await sql`SELECT to_regclass('schema_data_steps') IS NOT NULL AS ok`
  if (!exists?.ok) return []
  const completed: string[] = []
  const reserved = await sql.reserve()
  try {
    await reserved`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`
    try {
      const steps = await reserved<{ name: string; step: string }[]>`SELECT name, step FROM schema_data_steps WHERE done_at IS NULL ORDER BY name`
      for (const { name, step } of steps) {
        for (;;) {
          const [row] = (await reserved.unsafe(`SELECT ${quoteIdent(step)}() AS line`)) as { line: string | null }[]
          if (row?.line == null) break
          progress(name, row.line)
        }
        await reserved`UPDATE schema_data_steps SET done_at = now() WHERE name = ${name}`
        completed.push(name)
      }
    } finally {
      await reserved`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`
    }
  } finally {
    reserved.release()
  }
  return completed
}

const quoteIdent = (name: string) => {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`data step ${name} is not a plain function name`)
  return name
}

/** Number of known migrations not yet applied (0 = schema is current). */
export async function pendingMigrations(sql: Sql, edition: Edition, dir = SQL_DIR): Promise<number> {
  const [exists] = await sql`SELECT to_regclass('schema_migrations') IS NOT NULL AS ok`
  if (!exists?.ok) return migrationsFor(edition, dir).length
  const rows = await sql<{ version: number }[]>`SELECT version FROM schema_migrations`
  const have = new Set(rows.map((r) => r.version))
  return migrationsFor(edition, dir).filter((m) => !have.has(m.version)).length
}
