import { closeSync, createReadStream, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, brotliDecompressSync, constants, createBrotliDecompress } from 'node:zlib'

/**
 * A new embedded database starts from a template: the data folder PGlite's own initdb makes,
 * made once (scripts/embedded-template.ts) and shipped in assets/embedded, one per PGlite
 * version. PGlite runs initdb in a second PostgreSQL instance beside the first, restoring a
 * copy of its whole memory before each step: seconds of CPU and the largest memory peak of
 * the service's life, on every first start. Without a template for the installed PGlite
 * (after an upgrade, before the template is made again) PGlite's initdb runs as before.
 *
 * The template is a tar (ustar) of the folder, compressed with brotli: its three databases
 * are copies of one another and its WAL segment is mostly zeros, which a window of 16 MB
 * finds.
 */
export const TEMPLATE_DIR = join(import.meta.dir, '..', '..', 'assets', 'embedded')

/** The version of the installed PGlite (its package.json). */
export function pgliteVersion(): string {
  const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'))
  return (JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version
}

export const templateFile = (version = pgliteVersion(), dir = TEMPLATE_DIR) => join(dir, `pglite-${version}.tar.br`)

/** The template's tar for the installed PGlite, or null when there is none. */
export function readTemplate(file = templateFile()): Uint8Array | null {
  if (!existsSync(file)) return null
  return brotliDecompressSync(readFileSync(file))
}

/**
 * Writes the template into `dataDir` (a new data folder: no PG_VERSION yet), decompressed
 * and written as it is read: the whole tar at once was a peak of about 100 MB, and garbage
 * the process kept until a collection. PG_VERSION, which tells PGlite a folder holds a
 * database, is written last: a folder left half written by a crash is written again at the
 * next start. Resolves false when there is no template.
 */
export async function unpackTemplate(dataDir: string, file = templateFile()): Promise<boolean> {
  if (!existsSync(file)) return false
  const out = new Unpacker(resolve(dataDir))
  try {
    for await (const chunk of createReadStream(file).pipe(createBrotliDecompress())) out.push(chunk as Uint8Array)
  } finally {
    out.closeFile()
  }
  out.finish(file)
  return true
}

/** A ustar stream into a folder, chunk by chunk. */
class Unpacker {
  private readonly header = new Uint8Array(BLOCK)
  private filled = 0
  private fd: number | null = null
  /** Bytes of the current entry's data still to come, then of its padding. */
  private left = 0
  private padding = 0
  private ended = false
  private version: { header: Header; parts: Uint8Array[] } | null = null
  /** The current entry's data goes to `version` (PG_VERSION, written last). */
  private collecting = false

  constructor(private readonly root: string) {
    mkdirSync(root, { recursive: true })
  }

  push(chunk: Uint8Array): void {
    for (let at = 0; at < chunk.byteLength && !this.ended; ) {
      if (this.left > 0) {
        const part = chunk.subarray(at, at + Math.min(this.left, chunk.byteLength - at))
        if (this.fd !== null) writeSync(this.fd, part)
        else if (this.collecting) this.version!.parts.push(part.slice())
        at += part.byteLength
        this.left -= part.byteLength
        if (this.left === 0) this.closeFile()
      } else if (this.padding > 0) {
        const n = Math.min(this.padding, chunk.byteLength - at)
        at += n
        this.padding -= n
      } else {
        const n = Math.min(BLOCK - this.filled, chunk.byteLength - at)
        this.header.set(chunk.subarray(at, at + n), this.filled)
        this.filled += n
        at += n
        if (this.filled === BLOCK) {
          this.filled = 0
          this.entry(parseHeader(this.header))
        }
      }
    }
  }

  private entry(h: Header | 'end'): void {
    if (h === 'end') {
      this.ended = true
      return
    }
    this.padding = Math.ceil(h.size / BLOCK) * BLOCK - h.size
    this.left = h.size
    if (h.type === 'other') return // its data is skipped (no file open)
    const path = resolve(this.root, h.name)
    if (path !== this.root && !path.startsWith(this.root + sep)) throw new Error(`template entry outside the data folder: ${h.name}`)
    this.collecting = false
    if (h.type === 'dir') mkdirSync(path, { recursive: true, mode: h.mode })
    else if (h.name === 'PG_VERSION') {
      this.version = { header: h, parts: [] }
      this.collecting = true
    } else {
      mkdirSync(dirname(path), { recursive: true })
      this.fd = openSync(path, 'w', h.mode)
      if (h.size === 0) this.closeFile()
    }
  }

  closeFile(): void {
    if (this.fd !== null) closeSync(this.fd)
    this.fd = null
  }

  finish(file: string): void {
    if (!this.version) throw new Error(`template ${file} holds no PG_VERSION`)
    writeFileSync(join(this.root, 'PG_VERSION'), Buffer.concat(this.version.parts), { mode: this.version.header.mode })
  }
}

/** A closed data folder as a template (scripts/embedded-template.ts). */
export function makeTemplate(dataDir: string): Uint8Array {
  const tar = packTar(dataDir)
  return brotliCompressSync(tar, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24, [constants.BROTLI_PARAM_SIZE_HINT]: tar.byteLength },
  })
}

