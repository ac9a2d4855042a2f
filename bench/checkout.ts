/**
 * What a bench run measured on: the machine and the checkout (HEAD and what `git status`
 * shows changed), for every report's header.
 */
import { readFileSync } from 'node:fs'
import { cpus, loadavg, release, totalmem } from 'node:os'
import type { Commit, Machine } from './report.ts'
import { ROOT } from './setup.ts'

/** The machine a run measured on (load average as of the call). */
export function machine(): Machine {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8')
  let os = 'Linux'
  try {
    const rel = readFileSync('/etc/os-release', 'utf8')
    os = /^PRETTY_NAME="?([^"\n]+)"?/m.exec(rel)?.[1] ?? os
  } catch {}
  return {
    cpu: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memGiB: totalmem() / 2 ** 30,
    loadavg: loadavg(),
    kernel: release(),
    os,
    bun: Bun.version,
  }
}

/** The checkout measured: HEAD's short hash, and the paths `git status` shows changed (uncommitted or untracked). */
export function commitOf(progress: (line: string) => void = () => {}): Commit {
  const git = (...a: string[]) => {
    const r = Bun.spawnSync(['git', ...a], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
    if (r.exitCode !== 0) throw new Error(`git ${a.join(' ')}: ${r.stderr.toString().trim()}`)
    return r.stdout.toString()
  }
  try {
    const hash = git('rev-parse', '--short', 'HEAD').trim()
    const changes = git('status', '--porcelain').split('\n').filter(Boolean).map((l) => l.trim())
    return { hash, changes }
  } catch (e) {
    progress(`commit unknown: ${e}`)
    return { hash: 'unknown', changes: [] }
  }
}

/** The checkout at the start, with a note when HEAD or the changed paths moved during the run (others edit this checkout). */
export function sameCheckout(start: Commit, end: Commit): Commit {
  const key = (c: Commit) => `${c.hash} ${[...c.changes].sort().join(',')}`
  if (key(start) === key(end)) return start
  const added = end.changes.filter((c) => !start.changes.includes(c))
  return {
    ...start,
    movedDuringRun:
      (start.hash !== end.hash ? `HEAD moved to ${end.hash}` : 'HEAD unchanged') +
      (added.length ? `; changed during the run: ${added.slice(0, 8).join(', ')}${added.length > 8 ? ` and ${added.length - 8} more` : ''}` : ''),
  }
}
