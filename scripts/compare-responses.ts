/**
 * Every read route answered by two checkouts of the service on the same data, compared
 * byte for byte: proof that a restructuring changed no response.
 *
 *   git worktree add /tmp/before <commit>        # the checkout to compare with
 *   ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   npx bun scripts/compare-responses.ts /tmp/before
 *
 * Each side builds its own app through its own test harness (test/routes/helpers.ts), on
 * its own embedded database seeded by its own test/support/seed.ts with the same fixed
 * clock, with the feeds on a simulator of its own (speed 0, same seed). For each request
 * it compares the status, the Cache-Control, Content-Type and ETag headers and the body.
 * Exit code 1 when anything differs.
 */
import { join, resolve } from 'node:path'

const NOW = new Date('2026-11-20T12:00:00.000Z')
const day = (offset: number) => new Date(NOW.getTime() + offset * 86_400_000).toISOString().slice(0, 10)

/** Requests covering every route, their parameters, pages (first, middle, last) and errors. */
const PATHS = [
  '/health/live', '/health/ready',
  '/war', '/war/801', '/war/800', '/war/801?planetID=2', '/war/801?planetId=99', '/war/999', '/war/abc', '/war/801?planetId=1&planetID=2',
  '/planets', '/sectors', '/factions',
  ...['24h', '7d', '30d', '90d', 'all', 'bad'].map((r) => `/divers/history?range=${r}`), '/divers/history',
  `/historical-player-count?startDate=${day(-1)}&endDate=${day(0)}`,
  `/historical-player-count?startDate=${day(-200)}&endDate=${day(1)}&limit=500&page=40`,
  `/historical-player-count?startDate=${day(-3)}&endDate=${day(0)}&gameName=Game&page=2`,
  `/historical-player-count?startDate=${day(-1)}`, '/historical-player-count?startDate=2026-02-30&endDate=2026-03-01',
  '/historical-planet-status?planetId=1', '/historical-planet-status?planetID=0&limit=1000&page=3',
  `/historical-planet-status?planetId=2&startDate=${day(-40)}&endDate=${day(0)}&page=2`, '/historical-planet-status',
  '/historical-planet-status?planetId=0&warID=800',
  '/historical-war-summary', '/historical-war-summary?warId=800', `/historical-war-summary?startDate=${day(-12)}&limit=1000&page=3`,
  '/historical-war-summary?limit=0', '/historical-war-summary?page=1.5',
  '/historical-major-orders', '/historical-major-orders?warId=801&limit=2&page=2', '/historical-major-orders?warID=800',
  '/historical-major-orders/1001/progress', '/historical-major-orders/1001/progress?limit=2000&page=1',
  `/historical-major-orders/1001/progress?startDate=${day(-1)}&endDate=${day(0)}`, '/historical-major-orders/1002/progress',
  '/historical-major-orders/4294967296/progress', '/historical-major-orders/77/progress',
  '/historical-dispatches', '/historical-dispatches?q=100%25', '/historical-dispatches?q=snake_case', '/historical-dispatches?since=150000',
  '/historical-dispatches?warId=800', '/historical-dispatches?limit=7&page=3', `/historical-dispatches?q=${'x'.repeat(201)}`,
  '/planet/0/history', '/planet/1/history?hours=48', '/planet/2/history?hours=720', '/planet/2/history?hours=100000',
  '/planet/99/history', '/planet/0/history?hours=0', '/planet/0/history?warId=800',
  '/player-count', '/nope',
  '/campaigns', '/campaigns?window=24', '/campaigns/1/history', '/campaigns/99999/history',
  '/planets/liberation', '/planets/liberation?planetId=1&window=24', '/planets/liberation?planetId=99', '/planets/liberation?warId=800',
  '/major-orders', '/major-orders?lang=all&limit=2', '/war/trends', '/war/trends?warId=800', '/war/trends?warId=999',
  '/timeline', '/timeline?type=planet_lost,dispatch&limit=5&page=2', `/timeline?from=${day(-3)}&to=${day(0)}`, '/timeline?warId=999',
].map((p) => `/api/v1${p}`)

