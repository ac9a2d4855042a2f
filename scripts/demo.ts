/**
 * `npm run demo`: the simulator and the service wired to it, on the embedded database,
 * so the pages show a war already under way, without internet.
 *
 * Before the service starts, DEMO_HISTORY_DAYS (default 30; 0: none) days of history are
 * written into its database: the simulated war fast-forwarded to now, written as a live
 * service would have written it (src/sim/history.ts: full-status captures through the
 * importer, player-count ticks through the collector); the same war then goes on live from
 * where the history ends. The demo's own folder (./data/demo) is recreated at each start;
 * a DATA_DIR or DATABASE_URL of your own must hold no history yet (else set
 * DEMO_HISTORY_DAYS=0).
 *
 * PORT picks the service's port (default 3000), SIM_PORT the simulator's (default 4010),
 * SIM_SPEED its time acceleration from now on (default 1; the history is at 1), SIM_SEED
 * its seed (default 1); FULL_STATUS_CRON, FEED_LANGUAGES and COLLECTOR_SECRET are honoured.
 * Ctrl-C stops both.
 */
import { rmSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { ConfigError, loadConfig } from '../src/config.ts'
import { embeddedDatabaseHolder, EmbeddedDatabaseInUseError } from '../src/db/embedded.ts'
import { openDatabase } from '../src/db/index.ts'
import { createLogger, errorText } from '../src/log.ts'
import { cadenceText, DEMO_CADENCE, seedDemoHistory, storedDatasets } from '../src/sim/history.ts'
import { startSimulator } from '../src/sim/server.ts'
import type { World } from '../src/sim/world.ts'

const t0 = performance.now()
const env = process.env
const ROOT = new URL('..', import.meta.url).pathname
const OWN_DATA_DIR = './data/demo'
/**
 * Captures per transaction of the history. The embedded database's memory never shrinks
 * and grows to hold its largest statement: a quarter of the importer's batch keeps the
 * demo's peak well under its bound and writes as fast (the next batch is simulated while
 * one is written either way).
 */
const HISTORY_BATCH = 25
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`
let saidAt = performance.now()
const say = (line: string) => {
  saidAt = performance.now()
  process.stderr.write(`demo: ${line}\n`)
}
/** What the demo is doing now, said again when it has been silent for SILENCE_MS, until ready. */
let doing: (() => string) | null = () => 'opening the database'
const SILENCE_MS = 2000
const ticker = setInterval(() => {
  if (doing && performance.now() - saidAt >= SILENCE_MS) say(`  ${doing()} (${seconds(performance.now() - t0)} since start)`)
}, 250)
ticker.unref()
const fail = (line: string, code = 2): never => {
  say(line)
  process.exit(code)
}

const numberOf = (name: string, fallback: number, max = Infinity) => {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isFinite(n) || n < 0 || n > max) fail(`${name} must be a number from 0 to ${max}, got ${JSON.stringify(raw)}`)
  return n
}
const days = numberOf('DEMO_HISTORY_DAYS', 30, 400)
const seed = numberOf('SIM_SEED', 1)
const speed = numberOf('SIM_SPEED', 1)
const port = env.PORT || '3000'
const dataDir = env.DATA_DIR || OWN_DATA_DIR
const ownDatabase = !env.DATA_DIR && !env.DATABASE_URL

// The first line at once: opening the database and writing the history take seconds.
say(days > 0 ? `starting: ${days} days of simulated history to write, then the simulator and the service` : 'starting the simulator and the service')
let stopping = false
// The service runs from the project's root: a relative DATA_DIR is the same folder for both.
const folder = isAbsolute(dataDir) ? dataDir : resolve(ROOT, dataDir)
if (ownDatabase) {
  const holder = embeddedDatabaseHolder(folder)
  if (holder !== null) fail(`${OWN_DATA_DIR} is in use by process ${holder} (another demo or service): stop it first`, 3)
  // The demo's own database starts anew each time: its war starts anew too.
  rmSync(folder, { recursive: true, force: true })
}
let world: World | undefined
if (days > 0) world = await writeHistory()

const sim = startSimulator({ port: numberOf('SIM_PORT', 4010, 65535), ...(world ? { world } : { seed, speed }) })
const service = Bun.spawn([process.execPath, 'src/main.ts'], {
  cwd: ROOT,
  env: {
    ...env,
    PORT: port,
    DATA_DIR: dataDir,
    UPSTREAM_URL: sim.upstreamUrl,
    COMMUNITY_API_URL: sim.communityUrl,
    PCSTORE_API_URL: sim.pcstoreUrl,
    SCHEDULE_ENABLED: 'true',
    // Every minute instead of every five, so live history shows up quickly.
    FULL_STATUS_CRON: env.FULL_STATUS_CRON ?? '* * * * *',
    // One person's browser on loopback: no budgets, unless asked for.
    RATE_LIMIT: env.RATE_LIMIT ?? 'off',
  },
  stdout: 'inherit',
  stderr: 'inherit',
})

process.stderr.write(
  [
    `demo: simulator on ${sim.url} (control API: ${sim.url}/control/state, POST ${sim.url}/control/faults)`,
    `demo: pages on http://127.0.0.1:${port}/ (open it in a browser: divers, war, planets, dispatches)`,
    `demo: service on http://127.0.0.1:${port}: try /api/v1/player-count, /api/v1/war, /api/v1/divers/history?range=30d,`,
    `      /api/v1/war/trends, /api/v1/health/throttle; collectors run on their schedule (player counts every 15 s)`,
    '',
  ].join('\n'),
)
if (port !== '0') {
  doing = () => 'waiting for the service to answer'
  void announceReady(`http://127.0.0.1:${port}/health/ready`)
} else doing = null

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

