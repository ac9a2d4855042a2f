import type { Subprocess } from 'bun'

export interface ServiceProcess {
  proc: Subprocess<'ignore', 'pipe', 'pipe'>
  baseUrl: string
  /** Every JSON log line seen so far. */
  lines: Record<string, unknown>[]
  stop(signal?: NodeJS.Signals): Promise<number>
}

const ROOT = new URL('../../', import.meta.url).pathname

/**
 * Start `bun src/main.ts` as a real process with PORT=0 and wait for its "listening"
 * log line, which carries the port it got.
 */
export async function startService(env: Record<string, string>, timeoutMs = 30_000): Promise<ServiceProcess> {
  const proc = Bun.spawn([process.execPath, 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const lines: Record<string, unknown>[] = []
  let stderr = ''
  void (async () => {
    for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk)
  })()
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in ${timeoutMs} ms: ${stderr}`)), timeoutMs)
    void (async () => {
      let buf = ''
      for await (const chunk of proc.stdout) {
        buf += new TextDecoder().decode(chunk)
        let nl: number
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl)
          buf = buf.slice(nl + 1)
          try {
            const obj = JSON.parse(line) as Record<string, unknown>
            lines.push(obj)
            if (obj.msg === 'listening') {
              clearTimeout(timer)
              resolve(Number(obj.port))
            }
          } catch {
            // not a log line
          }
        }
      }
      clearTimeout(timer)
      reject(new Error(`service exited before listening (code ${await proc.exited}): ${stderr}`))
    })()
  })
  return {
    proc,
    baseUrl: `http://127.0.0.1:${port}`,
    lines,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null) proc.kill(signal)
      return proc.exited
    },
  }
}
