import type { Subprocess } from 'bun'
import { afterAll } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migratedImage } from './db.ts'

export interface ServiceProcess {
  proc: Subprocess<'ignore', 'pipe', 'pipe'>
  baseUrl: string
  /** Every JSON log line seen so far. */
  lines: Record<string, unknown>[]
  stop(signal?: NodeJS.Signals): Promise<number>
}

const ROOT = new URL('../../', import.meta.url).pathname

export interface Listening {
  proc: Subprocess<'ignore', 'pipe', 'pipe'>
  port: number
  /** Every JSON log line seen so far. */
  lines: Record<string, unknown>[]
  stderr: () => string
}

/**
 * Spawn a process that logs a JSON line `{"msg":"listening","port":N}` (the service, the
 * benchmark's ceiling server) and wait for it. Tests and the benchmark share this.
 */
/** The lines of a process's output as they come (without their newline; an unfinished last line at the end). */
export async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder()
  let buf = ''
  for await (const chunk of stream) {
    buf += decoder.decode(chunk, { stream: true })
    let nl: number
    while ((nl = buf.indexOf('\n')) >= 0) {
      yield buf.slice(0, nl)
      buf = buf.slice(nl + 1)
    }
  }
  if (buf) yield buf
}

export async function startListening(cmd: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<Listening> {
  const proc = Bun.spawn(cmd, { cwd: ROOT, env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const lines: Record<string, unknown>[] = []
  let stderr = ''
  void (async () => {
    for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk)
  })()
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${cmd.join(' ')} did not listen in ${timeoutMs} ms: ${stderr}`)), timeoutMs)
    void (async () => {
      for await (const line of linesOf(proc.stdout)) {
        try {
          const obj = JSON.parse(line) as Record<string, unknown>
          lines.push(obj)
          if (obj.msg === 'listening') {
            clearTimeout(timer)
            resolve(Number(obj.port))
          }
        } catch {
          // not a log line
        }
      }
      clearTimeout(timer)
      reject(new Error(`${cmd.join(' ')} exited before listening (code ${await proc.exited}): ${stderr}`))
    })()
  })
  return { proc, port, lines, stderr: () => stderr }
}

/**
 * Folders made by freshDataDir that still exist: removed after the test file at the latest
 * (bun runs no process 'exit' handler in tests; a top-level afterAll of this module belongs
 * to the first file that imports it, which is every file when each runs in a process of its
 * own, as scripts/test.sh does).
 */
const madeDirs = new Set<string>()
try {
  afterAll(() => {
    for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true })
    madeDirs.clear()
  })
} catch {
  // Not under `bun test` (the benchmark scripts import this module): their callers remove them.
}

/** Remove a folder made by freshDataDir (its processes must have exited). */
export function removeDataDir(dir: string) {
  rmSync(dir, { recursive: true, force: true })
  madeDirs.delete(dir)
}

/**
 * A fresh folder for a process's data (spool, embedded database), in the OS temp folder.
 * Removed after the test file, if the test has not removed it before (removeDataDir).
 */
export const freshDataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'gws-svc-'))
  madeDirs.add(dir)
  return dir
}

/**
 * A fresh data folder (freshDataDir) holding a migrated embedded database, unpacked from
 * the image the run's files share (test/support/db.ts migratedImage): a process started on
 * it opens that database instead of running initdb and every migration, seconds of CPU.
 * For tests whose subject is not the embedded database's first start.
 */
export async function migratedDataDir(): Promise<string> {
  const dir = freshDataDir()
  const image = new Uint8Array(await (await migratedImage()).arrayBuffer())
  const tar = Bun.spawnSync(['tar', '-xf', '-', '-C', dir], { stdin: image, stdout: 'ignore', stderr: 'pipe' })
  if (tar.exitCode !== 0) throw new Error(`could not unpack the migrated database image into ${dir}: ${tar.stderr.toString()}`)
  return dir
}

/**
 * Start `bun src/main.ts` as a real process with PORT=0 (the "listening" line carries the
 * port), with a DATA_DIR of its own (its spool lives there, removed once the process has
 * exited) unless `env` names one (then the test owns that folder); without DATABASE_URL that
 * folder holds a migrated embedded database (migratedDataDir: pass a DATA_DIR of its own to
 * test a first start). Budgets per client are
 * off (RATE_LIMIT=off: tests and benchmarks ask a lot from one address) unless `env` turns
 * them on.
 */
export async function startService(env: Record<string, string>, timeoutMs = 60_000): Promise<ServiceProcess> {
  const ownDir = env.DATA_DIR !== undefined ? null : env.DATABASE_URL ? freshDataDir() : await migratedDataDir()
  let started: Listening
  try {
    started = await startListening(
      [process.execPath, 'src/main.ts'],
      { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT: 'off', ...(ownDir ? { DATA_DIR: ownDir } : {}), ...env },
      timeoutMs,
    )
  } catch (err) {
    if (ownDir) removeDataDir(ownDir)
    throw err
  }
  const { proc, port, lines } = started
  if (ownDir) void proc.exited.then(() => removeDataDir(ownDir))
  return {
    proc,
    baseUrl: `http://127.0.0.1:${port}`,
    lines,
    /** Signal the process and wait for its exit code; SIGKILL (and code -1) if it has not exited after 30 s. */
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null) proc.kill(signal)
      const exited = await Promise.race([proc.exited, Bun.sleep(30_000).then(() => null)])
      if (exited !== null) return exited
      proc.kill('SIGKILL')
      await proc.exited
      return -1
    },
  }
}
