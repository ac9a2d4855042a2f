/**
 * `npm run bench:stream`: the event stream at crowd scale. Its own
 * TimescaleDB instance (scripts/testdb.sh) with a scratch database, migrated; the feed
 * simulator; one service process (`bun src/main.ts`, SCHEDULE_ENABLED=false,
 * STREAM_MAX_CLIENTS = the clients, STREAM_MAX_PER_ADDRESS above it); and a load generator
 * in a process of its own (bench/stream-clients.ts) that holds N raw HTTP/1.1 connections
 * on GET /api/v1/events/stream and times, per connection, the arrival of every event id.
 * The report:
 * - the connect time of all N, and the service's RSS idle and with the N streams open
 *   (/proc/<pid>/status VmRSS): memory per idle client;
 * - K events committed "by another process" (the bench: one transaction inserts a
 *   `dispatch` row into event_log and sends pg_notify('gws_data_changed', 'dispatches')),
 *   each: how many streams got it, and the latency from the commit's return to the arrival
 *   at each connection, p50 / p99 / max; plus one collector-written `player-count` event
 *   (POST /api/v1/collect/player-count on the service);
 * - the caps: one more stream on the full process (503), and on a second process with
 *   STREAM_MAX_PER_ADDRESS=2 a third stream from one address (429), another address (200).
 *
 *   npm run bench:stream [-- options]
 *     --clients N      concurrent streams (default 10000)
 *     --events K       events fired (default 10)
 *     --interval S     seconds between events (default 2)
 *     --addresses A    spread the generator over 127.0.0.1 .. 127.0.0.A (default 1)
 *     --no-write       print only (default: write the section `stream` into BENCHMARKS.md)
 */
import { loadavg } from 'node:os'
import { readFileSync } from 'node:fs'
import { connect as tcpConnect } from 'node:net'
import { parseArgs } from 'node:util'
import type { Subprocess } from 'bun'
import { DEFAULT_STREAM_LIMITS } from '../src/push/stream.ts'
import type { Simulator } from '../src/sim/server.ts'
import { storageFigures } from '../src/storage/policies.ts'
import { linesOf, startService, type ServiceProcess } from '../test/support/process.ts'
import { cleanUpOnSignals, printUsageAndExit, progressSince, scriptArgs } from './cli.ts'
import { cpuSeconds } from './load.ts'
import { commitMeasured, sectionTitle, writeSection } from './report.ts'
import { commitOf, machine, sameCheckout } from './checkout.ts'
import { ROOT, serviceBench, WAR_ID, type BenchDatabase } from './setup.ts'
import { ms, percentile } from './stats.ts'

const { values: argv } = parseArgs({
  args: scriptArgs(),
  options: {
    clients: { type: 'string', default: '10000' },
    events: { type: 'string', default: '10' },
    interval: { type: 'string', default: '2' },
    addresses: { type: 'string', default: '1' },
    'no-write': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
  strict: true,
})
if (argv.help) printUsageAndExit(import.meta.path)
const N = Number(argv.clients)
const K = Number(argv.events)
const intervalMs = Number(argv.interval) * 1000
const addresses = Number(argv.addresses)
if (!(N >= 1 && K >= 1 && intervalMs >= 0 && addresses >= 1 && addresses <= 254)) throw new Error('--clients, --events ≥ 1; --interval ≥ 0; --addresses 1..254')
const TARGET_P99_MS = 1000
const STREAM_PATH = '/api/v1/events/stream'
const SECRET = 'stream-bench-secret'

const started = performance.now()
const progress = progressSince(started)
/** Wall clock in ms with sub-ms digits: the generator uses the same (one machine, one clock). */
const now = () => performance.timeOrigin + performance.now()

// ------------------------------------------------------------------ probes

/** VmRSS of a process, in KiB. */
const rssKiB = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN)
/** The median of a few RSS samples `everyMs` apart. */
async function rssSettled(pid: number, samples = 5, everyMs = 300): Promise<number> {
  const xs: number[] = []
  for (let i = 0; i < samples; i++) {
    if (i) await Bun.sleep(everyMs)
    xs.push(rssKiB(pid))
  }
  return xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
}

