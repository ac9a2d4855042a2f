/** The spool on disk: what a process keeps survives it, in capture order, bounded, one process per folder. */
import { afterEach, describe, expect, test } from 'bun:test'
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Tick } from '../../src/collect/collector.ts'
import { Spool, SpoolLockedError } from '../../src/collect/spool.ts'
import { createLogger, silentLogger } from '../../src/log.ts'

const dirs: string[] = []
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'gws-spool-'))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

let n = 0
const tick = (capturedAt: string, collector: Tick['collector'] = 'player-count'): Tick => ({
  id: `t${++n}`, collector, warId: 801, capturedAt, rows: { warTime: n, total: 1000 + n },
})
const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString()

/** The pending ticks of a collector, oldest first, by taking them all out. */
async function takeAll(spool: Spool, c: Tick['collector'] = 'player-count'): Promise<Tick[]> {
  const out: Tick[] = []
  for (let head = spool.head(c); head; head = spool.head(c)) {
    out.push(head)
    await spool.done(head)
  }
  return out
}

describe('spool', () => {
  test('ticks survive the process: a new spool on the folder has every pending tick, in capture order, and nothing written', async () => {
    const dir = freshDir()
    const first = await Spool.open(dir, 240, silentLogger)
    const a = tick(at(30))
    const b = tick(at(10)) // fetched late: captured before a
    const c = tick(at(20))
    for (const t of [a, b, c]) await first.add(t)
    await first.done(b)
    // As after SIGKILL: the files are closed (close() writes nothing); only what
    // add()/done() made durable counts.
    await first.close()
    const second = await Spool.open(dir, 240, silentLogger)
    const replayed = await takeAll(second)
    expect(replayed.map((t) => t.id)).toEqual([c.id, a.id])
    expect(replayed[0]).toEqual(c)
    await second.close()
  })

  test('a record cut short by a crash is skipped, the ones before it are kept', async () => {
    const dir = freshDir()
    const s1 = await Spool.open(dir, 240, silentLogger)
    const a = tick(at(1))
    await s1.add(a)
    await s1.close()
    appendFileSync(join(dir, 'player-count.jsonl'), '{"tick":{"id":"half","collector":"player-co')
    const lines: string[] = []
    const s2 = await Spool.open(dir, 240, createLogger('debug', (l) => lines.push(l)))
    expect((await takeAll(s2)).map((t) => t.id)).toEqual([a.id])
    expect(lines.some((l) => l.includes('unreadable record skipped'))).toBe(true)
    await s2.close()
  })

  test('bounded: past the bound the oldest tick is dropped, logged and counted (also when loading)', async () => {
    const dir = freshDir()
    const lines: string[] = []
    const log = createLogger('debug', (l) => lines.push(l))
    const spool = await Spool.open(dir, 2, log)
    const ticks = [tick(at(1)), tick(at(2)), tick(at(3))]
    for (const t of ticks) await spool.add(t)
    expect(spool.size('player-count')).toBe(2)
    expect(spool.counts()['player-count']).toMatchObject({ pending: 2, added: 3, dropped: 1 })
    expect(lines.filter((l) => l.includes('oldest tick dropped'))).toHaveLength(1)
    await spool.close()
    const again = await Spool.open(dir, 1, silentLogger)
    expect(again.counts()['player-count'].dropped).toBe(1)
    expect((await takeAll(again)).map((t) => t.id)).toEqual([ticks[2]!.id])
    await again.close()
  })

  test('the file is emptied when its queue is, and compacted when it grows', async () => {
    const dir = freshDir()
    const spool = await Spool.open(dir, 3, silentLogger)
    const file = join(dir, 'full-status.jsonl')
    for (let i = 0; i < 40; i++) {
      const t = tick(at(i), 'full-status')
      await spool.add(t)
      if (i % 2 === 0) await spool.done(t)
    }
    // 40 ticks went through a bound of 3: the file holds a handful of records, not 80.
    expect(readFileSync(file, 'utf8').trim().split('\n').length).toBeLessThanOrEqual(2 * 3 + 16)
    await takeAll(spool, 'full-status')
    expect(readFileSync(file, 'utf8')).toBe('')
    await spool.close()
  })

  test('a tick whose write fails for good is set aside in the rejected file, with the error', async () => {
    const dir = freshDir()
    const spool = await Spool.open(dir, 10, silentLogger)
    const t = tick(at(5), 'war-info')
    await spool.add(t)
    await spool.reject(t, new Error('value out of range'))
    expect(spool.size('war-info')).toBe(0)
    expect(spool.counts()['war-info']).toMatchObject({ rejected: 1, written: 0 })
    await spool.close()
    const kept = JSON.parse(readFileSync(join(dir, 'war-info.rejected.jsonl'), 'utf8').trim()) as { tick: Tick; error: string }
    expect(kept.tick).toEqual(t)
    expect(kept.error).toBe('value out of range')
  })

  test('one process per folder: a live process holding it is refused, a dead one is taken over', async () => {
    const dir = freshDir()
    const other = Bun.spawn(['sleep', '30'])
    try {
      writeFileSync(join(dir, 'LOCK'), String(other.pid))
      expect(await Spool.open(dir, 10, silentLogger).catch((e) => e)).toBeInstanceOf(SpoolLockedError)
    } finally {
      other.kill()
      await other.exited
    }
    const spool = await Spool.open(dir, 10, silentLogger)
    expect(readFileSync(join(dir, 'LOCK'), 'utf8')).toBe(String(process.pid))
    await spool.close()
  })

  test('in memory (no folder): same queue, nothing on disk', async () => {
    const spool = await Spool.open(null, 5, silentLogger)
    const a = tick(at(2))
    const b = tick(at(1))
    await spool.add(a)
    await spool.add(b)
    expect(spool.head('player-count')?.id).toBe(b.id)
    expect((await takeAll(spool)).map((t) => t.id)).toEqual([b.id, a.id])
  })
})
