/**
 * The throughput ceiling: a bare Bun.serve answering, for each path, the exact bytes and
 * headers the service answered once (bench/load.ts fetches them and writes BODIES_FILE).
 * Run as its own process, like the service: `bun bench/ceiling.ts BODIES_FILE`; prints one
 * JSON line {"msg":"listening","port":N} on stdout.
 */
import { readFileSync } from 'node:fs'

interface Stored {
  status: number
  headers: Record<string, string>
  body: string
}

const file = process.argv[2]
if (!file) {
  process.stderr.write('usage: bun bench/ceiling.ts BODIES_FILE\n')
  process.exit(2)
}
const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Stored>
// Bodies as bytes once; a Response per request, as any server must.
const routes = new Map(Object.entries(stored).map(([path, s]) => [path, { ...s, bytes: new TextEncoder().encode(s.body) }]))

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch(req) {
    const url = req.url
    const start = url.indexOf('/', url.indexOf('//') + 2)
    const r = routes.get(url.slice(start))
    if (!r) return new Response('not found', { status: 404 })
    return new Response(r.bytes, { status: r.status, headers: r.headers })
  },
})
process.stdout.write(JSON.stringify({ msg: 'listening', port: server.port }) + '\n')
const stop = () => {
  server.stop(true)
  process.exit(0)
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
