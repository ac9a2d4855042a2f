/**
 * The event stream's load generator (bench/stream.ts spawns it as a process of its own):
 * opens N raw HTTP/1.1 connections to GET /api/v1/events/stream, reads each stream just
 * enough to find its `id: N` lines (in the raw bytes, chunked transfer encoding or not; a
 * line split across packets is joined), and records, per event id, the wall-clock time
 * (performance.timeOrigin + performance.now(), ms) each connection got it.
 *
 *   bun bench/stream-clients.ts --url http://127.0.0.1:PORT [options]
 *     --clients N       connections to open (default 10000)
 *     --path P          request path (default /api/v1/events/stream)
 *     --addresses K     spread the local addresses over 127.0.0.1 .. 127.0.0.K (default 1)
 *     --in-flight M     connections opening at once (default 256)
 *
 * Talks JSON lines on stdout: `{"msg":"connected",...}` once every connection has its status
 * line (or failed); on stdin, `report` answers `{"msg":"report",...}` (counts and, per event
 * id, each connection's arrival time or null), `close` closes every connection, answers
 * `{"msg":"closed"}` and exits. It exits too when stdin ends (the bench is gone).
 */
import { connect, type Socket, type TcpNetConnectOpts } from 'node:net'
import { parseArgs } from 'node:util'

const ID_MARK = Buffer.from('\nid: ')
/** Bytes kept between packets when no id line is open: enough for a split `\nid: ` mark. */
const KEEP = ID_MARK.length - 1
/** An open id line longer than this is not one of ours: dropped. */
const MAX_LINE = 64

export interface Scan {
  /** The ids of the complete `id:` lines found, in order. */
  ids: number[]
  /** What to put before the next packet (a split mark or id line), or null. */
  carry: Buffer | null
}

/**
 * The `id: N` lines in `chunk`, given the carry of the previous packet of the same stream.
 * A line is found once its newline has arrived; the carry holds the bytes a split mark or
 * line needs (at most MAX_LINE), never a line already found.
 */
export function scanIds(carry: Buffer | null, chunk: Buffer): Scan {
  const data = carry ? Buffer.concat([carry, chunk]) : chunk
  const ids: number[] = []
  let from = 0
  let consumed = 0
  for (;;) {
    const at = data.indexOf(ID_MARK, from)
    if (at < 0) break
    const start = at + ID_MARK.length
    const end = data.indexOf(10, start)
    if (end < 0) {
      // The line goes on in the next packet.
      return { ids, carry: data.length - at <= MAX_LINE ? Buffer.from(data.subarray(at)) : null }
    }
    let id = 0
    let digits = 0
    for (let i = start; i < end; i++) {
      const c = data[i]!
      if (c === 13) break // a CR before the LF
      if (c < 48 || c > 57) {
        digits = -1
        break
      }
      id = id * 10 + (c - 48)
      digits++
    }
    if (digits > 0) ids.push(id)
    from = end
    consumed = end + 1
  }
  const keepFrom = Math.max(consumed, data.length - KEEP)
  return { ids, carry: keepFrom < data.length ? Buffer.from(data.subarray(keepFrom)) : null }
}

const now = () => performance.timeOrigin + performance.now()