/**
 * The history, into the database the service is about to open (it must not be open yet:
 * the embedded database is one process's). Returns the world at its end.
 */
async function writeHistory(): Promise<World> {
  let config
  try {
    config = loadConfig({ ...env, DATA_DIR: dataDir })
  } catch (err) {
    return fail(err instanceof ConfigError ? err.message : errorText(err))
  }
  const end = new Date()
  const opening = performance.now()
  let db
  try {
    db = await openDatabase({ ...config, dataDir: folder, databaseReadUrl: undefined }, createLogger('warn', (line) => process.stderr.write(`${line}\n`)))
  } catch (err) {
    return fail(err instanceof EmbeddedDatabaseInUseError ? `${err.message}` : `cannot open the database: ${errorText(err)}`, err instanceof EmbeddedDatabaseInUseError ? 3 : 1)
  }
  say(`database ready in ${seconds(performance.now() - opening)} (${config.databaseUrl ? 'DATABASE_URL' : `embedded, ${dataDir}`})`)
  doing = null
  let problem: { line: string; code: number } | null = null
  let written: World | null = null
  try {
    const stored = await storedDatasets(db.sql)
    if (stored.length > 0) {
      problem = {
        code: 2,
        line:
          `${config.databaseUrl ? 'DATABASE_URL' : dataDir} already holds history (${stored.join(', ')}): the demo writes its ${days} days only into a new ` +
          `database. Unset DATA_DIR (the demo's own ${OWN_DATA_DIR} is recreated at each start), point it at a new folder, or set DEMO_HISTORY_DAYS=0.`,
      }
    } else {
      say(`writing ${days} days of simulated history into ${config.databaseUrl ? 'DATABASE_URL' : dataDir} (the war fast-forwarded to now)`)
      // The first batch written, then by the ticker.
      let now = { captures: 0, simulated: 0, total: 0, elapsedMs: 0 }
      const progress = () => `${now.captures}/${now.total} full-status captures written, ${now.simulated} simulated`
      doing = progress
      const { world: w, summary: s } = await seedDemoHistory({
        db, end, days, seed, speed, languages: config.feedLanguages, batchSize: HISTORY_BATCH,
        onProgress: (p) => {
          const first = now.captures === 0 && p.captures > 0
          now = p
          if (first) say(`  ${progress()} (${seconds(performance.now() - t0)} since start)`)
        },
      })
      doing = null
      say(
        `history written in ${seconds(s.durationMs)} (${seconds(performance.now() - t0)} since start): ${s.captures} full-status captures ` +
          `(${cadenceText(DEMO_CADENCE.fullStatus)}) and ${s.playerCountTicks} player-count ticks (${cadenceText(DEMO_CADENCE.playerCount)}) ` +
          `from ${s.from}; war time ${s.warTimes[0]} to ${s.warTimes[1]}, going on live from there`,
      )
      written = w
    }
  } catch (err) {
    problem = { code: 1, line: `writing the history failed: ${errorText(err)}` }
  } finally {
    await db.close()
  }
  return written ?? fail(problem?.line ?? 'no history written', problem?.code ?? 1)
}

/** One line when the service first answers ready, with the time since the demo started. */
async function announceReady(url: string): Promise<void> {
  const deadline = performance.now() + 120_000
  while (!stopping && performance.now() < deadline) {
    const ok = await fetch(url).then((r) => r.ok, () => false)
    if (ok) {
      doing = null
      say(`ready ${seconds(performance.now() - t0)} after start: open http://127.0.0.1:${port}/`)
      return
    }
    await Bun.sleep(200)
  }
}
