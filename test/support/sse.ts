/** A Server-Sent Events client for tests: parses the stream as it comes, keeps every message. */
import { connect as tcpConnect } from 'node:net'

export interface SseMessage {
  id?: string
  event: string
  data: string
}

export interface SseClient {
  status: number
  /** Messages in arrival order (comments left out). */
  events: SseMessage[]
  /** The last `retry:` field. */
  retry?: number
  comments: number
  /** Resolves when `done(events)` holds; fails after `timeoutMs`. */
  waitFor(done: (events: SseMessage[]) => boolean, timeoutMs?: number): Promise<void>
  close(): void
}

/** Parse SSE text into messages; returns the rest (an unfinished message). */
function parse(buffer: string, c: SseClient): string {
  let end: number
  while ((end = buffer.indexOf('\n\n')) >= 0) {
    const block = buffer.slice(0, end)
    buffer = buffer.slice(end + 2)
    const msg: SseMessage = { event: 'message', data: '' }
    const data: string[] = []
    let fields = 0
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        c.comments++
        continue
      }
      const i = line.indexOf(':')
      const name = i < 0 ? line : line.slice(0, i)
      const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '')
      if (name === 'retry') c.retry = Number(value)
      else if (name === 'id') (msg.id = value), fields++
      else if (name === 'event') (msg.event = value), fields++
      else if (name === 'data') data.push(value), fields++
    }
    if (fields > 0 && data.length > 0) c.events.push({ ...msg, data: data.join('\n') })
  }
  return buffer
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const abort = new AbortController()
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal })
  const c: SseClient = {
    status: res.status,
    events: [],
    comments: 0,
    async waitFor(done, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs
      while (!done(c.events)) {
        if (Date.now() > deadline) throw new Error(`SSE: condition not met in ${timeoutMs} ms; got ${c.events.length} events: ${c.events.map((e) => `${e.id}:${e.event}`).join(' ')}`)
        await Bun.sleep(20)
      }
    },
    close: () => abort.abort(),
  }
  if (res.ok && res.body) {
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
    void (async () => {
      let buffer = ''
      try {
        for (;;) {
          const { value, done } = await reader.read()
          if (done) break
          buffer = parse(buffer + value, c)
        }
      } catch {
        // Closed by the test.
      }
    })()
  } else await res.body?.cancel()
  return c
}

/** The status of a stream request made from `localAddress` (any 127/8 address: a client address of its own); the socket stays open until `close`. */
export async function rawStreamStatus(url: string, localAddress: string): Promise<{ status: number; close(): void }> {
  const u = new URL(url)
  const socket = tcpConnect({ host: u.hostname, port: Number(u.port), localAddress })
  await new Promise<void>((ok, fail) => socket.once('connect', () => ok()).once('error', fail))
  socket.write(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nAccept: text/event-stream\r\n\r\n`)
  const first = await new Promise<string>((ok) => {
    let got = ''
    const on = (chunk: Buffer) => {
      got += chunk.toString('latin1')
      if (got.includes('\r\n')) {
        socket.off('data', on)
        ok(got)
      }
    }
    socket.on('data', on)
  })
  return { status: Number(first.split(' ')[1]), close: () => socket.destroy() }
}
