/**
 * Where an import's captures come from:
 * - a git archive (`gitSource`): every commit that changed the file(s), oldest first; the
 *   capture time is the committer date, each file is a raw upstream payload whose feed is
 *   told by its shape (`detectFeed`), or the community API's merged v1 JSON, rebuilt as
 *   the upstream payloads it was made from (community.ts);
 * - an NDJSON file, plain or gzip (`ndjsonSource`): one capture per line,
 *   `{"capturedAt": ISO, "warId": N, "status": {…}, "summary"?: {…}, "assignments"?: […],
 *   "newsfeed"?: […], "warInfo"?: {…}}`.
 * A source only reads and splits: a capture that cannot be read (malformed JSON, a file
 * deleted at a commit, no capture time) is an item with an `error`, named by commit or
 * line; the importer (importer.ts) checks the payloads against the feed schemas.
 */
import { createReadStream, openSync, readSync, closeSync, statSync } from 'node:fs'
import { isAbsolute, relative, resolve } from 'node:path'
import { createGunzip } from 'node:zlib'
import type { Readable } from 'node:stream'
import { communityReader, isCommunityFull, type Rebuilt } from './community.ts'
import { IncrementalParser } from './incremental.ts'

/** The upstream feeds a capture may hold, by the names of the NDJSON format. */
export const FEED_KINDS = ['status', 'warInfo', 'summary', 'assignments', 'newsfeed'] as const
export type FeedKind = (typeof FEED_KINDS)[number]

/** One capture as read: its payloads still unchecked. */
export interface Capture {
  /** Where it came from, as a person finds it again: `commit 1a2b3c4d5e6f`, `line 12`. */
  ref: string
  capturedAt: Date
  /** The war the capture names (NDJSON `warId`); the importer falls back to the payloads' and then to its default. */
  warId?: number
  parts: Partial<Record<FeedKind, unknown>>
  /** Rebuilt from the community's JSON: its texts in other languages, its gaps. */
  rebuilt?: Rebuilt
}

/** A capture, or why the source could not read one (the import reports it and goes on). */
export type SourceItem = { ref: string; capture: Capture; error?: undefined } | { ref: string; error: string; capture?: undefined }

export interface CaptureSource {
  /** What is imported, for the progress line and the summary. */
  label: string
  /** Captures in the source, when known before reading (git: its commits). */
  total: number | null
  /** How much of the source was read (0..1) when `total` is unknown (NDJSON: bytes of the file). */
  readFraction(): number | null
  items(): AsyncIterable<SourceItem>
  /** Ends what the source started (a git process); safe to call twice. */
  close(): Promise<void>
  /** What reading has cost so far (a source that does not measure it has none). */
  cost?(): SourceCost
}

/** A source's own cost, summed over the captures read (the import summary reports it per capture). */
export interface SourceCost {
  /** Bytes of the files or lines read. */
  bytes: number
  /** Waiting for input (git cat-file's answers, the file's chunks): input slower than the import. */
  waitMs: number
  /** JSON parsing. */
  parseMs: number
  /** Rebuilding upstream payloads from another shape (community.ts). */
  rebuildMs: number
  /** Collections the source asked for (collectWhenHeavy). */
  gcMs: number
}

const noCost = (): SourceCost => ({ bytes: 0, waitMs: 0, parseMs: 0, rebuildMs: 0, gcMs: 0 })

/** The source cannot be read at all (no such file, not a git repository): the import does not start. */
export class SourceError extends Error {
  override readonly name = 'SourceError'
}

/**
 * The upstream feed a payload is, by its shape: the status (`planetStatus`), the war info
 * (`planetInfos`), the summary (`galaxy_stats`), the assignments (items with `setting`)
 * or the newsfeed (items with `published`). Null when it is none of them, or an empty
 * array (assignments and newsfeed both are).
 */
