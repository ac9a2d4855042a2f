import { describe, test } from 'bun:test'
import { openEmbeddedTestDatabase, openTimescaleTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './db.ts'

export interface EditionTarget {
  label: string
  open(opts?: { migrate?: boolean }): Promise<TestDatabase>
}

/**
 * Run the same suite on the embedded default and on the provisioned TimescaleDB: the
 * service must behave identically on both. The TimescaleDB run is skipped, with the
 * reason in its name, when no test database was provisioned.
 */
export function describeOnEachDatabase(name: string, fn: (target: EditionTarget) => void) {
  describe(`${name} [embedded PGlite]`, () => fn({ label: 'embedded', open: (o) => openEmbeddedTestDatabase(o) }))
  const ts: EditionTarget = { label: 'timescaledb', open: (o) => openTimescaleTestDatabase(name, o) }
  if (TEST_DATABASE_URL) describe(`${name} [TimescaleDB]`, () => fn(ts))
  // One skipped entry that says why, rather than every test of the suite unnamed-skipped.
  else test.skip(`${name} [TimescaleDB]: skipped because TEST_DATABASE_URL is unset (npm test provisions it)`, () => {})
}