async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text()
  const esc = name.replace(/[{}"=]/g, (c) => `\\${c}`)
  return Number(new RegExp(`^${esc} ([0-9.e+]+)$`, 'm').exec(text)?.[1] ?? NaN)
}

interface RawAnswer {
  statusLine: string
  status: number
  body: string
}

/**
 * One raw GET from a chosen local address: the status line and the body (up to 1 s of it,
 * a 200 stream is closed after its headers).
 */
function rawGet(base: string, path: string, localAddress = '127.0.0.1'): Promise<RawAnswer> {
  const u = new URL(base)
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0)
    let answered = false
    const s = tcpConnect({ host: u.hostname, port: Number(u.port), localAddress }, () =>
      s.write(`GET ${path} HTTP/1.1\r\nHost: ${u.host}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n`))
    const finish = () => {
      if (answered) return
      const text = buf.toString('utf8')
      const end = text.indexOf('\r\n\r\n')
      if (end < 0) return reject(new Error(`no answer from ${base}${path}: ${JSON.stringify(text.slice(0, 200))}`))
      answered = true
      clearTimeout(timer)
      s.destroy()
      const statusLine = text.slice(0, text.indexOf('\r\n'))
      const head = text.slice(0, end).toLowerCase()
      let body = text.slice(end + 4)
      if (head.includes('transfer-encoding: chunked')) body = body.replace(/(^|\r\n)[0-9a-f]+\r\n/g, '$1').replace(/\r\n$/, '')
      resolve({ statusLine, status: Number(statusLine.split(' ')[1]), body: body.trim() })
    }
    const timer = setTimeout(finish, 1000)
    s.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk])
      const text = buf.toString('latin1')
      const end = text.indexOf('\r\n\r\n')
      if (end < 0) return
      const status = Number(text.slice(0, text.indexOf('\r\n')).split(' ')[1])
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1]
      // A stream (200): the headers and its first message are enough.
      if (status === 200 && text.length > end + 4) finish()
      else if (length !== undefined && buf.length >= end + 4 + Number(length)) finish()
    })
    s.on('close', finish)
    s.on('error', (err) => {
      if (!answered) {
        answered = true
        clearTimeout(timer)
        reject(err)
      }
    })
  })
}

/** Open streams from one address, kept open until `close()` (for the per-address cap). */
async function holdStreams(base: string, count: number): Promise<{ statuses: number[]; close(): void }> {
  const aborts: AbortController[] = []
  const statuses: number[] = []
  for (let i = 0; i < count; i++) {
    const abort = new AbortController()
    aborts.push(abort)
    const res = await fetch(`${base}${STREAM_PATH}`, { signal: abort.signal, headers: { accept: 'text/event-stream' } })
    statuses.push(res.status)
  }
  return { statuses, close: () => aborts.forEach((a) => a.abort()) }
}

// ------------------------------------------------------------------ the load generator process

interface GeneratorCounts {
  clients: number
  opened: number
  connected: number
  refused: number
  closed: number
  failed: number
  statuses: Record<string, number>
  errors: Record<string, number>
  firstRefusal: { status: string; body: string } | null
}
type Connected = GeneratorCounts & { connectMs: number }
type Report = GeneratorCounts & { open: number; events: Record<string, (number | null)[]> }

class Generator {
  readonly proc: Subprocess<'pipe', 'pipe', 'pipe'>
  private readonly waiting = new Map<string, (msg: any) => void>()
  private readonly got = new Map<string, any>()
  private exited = false