export function detectFeed(value: unknown): FeedKind | null {
  if (Array.isArray(value)) {
    const first = value[0] as Record<string, unknown> | undefined
    if (first === null || typeof first !== 'object') return null
    if ('setting' in first && 'id32' in first) return 'assignments'
    if ('published' in first && 'id' in first) return 'newsfeed'
    return null
  }
  if (value === null || typeof value !== 'object') return null
  if ('planetStatus' in value) return 'status'
  if ('planetInfos' in value) return 'warInfo'
  if ('galaxy_stats' in value) return 'summary'
  return null
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err))

// ------------------------------------------------------------------ git archives

/**
 * A local clone whose commits each hold a capture of the files at `paths` (relative to
 * the repository's root, or absolute inside it): the commits that changed any of them,
 * oldest first. At each commit every file is read as it is then (a file the commit did
 * not change is the version before it), so a status archived with its summary, assignments
 * and newsfeed in one repository is imported as whole ticks. A file holding the community's
 * merged v1 JSON is one whole capture by itself; `language` is the one whose texts fill its
 * rebuilt parts (the import's primary), the others go with it.
 *
 * Streamed: the objects are read by one `git cat-file --batch` process, the requests sent
 * a few commits ahead of the answers (up to AHEAD_BYTES of files), each file parsed and
 * mapped as it arrives and let go once its capture is handed on.
 */
export async function gitSource(repo: string, paths: string[], opts: { language?: string } = {}): Promise<CaptureSource> {
  if (!paths.length) throw new SourceError('--git needs at least one --path')
  const top = (await git(repo, ['rev-parse', '--show-toplevel'])).trim()
  const files = paths.map((p) => {
    const rel = isAbsolute(p) ? relative(top, p) : p.replace(/^\.\//, '')
    if (rel.startsWith('..') || rel === '') throw new SourceError(`${p} is not a file inside the repository ${top}`)
    return rel
  })
  const log = await git(top, ['log', '--reverse', '--format=%H%x09%cI', '--', ...files])
  const commits = log
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [hash, date] = line.split('\t') as [string, string]
      return { hash, date }
    })
  if (!commits.length) throw new SourceError(`no commit of ${top} changed ${files.join(', ')}`)

  let proc: ReturnType<typeof Bun.spawn<'pipe', 'pipe', 'pipe'>> | null = null
  const close = async () => {
    if (!proc) return
    const p = proc
    proc = null
    try {
      p.stdin.end()
    } catch {
      // already closed
    }
    p.kill()
    await p.exited
  }
  const cost = noCost()
  return {
    label: `git ${top} (${files.join(', ')}): ${commits.length} commits`,
    total: commits.length,
    readFraction: () => null,
    close,
    cost: () => ({ ...cost }),
    async *items() {
      const p = Bun.spawn(['git', '-C', top, 'cat-file', '--batch'], { stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' })
      proc = p
      const out = new ByteReader(p.stdout)
      const reader: CommitReader = {
        kinds: new Map(),
        community: communityReader(opts.language ?? 'en-US'),
        // The community's dispatches are dated anew at each sync: compared without `published`.
        parsers: new Map(files.map((f) => [f, new IncrementalParser({ aside: { dispatches: 'published' }, whole: parseCapture })])),
        cost,
      }
      const buffers = new FileBuffers()
      // Requests go out ahead of the answers read: up to 32 commits, fewer of big files
      // (the community's are ~1.6 MB), so what git has answered and is not read yet stays small.
      let ahead = 2
      let sent = 0
      const sendUpTo = (n: number) => {
        let chunk = ''
        for (; sent < Math.min(n, commits.length); sent++) for (const f of files) chunk += `${commits[sent]!.hash}:${f}\n`
        if (chunk) {
          p.stdin.write(chunk)
          p.stdin.flush()
        }
      }
      try {
        for (let i = 0; i < commits.length; i++) {
          sendUpTo(i + ahead)
          const { hash, date } = commits[i]!
          const ref = `commit ${hash.slice(0, 12)}`
          const contents: { file: string; bytes: Uint8Array | null }[] = []
          let commitBytes = 0
          const t0 = performance.now()
          for (const file of files) {
            const header = await out.readLine()
            if (header === null) throw new SourceError(`git cat-file ended early: ${await new Response(p.stderr).text()}`)
            if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
              contents.push({ file, bytes: null })
              continue
            }
            const size = Number(header.split(' ')[2])
            if (!Number.isInteger(size)) throw new SourceError(`git cat-file: unexpected answer ${JSON.stringify(header)}`)
            const body = await out.readBytes(size + 1, buffers.next(file, size + 1)) // the object and its newline
            contents.push({ file, bytes: body.subarray(0, size) })
            commitBytes += size
          }
          cost.waitMs += performance.now() - t0
          cost.bytes += commitBytes
          ahead = Math.max(2, Math.min(32, Math.floor(AHEAD_BYTES / Math.max(1, commitBytes))))
          collectWhenHeavy(cost)
          yield commitCapture(ref, date, contents, reader, i === commits.length - 1)
        }
      } finally {
        await close()
      }
    },
  }
}