const BLOCK = 512
const decoder = new TextDecoder()
const encoder = new TextEncoder()

interface Header {
  name: string
  /** 'other': an entry of another kind (a link), whose data is skipped. */
  type: 'file' | 'dir' | 'other'
  mode: number
  size: number
}

/** A ustar header, or 'end' for the zero block that ends the archive. */
function parseHeader(header: Uint8Array): Header | 'end' {
  if (header.every((b) => b === 0)) return 'end'
  const field = (from: number, length: number) => {
    const text = decoder.decode(header.subarray(from, from + length))
    const end = text.indexOf('\0')
    return end === -1 ? text : text.slice(0, end)
  }
  const prefix = field(345, 155)
  const name = `${prefix ? `${prefix}/` : ''}${field(0, 100)}`.replace(/^\/+/, '').replace(/\/+$/, '')
  const flag = field(156, 1)
  const type = !name ? 'other' : flag === '5' ? 'dir' : flag === '0' || flag === '' ? 'file' : 'other'
  return { name, type, mode: parseInt(field(100, 8).trim() || '0', 8) & 0o777, size: parseInt(field(124, 12).trim() || '0', 8) }
}

/** The files and folders of a ustar archive (names relative, without a leading slash). */
export function* tarEntries(tar: Uint8Array): Generator<Header & { data: Uint8Array }> {
  for (let at = 0; at + BLOCK <= tar.byteLength; ) {
    const h = parseHeader(tar.subarray(at, at + BLOCK))
    if (h === 'end') return
    if (h.type !== 'other') yield { ...h, data: tar.subarray(at + BLOCK, at + BLOCK + h.size) }
    at += BLOCK + Math.ceil(h.size / BLOCK) * BLOCK
  }
}

/** A folder as a ustar archive: folders first, then files, sorted, so the same folder gives the same bytes. */
function packTar(dir: string): Uint8Array {
  const blocks: Uint8Array[] = []
  const add = (path: string, type: 'file' | 'dir') => {
    const st = statSync(path)
    const name = relative(dir, path).split(sep).join('/') + (type === 'dir' ? '/' : '')
    const data = type === 'file' ? readFileSync(path) : new Uint8Array(0)
    blocks.push(tarHeader(name, type, st.mode & 0o777, data.byteLength))
    if (data.byteLength) {
      const padded = new Uint8Array(Math.ceil(data.byteLength / BLOCK) * BLOCK)
      padded.set(data)
      blocks.push(padded)
    }
  }
  const walk = (path: string) => {
    const names = readdirSync(path).sort()
    for (const n of names) if (statSync(join(path, n)).isDirectory()) {
      add(join(path, n), 'dir')
      walk(join(path, n))
    }
    for (const n of names) if (!statSync(join(path, n)).isDirectory()) add(join(path, n), 'file')
  }
  walk(dir)
  blocks.push(new Uint8Array(BLOCK * 2))
  return Buffer.concat(blocks)
}

function tarHeader(name: string, type: 'file' | 'dir', mode: number, size: number): Uint8Array {
  if (encoder.encode(name).byteLength > 100) throw new Error(`path too long for the template: ${name}`)
  const h = new Uint8Array(BLOCK)
  const put = (from: number, text: string) => h.set(encoder.encode(text), from)
  const octal = (n: number, width: number) => `${n.toString(8).padStart(width - 1, '0')}\0`
  put(0, name)
  put(100, octal(mode, 8))
  put(108, octal(0, 8))
  put(116, octal(0, 8))
  put(124, octal(size, 12))
  put(136, octal(0, 12)) // mtime 0: the same folder packs to the same bytes
  put(148, '        ')
  put(156, type === 'dir' ? '5' : '0')
  put(257, 'ustar\0')
  put(263, '00')
  put(148, octal(h.reduce((a, b) => a + b, 0), 7) + ' ')
  return h
}