  constructor(base: string) {
    const proc = Bun.spawn(
      [process.execPath, `${ROOT}/bench/stream-clients.ts`, '--url', base, '--clients', String(N), '--addresses', String(addresses)],
      { cwd: ROOT, stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' },
    )
    this.proc = proc
    void proc.exited.then(() => (this.exited = true))
    void (async () => {
      for await (const line of linesOf(proc.stdout)) {
        let msg: any
        try {
          msg = JSON.parse(line)
        } catch {
          progress(`generator: ${line}`)
          continue
        }
        const w = this.waiting.get(msg.msg)
        if (w) {
          this.waiting.delete(msg.msg)
          w(msg)
        } else this.got.set(msg.msg, msg)
      }
    })()
    void (async () => {
      for await (const line of linesOf(proc.stderr)) progress(line)
    })()
  }

  /** The next message named `name` (or one already received and not taken). */
  wait<T>(name: string, timeoutMs: number): Promise<T> {
    const had = this.got.get(name)
    if (had) {
      this.got.delete(name)
      return Promise.resolve(had)
    }
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(name)
        reject(new Error(`load generator: no "${name}" in ${timeoutMs} ms${this.exited ? ` (exited with ${this.proc.exitCode})` : ''}`))
      }, timeoutMs)
      this.waiting.set(name, (msg) => {
        clearTimeout(timer)
        resolve(msg)
      })
    })
  }

  async ask<T>(cmd: 'report' | 'close', answer: string, timeoutMs: number): Promise<T> {
    const reply = this.wait<T>(answer, timeoutMs)
    this.proc.stdin.write(`${cmd}\n`)
    await this.proc.stdin.flush()
    return reply
  }

  kill() {
    if (!this.exited) this.proc.kill('SIGKILL')
  }
}

// ------------------------------------------------------------------ the run

const services: ServiceProcess[] = []
let generator: Generator | undefined
let sim: Simulator | undefined
let bench: BenchDatabase | undefined
let serviceEnv: Record<string, string> = {}
let cleaning: Promise<void> | undefined
const cleanup = () =>
  (cleaning ??= (async () => {
    generator?.kill()
    await generator?.proc.exited
    for (const s of services) await s.stop('SIGKILL').catch(() => {})
    await sim?.stop().catch(() => {})
    await bench?.close().catch((e) => progress(`database close failed: ${e}`))
  })())
cleanUpOnSignals(cleanup, progress)

interface EventResult {
  label: string
  /** When it was committed (wall clock, ms). */
  at: number
  id: number
  delivered: number
  p50: number
  p99: number
  max: number
  first: number
  /** From the first connection that got it to the last. */
  spread: number
}

/** Delivery of one event: arrivals at the connections minus `from` (the commit's return). */
function delivery(label: string, id: number, from: number, report: Report): EventResult {
  const times = (report.events[String(id)] ?? []).filter((t): t is number => t !== null)
  const lat = times.map((t) => t - from).sort((a, b) => a - b)
  return {
    label, at: from, id, delivered: times.length,
    p50: percentile(lat, 50), p99: percentile(lat, 99), max: lat.at(-1) ?? NaN, first: lat[0] ?? NaN,
    spread: lat.length ? lat.at(-1)! - lat[0]! : NaN,
  }
}