/** Files of answers git has sent and the source has not read yet, at most (about). */
const AHEAD_BYTES = 8 << 20
/**
 * A full collection when the JavaScript heap and the memory outside it (buffers) pass this
 * much, checked every COLLECT_CHECK captures read. Reading leaves much garbage at once (a
 * capture's parsed payloads, the stream's chunks), which the collector otherwise lets pile
 * up: the process's peak grows with the import's rate, and the memory it took is not given
 * back. A few ms per collection (the summary's gcMs).
 */
const COLLECT_AT_BYTES = 96 << 20
const COLLECT_CHECK = 16
let sinceCheck = 0

function collectWhenHeavy(cost: SourceCost): void {
  if (++sinceCheck < COLLECT_CHECK) return
  sinceCheck = 0
  const { heapUsed, external } = process.memoryUsage()
  if (heapUsed + external < COLLECT_AT_BYTES) return
  const t = performance.now()
  Bun.gc(true)
  cost.gcMs += performance.now() - t
}

/** What reading a git archive keeps from commit to commit. */
interface CommitReader {
  /** The file kind seen last at each path: an empty array (no order, no news) keeps it. */
  kinds: Map<string, FeedKind>
  community: ReturnType<typeof communityReader>
  /** Per path: each version parsed from the one before where their bytes agree (incremental.ts). */
  parsers: Map<string, IncrementalParser>
  cost: SourceCost
}

function commitCapture(ref: string, date: string, contents: { file: string; bytes: Uint8Array | null }[], r: CommitReader, last: boolean): SourceItem {
  const capturedAt = new Date(date)
  if (Number.isNaN(capturedAt.getTime())) return { ref, error: `unreadable committer date ${JSON.stringify(date)}` }
  if (contents.every((c) => c.bytes === null)) return { ref, error: `${contents.map((c) => c.file).join(', ')} absent at this commit (deleted)` }
  const parts: Capture['parts'] = {}
  let rebuilt: Rebuilt | undefined
  const put = (file: string, kind: FeedKind, value: unknown): string | null => {
    if (parts[kind] !== undefined) return `${file}: a second ${kind} payload in one capture`
    parts[kind] = value
    return null
  }
  for (const { file, bytes } of contents) {
    if (bytes === null) continue
    let value: unknown
    const t0 = performance.now()
    try {
      value = r.parsers.get(file)!.parse(bytes)
    } catch (err) {
      return { ref, error: `${file}: malformed JSON (${errorText(err)})` }
    } finally {
      r.cost.parseMs += performance.now() - t0
    }
    const kind = detectFeed(value) ?? (Array.isArray(value) && value.length === 0 ? (r.kinds.get(file) ?? arrayKindByName(file)) : null)
    if (kind) {
      const clash = put(file, kind, value)
      if (clash) return { ref, error: clash }
      r.kinds.set(file, kind)
      continue
    }
    if (!isCommunityFull(value)) return { ref, error: `${file}: not an upstream feed payload (no status, war info, summary, assignments or newsfeed shape) nor the community's v1 JSON (war and planets)` }
    if (rebuilt) return { ref, error: `${file}: a second community JSON in one capture` }
    const t1 = performance.now()
    const community = r.community(value, capturedAt, last)
    r.cost.rebuildMs += performance.now() - t1
    if (community.error !== undefined) return { ref, error: `${file}: ${community.error}` }
    for (const [kind, part] of Object.entries(community.parts)) {
      const clash = put(file, kind as FeedKind, part)
      if (clash) return { ref, error: clash }
    }
    rebuilt = community.rebuilt
  }
  return { ref, capture: { ref, capturedAt, parts, ...(rebuilt ? { rebuilt } : {}) } }
}

