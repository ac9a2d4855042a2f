/** GET /health/live and /health/ready, outside /api/v1. */
import { Elysia, t } from 'elysia'
import { pendingMigrations } from '../db/migrate.ts'
import { errorText } from '../log.ts'
import { DATASETS } from '../storage/changes.ts'
import type { RouteContext } from './context.ts'

const READY_PROBE_MS = 2000

/**
 * Liveness and readiness, outside /api/v1: liveness needs nothing but the event loop (so
 * a database outage never causes restart loops); readiness needs the database reachable
 * and every migration applied.
 */
export const healthRoutes = (context: RouteContext) =>
  new Elysia({ name: 'routes/health', detail: { tags: ['health'] } })
    .use(context)
    .guard({}, (app) =>
      app
        .get('/health/live', () => ({ status: 'ok' as const }), {
          response: t.Object({ status: t.Literal('ok') }),
          detail: { summary: 'Liveness: the process answers' },
        })
        .get(
          '/health/ready',
          async ({ set, db, replicas, isShuttingDown, collectors, keeper, storage }) => {
            const checks = { shuttingDown: isShuttingDown(), database: 'ok', pendingMigrations: 0 }
            const gate = db.gate.state()
            if (!gate.available) checks.database = `unavailable since ${gate.unavailableSince}`
            else {
              try {
                checks.pendingMigrations = await Promise.race([
                  db.gate.read(() => pendingMigrations(db.sql, db.info.edition)),
                  Bun.sleep(READY_PROBE_MS).then(() => Promise.reject(new Error(`no answer within ${READY_PROBE_MS} ms`))),
                ])
              } catch (err) {
                checks.database = errorText(err).slice(0, 200)
              }
            }
            const ready = !checks.shuttingDown && checks.database === 'ok' && checks.pendingMigrations === 0
            // How much history there is: kept per version of the data, so probes cost nothing between writes.
            const history = checks.database === 'ok' ? await Promise.resolve(keeper.value('dataset-spans', DATASETS, () => storage.coverage.spans())).catch(() => null) : null
            set.status = ready ? 200 : 503
            const body = {
              status: ready ? ('ready' as const) : ('unavailable' as const),
              edition: db.info.edition,
              embedded: db.info.embedded,
              checks,
              ...(history ? { history } : {}),
              // Out of rotation or not, reads are answered (by the primary): reported, not a readiness condition.
              ...(replicas ? { readReplicas: replicas.status() } : {}),
              ...(collectors ? { collectors: collectors() } : {}),
            }
            return ready ? body : { error: 'not ready', ...body }
          },
          { detail: { summary: 'Readiness: database reachable and migrations applied; the oldest and newest capture of each dataset; read replicas (lag, rotation); collector tick counts' } },
        ),
    )