try {
  const commitAtStart = commitOf(progress)
  const m = machine()
  const loadStart = loadavg()[0]!
  progress(`${N} clients, ${K} events ${intervalMs / 1000} s apart; ${m.cpu}, ${m.cores} cores, load average ${loadStart.toFixed(2)}`)
  ;({ bench, sim, env: serviceEnv } = await serviceBench(progress, SECRET))
  const { sql, info } = bench.db
  const perAddress = Math.ceil(N / addresses) + 10
  const svc = await startService({ ...serviceEnv, STREAM_MAX_CLIENTS: String(N), STREAM_MAX_PER_ADDRESS: String(perAddress) })
  services.push(svc)
  const base = svc.baseUrl
  const pid = svc.proc.pid
  progress(`service: ${base} (pid ${pid}), STREAM_MAX_CLIENTS=${N}, STREAM_MAX_PER_ADDRESS=${perAddress}`)
  const seeded = await fetch(`${base}/api/v1/collect/war-info`, { method: 'POST', headers: { 'x-collector-secret': SECRET } })
  if (seeded.status !== 200) throw new Error(`war-info seed: ${seeded.status} ${await seeded.text()}`)

  // Warm up: the route, the hub (it starts with its first client: its heartbeat timer with it) and /metrics, then idle.
  const hubStartedAt = now()
  const warm = await rawGet(base, STREAM_PATH)
  if (warm.status !== 200) throw new Error(`warm-up stream: ${warm.statusLine} ${warm.body}`)
  await metric(base, 'event_stream_clients')
  for (let i = 0; ; i++) {
    if ((await metric(base, 'event_stream_clients')) === 0) break
    if (i > 50) throw new Error('the warm-up stream was not released')
    await Bun.sleep(100)
  }
  await Bun.sleep(2000)
  const rssIdle = await rssSettled(pid)
  progress(`service RSS idle: ${(rssIdle / 1024).toFixed(1)} MiB`)

  // N streams from the load generator.
  const cpuBeforeConnect = cpuSeconds(pid)
  generator = new Generator(base)
  const connected = await generator.wait<Connected>('connected', 180_000)
  progress(`generator: ${connected.connected} connected, ${connected.refused} refused, ${connected.failed} failed in ${(connected.connectMs / 1000).toFixed(1)} s`)
  let held = NaN
  for (let i = 0; i < 300; i++) {
    held = await metric(base, 'event_stream_clients')
    if (held >= connected.connected) break
    await Bun.sleep(100)
  }
  const cpuConnect = cpuSeconds(pid) - cpuBeforeConnect
  const loadConnected = loadavg()[0]!
  if (held !== N) progress(`event_stream_clients = ${held}, not ${N}`)
  await Bun.sleep(2000)
  const rssWith = await rssSettled(pid)
  const perClientKiB = (rssWith - rssIdle) / N
  progress(`service RSS with ${held} streams: ${(rssWith / 1024).toFixed(1)} MiB, ${perClientKiB.toFixed(1)} KiB per client`)

  // The global cap: the process is full.
  const full = await rawGet(base, STREAM_PATH)
  progress(`one more stream on the full process: ${full.statusLine} ${full.body}`)

  // K events, each committed by the bench (another process than the service).
  const fired: { id: number; committedAt: number; commitMs: number }[] = []
  const cpuBeforeEvents = cpuSeconds(pid)
  const generatorCpuBeforeEvents = cpuSeconds(generator.proc.pid)
  for (let i = 0; i < K; i++) {
    if (i) await Bun.sleep(intervalMs)
    const key = `bench-stream-${process.pid}-${i}`
    const t0 = now()
    const id = await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(hashtext('gws:event_log'))`
      const [row] = await tx<{ id: number }[]>`
        INSERT INTO event_log (type, war_id, key, at, data)
        VALUES ('dispatch', ${WAR_ID}, ${key}, now(), jsonb_build_object('warID', ${WAR_ID}::int, 'message', 'bench'))
        RETURNING id`
      await tx`SELECT pg_notify('gws_data_changed', 'dispatches')`
      return Number(row!.id)
    })
    const committedAt = now()
    fired.push({ id, committedAt, commitMs: committedAt - t0 })
    progress(`event ${i + 1}/${K}: id ${id} committed (${(committedAt - t0).toFixed(1)} ms)`)
  }
  await Bun.sleep(Math.max(intervalMs, 2000))
  const cpuEvents = cpuSeconds(pid) - cpuBeforeEvents
  const generatorCpuEvents = cpuSeconds(generator.proc.pid) - generatorCpuBeforeEvents
  const spanEventsS = (now() - fired[0]!.committedAt) / 1000

  // One event written by the service's own collector.
  await Bun.sleep(1000)
  const pcSent = now()
  const pc = await fetch(`${base}/api/v1/collect/player-count`, { method: 'POST', headers: { 'x-collector-secret': SECRET } })
  const pcAnswered = now()
  const pcBody = await pc.text()
  const [pcRow] = await sql<{ id: number | null }[]>`SELECT max(id) AS id FROM event_log WHERE type = 'player-count' AND id > ${fired.at(-1)!.id}`
  const pcId = pcRow?.id == null ? null : Number(pcRow.id)
  progress(`player-count collection: ${pc.status}${pcId === null ? ', no event appended' : `, event id ${pcId}`}`)
  await Bun.sleep(2000)

  let report = await generator.ask<Report>('report', 'report', 60_000)
  const lastIds = [...fired.map((f) => f.id), ...(pcId === null ? [] : [pcId])]
  const short = () => lastIds.some((id) => (report.events[String(id)] ?? []).filter((t) => t !== null).length < report.connected)
  if (short()) {
    progress('not every stream has every event yet: asking again in 5 s')
    await Bun.sleep(5000)
    report = await generator.ask<Report>('report', 'report', 60_000)
  }
  const results = fired.map((f, i) => delivery(`${i + 1}: dispatch (bench transaction)`, f.id, f.committedAt, report))
  const pcResult = pcId === null ? null : delivery('player-count (POST /collect/player-count)', pcId, pcAnswered, report)
  const rssAfter = rssKiB(pid)
  const generatorRss = rssKiB(generator.proc.pid)
  const counters = {
    sent: await metric(base, 'event_stream_total{what="sent"}'),
    refused: await metric(base, 'event_stream_total{what="refused"}'),
    slowClosed: await metric(base, 'event_stream_total{what="slow_closed"}'),
  }
  for (const r of results) progress(`event ${r.id}: ${r.delivered}/${report.connected}, p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms, max ${ms(r.max)} ms`)

  // The generator closes its streams: the process lets them all go.
  await generator.ask('close', 'closed', 30_000)
  await generator.proc.exited
  const releaseT0 = now()
  let releasedMs = NaN
  for (let i = 0; i < 300; i++) {
    if ((await metric(base, 'event_stream_clients')) === 0) {
      releasedMs = now() - releaseT0
      break
    }
    await Bun.sleep(100)
  }
  progress(Number.isNaN(releasedMs) ? 'streams still counted 30 s after the generator closed them' : `all streams released ${ms(releasedMs)} ms after the generator closed them`)
  await svc.stop('SIGTERM')

  // The per-address cap, on a second process with a small one.
  const CAP = 2
  const svc2 = await startService({ ...serviceEnv, STREAM_MAX_PER_ADDRESS: String(CAP) })
  services.push(svc2)
  const heldStreams = await holdStreams(svc2.baseUrl, CAP)
  const overAddress = await rawGet(svc2.baseUrl, STREAM_PATH, '127.0.0.1')
  const otherAddress = await rawGet(svc2.baseUrl, STREAM_PATH, '127.0.0.2')
  heldStreams.close()
  progress(`per-address cap ${CAP}: ${heldStreams.statuses.join(', ')} then ${overAddress.statusLine} ${overAddress.body}; from 127.0.0.2: ${otherAddress.statusLine}`)
  await svc2.stop('SIGTERM')

  const sizes = [
    ...(await storageFigures(sql, info.edition)),
    ...(await sql<{ table: string; rows: number; bytes: number }[]>`
      SELECT 'event_log' AS table, (SELECT count(*) FROM event_log)::bigint AS rows, pg_total_relation_size('event_log')::bigint AS bytes`).map((r) => ({ ...r, rows: Number(r.rows), bytes: Number(r.bytes) })),
  ]
  const loadEnd = loadavg()[0]!
  const commit = sameCheckout(commitAtStart, commitOf(progress))

  // ------------------------------------------------------------------ the report
  const all = [...results, ...(pcResult ? [pcResult] : [])]
  const worst = results.reduce((a, r) => (r.p99 > a.p99 || Number.isNaN(r.p99) ? r : a))
  const everyoneGotAll = all.every((r) => r.delivered === N)
  const allConnected = connected.connected === N && held === N
  const met = allConnected && everyoneGotAll && results.every((r) => r.p99 <= TARGET_P99_MS)
  const beat = DEFAULT_STREAM_LIMITS.heartbeatMs
  /** Seconds since the hub's last heartbeat to all streams (its timer starts with the warm-up stream, within a few ms). */
  const sinceBeat = (at: number) => `${(((at - hubStartedAt) % beat) / 1000).toFixed(1)} s`
  const kib = (k: number) => `${(k / 1024).toFixed(1)} MiB`
  const status = (a: RawAnswer) => `\`${a.statusLine}\``
  const body = (a: RawAnswer) => (a.body ? `\`${a.body.replace(/\|/g, '\\|').slice(0, 200)}\`` : '(no body)')
  const command = `npm run bench:stream -- --clients ${N} --events ${K} --interval ${intervalMs / 1000}${addresses > 1 ? ` --addresses ${addresses}` : ''}`
  const L = [
    sectionTitle({
      label: 'Event stream at crowd scale, one process',
      commit, machine: m, sizes,
      database: { label: 'TimescaleDB (scripts/testdb.sh)', edition: info.edition, timescaledbVersion: info.timescaledbVersion, serverVersion: info.serverVersion, notes: '' },
    }),
    '',
    `${commitMeasured(commit)}.`,
    '',
    `**Target: ${N.toLocaleString('en')} streams on one process, every event reaches all of them with p99 ≤ ${TARGET_P99_MS / 1000} s: ${met ? 'met' : 'missed'}** ` +
      `(worst p99 ${ms(worst.p99)} ms, event ${worst.id}; ${everyoneGotAll ? `every event reached all ${N.toLocaleString('en')} streams` : 'some streams missed events'}${allConnected ? '' : `; only ${connected.connected} of ${N} connected`}). ` +
      `Memory per idle stream: **${perClientKiB.toFixed(1)} KiB**. Caps: one more stream on the full process **${full.status}**, beyond the per-address cap **${overAddress.status}**.`,
    '',
    `- **Date:** ${new Date().toISOString().slice(0, 16)} UTC (whole run ${((performance.now() - started) / 1000).toFixed(0)} s)`,
    `- **Command:** \`${command}\``,
    `- **Machine:** ${m.cpu}, ${m.cores} cores, ${m.memGiB.toFixed(1)} GiB RAM; ${m.os}, Linux ${m.kernel}, Bun ${m.bun}; load average (1 min) at the start ${loadStart.toFixed(2)}, with the streams connected ${loadConnected.toFixed(2)}, at the end ${loadEnd.toFixed(2)} (a shared machine: other work ran on it too)`,
    `- **Setup:** everything on these cores: TimescaleDB (edition \`${info.edition}\`, TimescaleDB ${info.timescaledbVersion ?? '–'}, PostgreSQL ${info.serverVersion}, a scratch database), ` +
      `one \`bun src/main.ts\` (SCHEDULE_ENABLED=false, DB_POOL_MAX=5, STREAM_MAX_CLIENTS=${N}, STREAM_MAX_PER_ADDRESS=${perAddress}, RATE_LIMIT=off), the feed simulator, ` +
      `and the load generator (bench/stream-clients.ts, a Bun process of its own: ${N.toLocaleString('en')} raw HTTP/1.1 connections from ${addresses > 1 ? `127.0.0.1–127.0.0.${addresses}` : '127.0.0.1'}, ` +
      'each stream read in its raw bytes for its `id:` lines).',
    '- **An event:** one transaction by the bench process, not the service: `INSERT INTO event_log` (a `dispatch`) and `pg_notify(\'gws_data_changed\', \'dispatches\')`; ' +
      'the service hears the commit by LISTEN, reads the row and fans it out. Latency = the arrival at each connection (the generator\'s clock when the bytes were read) − the bench\'s clock right after COMMIT returned; one machine, one clock. ' +
      `The generator reads its ${N.toLocaleString('en')} sockets on one thread: its own queueing is inside the figures.`,
    '',
    '| Streams asked | Connected (200) | Refused | Failed | Closed by the server | Connect time, all | event_stream_clients | RSS idle | RSS with the streams | Per idle stream | Service CPU to connect |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| ${N.toLocaleString('en')} | ${connected.connected.toLocaleString('en')} | ${connected.refused} | ${connected.failed} | ${report.closed} | ${(connected.connectMs / 1000).toFixed(2)} s | ${held.toLocaleString('en')} | ${kib(rssIdle)} | ${kib(rssWith)} | ${perClientKiB.toFixed(1)} KiB | ${cpuConnect.toFixed(2)} s |`,
    '',
    `| Event | id | Delivered | p50 | p99 | max | first | first → last | after the last heartbeat (every ${beat / 1000} s) |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...all.map((r) => `| ${r.label} | ${r.id} | ${r.delivered.toLocaleString('en')} / ${N.toLocaleString('en')} | ${ms(r.p50)} ms | ${ms(r.p99)} ms | ${ms(r.max)} ms | ${ms(r.first)} ms | ${ms(r.spread)} ms | ${sinceBeat(r.at)} |`),
    '',
    (pcResult
      ? `The player-count event's latency is measured from the collector route's answer (${ms(pcAnswered - pcSent)} ms after the request; the commit is before it, so its figures are low by up to that): the stream can be faster than the HTTP answer. `
      : `The player-count collection (${pc.status}) appended no event: ${pcBody.slice(0, 120)}. `) +
      `Commit of the bench's transactions: ${fired.map((f) => ms(f.commitMs)).join(', ')} ms. ` +
      `CPU over the ${K} events (${spanEventsS.toFixed(0)} s, heartbeats included): the service ${cpuEvents.toFixed(2)} s, the load generator ${generatorCpuEvents.toFixed(2)} s. RSS after the events ${kib(rssAfter)}; the generator's RSS ${kib(generatorRss)}.`,
    '',
    '| Cap | Probe | Answer | Body |',
    '|---|---|---|---|',
    `| global: STREAM_MAX_CLIENTS=${N}, ${held.toLocaleString('en')} streams open | one more stream | ${status(full)} | ${body(full)} |`,
    `| per address: a second process with STREAM_MAX_PER_ADDRESS=${CAP}, ${heldStreams.statuses.length} streams open from 127.0.0.1 (${heldStreams.statuses.join(', ')}) | a third from 127.0.0.1 | ${status(overAddress)} | ${body(overAddress)} |`,
    `| per address, same process | one from 127.0.0.2 | ${status(otherAddress)} | ${otherAddress.status === 200 ? '(a stream)' : body(otherAddress)} |`,
    '',
    `/metrics of the first process at the end: \`event_stream_total\` sent ${counters.sent}, refused ${counters.refused}, slow_closed ${counters.slowClosed}; ` +
      (Number.isNaN(releasedMs) ? '`event_stream_clients` not back to 0 30 s after the generator closed its streams.' : `\`event_stream_clients\` back to 0 ${ms(releasedMs)} ms after the generator closed its streams.`),
  ]
  const md = L.join('\n')
  process.stdout.write(`${md}\n`)
  if (!argv['no-write']) writeSection(`${ROOT}/BENCHMARKS.md`, 'stream', md)
  await cleanup()
  process.exit(met && full.status === 503 && overAddress.status === 429 ? 0 : 3)
} catch (err) {
  progress(`failed: ${err instanceof Error ? err.stack : err}`)
  await cleanup()
  process.exit(1)
}