/** An empty array at a path never seen with items: its name may still say which feed it is. */
function arrayKindByName(file: string): FeedKind | null {
  const name = file.toLowerCase()
  if (name.includes('assignment')) return 'assignments'
  if (name.includes('news')) return 'newsfeed'
  return null
}

async function git(cwd: string, args: string[]): Promise<string> {
  let p
  try {
    p = Bun.spawn(['git', '-C', cwd, ...args], { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' })
  } catch (err) {
    throw new SourceError(`cannot run git: ${errorText(err)}`)
  }
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  if (code !== 0) throw new SourceError(`git ${args[0]} in ${cwd} failed: ${err.trim() || `exit code ${code}`}`)
  return out
}

/**
 * Two buffers per path, used in turn: a file's version is read into the one its version
 * before last was in (the parser keeps views of the last one only, incremental.ts), so a
 * 1.6 MB file is not a new allocation at every commit, which the collector would catch up
 * with late (the import's peak memory).
 */
class FileBuffers {
  private readonly byPath = new Map<string, { turn: number; buffers: [Uint8Array, Uint8Array] }>()

  next(path: string, n: number): Uint8Array {
    const entry = this.byPath.get(path) ?? { turn: 0, buffers: [new Uint8Array(0), new Uint8Array(0)] }
    this.byPath.set(path, entry)
    entry.turn ^= 1
    // Some room to grow: the file grows by a few bytes at most commits.
    if (entry.buffers[entry.turn]!.length < n) entry.buffers[entry.turn] = new Uint8Array(Math.ceil(n * 1.1))
    return entry.buffers[entry.turn]!
  }
}

/** Lines and sized blocks off a byte stream (git cat-file's answers). */
class ByteReader {
  private readonly reader: { read(): Promise<{ value?: Uint8Array; done: boolean }> }
  private buf: Uint8Array = new Uint8Array(0)
  private pos = 0
  private ended = false

  constructor(stream: ReadableStream<Uint8Array>) {
    this.reader = stream.getReader()
  }

  private async more(): Promise<boolean> {
    if (this.ended) return false
    const { value, done } = await this.reader.read()
    if (done || !value) {
      this.ended = done
      return !done
    }
    const rest = this.buf.subarray(this.pos)
    const next = new Uint8Array(rest.length + value.length)
    next.set(rest)
    next.set(value, rest.length)
    this.buf = next
    this.pos = 0
    return true
  }

  async readLine(): Promise<string | null> {
    for (;;) {
      const nl = this.buf.indexOf(10, this.pos)
      if (nl >= 0) {
        const line = new TextDecoder().decode(this.buf.subarray(this.pos, nl))
        this.pos = nl + 1
        return line
      }
      if (!(await this.more())) return null
    }
  }

  /** The next `n` bytes; a block longer than what is buffered goes into `into` when it is big enough. */
  async readBytes(n: number, into?: Uint8Array): Promise<Uint8Array> {
    if (this.buf.length - this.pos < n) {
      // One buffer of the whole block, filled chunk by chunk (a status is tens of KB).
      const out = into && into.length >= n ? into.subarray(0, n) : new Uint8Array(n)
      let filled = this.buf.length - this.pos
      out.set(this.buf.subarray(this.pos))
      this.buf = new Uint8Array(0)
      this.pos = 0
      while (filled < n) {
        const { value, done } = await this.reader.read()
        if (done) throw new SourceError('git cat-file ended in the middle of an object')
        if (!value) continue
        const take = Math.min(value.length, n - filled)
        out.set(value.subarray(0, take), filled)
        filled += take
        if (take < value.length) this.buf = value.subarray(take)
      }
      return out
    }
    const out = this.buf.subarray(this.pos, this.pos + n)
    this.pos += n
    return out
  }
}

// ------------------------------------------------------------------ NDJSON

const GZIP_MAGIC = [0x1f, 0x8b]
const EMPTY = Buffer.alloc(0)

/** An NDJSON file of captures, plain or gzip (told by its first two bytes, whatever its name). */
export async function ndjsonSource(file: string): Promise<CaptureSource> {
  const path = resolve(file)
  let size: number
  let gzip: boolean
  let plainSize: number
  try {
    size = statSync(path).size
    const fd = openSync(path, 'r')
    try {
      const head = Buffer.alloc(2)
      const n = readSync(fd, head, 0, 2, 0)
      gzip = n === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1]
    } finally {
      closeSync(fd)
    }
    plainSize = gzip && size >= 18 ? gzipTrailerSize(path, size) : size
  } catch (err) {
    throw new SourceError(`cannot read ${file}: ${errorText(err)}`)
  }
  let raw: ReturnType<typeof createReadStream> | null = null
  let stream: Readable | null = null
  let produced = 0
  let consumed = 0
  const cost = noCost()
  return {
    label: `${file} (NDJSON${gzip ? ', gzip' : ''})`,
    total: null,
    cost: () => ({ ...cost, bytes: consumed }),
    // The bytes split into lines, of the file's plain size: a gzip file's is in its trailer,
    // modulo 2^32 (the smallest size that fits what was read so far is taken).
    readFraction: () => {
      if (plainSize === 0) return 1
      let total = plainSize
      while (total < produced) total += 2 ** 32
      return Math.min(1, consumed / total)
    },
    async close() {
      stream?.destroy()
      raw?.destroy()
    },
    async *items() {
      raw = createReadStream(path, { highWaterMark: 1 << 20 })
      stream = gzip ? raw.pipe(createGunzip()) : raw
      // A gzip error is raised on the gunzip stream; a read error on the file's, which pipe()
      // does not forward: passed on to the stream read here. (Not a race of each read against
      // a promise that never settles: every race would keep its chunk to the end.)
      if (gzip) raw.once('error', (err) => stream!.destroy(err))
      let lineNo = 0
      let rest: Buffer = EMPTY
      const it = stream[Symbol.asyncIterator]()
      try {
        for (;;) {
          let chunk: IteratorResult<Buffer>
          const t0 = performance.now()
          try {
            chunk = (await it.next()) as IteratorResult<Buffer>
          } catch (err) {
            yield { ref: `line ${lineNo + 1}`, error: `the file could not be read on from here: ${errorText(err)}` }
            return
          } finally {
            cost.waitMs += performance.now() - t0
          }
          if (chunk.done) break
          produced += chunk.value.length
          const buf = chunk.value
          let start = 0
          for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
            lineNo++
            // Only a line begun in the chunk before is copied together.
            const line = rest.length ? Buffer.concat([rest, buf.subarray(start, nl)]) : buf.subarray(start, nl)
            consumed += line.length + 1
            rest = EMPTY
            const t1 = performance.now()
            const item = ndjsonLine(lineNo, line)
            cost.parseMs += performance.now() - t1
            collectWhenHeavy(cost)
            if (item) yield item
            start = nl + 1
          }
          if (start < buf.length) rest = rest.length ? Buffer.concat([rest, buf.subarray(start)]) : buf.subarray(start)
        }
        consumed = produced
        if (rest.length) {
          lineNo++
          const item = ndjsonLine(lineNo, rest)
          if (item) yield item
        }
      } finally {
        stream.destroy()
        raw.destroy()
      }
    },
  }
}

