import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib'

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
 * Writes the template into `dataDir` (a new data folder: no PG_VERSION yet). PG_VERSION,
 * which tells PGlite a folder holds a database, is written last: a folder left half written
 * by a crash is written again at the next start. Returns false when there is no template.
 */
export function unpackTemplate(dataDir: string, file = templateFile()): boolean {
  const tar = readTemplate(file)
  if (!tar) return false
  const root = resolve(dataDir)
  let last: TarEntry | null = null
  for (const entry of tarEntries(tar)) {
    const path = resolve(root, entry.name)
    if (path !== root && !path.startsWith(root + sep)) throw new Error(`template entry outside the data folder: ${entry.name}`)
    if (entry.type === 'dir') mkdirSync(path, { recursive: true, mode: entry.mode })
    else if (entry.name === 'PG_VERSION') last = entry
    else {
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(path, entry.data, { mode: entry.mode })
    }
  }
  if (!last) throw new Error(`template ${file} holds no PG_VERSION`)
  writeFileSync(join(root, last.name), last.data, { mode: last.mode })
  return true
}

/** A closed data folder as a template (scripts/embedded-template.ts). */
export function makeTemplate(dataDir: string): Uint8Array {
  const tar = packTar(dataDir)
  return brotliCompressSync(tar, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24, [constants.BROTLI_PARAM_SIZE_HINT]: tar.byteLength },
  })
}

interface TarEntry {
  name: string
  type: 'file' | 'dir'
  mode: number
  data: Uint8Array
}

const BLOCK = 512
const decoder = new TextDecoder()
const encoder = new TextEncoder()

/** The entries of a ustar archive (files and folders; names relative, without a leading slash). */
export function* tarEntries(tar: Uint8Array): Generator<TarEntry> {
  for (let at = 0; at + BLOCK <= tar.byteLength; ) {
    const header = tar.subarray(at, at + BLOCK)
    if (header.every((b) => b === 0)) return
    const field = (from: number, length: number) => {
      const text = decoder.decode(header.subarray(from, from + length))
      const end = text.indexOf('\0')
      return end === -1 ? text : text.slice(0, end)
    }
    const size = parseInt(field(124, 12).trim() || '0', 8)
    const prefix = field(345, 155)
    const name = `${prefix ? `${prefix}/` : ''}${field(0, 100)}`.replace(/^\/+/, '').replace(/\/+$/, '')
    const flag = field(156, 1)
    const data = tar.subarray(at + BLOCK, at + BLOCK + size)
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK
    if (!name || (flag !== '5' && flag !== '0' && flag !== '')) continue
    yield { name, type: flag === '5' ? 'dir' : 'file', mode: parseInt(field(100, 8).trim() || '0', 8) & 0o777, data }
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