/** Routes that do not depend on the clock, through each checkout's whole app (src/app.ts buildApp). */
const APP_PATHS = ['/health/live', '/health/ready', '/api/v1/health/throttle', '/api/v1/war-stats', '/nope']
/** Wall-clock fields of the feed answers (when the simulator was asked, and the data age derived from it), not compared. */
const WALL_CLOCK = /"(lastSuccessAt|at|dataCapturedAt|dataAgeSeconds)":("[^"]*"|\d+)/g
/**
 * Fields added by a documented change (CHANGELOG), left out of both sides: the timeline's
 * `correction`, null on every event but `event_corrected`.
 */
const ADDED = /,"correction":null/g
const unclocked = (body: string) => body.replace(WALL_CLOCK, '"$1":"(wall clock)"').replace(ADDED, '')

interface Answer {
  status: number
  headers: Record<string, string | null>
  body: string
}

async function answersOf(root: string): Promise<Map<string, Answer>> {
  const { buildApp } = (await import(join(root, 'src/app.ts'))) as { buildApp(deps: unknown): { handle(r: Request): Promise<Response> } }
  const { openHarness } = (await import(join(root, 'test/routes/helpers.ts'))) as {
    openHarness(o: object): Promise<{ db: { sql: unknown; info: { edition: string } }; close(): Promise<void>; get(p: string): Promise<unknown> }>
  }
  const { seedAll } = (await import(join(root, 'test/support/seed.ts'))) as { seedAll(sql: unknown, edition: string, now: Date): Promise<unknown> }
  const { startSimulator } = (await import(join(root, 'src/sim/server.ts'))) as { startSimulator(o: object): { stop(): Promise<void> } }
  const sim = startSimulator({ port: 0, seed: 3, speed: 0 })
  // Both harness option shapes: older checkouts take the clock as readOptions.now.
  const now = () => new Date(NOW)
  const h = await openHarness({ simulator: sim, now, readOptions: { now } })
  await seedAll(h.db.sql, h.db.info.edition, NOW)
  const out = new Map<string, Answer>()
  // Each path twice: the second answer is the kept one where the route keeps answers.
  for (const [path, key] of PATHS.flatMap((p) => [[p, p], [p, `${p} (again)`]])) {
    // The harness parses JSON bodies; the service writes them with JSON.stringify, so
    // stringifying the parsed value gives back the same bytes (key order included).
    const res = (await h.get(path!)) as { status: number; headers: Headers; body: unknown }
    out.set(key!, { status: res.status, headers: pick(res.headers), body: unclocked(typeof res.body === 'string' ? res.body : JSON.stringify(res.body)) })
  }
  const app = buildApp((h as unknown as { deps: unknown }).deps)
  for (const path of APP_PATHS) {
    const res = await app.handle(new Request(`http://localhost${path}`))
    out.set(path, { status: res.status, headers: pick(res.headers), body: unclocked(await res.text()) })
  }
  await h.close()
  await sim.stop()
  return out
}

/**
 * Documented differences (CHANGELOG), not compared: the kept JSON answers' one Content-Type
 * value, `application/json; charset=utf-8`, was written without the space on some routes.
 */
const documented = (name: string, value: string | null) => (name === 'content-type' ? value?.replace('application/json;charset=utf-8', 'application/json; charset=utf-8') ?? null : value)
const pick = (h: Headers) => Object.fromEntries(['cache-control', 'content-type', 'etag'].map((k) => [k, documented(k, h.get(k))]))

const other = process.argv[2]
if (!other) {
  process.stderr.write('usage: bun scripts/compare-responses.ts <other checkout>\n')
  process.exit(2)
}
const here = resolve(import.meta.dir, '..')
const [before, after] = [await answersOf(resolve(other)), await answersOf(here)]
let differ = 0
const ALL = [...PATHS.flatMap((p) => [p, `${p} (again)`]), ...APP_PATHS]
for (const path of ALL) {
  const a = before.get(path)!
  const b = after.get(path)!
  const same = JSON.stringify(a) === JSON.stringify(b)
  if (!same) {
    differ++
    process.stdout.write(`DIFFERS ${path}\n  before: ${a.status} ${JSON.stringify(a.headers)} ${a.body.slice(0, 300)}\n  after:  ${b.status} ${JSON.stringify(b.headers)} ${b.body.slice(0, 300)}\n`)
  }
}
const total = ALL.length
process.stdout.write(`${total - differ} of ${total} requests answered identically (status, headers, body bytes)\n`)
process.exit(differ ? 1 : 0)