/** ISIZE, the last 4 bytes of a gzip file: its uncompressed size modulo 2^32 (of the last member). */
function gzipTrailerSize(path: string, size: number): number {
  const fd = openSync(path, 'r')
  try {
    const tail = Buffer.alloc(4)
    readSync(fd, tail, 0, 4, size - 4)
    return tail.readUInt32LE(0)
  } finally {
    closeSync(fd)
  }
}

const decoder = new TextDecoder()

/** Only JSON whitespace (or nothing). */
function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return false
  return true
}

const UNREAD = new TextEncoder().encode('"planets_stats":[')
let joined = new Uint8Array(0)
const COMMA = 0x2c
const CLOSE = 0x5d

/**
 * JSON.parse of a capture's bytes (an NDJSON line, a file of the archive) without the
 * summary's per-planet statistics, `"planets_stats":[…]` as upstream writes it: no
 * collector an import runs reads them (the full-status tick keeps galaxy_stats), and they
 * are most of a whole capture's bytes, neither decoded nor parsed here. The array is cut
 * at its first `]`; when it holds brackets or strings, what is left is not JSON (a bracket
 * or a quote too many) and the whole is parsed. Their bytes are not checked: statistics
 * that are not JSON no longer make a capture unreadable. Bytes that are not UTF-8 decode
 * to U+FFFD.
 */
