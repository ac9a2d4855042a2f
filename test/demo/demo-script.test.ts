/**
 * `npm run demo` (scripts/demo.ts) end to end, on a short history: what it says while it
 * starts, in order (a line before the database opens, then the database, the history's
 * progress, the simulator and the service, ready), never silent for long, and a clean stop
 * on Ctrl-C.
 */
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { linesOf } from '../support/process.ts'

const ROOT = new URL('../../', import.meta.url).pathname
const dataDir = mkdtempSync(join(tmpdir(), 'gws-demo-script-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

/** A port free at the time of asking. */
function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const { port } = probe
  probe.stop(true)
  return port
}

test('says what it does from its first line to ready, and stops on SIGINT', async () => {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp',
    DATA_DIR: dataDir, DEMO_HISTORY_DAYS: '0.2', PORT: String(freePort()), SIM_PORT: String(freePort()), LOG_LEVEL: 'warn',
  }
  const proc = Bun.spawn([process.execPath, 'scripts/demo.ts'], { cwd: ROOT, env, stdin: 'ignore', stdout: 'ignore', stderr: 'pipe' })
  const lines: string[] = []
  let silence = 0
  let last = performance.now()
  try {
    for await (const line of linesOf(proc.stderr)) {
      lines.push(line)
      if (line.startsWith('demo: ')) {
        silence = Math.max(silence, performance.now() - last)
        last = performance.now()
      }
      if (line.startsWith('demo: ready ')) break
    }
    proc.kill('SIGINT')
    expect(await proc.exited).toBe(0)
  } finally {
    proc.kill('SIGKILL')
  }
  const said = lines.filter((l) => l.startsWith('demo: ')).map((l) => l.replace(/^demo: +/, '').split(/[ :(]/)[0] ?? '')
  // The first line comes before the database is opened; each step follows the one before.
  expect(said[0]).toBe('starting')
  const order = ['starting', 'database', 'writing', 'history', 'simulator', 'ready']
  expect(said.filter((w) => order.includes(w))).toEqual(order)
  // The history's progress between writing and written: the first batch at least.
  const progress = lines.slice(lines.findIndex((l) => l.includes('writing ')), lines.findIndex((l) => l.includes('history written')))
  expect(progress.some((l) => /\d+\/\d+ full-status captures written, \d+ simulated/.test(l)), lines.join('\n')).toBe(true)
  // Whatever it waits for, it says so every 2 s (with room for a busy machine).
  expect(silence).toBeLessThan(5000)
}, 120_000)
