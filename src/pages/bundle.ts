/**
 * The pages' browser code and styles, bundled once per process with Bun.build (plain
 * TypeScript in ./client, uPlot from node_modules: nothing is fetched from elsewhere).
 * Kept in memory with a gzipped copy; asset names carry a content hash so they can be
 * cached for good.
 */
import { gzipSync } from 'bun'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

export interface Asset {
  /** Served at /assets/<name>. */
  name: string
  type: string
  body: Uint8Array
  gzip: Uint8Array
}

export interface Bundle {
  js: Asset
  css: Asset
  buildMs: number
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url))

const asset = (base: string, ext: string, type: string, text: string): Asset => {
  const body = new TextEncoder().encode(text)
  const hash = Bun.hash(body).toString(16).padStart(16, '0').slice(0, 12)
  return { name: `${base}.${hash}.${ext}`, type, body, gzip: gzipSync(body, { level: 9 }) }
}

async function build(): Promise<Bundle> {
  const t0 = performance.now()
  const out = await Bun.build({ entrypoints: [here('./client/app.ts')], target: 'browser', format: 'esm', minify: true })
  if (!out.success || out.outputs.length !== 1) {
    throw new Error(`page bundle failed: ${out.logs.map((l) => String(l)).join('; ')}`)
  }
  const js = await out.outputs[0]!.text()
  // uPlot's own stylesheet first, ours after it (ours overrides a few of its rules).
  const css = [await readFile(fileURLToPath(import.meta.resolve('uplot/dist/uPlot.min.css')), 'utf8'), await readFile(here('./client/style.css'), 'utf8')].join('\n')
  return {
    js: asset('app', 'js', 'text/javascript; charset=utf-8', js),
    css: asset('app', 'css', 'text/css; charset=utf-8', css),
    buildMs: Math.round(performance.now() - t0),
  }
}

let building: Promise<Bundle> | undefined

/** The bundle of this process, built on the first call (the pages plugin calls it when mounted). */
export function pageBundle(): Promise<Bundle> {
  building ??= build()
  return building
}
