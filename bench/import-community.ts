/**
 * The importer's rate on the community's archive format: `npm run import
 * -- --git REPO --path 801_full_v1.json` into an empty database, from a git archive made as
 * sebsebmc/helldivers-history is: one commit per capture (committer date = capture time)
 * changing 801_full_v1.json, the community API's war, planets, campaigns, assignments and
 * dispatches in every language (Accept-Language: ivl-IV) combined by jq (two-space layout).
 * Its captures are the simulated war's (seed 1) on a 5-minute cadence, as the community
 * API renders them (names in 15 locales, a campaign carrying its whole planet, dates
 * placed by a sync a few seconds before the commit); its dispatches are the war's plus an
 * archive of older ones, as many as the real file lists (DISPATCH_ARCHIVE), so a file
 * weighs what the real one does (~1.7 MB). Reported as bench/import.ts reports its
 * sources: captures/s (the importer's own summary), rows/s, the peak RSS and the verdict
 * against the same bound (IMPORT_BOUND).
 *
 *   bun bench/import-community.ts [-- options]
 *     --captures N   commits in the archive (default 3000)
 *     --db-url URL   a PostgreSQL/TimescaleDB server (a scratch database, dropped);
 *                    default: an own TimescaleDB instance (scripts/testdb.sh)
 *     --keep DIR     write the archive to DIR and keep it (one written there before is
 *                    imported again as it is)
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { Assignment, NewsItem, WarInfo, WarStatus, WarSummary } from '../src/feeds/upstream.ts'
import { factionName, planetName } from '../src/sim/assets.ts'
import { localize, SIM_LANGUAGES } from '../src/sim/languages.ts'
import { World } from '../src/sim/world.ts'
import { printUsageAndExit, scriptArgs } from './cli.ts'
import { runImport, type ImportRun, type ImportSources } from './import.ts'
import { scratchDatabase, startBenchServer } from './setup.ts'
import { IMPORT_BOUND } from './targets.ts'

const EVERY_S = 300
const FILE = '801_full_v1.json'
/** Dispatches of the real file (2025): the community lists every one it has synced, at every commit. */
const DISPATCH_ARCHIVE = 900
/** Seconds between the community's sync and the archive's commit (its dates are placed by the sync's clock). */
const syncLag = (i: number) => 2 + ((i * 7919) % 8)

const iso = (ms: number) => new Date(ms).toISOString()

/** A community v1 text under ivl-IV: every language's. */
const everyLanguage = (text: string) => Object.fromEntries(SIM_LANGUAGES.map((l) => [l, localize(text, l)]))

/** The dispatches the war published before its first capture, as the archive keeps them: ids below the war's own. */
function dispatchArchive(count: number, firstId: number): { id: number; published: number; type: number; text: string }[] {
  return Array.from({ length: count }, (_, i) => ({
    id: firstId - count + i,
    // War seconds: an hour apart, before the war's clock at its first capture.
    published: -(count - i) * 3600,
    type: 0,
    text: `DISPATCH ${i + 1}\nHelldivers, the front holds in sector ${i % 47}. Reinforcements are inbound; keep the supply lines open and report.`,
  }))
}

interface Parts {
  status: WarStatus
  info: WarInfo
  summary: Required<WarSummary>
  assignments: Assignment[]
  news: NewsItem[]
}

/**
 * One capture as the community API renders it (helldivers-2/api Mapping/V1, the inverse of
 * src/import/community.ts): dates are `sync time − status.time + war time`.
 */
