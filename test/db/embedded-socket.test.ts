/**
 * The embedded database's socket (src/db/embedded-socket.ts): PGlite is one session, which
 * a connection holds until it is idle; statements of any size arrive whole.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { connect, type Sql } from '../../src/db/connect.ts'
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded.ts'

describe('the embedded socket', () => {
  let db: EmbeddedDatabase
  let a: Sql
  let b: Sql
  beforeAll(async () => {
    db = await startEmbeddedDatabase(null)
    a = connect({ url: db.url, max: 1 })
    b = connect({ url: db.url, max: 1 })
    await a`CREATE TABLE t (id int PRIMARY KEY, note text)`
  })
  afterAll(async () => {
    await Promise.all([a?.end(), b?.end()])
    await db?.close()
  })

  test("another connection's statement waits for the transaction to end, and never runs inside it", async () => {
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let inside!: () => void
    const begun = new Promise<void>((r) => (inside = r))
    const tx = a
      .begin(async (t) => {
        await t`INSERT INTO t VALUES (1, 'rolled back')`
        inside()
        await held
        throw new Error('roll back')
      })
      .catch(() => 'rolled back')
    await begun
    let bDone = false
    const other = b`INSERT INTO t VALUES (2, 'b') RETURNING id`.then((r) => {
      bDone = true
      return r
    })
    await Bun.sleep(100)
    expect(bDone).toBe(false)
    release()
    expect(await tx).toBe('rolled back')
    expect((await other).map((r) => r.id)).toEqual([2])
    // b's row was not in a's transaction: the rollback left it.
    expect((await a`SELECT id FROM t ORDER BY id`).map((r) => r.id)).toEqual([2])
  })

  test('a connection closed inside its transaction is rolled back, and the session goes on', async () => {
    const c = connect({ url: db.url, max: 1 })
    let inside!: () => void
    const begun = new Promise<void>((r) => (inside = r))
    const tx = c
      .begin(async (t) => {
        await t`INSERT INTO t VALUES (3, 'left open')`
        inside()
        await new Promise(() => {}) // never commits
      })
      .catch(() => 'ended')
    await begun
    await c.end({ timeout: 0 })
    expect(await tx).toBe('ended')
    expect((await b`SELECT count(*)::int AS n FROM t WHERE id = 3`)[0]!.n).toBe(0)
    expect((await b`SELECT pg_current_xact_id_if_assigned() IS NULL AS idle`)[0]!.idle).toBe(true)
  })

  test('statements of several MB, and many at once, arrive whole and in order', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => ({ id: 1000 + i, note: `${i}`.padEnd(300, 'x') }))
    const inserted = await a`INSERT INTO t SELECT * FROM jsonb_to_recordset(${a.json(rows)}) AS r(id int, note text) RETURNING 1`
    expect(inserted.length).toBe(20_000)
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => a`SELECT ${i}::int AS i, length(${'y'.repeat(i * 500)}) AS l`))
    expect(answers.map((r) => [r[0]!.i, r[0]!.l])).toEqual(Array.from({ length: 200 }, (_, i) => [i, i * 500]))
  })
})
