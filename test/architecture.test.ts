/**
 * The shape of src/ (docs/architecture.md): no import cycle, and the layers import in one
 * direction. Read from the source text: every relative `import`/`export ... from`.
 */
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const SRC = resolve(import.meta.dir, '../src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return path.endsWith('.ts') ? [path] : []
  })
}

/** file (relative to src/) → the src files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8')
    const targets = [...text.matchAll(/^\s*(?:import|export)\s(?:[^'"]*?from\s+)?'(\.[^']+)'/gm)]
      .map((m) => relative(SRC, resolve(dirname(file), m[1]!)))
      .filter((t) => t.endsWith('.ts'))
    graph.set(relative(SRC, file), targets)
  }
  return graph
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0
  const idx = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const out: string[][] = []
  const visit = (v: string) => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!))
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        scc.push(w)
      } while (w !== v)
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort())
    }
  }
  for (const v of graph.keys()) if (!idx.has(v)) visit(v)
  return out
}

const layer = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file)

/** Layer → layers (folders, or top-level files) it must not import. */
const FORBIDDEN: Record<string, string[]> = {
  db: ['storage', 'feeds', 'collect', 'services', 'routes', 'http', 'war', 'sim', 'app.ts'],
  storage: ['feeds', 'collect', 'services', 'routes', 'http', 'war', 'sim', 'app.ts'],
  feeds: ['db', 'storage', 'collect', 'routes', 'http', 'war', 'sim', 'app.ts'],
  war: ['storage', 'collect', 'routes', 'http', 'sim', 'app.ts'],
  collect: ['routes', 'services', 'http', 'sim', 'app.ts'],
  // The importer writes through the collectors and the storage layer, like the spool writer.
  import: ['routes', 'services', 'http', 'sim', 'app.ts', 'pages'],
  http: ['routes', 'services', 'collect', 'sim', 'app.ts'],
  services: ['routes', 'http', 'collect', 'sim', 'app.ts', 'db'],
  // Push: the event stream's hub and the webhook deliveries, over the storage layer.
  push: ['routes', 'http', 'collect', 'services', 'sim', 'app.ts', 'pages', 'import'],
  routes: ['sim', 'db/connect.ts'],
  // The pages serve files; their browser code reads the public API over HTTP only.
  pages: ['db', 'storage', 'feeds', 'collect', 'routes', 'war', 'sim', 'app.ts'],
  'cache.ts': ['db', 'storage', 'feeds', 'collect', 'routes', 'http', 'war', 'sim'],
  'pid-lock.ts': ['db', 'storage', 'feeds', 'collect', 'routes', 'http', 'war', 'sim', 'services', 'import'],
}

describe('architecture of src/', () => {
  const graph = importGraph()

  test('the import graph was read (sanity)', () => {
    expect(graph.size).toBeGreaterThan(40)
    expect(graph.get('app.ts')).toContain('routes/war.ts')
  })

  test('no import cycle', () => {
    expect(cycles(graph)).toEqual([])
  })

  test('layers import in one direction', () => {
    const violations: string[] = []
    for (const [file, targets] of graph) {
      const rules = FORBIDDEN[layer(file)] ?? []
      for (const t of targets) if (rules.some((r) => t === r || layer(t) === r)) violations.push(`${file} → ${t}`)
    }
    expect(violations).toEqual([])
  })

  test('only app.ts mounts the routes; nothing outside sim/ imports the simulator', () => {
    const routeImporters = [...graph].filter(([f, ts]) => layer(f) !== 'routes' && ts.some((t) => layer(t) === 'routes')).map(([f]) => f)
    expect(routeImporters).toEqual(['app.ts'])
    const simImporters = [...graph].filter(([f, ts]) => layer(f) !== 'sim' && ts.some((t) => layer(t) === 'sim')).map(([f]) => f)
    expect(simImporters).toEqual([])
  })
})