function communityFile(p: Parts, atMs: number, lagS: number, archive: ReturnType<typeof dispatchArchive>): unknown {
  const { status, info, summary } = p
  const syncMs = atMs - lagS * 1000
  const dateOf = (warTime: number) => iso(syncMs + (warTime - status.time) * 1000)
  const infos = new Map(info.planetInfos.map((x) => [x.index, x]))
  const stats = new Map(summary.planets_stats.map((s) => [s.planetIndex, s]))
  const events = new Map((status.planetEvents ?? []).map((e) => [e.planetIndex, e]))
  const community = (s: Record<string, unknown>, playerCount: number) => {
    const { bugKills, accurracy, planetIndex: _i, ...rest } = s
    return { ...rest, terminidKills: bugKills, accuracy: accurracy, playerCount }
  }
  const planets = status.planetStatus.flatMap((s) => {
    const name = planetName(s.index)
    const pi = infos.get(s.index)
    if (!name || !pi) return []
    const e = events.get(s.index)
    return [{
      index: s.index, name: name.names, sector: name.sector, biome: name.biome, hazards: [], hash: pi.settingsHash,
      position: pi.position, waypoints: pi.waypoints, maxHealth: pi.maxHealth, health: s.health, disabled: pi.disabled,
      initialOwner: factionName(pi.initialOwner), currentOwner: factionName(s.owner), regenPerSecond: s.regenPerSecond,
      event: e
        ? {
            id: e.id, eventType: e.eventType, faction: factionName(e.race), health: e.health, maxHealth: e.maxHealth,
            startTime: dateOf(e.startTime), endTime: dateOf(e.expireTime), campaignId: e.campaignId, jointOperationIds: e.jointOperationIds,
          }
        : null,
      statistics: community(stats.get(s.index) ?? {}, s.players),
      attacking: (status.planetAttacks ?? []).filter((a) => a.source === s.index).map((a) => a.target),
    }]
  })
  const byIndex = new Map(planets.map((x) => [x.index, x]))
  const players = status.planetStatus.reduce((n, s) => n + s.players, 0)
  return {
    war: {
      started: iso(info.startDate * 1000).replace('.000Z', 'Z'),
      ended: iso(info.endDate * 1000).replace('.000Z', 'Z'),
      // The war clock written as a date after the epoch (WarMapper: UnixEpoch + status.time).
      now: iso(status.time * 1000).replace('.000Z', 'Z'),
      clientVersion: info.minimumClientVersion,
      factions: ['Humans', 'Terminids', 'Automaton', 'Illuminate'],
      impactMultiplier: status.impactMultiplier,
      statistics: community(summary.galaxy_stats as unknown as Record<string, unknown>, players),
    },
    planets,
    campaigns: status.campaigns.flatMap((c) => {
      const planet = byIndex.get(c.planetIndex)
      return planet ? [{ id: c.id, planet, type: c.type, count: c.count, faction: factionName(c.race ?? 0) }] : []
    }),
    assignments: p.assignments.map((a) => ({
      id: a.id32, progress: a.progress, title: everyLanguage(a.setting.overrideTitle), briefing: everyLanguage(a.setting.overrideBrief),
      description: everyLanguage(a.setting.taskDescription), tasks: a.setting.tasks,
      reward: a.setting.reward ? { type: a.setting.reward.type, amount: a.setting.reward.amount } : null,
      rewards: (a.setting.rewards ?? []).flatMap((r) => (r ? [{ type: r.type, amount: r.amount }] : [])),
      expiration: iso(syncMs + a.expiresIn * 1000), flags: a.setting.flags,
    })),
    dispatches: [
      ...archive.map((d) => ({ id: d.id, published: dateOf(status.time + d.published), type: d.type, message: everyLanguage(d.text) })),
      ...p.news.map((n) => ({ id: n.id, published: dateOf(n.published), type: n.type, message: everyLanguage(n.message ?? '') })),
    ],
  }
}

/**
 * `captures` captures of the simulated war, EVERY_S apart, the last one a day before now,
 * committed as the community's archive in `dir` (a temp folder by default).
 */
