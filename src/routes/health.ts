import { Elysia, t } from 'elysia'
import type { Sql } from '../db/connect.ts'
import type { DatabaseInfo } from '../db/edition.ts'
import { pendingMigrations } from '../db/migrate.ts'
import { errorText } from '../log.ts'

export interface HealthDeps {
  sql: Sql
  db: DatabaseInfo & { embedded: boolean }
  /** Set when shutdown begins, so load balancers drain this instance first. */
  isShuttingDown: () => boolean
}

const READY_PROBE_MS = 2000

/**
 * Liveness and readiness, outside /api/v1: liveness needs nothing but the event loop (so
 * a database outage never causes restart loops); readiness needs the database reachable
 * and every migration applied.
 */
export const healthRoutes = ({ sql, db, isShuttingDown }: HealthDeps) =>
  new Elysia({ name: 'routes/health', detail: { tags: ['health'] } })
    .onAfterHandle(({ set }) => {
      set.headers['cache-control'] = 'no-store'
    })
    .get('/health/live', () => ({ status: 'ok' as const }), {
      response: t.Object({ status: t.Literal('ok') }),
      detail: { summary: 'Liveness: the process answers' },
    })
    .get(
      '/health/ready',
      async ({ set }) => {
        const checks = { shuttingDown: isShuttingDown(), database: 'ok', pendingMigrations: 0 }
        try {
          const probe = (async () => {
            await sql`SELECT 1`
            return pendingMigrations(sql, db.edition)
          })()
          checks.pendingMigrations = await Promise.race([
            probe,
            Bun.sleep(READY_PROBE_MS).then(() => Promise.reject(new Error(`no answer within ${READY_PROBE_MS} ms`))),
          ])
        } catch (err) {
          checks.database = errorText(err).slice(0, 200)
        }
        const ready = !checks.shuttingDown && checks.database === 'ok' && checks.pendingMigrations === 0
        set.status = ready ? 200 : 503
        const body = { status: ready ? ('ready' as const) : ('unavailable' as const), edition: db.edition, embedded: db.embedded, checks }
        return ready ? body : { error: 'not ready', ...body }
      },
      { detail: { summary: 'Readiness: database reachable and migrations applied' } },
    )
