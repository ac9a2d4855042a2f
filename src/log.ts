/**
 * JSON lines on stdout, one object per event: what log collectors expect, and nothing to
 * configure. Secrets never reach here: callers log names and counts, not headers.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent'
export type Logger = Record<Exclude<LogLevel, 'silent'>, (msg: string, fields?: Record<string, unknown>) => void>

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 }

export function createLogger(level: LogLevel = 'info', write: (line: string) => void = (l) => process.stdout.write(l + '\n')): Logger {
  const at = (lvl: Exclude<LogLevel, 'silent'>) => (msg: string, fields?: Record<string, unknown>) => {
    if (RANK[lvl] < RANK[level]) return
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }))
  }
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}

export const silentLogger: Logger = createLogger('silent')

/** Error text safe for logs: message only, bounded (driver errors can be long). */
export const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 300)
