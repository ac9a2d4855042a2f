import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from '../config.ts'
import { embeddedDatabaseHolder, EmbeddedDatabaseInUseError } from '../db/embedded.ts'
import { openDatabase } from '../db/index.ts'
import { importCaptures, type ImportProgress, type ImportSummary } from '../import/importer.ts'
import { gitSource, ndjsonSource, SourceError, type CaptureSource } from '../import/sources.ts'
import { createLogger, errorText } from '../log.ts'

/**
 * `npm run import -- SOURCE`: archived captures into the database, through the
 * collectors' own writes (src/import/importer.ts; docs/operations.md "Importing history").
 *
 *   npm run import -- captures.ndjson[.gz]
 *   npm run import -- --git ./archive --path data/status.json [--path data/summary.json …]
 *   npm run import -- --git ./helldivers-history --path 801_full_v1.json   (the community's v1 JSON)
 *
 * A progress line on stderr (captures, rate, ETA), then the summary on stderr in words and
 * on stdout as one JSON line. Exit 0 when the source was read to its end (skipped captures
 * are listed, not failures), 1 when the import failed (run it again: it resumes), 2 on bad
 * usage, 3 when the embedded database is in use (stop the service first), 130 when
 * interrupted (SIGINT/SIGTERM: the batch in flight rolls back, what committed stays).
 */
const USAGE = `usage: npm run import -- FILE.ndjson[.gz]
       npm run import -- --git REPO --path FILE [--path FILE ...]
options:
  --war-id N      war of captures that name none (default: WAR_ID)
  --batch N       captures per transaction (default 100)
  --language TAG  language of the archive's texts (default: the first of FEED_LANGUAGES);
                  of a community v1 JSON archive (every language): the primary one
The database is DATABASE_URL, or the embedded one in DATA_DIR (the service must be stopped).`

function usage(message?: string): never {
  process.stderr.write(`${message ? `${message}\n` : ''}${USAGE}\n`)
  process.exit(2)
}

