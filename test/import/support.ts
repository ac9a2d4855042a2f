/**
 * What the import tests share: captures made from the real samples, a git archive of them
 * built in the OS temp folder, the reference (the same captures collected live: each
 * collector's `map`, then `runner.write`, one tick per transaction as the spool writer does
 * it) and a dump of every table the collectors write.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fullStatus } from '../../src/collect/full-status.ts'
import type { AnyCollector } from '../../src/collect/index.ts'
import { playerCount } from '../../src/collect/player-count.ts'
import { CollectorRunner } from '../../src/collect/runner.ts'
import { warInfo } from '../../src/collect/war-info.ts'
import type { Database } from '../../src/db/index.ts'
import type { Feeds } from '../../src/feeds/index.ts'
import type { Fetched } from '../../src/feeds/throttle.ts'
import { parseAssignments, parseNewsFeed, parseWarInfo, parseWarStatus, parseWarSummary, type WarStatus } from '../../src/feeds/upstream.ts'
import { silentLogger } from '../../src/log.ts'
import { createStore } from '../../src/storage/index.ts'
import { loadSample } from '../support/samples.ts'
import { DATASET_TABLES } from '../support/tables.ts'

export const STATUS = loadSample('arrowhead/warstatus_801_2024-03-08_sector-hq.json') as WarStatus
export const SUMMARY = loadSample('arrowhead/DERIVED_summary_801_from_community_excerpt.json')
export const ASSIGNMENTS = loadSample('arrowhead/assignment_v2_801_2025-05-09_daveydoodles97.json') as { progress: number[] }[]
export const NEWSFEED = loadSample('arrowhead/newsfeed_801_default_10_items_daveydoodles97.json')
export const WAR_INFO = loadSample('arrowhead/warinfo_801_2024-03-25_sector-hq.json')

/** A capture as the tests build it: its time, its war, its payloads (the NDJSON line's fields). */
export interface TestCapture {
  capturedAt: string
  warId: number
  status: unknown
  summary?: unknown
  assignments?: unknown
  newsfeed?: unknown
  warInfo?: unknown
}

/**
 * The real status, `dt` war seconds later, with the changes given: owners by planet index,
 * every planet's players moved by `players`, the defense's health down by `dt`.
 */
export function statusAt(dt: number, o: { owners?: Record<number, number>; players?: number; warId?: number; noEvent?: boolean } = {}): WarStatus {
  const s = structuredClone(STATUS)
  s.time = STATUS.time + dt
  if (o.warId !== undefined) s.warId = o.warId
  for (const p of s.planetStatus) {
    p.players = Math.max(0, p.players + (o.players ?? 0) + (p.index % 7))
    const owner = o.owners?.[p.index]
    if (owner !== undefined) p.owner = owner
  }
  for (const e of s.planetEvents ?? []) e.health = Math.max(0, e.health - dt * 10)
  if (o.noEvent) {
    const gone = new Set((s.planetEvents ?? []).map((e) => e.campaignId))
    s.planetEvents = []
    s.jointOperations = []
    s.campaigns = s.campaigns.filter((c) => !gone.has(c.id))
  }
  return s
}

/** Assignments whose progress moved by `step`. */
export const assignmentsAt = (step: number) => (structuredClone(ASSIGNMENTS) as { progress: number[] }[]).map((a) => ({ ...a, progress: a.progress.map((v) => v + step) }))

// ------------------------------------------------------------------ a git archive

export interface ArchiveCommit {
  /** Committer (and author) date, ISO. */
  at: string
  /** Files written before the commit, by path; their text as committed (null: deleted). */
  files: Record<string, string | null>
}