export function parseCapture(bytes: Uint8Array): unknown {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const at = buf.indexOf(UNREAD)
  if (at !== -1) {
    const end = buf.indexOf(CLOSE, at + UNREAD.length)
    // The member and the comma that joins it to the others.
    const cut = end === -1 ? null : buf[at - 1] === COMMA ? [at - 1, end + 1] : buf[end + 1] === COMMA ? [at, end + 2] : null
    if (cut) {
      // The two sides in a buffer kept from capture to capture (a new one each time was memory the collector caught up with late).
      const head = cut[0]!
      const tail = buf.length - cut[1]!
      if (joined.length < head + tail) joined = new Uint8Array(Math.ceil((head + tail) * 1.25))
      joined.set(buf.subarray(0, head), 0)
      joined.set(buf.subarray(cut[1]!), head)
      try {
        return JSON.parse(decoder.decode(joined.subarray(0, head + tail)))
      } catch {
        // parsed whole below
      }
    }
  }
  return JSON.parse(decoder.decode(buf))
}

/** One line of the file: a capture, an error, or nothing (a blank line). */
export function ndjsonLine(lineNo: number, bytes: Uint8Array): SourceItem | null {
  const ref = `line ${lineNo}`
  let value: unknown
  // Decoded, then parsed as text (parseCapture): JSON.parse of the string is several times
  // faster than Bun.JSONL.parseChunk of the bytes.
  if (isBlank(bytes)) return null
  try {
    value = parseCapture(bytes)
  } catch (err) {
    return { ref, error: `malformed JSON (${errorText(err)})` }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ref, error: 'not a JSON object' }
  const line = value as Record<string, unknown>
  const capturedAt = typeof line.capturedAt === 'string' ? new Date(line.capturedAt) : null
  if (!capturedAt || Number.isNaN(capturedAt.getTime())) return { ref, error: 'no capturedAt (an ISO-8601 time)' }
  if (line.warId !== undefined && !(Number.isInteger(line.warId) && (line.warId as number) >= 1 && (line.warId as number) <= 2_147_483_647)) {
    return { ref, error: 'warId is not a war id (a positive integer)' }
  }
  const parts: Capture['parts'] = {}
  for (const kind of FEED_KINDS) if (line[kind] !== undefined && line[kind] !== null) parts[kind] = line[kind]
  return { ref, capture: { ref, capturedAt, warId: line.warId as number | undefined, parts } }
}