let args: ReturnType<typeof parse>
const parse = () =>
  parseArgs({
    allowPositionals: true,
    options: {
      git: { type: 'string' },
      path: { type: 'string', multiple: true },
      'war-id': { type: 'string' },
      batch: { type: 'string' },
      language: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
try {
  args = parse()
} catch (err) {
  usage(errorText(err))
}
const { values, positionals } = args
if (values.help) usage()
if (values.language !== undefined && !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(values.language)) usage('--language must be a language tag (en-US)')
const positiveInt = (name: string, v: string | undefined) => {
  if (v === undefined) return undefined
  if (!/^[1-9]\d{0,9}$/.test(v) || Number(v) > 2_147_483_647) usage(`--${name} must be a positive integer`)
  return Number(v)
}
const warArg = positiveInt('war-id', values['war-id'])
const batchSize = positiveInt('batch', values.batch)
if (values.git !== undefined ? positionals.length > 0 || !values.path?.length : positionals.length !== 1 || values.path) {
  usage(values.git !== undefined ? '--git needs --path FILE and no other source' : 'one source: an NDJSON file, or --git REPO --path FILE')
}

let config
try {
  config = loadConfig()
} catch (err) {
  process.stderr.write(`${errorText(err)}\n`)
  process.exit(err instanceof ConfigError ? 2 : 1)
}

const inUse = (dataDir: string, pid: number): never => {
  process.stderr.write(
    `import: the embedded database in ${dataDir} is in use by process ${pid} (the service, or another import).\n` +
      `  Stop it, run the import, then start it again: two processes must never open the embedded database at once.\n` +
      `  (With DATABASE_URL, a PostgreSQL or TimescaleDB, the service may keep running while it imports.)\n`,
  )
  process.exit(3)
}
if (!config.databaseUrl) {
  const pid = embeddedDatabaseHolder(config.dataDir)
  if (pid !== null) inUse(config.dataDir, pid)
}

const language = values.language ?? config.feedLanguages[0]
let source: CaptureSource
try {
  source = values.git !== undefined ? await gitSource(values.git, values.path!, { language }) : await ndjsonSource(positionals[0]!)
} catch (err) {
  process.stderr.write(`import: ${err instanceof SourceError ? err.message : errorText(err)}\n`)
  process.exit(1)
}

const stop = new AbortController()
const onSignal = (signal: string) => {
  if (stop.signal.aborted) return
  process.stderr.write(`\nimport: ${signal}: stopping after rolling back the batch in flight (what committed stays; run again to resume)\n`)
  stop.abort()
}
process.on('SIGINT', () => onSignal('SIGINT'))
process.on('SIGTERM', () => onSignal('SIGTERM'))

const tty = process.stderr.isTTY === true
// Log lines go to stderr with the progress: stdout carries only the summary's JSON line.
const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, (line) => process.stderr.write(`${tty ? '\n' : ''}${line}\n`))
let lastPrint = 0
let printed: ImportProgress | null = null
const showProgress = (p: ImportProgress, force = false) => {
  const now = performance.now()
  if (p === printed || (!force && now - lastPrint < 1000)) return
  lastPrint = now
  printed = p
  const of = p.total !== null ? `/${p.total} captures` : ` captures${p.fraction !== null ? ` (${(p.fraction * 100).toFixed(1)} % of the file)` : ''}`
  const line =
    `import: ${p.done}${of}, ${p.capturesPerSecond.toFixed(0)}/s, ETA ${p.etaSeconds === null ? '?' : duration(p.etaSeconds)}` +
    ` (${p.imported} imported, ${p.duplicates} duplicates, ${p.skipped} skipped)`
  process.stderr.write(tty ? `\r${line}\x1b[K` : `${line}\n`)
}

let summary: ImportSummary
try {
  process.stderr.write(`import: ${source.label} into ${config.databaseUrl ? 'DATABASE_URL' : `the embedded database in ${config.dataDir}`}\n`)
  const db = await openDatabase({ ...config, databaseReadUrl: undefined }, log)
  try {
    let last: ImportProgress | null = null
    summary = await importCaptures({
      db, source, warId: warArg ?? config.warId, language, batchSize, signal: stop.signal, log,
      onProgress: (p) => {
        last = p
        showProgress(p)
      },
    })
    if (last) showProgress(last, true)
    if (tty) process.stderr.write('\n')
  } finally {
    await db.close()
  }
} catch (err) {
  if (err instanceof EmbeddedDatabaseInUseError) inUse(err.dataDir, err.pid)
  process.stderr.write(`\nimport failed: ${errorText(err)}\n  What committed stays; run the same command again to resume.\n`)
  process.exit(1)
}

const reasons = Object.entries(summary.skippedByReason).map(([r, n]) => `${n} ${r}`).join(', ')
process.stderr.write(
  `import ${summary.aborted ? 'stopped' : 'done'}: ${summary.captures} captures in ${duration(summary.durationMs / 1000)} (${summary.capturesPerSecond}/s): ` +
    `${summary.imported} imported, ${summary.duplicates} duplicates, ${summary.skipped} skipped${reasons ? ` (${reasons})` : ''}\n` +
    summary.skippedCaptures.map((c) => `  skipped ${c.ref}: ${c.reason}: ${c.detail}\n`).join('') +
    (summary.skipped > summary.skippedCaptures.length ? `  … and ${summary.skipped - summary.skippedCaptures.length} more\n` : '') +
    (summary.from ? `  captures from ${summary.from} to ${summary.to}; rollups refreshed: ${summary.refreshed.join(', ') || 'none'}\n` : '') +
    (summary.notRebuilt.length
      ? `  not in the community JSON, left out or null (never made up):\n` + summary.notRebuilt.map((g) => `    ${g.gap} (${g.captures} captures): ${g.detail}\n`).join('')
      : '') +
    (summary.reading
      ? `  reading, per capture: ${Math.round(summary.reading.bytes / 1024)} KB, ${summary.reading.totalMs} ms (waiting ${summary.reading.waitMs}, ` +
        `parsing ${summary.reading.parseMs}, rebuilding ${summary.reading.rebuildMs}, collecting ${summary.reading.gcMs}, checking and mapping ${summary.reading.prepareMs})\n`
      : ''),
)
process.stdout.write(JSON.stringify(summary) + '\n')
process.exit(summary.aborted ? 130 : 0)

function duration(seconds: number): string {
  const s = Math.round(seconds)
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
}
