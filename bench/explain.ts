/**
 * Which SQL does one request run, and what does each statement cost? A second app is
 * built over a tracing connection (postgres.js `debug` hook, same options as
 * src/db/connect.ts); each captured statement is then timed alone and the slowest one
 * is shown with EXPLAIN (ANALYZE, BUFFERS).
 */
import postgres from 'postgres'
import { buildApp, type AppDeps } from '../src/app.ts'
import type { Sql } from '../src/db/connect.ts'

export interface TracedStatement {
  query: string
  params: unknown[]
  ms: number
}

export interface Explained {
  /** Why this request is explained (set by the caller). */
  reason?: string
  path: string
  statements: TracedStatement[]
  slowest: TracedStatement | null
  plan: string
}

const normalize = (q: string) => q.replace(/\s+/g, ' ').trim()

export async function explainRequest(deps: AppDeps, url: string, path: string, poolMax: number): Promise<Explained> {
  const captured: { query: string; params: unknown[] }[] = []
  let capturing = true
  const traced = postgres(url, {
    max: poolMax,
    idle_timeout: 5,
    connect_timeout: 5,
    onnotice: () => {},
    connection: { application_name: 'gws-bench-trace', statement_timeout: 600_000, TimeZone: 'UTC' },
    types: { int8: { to: 20, from: [20], serialize: (v: number | bigint) => String(v), parse: (v: string) => Number(v) } },
    debug: (_conn, query, params) => {
      if (capturing) captured.push({ query, params: [...params] })
    },
  }) as unknown as Sql
  try {
    const app = buildApp({ ...deps, db: { ...deps.db, sql: traced } })
    const res = await app.handle(new Request(`http://localhost${path}`))
    await res.text()
    capturing = false // the replays below must not be captured
    const statements: TracedStatement[] = []
    for (const c of captured) {
      // Skip the connection's own set-up statements.
      if (/^\s*(SET|select\s+b\.oid)/i.test(c.query)) continue
      const t = performance.now()
      await traced.unsafe(c.query, c.params as postgres.ParameterOrJSON<never>[])
      statements.push({ query: normalize(c.query), params: c.params, ms: performance.now() - t })
    }
    const slowest = statements.reduce<TracedStatement | null>((a, s) => (!a || s.ms > a.ms ? s : a), null)
    let plan = ''
    if (slowest) {
      const raw = captured.find((c) => normalize(c.query) === slowest.query)!
      const rows = await traced.unsafe(`EXPLAIN (ANALYZE, BUFFERS) ${raw.query}`, raw.params as postgres.ParameterOrJSON<never>[])
      plan = rows.map((r) => String((r as Record<string, unknown>)['QUERY PLAN'])).join('\n')
    }
    return { path, statements, slowest, plan }
  } finally {
    await traced.end({ timeout: 2 })
  }
}

export const paramText = (p: unknown) => (p instanceof Date ? p.toISOString() : typeof p === 'string' ? `'${p}'` : JSON.stringify(p))
