#!/usr/bin/env node
// `npm start` / `npm run demo` (their pre-scripts): make sure the runtime dependencies of
// package-lock.json are installed, installing only those when something is missing.
//
//   node scripts/deps.mjs runtime
//
// - Every package package-lock.json needs at run time (not dev, not an optional platform
//   package) is in node_modules at its locked version, with its bin links, and package.json
//   matches the lockfile: nothing to do (one line, no npm run).
// - Otherwise, in a tree without dev dependencies: `npm install --omit=dev` (the bun
//   binary, Elysia, postgres.js, PGlite, ...; not bun-types, fast-check or the test-only
//   PGlite fork; TypeScript comes along as a peer dependency of @elysiajs/openapi).
// - Otherwise (dev dependencies present, i.e. `npm test` installed them here): a plain
//   `npm install`, which updates the tree without removing them: `npm install --omit=dev`
//   would delete them, under the feet of a test run going on in the same checkout.
//
// Plain Node (no dependency): it runs before anything is installed.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const mode = process.argv[2]
if (mode !== 'runtime') {
  console.error('usage: node scripts/deps.mjs runtime')
  process.exit(2)
}
const say = (msg) => console.error(`deps: ${msg}`)
const readJson = (file) => JSON.parse(readFileSync(join(ROOT, file), 'utf8'))

const pkg = readJson('package.json')
const lock = readJson('package-lock.json')
const lockRoot = lock.packages?.[''] ?? {}

/** Why the runtime tree is not complete, or null when it is. */
function missing() {
  if (!existsSync(join(ROOT, 'node_modules'))) return 'no node_modules yet'
  for (const field of ['dependencies', 'devDependencies']) {
    const a = JSON.stringify(Object.entries(pkg[field] ?? {}).sort())
    const b = JSON.stringify(Object.entries(lockRoot[field] ?? {}).sort())
    if (a !== b) return `package.json ${field} differ from package-lock.json`
  }
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    if (path === '' || entry.dev || entry.devOptional || entry.optional || entry.link) continue
    const manifest = join(ROOT, path, 'package.json')
    if (!existsSync(manifest)) return `${path} is missing`
    const version = JSON.parse(readFileSync(manifest, 'utf8')).version
    if (version !== entry.version) return `${path} is ${version}, the lockfile says ${entry.version}`
    // Bin links of top-level packages (node_modules/.bin/bun is what `npm start` runs).
    if (entry.bin && path.split('node_modules/').length === 2) {
      for (const name of Object.keys(entry.bin)) {
        if (!existsSync(join(ROOT, 'node_modules', '.bin', name))) return `node_modules/.bin/${name} is missing`
      }
    }
  }
  return null
}

const why = missing()
if (!why) {
  say('runtime dependencies installed (package-lock.json)')
  process.exit(0)
}
// Dev-only packages (the lockfile marks them dev; croner and typescript are also needed at
// run time, as a dependency of @elysiajs/cron and a peer of @elysiajs/openapi).
const devPresent = Object.keys(pkg.devDependencies ?? {})
  .filter((name) => lock.packages?.[`node_modules/${name}`]?.dev)
  .filter((name) => existsSync(join(ROOT, 'node_modules', name, 'package.json')))
const args = ['install', '--no-audit', '--no-fund', '--loglevel=error']
if (devPresent.length > 0) {
  say(`${why}; dev dependencies are installed here (${devPresent.join(', ')}): npm install (keeps them)`)
} else {
  args.push('--omit=dev')
  say(`${why}: npm install --omit=dev (runtime dependencies only)`)
}
const npm = process.env.npm_execpath && process.env.npm_execpath.endsWith('.js') ? [process.execPath, [process.env.npm_execpath, ...args]] : ['npm', args]
const r = spawnSync(npm[0], npm[1], { cwd: ROOT, stdio: 'inherit' })
if (r.error) {
  say(`could not run npm: ${r.error.message}`)
  process.exit(1)
}
process.exit(r.status ?? 1)
