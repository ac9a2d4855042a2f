/**
 * The service process from its start: the first diver-history request after a restart
 * (cold start), and the resident memory of an idle service on the embedded default
 * database. Each process is started here and stopped by its pid.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { startListening } from '../test/support/process.ts'
import { COLLECTOR_SECRET, serviceEnv, statusKb, stopProcess, type ServiceSpec } from './load.ts'

export interface ColdStart {
  path: string
  /** Spawn of `bun src/main.ts` to its "listening" line (ms). */
  startMs: number
  /** The first request, sent right after "listening": wall clock from the request to its last byte (ms). */
  firstMs: number
  /** The same request again, at once (ms): the warm figure beside it. */
  secondMs: number
  bytes: number
}

/** For each path, a fresh service process on the same database; the first request it gets is that path. */
export async function measureColdStarts(
  paths: string[],
  service: ServiceSpec,
  track: (proc: Subprocess) => void,
  progress: (line: string) => void,
): Promise<ColdStart[]> {
  const out: ColdStart[] = []
  for (const path of paths) {
    // A DATA_DIR of its own (its spool folder), not the checkout's ./data.
    const dataDir = mkdtempSync(join(tmpdir(), 'gws-bench-cold-'))
    const t0 = performance.now()
    const svc = await startListening([process.execPath, 'src/main.ts'], { ...serviceEnv(service), DATA_DIR: dataDir })
    track(svc.proc)
    const startMs = performance.now() - t0
    try {
      const get = async () => {
        const t = performance.now()
        const res = await fetch(`http://127.0.0.1:${svc.port}${path}`)
        const body = await res.arrayBuffer()
        const ms = performance.now() - t
        if (res.status !== 200) throw new Error(`cold start GET ${path}: ${res.status} ${new TextDecoder().decode(body).slice(0, 200)}`)
        return { ms, bytes: body.byteLength }
      }
      const first = await get()
      const second = await get()
      out.push({ path, startMs, firstMs: first.ms, secondMs: second.ms, bytes: first.bytes })
      progress(`cold start ${path}: start ${startMs.toFixed(0)} ms, first request ${first.ms.toFixed(1)} ms, second ${second.ms.toFixed(1)} ms`)
    } finally {
      const code = await stopProcess(svc.proc)
      if (code !== 0) progress(`service exited with code ${code}: ${svc.stderr().slice(0, 500)}`)
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
  return out
}

export interface IdleRss {
  waitS: number
  /** Spawn to "listening" (ms): migrations of a fresh embedded database included. */
  startMs: number
  vmRssMb: number
  vmHwmMb: number
  edition: string
}

/**
 * `npm start` as it comes: no DATABASE_URL (the embedded PGlite database, in a fresh
 * DATA_DIR), the feeds on the simulator, SCHEDULE_ENABLED=false. Started, left idle for
 * `waitS`, VmRSS read from /proc by its pid, stopped by its pid.
 */
export async function measureIdleRss(
  feeds: ServiceSpec['feeds'],
  waitS: number,
  track: (proc: Subprocess) => void,
  progress: (line: string) => void,
): Promise<IdleRss> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gws-bench-idle-'))
  try {
    const t0 = performance.now()
    const env = serviceEnv({ databaseUrl: '', poolMax: 10, feeds })
    delete env.DATABASE_URL
    delete env.DB_POOL_MAX
    const svc = await startListening([process.execPath, 'src/main.ts'], { ...env, DATA_DIR: dataDir, COLLECTOR_SECRET })
    track(svc.proc)
    const startMs = performance.now() - t0
    try {
      const listening = svc.lines.find((l) => l.msg === 'listening')
      progress(`idle RSS: service on the embedded database (pid ${svc.proc.pid}) listening after ${startMs.toFixed(0)} ms; idle for ${waitS} s`)
      await Bun.sleep(waitS * 1000)
      const rss = statusKb(svc.proc.pid, 'VmRSS')
      const hwm = statusKb(svc.proc.pid, 'VmHWM')
      if (rss === null || hwm === null) throw new Error(`idle RSS: /proc/${svc.proc.pid}/status unreadable (exited? ${svc.stderr().slice(0, 300)})`)
      progress(`idle RSS: VmRSS ${(rss / 1024).toFixed(0)} MB (VmHWM ${(hwm / 1024).toFixed(0)} MB)`)
      return { waitS, startMs, vmRssMb: rss / 1024, vmHwmMb: hwm / 1024, edition: String(listening?.edition ?? '?') }
    } finally {
      const code = await stopProcess(svc.proc)
      if (code !== 0) progress(`embedded service exited with code ${code}: ${svc.stderr().slice(0, 500)}`)
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}