/** A git repository in the OS temp folder with these commits, oldest first; `remove()` deletes it. */
export function gitArchive(commits: ArchiveCommit[]): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'gws-import-git-'))
  const git = (args: string[], env: Record<string, string> = {}) => {
    const r = spawnSync('git', ['-C', dir, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
  }
  git(['init', '-q', '-b', 'main'])
  git(['config', 'user.name', 'archiver'])
  git(['config', 'user.email', 'archiver@example.invalid'])
  git(['config', 'commit.gpgsign', 'false'])
  for (const [i, c] of commits.entries()) {
    for (const [path, text] of Object.entries(c.files)) {
      if (text === null) {
        rmSync(join(dir, path))
        continue
      }
      mkdirSync(dirname(join(dir, path)), { recursive: true })
      writeFileSync(join(dir, path), text)
    }
    git(['add', '-A'])
    git(['commit', '-q', '-m', `capture ${i + 1}`], { GIT_COMMITTER_DATE: c.at, GIT_AUTHOR_DATE: c.at })
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

// ------------------------------------------------------------------ the reference: collected live

const fetched = <T>(data: T, at: Date): Fetched<T> => ({ data, fetchedAt: at, fromCache: false, stale: false, drift: { missing: [], unknown: [] } })

/**
 * The captures collected live, one after the other: each collector's tick mapped from the
 * capture's payloads (`map`, as `runner.capture` does after its fetch) and written by
 * `runner.write` in a transaction of its own, as the spool writer writes them.
 */
export async function collectLive(db: Pick<Database, 'sql' | 'gate'>, captures: TestCapture[]): Promise<void> {
  const runner = new CollectorRunner({ db, store: createStore(db), feeds: {} as Feeds, log: silentLogger, config: { warId: 801 } })
  for (const c of captures) {
    const at = new Date(c.capturedAt)
    const status = fetched(parseWarStatus(c.status).data, at)
    const ticks: [AnyCollector, unknown][] = []
    if (c.warInfo !== undefined) ticks.push([warInfo, warInfo.map({ info: fetched(parseWarInfo(c.warInfo).data, at), status }, { warId: c.warId, now: at }).rows])
    const payload = {
      status,
      summary: c.summary === undefined ? null : fetched(parseWarSummary(c.summary).data, at),
      assignments: c.assignments === undefined ? null : fetched(parseAssignments(c.assignments).data, at),
      news: c.newsfeed === undefined ? null : fetched(parseNewsFeed(c.newsfeed).data, at),
      languages: { fetched: [], stored: new Map() },
      primary: 'en-US',
    }
    ticks.push([fullStatus, fullStatus.map(payload, { warId: c.warId, now: at }).rows])
    ticks.push([playerCount, playerCount.map({ status, pcstore: null }, { warId: c.warId, now: at }).rows])
    for (const [collector, rows] of ticks) {
      const summary = await runner.write(collector, { id: crypto.randomUUID(), collector: collector.name, warId: c.warId, capturedAt: at.toISOString(), rows })
      if (summary.outcome === 'locked') throw new Error('locked')
    }
  }
}

// ------------------------------------------------------------------ what is compared

/**
 * Every table the collectors write (with the derived ones: owner changes, current
 * campaigns, texts), and the per-tick planet rows its changes stand for (a view).
 */
export const IMPORT_TABLES = [...DATASET_TABLES, 'planet_status_snapshots', 'planet_owner_changes', 'campaigns', 'dispatch_texts', 'major_order_texts'] as const
/** The rollups, by their one name on every edition (exact up to the last row whether materialized or not). */
export const ROLLUP_VIEWS = ['player_count_5m', 'player_count_1h', 'player_count_1d', 'war_summary_1d'] as const

/** Every row of every table and rollup, each table's rows sorted: equal dumps, equal databases. */
export async function dump(db: Pick<Database, 'sql'>): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {}
  for (const t of [...IMPORT_TABLES, ...ROLLUP_VIEWS]) {
    out[t] = (await db.sql<{ r: string }[]>`SELECT to_jsonb(x)::text AS r FROM ${db.sql(t)} x`).map((x) => x.r).sort()
  }
  return out
}

/** Rows per table (for messages and for "nothing was added"). */
export const counts = (d: Record<string, string[]>) => Object.fromEntries(Object.entries(d).map(([t, rows]) => [t, rows.length]))

/** One NDJSON line per capture. */
export const ndjson = (captures: TestCapture[]) => captures.map((c) => JSON.stringify(c)).join('\n') + '\n'

/** A temp folder for files a test writes; `remove()` deletes it. */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}
