/**
 * bench/wrk.ts: wrk is used when found, installed with apt-get when missing and the process
 * can (a fake apt-get in a PATH of its own stands in for Debian's), and otherwise the
 * fallback is announced in one line.
 */
import { afterAll, expect, test } from 'bun:test'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureWrk } from '../../bench/wrk.ts'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/**
 * A folder that is the whole PATH; `aptGet(dir)` is the body of a fake apt-get that logs its
 * arguments to dir/calls (absolute paths only: nothing else is on that PATH).
 */
function pathDir(files: { aptGet?: (dir: string) => string; wrk?: boolean }): string {
  const dir = mkdtempSync(join(tmpdir(), 'gws-wrk-test-'))
  dirs.push(dir)
  if (files.aptGet !== undefined) {
    writeFileSync(join(dir, 'apt-get'), `#!/bin/sh\necho "$*" >> ${dir}/calls\n${files.aptGet(dir)}\n`)
    chmodSync(join(dir, 'apt-get'), 0o755)
  }
  if (files.wrk) {
    writeFileSync(join(dir, 'wrk'), '#!/bin/sh\nexit 0\n')
    chmodSync(join(dir, 'wrk'), 0o755)
  }
  return dir
}

const installsWrk = (dir: string) =>
  `if [ "$1" = install ]; then /usr/bin/printf '#!/bin/sh\\nexit 0\\n' > ${dir}/wrk; /bin/chmod 755 ${dir}/wrk; fi`

test('wrk on PATH: used, nothing installed, nothing said', async () => {
  const dir = pathDir({ wrk: true, aptGet: () => 'exit 1' })
  const lines: string[] = []
  expect(await ensureWrk({ progress: (l) => lines.push(l), path: dir, isRoot: true })).toBe(true)
  expect(lines).toEqual([])
  expect(existsSync(join(dir, 'calls'))).toBe(false)
})

test('wrk missing, root with apt-get: installed, one line says so', async () => {
  const dir = pathDir({ aptGet: installsWrk })
  const lines: string[] = []
  expect(await ensureWrk({ progress: (l) => lines.push(l), path: dir, isRoot: true })).toBe(true)
  expect(lines).toEqual(["wrk not on PATH: installing Debian's wrk (apt-get install -y wrk)"])
  expect(readFileSync(join(dir, 'calls'), 'utf8')).toBe('install -y -q --no-install-recommends wrk\n')
})

test('wrk missing, package lists empty: apt-get update, then the install', async () => {
  // Every install fails until an update has run.
  const dir = pathDir({
    aptGet: (d) => `if [ "$1" = update ]; then /usr/bin/touch ${d}/updated; exit 0; fi
if [ ! -f ${d}/updated ]; then echo "E: Unable to locate package wrk" >&2; exit 100; fi
${installsWrk(d)}`,
  })
  const lines: string[] = []
  expect(await ensureWrk({ progress: (l) => lines.push(l), path: dir, isRoot: true })).toBe(true)
  expect(lines).toHaveLength(1)
  expect(readFileSync(join(dir, 'calls'), 'utf8').split('\n').filter(Boolean)).toEqual([
    'install -y -q --no-install-recommends wrk',
    'update -q',
    'install -y -q --no-install-recommends wrk',
  ])
})

test('wrk missing, install fails: the fallback, with apt-get last line', async () => {
  const dir = pathDir({ aptGet: () => 'echo "E: Could not get lock /var/lib/dpkg/lock-frontend" >&2; exit 100' })
  const lines: string[] = []
  expect(await ensureWrk({ progress: (l) => lines.push(l), path: dir, isRoot: true })).toBe(false)
  expect(lines).toHaveLength(2)
  expect(lines[1]).toBe('wrk could not be installed (apt-get exit 100: E: Could not get lock /var/lib/dpkg/lock-frontend): using the Bun fallback client')
})

test('wrk missing and not root, or no apt-get: one line, the fallback, no install attempted', async () => {
  const dir = pathDir({ aptGet: installsWrk })
  const lines: string[] = []
  expect(await ensureWrk({ progress: (l) => lines.push(l), path: dir, isRoot: false })).toBe(false)
  expect(await ensureWrk({ progress: (l) => lines.push(l), path: pathDir({}), isRoot: true })).toBe(false)
  expect(lines).toEqual([
    "wrk not on PATH and not installable here (not root): using the Bun fallback client (install Debian's wrk for comparable figures)",
    "wrk not on PATH and not installable here (no apt-get): using the Bun fallback client (install Debian's wrk for comparable figures)",
  ])
  expect(existsSync(join(dir, 'calls'))).toBe(false)
})
