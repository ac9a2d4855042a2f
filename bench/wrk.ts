/**
 * The load generator: wrk when it is on PATH; otherwise Debian's `wrk` package is installed
 * with apt-get when this process can (root, apt-get present); otherwise the Bun fallback
 * client of bench/load.ts is used. An install, or the fallback, is said in one progress line
 * (a failed install in a second one, with apt-get's last line).
 */

export interface WrkSetupOptions {
  progress: (line: string) => void
  /** PATH to search and to give apt-get (default: this process's PATH). */
  path?: string
  /** Whether this process may install packages (default: effective uid 0). */
  isRoot?: boolean
}

async function spawnApt(apt: string, args: string[], path: string): Promise<{ code: number; out: string }> {
  const proc = Bun.spawn([apt, ...args], {
    env: { ...process.env, PATH: path, DEBIAN_FRONTEND: 'noninteractive' },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, out: `${out}\n${err}` }
}

const lastLine = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .pop() ?? ''

/** True when wrk can be used (found, or installed now); false: use the Bun fallback client. */
export async function ensureWrk(o: WrkSetupOptions): Promise<boolean> {
  const path = o.path ?? process.env.PATH ?? ''
  if (Bun.which('wrk', { PATH: path })) return true
  const isRoot = o.isRoot ?? process.geteuid?.() === 0
  const apt = Bun.which('apt-get', { PATH: path })
  if (!isRoot || !apt) {
    o.progress(`wrk not on PATH and not installable here (${!isRoot ? 'not root' : 'no apt-get'}): using the Bun fallback client (install Debian's wrk for comparable figures)`)
    return false
  }
  o.progress("wrk not on PATH: installing Debian's wrk (apt-get install -y wrk)")
  let r = await spawnApt(apt, ['install', '-y', '-q', '--no-install-recommends', 'wrk'], path)
  // A machine whose package lists were never fetched does not know the package yet.
  if (r.code !== 0) {
    const update = await spawnApt(apt, ['update', '-q'], path)
    if (update.code === 0) r = await spawnApt(apt, ['install', '-y', '-q', '--no-install-recommends', 'wrk'], path)
  }
  const found = Bun.which('wrk', { PATH: path })
  if (r.code !== 0 || !found) {
    o.progress(`wrk could not be installed (apt-get exit ${r.code}: ${lastLine(r.out).slice(0, 200)}): using the Bun fallback client`)
    return false
  }
  return true
}
