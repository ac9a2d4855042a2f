/**
 * A lock file holding the pid of the process that owns a folder (the spool, the embedded
 * database): created exclusively; one left by a process that is gone (killed) is taken
 * over. Used where two processes must never share the folder.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'

/** The live process other than this one that holds `file`, if any. */
export function pidLockHolder(file: string): number | null {
  let pid: number
  try {
    pid = Number(readFileSync(file, 'utf8').trim())
  } catch {
    return null
  }
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : null
}

/**
 * Takes `file` for this process, or throws `held(pid)` when a live process holds it.
 * Returns the release, which removes the file only while it is still this process's.
 */
export function acquirePidLock(file: string, held: (pid: number) => Error): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx')
      writeSync(fd, String(process.pid))
      closeSync(fd)
      return () => {
        try {
          if (readFileSync(file, 'utf8').trim() === String(process.pid)) unlinkSync(file)
        } catch {
          // already gone
        }
      }
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw err
      const pid = pidLockHolder(file)
      if (pid !== null) throw held(pid)
      unlinkSync(file) // left by a process that is gone
    }
  }
  throw new Error(`could not take the lock file ${file}`)
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM'
  }
}
