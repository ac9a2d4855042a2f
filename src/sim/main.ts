/**
 * Command line: `bun src/sim/main.ts [--port 4010] [--host 127.0.0.1] [--seed 1] [--speed 1] [--fault spec]...`
 * Environment: SIM_PORT, SIM_HOST, SIM_SEED, SIM_SPEED, SIM_FAULTS (fault specs separated by ';').
 * Fault spec: `kind[:feed[:endpoint]][,key=value...]`, e.g. `rate_limit:upstream:status,count=3`, `server_error:upstream:newsfeed,language=de-DE` or `freeze`.
 */
import { parseArgs } from 'node:util'
import { parseFaultFlag } from './faults.ts'
import { startSimulator } from './server.ts'

function number(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback
  const n = Number(value)
  if (!Number.isFinite(n) || n < 0) {
    console.error(`sim: ${name} must be a number >= 0, got ${JSON.stringify(value)}`)
    process.exit(2)
  }
  return n
}

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    seed: { type: 'string' },
    speed: { type: 'string' },
    fault: { type: 'string', multiple: true },
  },
  strict: true,
})

const env = process.env
const faultFlags = [...(env.SIM_FAULTS ?? '').split(';'), ...(values.fault ?? [])].map((s) => s.trim()).filter(Boolean)
let faults
try {
  faults = faultFlags.map(parseFaultFlag)
} catch (e) {
  console.error(`sim: ${e instanceof Error ? e.message : String(e)}`)
  process.exit(2)
}

const sim = startSimulator({
  port: number('port', values.port ?? env.SIM_PORT, 4010),
  hostname: values.host ?? env.SIM_HOST ?? '127.0.0.1',
  seed: number('seed', values.seed ?? env.SIM_SEED, 1),
  speed: number('speed', values.speed ?? env.SIM_SPEED, 1),
  faults,
})

console.log(
  JSON.stringify({
    msg: 'simulator listening',
    url: sim.url,
    upstreamUrl: sim.upstreamUrl,
    communityUrl: sim.communityUrl,
    pcstoreUrl: sim.pcstoreUrl,
    faults: faults.length,
  }),
)

let stopping = false
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1)
    stopping = true
    void sim.stop().then(() => process.exit(0))
  })
}