export async function writeCommunitySource(captures: number, dir?: string): Promise<ImportSources> {
  const t0 = performance.now()
  const root = dir ?? mkdtempSync(join(tmpdir(), 'gws-bench-community-'))
  const repo = join(root, 'archive')
  mkdirSync(repo, { recursive: true })
  const endMs = Math.floor((Date.now() - 86_400_000) / (EVERY_S * 1000)) * EVERY_S * 1000
  const startMs = endMs - (captures - 1) * EVERY_S * 1000
  const world = new World({ seed: 1, speed: 1, now: () => startMs })
  const init = Bun.spawnSync(['git', 'init', '-q', '-b', 'main'], { cwd: repo, stderr: 'pipe' })
  if (init.exitCode !== 0) throw new Error(`git init: ${init.stderr.toString()}`)
  const fastImport = Bun.spawn(['git', 'fast-import', '--quiet'], { cwd: repo, stdin: 'pipe', stdout: 'ignore', stderr: 'pipe' })
  const enc = new TextEncoder()
  let bytes = 0
  let planets = 0
  let archive: ReturnType<typeof dispatchArchive> | null = null
  for (let i = 0; i < captures; i++) {
    if (i) world.advance(EVERY_S)
    const war = world.current()
    const atMs = startMs + i * EVERY_S * 1000
    const news = war.newsfeed({ maxEntries: 1024, fromTimestamp: 0, withMessage: true })
    archive ??= dispatchArchive(DISPATCH_ARCHIVE - news.length, Math.min(...news.map((n) => n.id), 1_000_000))
    const parts = { status: war.status(), info: war.warInfo(), summary: war.summary(), assignments: war.assignments(), news }
    // jq's layout: two spaces, a newline at the end.
    const text = enc.encode(`${JSON.stringify(communityFile(parts, atMs, syncLag(i), archive), null, 2)}\n`)
    planets = parts.status.planetStatus.length
    bytes += text.byteLength
    fastImport.stdin.write(`commit refs/heads/main\ncommitter Archiver <archiver@example.invalid> ${atMs / 1000} +0000\ndata 7\ncapture\n`)
    fastImport.stdin.write(`M 644 inline ${FILE}\ndata ${text.byteLength}\n`)
    fastImport.stdin.write(text)
    fastImport.stdin.write('\n')
    await fastImport.stdin.flush()
  }
  fastImport.stdin.end()
  if ((await fastImport.exited) !== 0) throw new Error(`git fast-import failed: ${await new Response(fastImport.stderr).text()}`)
  return {
    dir: root, ndjson: '', git: { repo, paths: [FILE] }, captures, planets, bytes, seconds: (performance.now() - t0) / 1000,
    remove: () => (dir ? undefined : rmSync(root, { recursive: true, force: true })),
  }
}

/** An archive written by an earlier `--keep DIR`, imported again as it is (its commits are its captures). */
function keptSource(dir: string): ImportSources {
  const repo = join(dir, 'archive')
  const captures = Number(Bun.spawnSync(['git', '-C', repo, 'rev-list', '--count', 'HEAD']).stdout.toString().trim())
  return { dir, ndjson: '', git: { repo, paths: [FILE] }, captures, planets: 0, bytes: 0, seconds: 0, remove: () => {} }
}

if (import.meta.main) {
  const { values: argv } = parseArgs({
    args: scriptArgs(),
    options: { captures: { type: 'string' }, 'db-url': { type: 'string' }, keep: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  })
  if (argv.help) printUsageAndExit(import.meta.path)
  const captures = Math.max(1, Math.round(Number(argv.captures ?? IMPORT_BOUND.captures)))
  const progress = (line: string) => process.stderr.write(`${line}\n`)
  const kept = argv.keep && existsSync(join(argv.keep, 'archive'))
  if (!kept) progress(`community: writing ${captures} captures as the community's archive`)
  const sources = kept ? keptSource(argv.keep!) : await writeCommunitySource(captures, argv.keep)
  if (!kept) progress(`community: archive written in ${sources.seconds.toFixed(1)} s (${(sources.bytes / captures / 2 ** 20).toFixed(2)} MB a file)`)
  const server = await startBenchServer(argv['db-url'])
  let code = 0
  try {
    const scratch = await scratchDatabase(server.url)
    let run: ImportRun
    try {
      run = await runImport('git', sources, scratch.url)
    } finally {
      await scratch.drop()
    }
    progress(`import community: ${run.captures} captures in ${(run.durationMs / 1000).toFixed(1)} s, ${run.capturesPerSecond.toFixed(0)}/s, peak RSS ${run.peakRssMb.toFixed(0)} MB`)
    const met = run.capturesPerSecond >= IMPORT_BOUND.capturesPerSecond && run.peakRssMb <= IMPORT_BOUND.peakRssMb
    process.stdout.write(`${JSON.stringify({ ...run, source: 'community', verdict: met ? 'met' : 'missed' })}\n`)
  } catch (err) {
    code = 1
    progress(`bench import-community FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
  } finally {
    sources.remove()
    await server.stop()
  }
  process.exit(code)
}
