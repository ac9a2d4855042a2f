/** What the bench scripts share on the command line. */
import { readFileSync } from 'node:fs'

/** The script's arguments; `npm run x -- --flag` passes them as they are, `bun run x -- --flag` may keep the `--`. */
export const scriptArgs = () => Bun.argv.slice(2).filter((a, i) => !(i === 0 && a === '--'))

/** `--help`: print the script's leading doc comment (its usage) and exit. */
export function printUsageAndExit(scriptPath: string): never {
  const src = readFileSync(scriptPath, 'utf8')
  process.stdout.write(`${/\/\*\*([\s\S]*?)\*\//.exec(src)![1]!.replace(/^ \* ?/gm, '').trim()}\n`)
  process.exit(0)
}

/** A progress line on stderr, headed by the seconds since `started`: `[  12 s] line`. */
export const progressSince = (started: number) => (line: string) =>
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`)

/** On SIGINT or SIGTERM: say so, run `cleanup` (once: it is the script's own), exit 130. */
export function cleanUpOnSignals(cleanup: () => Promise<unknown>, progress: (line: string) => void) {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      progress(`${sig}: cleaning up`)
      void cleanup().finally(() => process.exit(130))
    })
  }
}
