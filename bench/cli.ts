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
