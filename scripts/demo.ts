/**
 * `npm run demo`: the simulator and the service wired to it, on the embedded database,
 * so data flows within a minute without internet. PORT picks the service's port (default
 * 3000), SIM_PORT the simulator's (default 4010), SIM_SPEED its time acceleration
 * (default 1); COLLECTOR_SECRET is honoured. Ctrl-C stops both.
 */
import { startSimulator } from '../src/sim/server.ts'

const env = process.env
const sim = startSimulator({ port: Number(env.SIM_PORT ?? 4010), seed: Number(env.SIM_SEED ?? 1), speed: Number(env.SIM_SPEED ?? 1) })
const port = env.PORT ?? '3000'

const service = Bun.spawn([process.execPath, 'src/main.ts'], {
  cwd: new URL('..', import.meta.url).pathname,
  env: {
    ...env,
    PORT: port,
    DATA_DIR: env.DATA_DIR ?? './data/demo',
    UPSTREAM_URL: sim.upstreamUrl,
    COMMUNITY_API_URL: sim.communityUrl,
    PCSTORE_API_URL: sim.pcstoreUrl,
    SCHEDULE_ENABLED: 'true',
    // Every minute instead of every five, so history shows up quickly.
    FULL_STATUS_CRON: env.FULL_STATUS_CRON ?? '* * * * *',
  },
  stdout: 'inherit',
  stderr: 'inherit',
})

process.stderr.write(
  [
    `demo: simulator on ${sim.url} (control API: ${sim.url}/control/state, POST ${sim.url}/control/faults)`,
    `demo: pages on http://127.0.0.1:${port}/ (open it in a browser: divers, war, planets, dispatches)`,
    `demo: service on http://127.0.0.1:${port}: try /api/v1/player-count, /api/v1/war, /api/v1/divers/history?range=24h,`,
    `      /api/v1/health/throttle; collectors run on their schedule (player counts every 15 s)`,
    '',
  ].join('\n'),
)

let stopping = false
const stop = async () => {
  if (stopping) return
  stopping = true
  service.kill('SIGTERM')
  await service.exited
  await sim.stop()
  process.exit(0)
}
process.on('SIGINT', () => void stop())
process.on('SIGTERM', () => void stop())
const code = await service.exited
if (!stopping) {
  await sim.stop()
  process.exit(code ?? 1)
}