async function main() {
  const { values: argv } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      url: { type: 'string' },
      clients: { type: 'string', default: '10000' },
      path: { type: 'string', default: '/api/v1/events/stream' },
      addresses: { type: 'string', default: '1' },
      'in-flight': { type: 'string', default: '256' },
    },
    strict: true,
  })
  if (!argv.url) throw new Error('--url is required')
  const target = new URL(argv.url)
  const host = target.hostname
  const port = Number(target.port)
  const n = Number(argv.clients)
  const addresses = Number(argv.addresses)
  const inFlight = Number(argv['in-flight'])
  const request = Buffer.from(`GET ${argv.path} HTTP/1.1\r\nHost: ${target.host}\r\nAccept: text/event-stream\r\nUser-Agent: gws-bench-stream\r\n\r\n`)
  const emit = (obj: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(obj)}\n`)

  const counts = { opened: 0, connected: 0, refused: 0, closed: 0, failed: 0 }
  const statuses: Record<string, number> = {}
  const errors: Record<string, number> = {}
  let firstRefusal: { status: string; body: string } | null = null
  /** Per event id: each connection's arrival time (NaN: not arrived). */
  const arrivals = new Map<number, Float64Array>()
  const sockets: (Socket | null)[] = new Array(n).fill(null)
  let closing = false

  const arrived = (id: number, conn: number, at: number) => {
    let times = arrivals.get(id)
    if (!times) arrivals.set(id, (times = new Float64Array(n).fill(NaN)))
    if (Number.isNaN(times[conn]!)) times[conn] = at
  }

  const report = () => {
    const events: Record<string, (number | null)[]> = {}
    for (const [id, times] of arrivals) events[id] = Array.from(times, (t) => (Number.isNaN(t) ? null : Math.round(t * 100) / 100))
    emit({ msg: 'report', clients: n, ...counts, statuses, errors, firstRefusal, open: sockets.filter(Boolean).length, events })
  }
  const closeAll = () => {
    closing = true
    for (const s of sockets) s?.destroy()
    process.stdout.write(`${JSON.stringify({ msg: 'closed' })}\n`, () => process.exit(0))
  }
  let input = ''
  process.stdin.on('data', (chunk) => {
    input += chunk.toString()
    let nl: number
    while ((nl = input.indexOf('\n')) >= 0) {
      const cmd = input.slice(0, nl).trim()
      input = input.slice(nl + 1)
      if (cmd === 'report') report()
      else if (cmd === 'close') closeAll()
    }
  })
  process.stdin.on('end', () => process.exit(0))

  let settled = 0
  let opening = 0
  let next = 0
  const startedAt = now()
  let allSettled: () => void
  const done = new Promise<void>((resolve) => (allSettled = resolve))
  const settle = () => {
    opening--
    if (++settled === n) allSettled()
    else pump()
  }

  const open = (conn: number) => {
    opening++
    counts.opened++
    let head: Buffer | null = Buffer.alloc(0)
    let carry: Buffer | null = null
    let status = 0
    let isSettled = false
    const once = () => {
      if (!isSettled) {
        isSettled = true
        settle()
      }
    }
    const opts: TcpNetConnectOpts = { host, port, noDelay: true }
    if (addresses > 1) opts.localAddress = `127.0.0.${1 + (conn % addresses)}`
    const s = connect(opts, () => s.write(request))
    sockets[conn] = s
    s.on('data', (chunk: Buffer) => {
      const at = now()
      if (head) {
        head = Buffer.concat([head, chunk])
        const end = head.indexOf('\r\n\r\n')
        if (end < 0) return
        const statusLine = head.subarray(0, head.indexOf('\r\n')).toString('latin1')
        status = Number(statusLine.split(' ')[1])
        statuses[status] = (statuses[status] ?? 0) + 1
        const body = head.subarray(end + 4)
        head = null
        if (status !== 200) {
          counts.refused++
          firstRefusal ??= { status: statusLine, body: body.toString('utf8').slice(0, 500) }
          s.destroy()
          once()
          return
        }
        counts.connected++
        once()
        chunk = Buffer.concat([Buffer.from('\n'), body])
      }
      const scan = scanIds(carry, chunk)
      carry = scan.carry
      for (const id of scan.ids) arrived(id, conn, at)
    })
    s.on('error', (err: NodeJS.ErrnoException) => {
      const code = err.code ?? err.message
      errors[code] = (errors[code] ?? 0) + 1
    })
    s.on('close', () => {
      sockets[conn] = null
      if (status === 200) {
        if (!closing) counts.closed++
      } else if (status === 0) {
        counts.failed++
        once()
      }
    })
  }

  const pump = () => {
    while (opening < inFlight && next < n) open(next++)
  }
  const ticker = setInterval(() => process.stderr.write(`stream-clients: ${counts.connected} connected, ${counts.refused} refused, ${counts.failed} failed of ${n}\n`), 2000)
  pump()
  await done
  clearInterval(ticker)
  emit({ msg: 'connected', clients: n, connectMs: now() - startedAt, ...counts, statuses, errors, firstRefusal })

}

if (import.meta.main) {
  main().catch((err) => {
    process.stderr.write(`stream-clients: ${err instanceof Error ? err.stack : err}\n`)
    process.exit(1)
  })
}
