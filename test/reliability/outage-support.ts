/**
 * The database outage drills against the real service process (its schedule on, a
 * TimescaleDB of its own that the drill stops and freezes, the feed simulator): what
 * db-outage-service-under-load.test.ts and db-outage-service-restart.test.ts share. Each
 * file is a drill of its own, so they run at the same time.
 */
import { afterAll, beforeAll, expect } from 'bun:test'
import { connect, type Sql } from '../../src/db/connect.ts'
import { startSimulator, type Simulator } from '../../src/sim/server.ts'
import { startOwnTimescale } from '../support/outage.ts'
import { startService, type ServiceProcess } from '../support/process.ts'

/** Longer than the driver's old reconnect wait (up to ~40 s was measured). */
export const OUTAGE_MS = 45_000
export const FULL_STATUS_CRON = '*/15 * * * * *'
const READ_ROUTES = [
  '/api/v1/historical-war-summary',
  '/api/v1/divers/history?range=24h',
  '/api/v1/historical-planet-status?planetId=0',
  '/api/v1/planet/0/history?hours=24',
  '/api/v1/historical-dispatches',
  '/health/ready',
]

export interface Answer {
  route: string
  startMs: number
  ms: number
  status: number | 'no answer'
  body: unknown
}

/** `loops` concurrent readers cycling over the routes, each request with a 10 s client deadline. */
export function readLoad(baseUrl: string, loops: number, pauseMs: number) {
  const answers: Answer[] = []
  let running = true
  const loop = async (offset: number) => {
    for (let i = offset; running; i++) {
      const route = READ_ROUTES[i % READ_ROUTES.length]!
      const startMs = Date.now()
      const t0 = performance.now()
      try {
        const res = await fetch(baseUrl + route, { signal: AbortSignal.timeout(10_000) })
        const text = await res.text()
        answers.push({ route, startMs, ms: performance.now() - t0, status: res.status, body: text ? JSON.parse(text) : null })
      } catch {
        answers.push({ route, startMs, ms: performance.now() - t0, status: 'no answer', body: null })
      }
      await Bun.sleep(pauseMs)
    }
  }
  const done = Promise.all(Array.from({ length: loops }, (_, i) => loop(i)))
  return {
    answers,
    stop: async () => {
      running = false
      await done
    },
  }
}

export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0
}

/** Per collector, as /health/ready reports them. */
export interface TickCounts {
  fetched: number
  failed: number
  skipped: number
  pending: number
  dropped: number
  rejected: number
}

/** Ticks the service reported kept (debug log), by collector. */
export const kept = (svc: ServiceProcess, collector: string) =>
  svc.lines.filter((l) => l.msg === 'tick kept' && l.collector === collector).map((l) => String(l.capturedAt))

/** Wait until the service's spool is empty (every kept tick written). */
export async function drained(svc: ServiceProcess, timeoutMs = 60_000) {
  let last = 'no answer'
  for (const t0 = Date.now(); Date.now() - t0 < timeoutMs; await Bun.sleep(500)) {
    const res = await fetch(`${svc.baseUrl}/health/ready`).catch(() => null)
    const body = (await res?.json().catch(() => null)) as { checks?: unknown; collectors?: Record<string, TickCounts> } | null
    if (res?.status === 200 && body?.collectors && Object.values(body.collectors).every((c) => c.pending === 0)) return body.collectors
    last = `${res?.status ?? 'no answer'} ${JSON.stringify({ checks: body?.checks, collectors: body?.collectors })}`
  }
  // What the service said last, and its last log lines: why the spool did not drain.
  const log = svc.lines.slice(-15).map((l) => JSON.stringify(l)).join('\n')
  throw new Error(`the spool did not drain within ${timeoutMs} ms; last /health/ready: ${last}\nlast log lines:\n${log}`)
}

/**
 * Set up a drill in the current describe: a TimescaleDB of its own (named `name`), the
 * simulator, and service processes started on them (SIGKILLed after the file).
 */
export function outageDrill(name: string) {
  let pg: Awaited<ReturnType<typeof startOwnTimescale>>
  let sql: Sql
  let sim: Simulator
  const started: ServiceProcess[] = []
  const start = async (env: Record<string, string>) => {
    const svc = await startService({
      DATABASE_URL: pg.url,
      UPSTREAM_URL: sim.upstreamUrl,
      COMMUNITY_API_URL: sim.communityUrl,
      PCSTORE_API_URL: sim.pcstoreUrl,
      FEED_TIMEOUT_MS: '3000',
      FULL_STATUS_CRON,
      LOG_LEVEL: 'debug',
      ...env,
    })
    started.push(svc)
    return svc
  }
  /** Capture times stored once each, and how many of them. */
  const stored = async (collector: 'player-count' | 'full-status') => {
    const rows =
      collector === 'player-count'
        ? await sql<{ at: Date }[]>`SELECT captured_at AS at FROM player_count_snapshots WHERE source = 'upstream'`
        : await sql<{ at: Date }[]>`SELECT captured_at AS at FROM full_status_ticks`
    return rows.map((r) => r.at.toISOString())
  }
  /**
   * Every kept tick stored once under its capture time. A miss shows, for each tick, the
   * full-status ticks stored within 30 s of it (with their war times) and the service's
   * log lines about it: whether it was written, replayed, or met a war time stored already.
   */
  const expectStoredOnce = async (ticks: Record<'player-count' | 'full-status', string[]>, svc?: ServiceProcess) => {
    for (const collector of ['player-count', 'full-status'] as const) {
      const rows = await stored(collector)
      const missingOrDoubled = ticks[collector].filter((at) => rows.filter((r) => r === at).length !== 1)
      const why = await Promise.all(missingOrDoubled.map(async (at) => {
        const near = await sql<{ at: Date; warTime: number; lastSeenAt: Date | null }[]>`
          SELECT captured_at AS at, upstream_war_time AS "warTime", last_seen_at AS "lastSeenAt" FROM full_status_ticks
          WHERE captured_at BETWEEN ${at}::timestamptz - interval '30 s' AND ${at}::timestamptz + interval '30 s' ORDER BY captured_at`
        const ids = new Set(svc?.lines.filter((l) => l.capturedAt === at).map((l) => l.id) ?? [])
        return { at, fullStatusTicksNear: [...near], log: svc?.lines.filter((l) => l.capturedAt === at || ids.has(l.id)) ?? [] }
      }))
      expect({ collector, missingOrDoubled, why }).toEqual({ collector, missingOrDoubled: [], why: [] })
    }
  }

  beforeAll(async () => {
    pg = await startOwnTimescale(`${name}-${process.pid}`)
    sql = connect({ url: pg.url, max: 2 })
    // War time runs twice as fast: two fetches 15 s apart never see the same war time.
    sim = startSimulator({ port: 0, seed: 9, speed: 2 })
  }, 120_000)
  afterAll(async () => {
    for (const s of started) await s.stop('SIGKILL')
    await sim?.stop()
    await sql?.end({ timeout: 1 }).catch(() => {})
    await pg?.stop()
  })

  return { pg: () => pg, start, stored, expectStoredOnce }
}
