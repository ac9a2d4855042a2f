/**
 * The paged historical routes: player counts, planet status, war summary, major orders,
 * major order progress and dispatches. Each validates, resolves its filters with the
 * shared helpers (paging, dates, aliases), runs one query function and returns the
 * shared paged body, never HTTP-cached (no-store).
 *
 * Pages are kept serialised per version of the dataset they read (`keptPages`,
 * http/answers.ts): a crowd reading the same page runs its queries once per write instead
 * of once per request, and every answer is still as of the last committed row. A window
 * ending now (the default last 24 hours or 7 days) is kept only while it provably holds
 * the same rows (nowPageAnswer).
 */
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { Value } from '@sinclair/typebox/value'
import { Elysia, t, type TSchema } from 'elysia'
import { Answers, jsonNoStore } from '../http/answers.ts'
import { dateString, timeRange } from '../http/dates.ts'
import { errorResponses } from '../http/errors.ts'
import { Paged, pageOf, paged, pagingQuery, type Page, type PageLimits } from '../http/paging.ts'
import { badRequest, integerString, LangQuery, langOf, parseInteger, planetIndexOf, PlanetIdQuery, UINT32_MAX, warIdOf, WarIdQuery } from '../http/params.ts'
import type { DataVersions, Dataset } from '../storage/changes.ts'
import { LocalizedDispatchRow } from '../storage/dispatches.ts'
import { LocalizedMajorOrderRow, ProgressRow } from '../storage/major-orders.ts'
import { PlanetStatusRow } from '../storage/planet-status.ts'
import { PlayerCountRow } from '../storage/player-counts.ts'
import type { PageOf, TimeRange } from '../storage/query.ts'
import { WarSummaryRow } from '../storage/war-summary.ts'
import type { ReadContext } from './context.ts'

export const LIMITS = {
  playerCount: { defaultLimit: 50, maxLimit: 500 },
  planetStatus: { defaultLimit: 100, maxLimit: 1000 },
  warSummary: { defaultLimit: 100, maxLimit: 1000 },
  majorOrders: { defaultLimit: 50, maxLimit: 500 },
  progress: { defaultLimit: 200, maxLimit: 2000 },
  dispatches: { defaultLimit: 50, maxLimit: 500 },
} as const satisfies Record<string, PageLimits>

const HOUR_MS = 3_600_000
const Q_MAX = 200

/**
 * Kept page bodies: at most 256 pages and 8 M characters together (8 to 16 MB). A page is
 * kept as its body, or with it (a window ending now, NowPage).
 */
export const keptPageAnswers = (versions: DataVersions) =>
  new Answers(versions, { maxEntries: 256, budget: { max: 8_000_000, weigh: (kept) => (typeof kept === 'string' ? kept : (kept as NowPage).body).length } })

/**
 * A paged route's response schema, and its body serialised as that schema encodes it
 * (what Elysia does to a returned value: dates to strings, unknown fields dropped), for
 * the bodies kept ready.
 */
function pageModel<S extends TSchema>(row: S, description: string) {
  const schema = Paged(row, description)
  const check = TypeCompiler.Compile(schema)
  return { schema, serialise: (body: unknown) => JSON.stringify(Value.Clean(schema, check.Encode(body))) }
}
type PageModel = ReturnType<typeof pageModel>

/** The key of a kept page: its route, its resolved filters (aliases and defaults applied) and its page. */
const pageKey = (route: string, filters: unknown[], range: TimeRange | null, page: Page) =>
  JSON.stringify([route, ...filters, range && [range.from?.getTime() ?? null, range.to?.getTime() ?? null, range.toExclusive], page.page, page.limit])

/**
 * The page `load` gives, as a ready no-store response, kept serialised under `key` for the
 * current version of `datasets`: at once when kept, else loaded (once, however many ask).
 */
function pageAnswer(keptPages: Answers, model: PageModel, datasets: readonly Dataset[], key: string, load: () => Promise<unknown>): Response | Promise<Response> {
  const kept = keptPages.kept<string>(key, datasets)
  if (kept !== undefined) return jsonNoStore(kept)
  return keptPages.get(key, datasets, async () => model.serialise(await load())).then(jsonNoStore)
}

/** A kept page of a window ending now, with what says how long it holds (times in ms). */
interface NowPage {
  body: string
  /** When it was computed: the window's end then. */
  at: number
  /** The oldest row in the window then, and the newest row from the window's start then (null: none). */
  oldest: number | null
  newest: number | null
}

/** The series' oldest and newest rows at or after a window's start (storage/time-pages.ts windowEdges). */
type Edges = { oldest: Date | null; newest: Date | null }

/**
 * A page of a window that ends now (`spanMs` long, or from a fixed start when null), kept
 * while it provably has not changed: at the same data version the window holds the same
 * rows as when it was computed as long as no row of the series was as new as that moment
 * (none can enter; rows carry microseconds, times here milliseconds, hence "as new") and
 * the window's start has not passed its oldest row (none has left). A crowd reading such
 * a page runs its queries once per write or per row leaving the window (every few minutes
 * for the planet and summary ticks), not once per request.
 */
function nowPageAnswer(
  keptPages: Answers,
  model: PageModel,
  datasets: readonly Dataset[],
  key: string,
  w: { end: Date; spanMs: number | null },
  load: () => Promise<unknown>,
  edges: () => Promise<Edges>,
): Response | Promise<Response> {
  const endMs = w.end.getTime()
  const holds = (p: NowPage) =>
    endMs >= p.at && (p.newest === null || p.newest < p.at) && (w.spanMs === null || p.oldest === null || endMs - w.spanMs <= p.oldest)
  const kept = keptPages.kept<NowPage>(key, datasets, holds)
  if (kept) return jsonNoStore(kept.body)
  const compute = async (): Promise<NowPage> => {
    const [body, e] = await Promise.all([load(), edges()])
    return { body: model.serialise(body), at: endMs, oldest: e.oldest?.getTime() ?? null, newest: e.newest?.getTime() ?? null }
  }
  return (async () => {
    let own: NowPage | undefined
    // A page that does not hold even at its own moment (a row newer than it) is not kept.
    const page = await keptPages.get(key, datasets, async () => (own = await compute()), holds)
    // A computation joined while it ran may be of an earlier moment: used only if it holds now.
    return jsonNoStore((own ?? (holds(page) ? page : await compute())).body)
  })()
}

/** The default windows of the windowed routes (when startDate is omitted). */
const PLANET_STATUS_SPAN_MS = 24 * HOUR_MS
const WAR_SUMMARY_SPAN_MS = 7 * 24 * HOUR_MS

/**
 * A page of a windowed route (planet status, war summary): kept by its dates when endDate
 * is given, else as a window ending now (nowPageAnswer).
 */
function windowedPage(
  keptPages: Answers,
  model: PageModel,
  dataset: Dataset,
  filters: unknown[],
  query: { startDate?: string; endDate?: string },
  now: Date,
  spanMs: number,
  page: Page,
  read: { page: (range: TimeRange) => Promise<PageOf<unknown>>; edges: (from: Date) => Promise<Edges> },
): Response | Promise<Response> {
  const range = timeRange(query, { now, defaultSpanMs: spanMs })
  const load = async () => paged(await read.page(range), page)
  if (query.endDate !== undefined) return pageAnswer(keptPages, model, [dataset], pageKey(dataset, filters, range, page), load)
  const fixedStart = query.startDate === undefined ? null : range.from!.getTime()
  const key = pageKey(`${dataset}/now`, [...filters, fixedStart], null, page)
  return nowPageAnswer(keptPages, model, [dataset], key, { end: range.to!, spanMs: fixedStart === null ? spanMs : null }, load, () => read.edges(range.from!))
}

const PlayerCountPage = pageModel(PlayerCountRow, 'A page of player-count snapshots, newest first')
const PlanetStatusPage = pageModel(PlanetStatusRow, 'A page of planet status snapshots, newest first')
const WarSummaryPage = pageModel(WarSummaryRow, 'A page of war summary snapshots, newest first')
const MajorOrderPage = pageModel(LocalizedMajorOrderRow, 'A page of major orders, last seen first')
const ProgressPage = pageModel(ProgressRow, 'A page of progress snapshots, newest first')
const DispatchPage = pageModel(LocalizedDispatchRow, 'A page of dispatches, newest first')

const StartDate = (description: string) => t.Optional(dateString('startDate', description, '2026-01-01'))
const EndDate = (description: string) => t.Optional(dateString('endDate', description, '2026-01-02 12:00:00'))

export const historyRoutes = (context: ReadContext) =>
  new Elysia({ name: 'routes/history', detail: { tags: ['history'] } })
    .use(context)
    .get(
      '/historical-player-count',
      async ({ query, storage, keptPages, now }) => {
        const page = pageOf(query, LIMITS.playerCount)
        const range = timeRange(query, { now: now(), required: true })
        const load = async () => paged(await storage.playerCounts.history({ range, gameName: query.gameName }, page), page)
        return pageAnswer(keptPages, PlayerCountPage, ['player-counts'], pageKey('player-count', [query.gameName ?? null], range, page), load)
      },
      {
        query: t.Object({
          // Optional in the schema so that a missing date gets the clear "startDate is required".
          startDate: StartDate('Required. Start of the window (inclusive).'),
          endDate: EndDate('Required. End of the window (inclusive; a bare date means the whole day).'),
          gameName: t.Optional(
            t.Union([t.Literal('Game'), t.Literal('Game 2')], { description: 'Only rows of this game', error: 'gameName must be "Game" or "Game 2"' }),
          ),
          ...pagingQuery(LIMITS.playerCount),
        }),
        response: { 200: PlayerCountPage.schema, ...errorResponses },
        detail: {
          summary: 'Player-count history',
          description: 'Player-count snapshots (both row shapes) between startDate and endDate, newest first; gameName (Game or Game 2) keeps one game. 400 when startDate or endDate is missing.',
        },
      },
    )
    .get(
      '/historical-planet-status',
      async ({ query, storage, keptPages, now, warId: defaultWarId }) => {
        const page = pageOf(query, LIMITS.planetStatus)
        const planetIndex = planetIndexOf(query)
        if (planetIndex === undefined) throw badRequest('planetId is required')
        const warId = warIdOf(query) ?? defaultWarId
        return windowedPage(keptPages, PlanetStatusPage, 'planet-status', [warId, planetIndex], query, now(), PLANET_STATUS_SPAN_MS, page, {
          page: (range) => storage.planetStatus.history({ warId, planetIndex, range }, page),
          edges: (from) => storage.planetStatus.historyEdges({ warId, planetIndex }, from),
        })
      },
      {
        query: t.Object({
          ...PlanetIdQuery,
          ...WarIdQuery,
          startDate: StartDate('Start of the window (inclusive). Default: endDate minus 24 hours.'),
          endDate: EndDate('End of the window (inclusive; a bare date means the whole day). Default: now.'),
          ...pagingQuery(LIMITS.planetStatus),
        }),
        response: { 200: PlanetStatusPage.schema, ...errorResponses },
        detail: {
          summary: 'Planet status history',
          description: 'Status snapshots of one planet (planetId or planetID, required) of one war, newest first. Without startDate the window is the last 24 hours.',
        },
      },
    )
    .get(
      '/historical-war-summary',
      async ({ query, storage, keptPages, now, warId: defaultWarId }) => {
        const page = pageOf(query, LIMITS.warSummary)
        const warId = warIdOf(query) ?? defaultWarId
        return windowedPage(keptPages, WarSummaryPage, 'war-summary', [warId], query, now(), WAR_SUMMARY_SPAN_MS, page, {
          page: (range) => storage.warSummary.history({ warId, range }, page),
          edges: (from) => storage.warSummary.historyEdges({ warId }, from),
        })
      },
      {
        query: t.Object({
          ...WarIdQuery,
          startDate: StartDate('Start of the window (inclusive). Default: endDate minus 7 days.'),
          endDate: EndDate('End of the window (inclusive; a bare date means the whole day). Default: now.'),
          ...pagingQuery(LIMITS.warSummary),
        }),
        response: { 200: WarSummaryPage.schema, ...errorResponses },
        detail: {
          summary: 'War summary history',
          description: 'Cumulative galaxy statistics, one row per full-status tick, newest first. Without startDate the window is the last 7 days. Per-tick deltas: subtract consecutive rows.',
        },
      },
    )
    .get(
      '/historical-major-orders',
      async ({ query, storage, keptPages, languages }) => {
        const page = pageOf(query, LIMITS.majorOrders)
        const lang = langOf(query, languages)
        const warId = warIdOf(query)
        const load = async () => paged(await storage.majorOrders.orders({ warId, lang }, page), page)
        return pageAnswer(keptPages, MajorOrderPage, ['major-orders'], pageKey('major-orders', [warId ?? null, lang ?? null], null, page), load)
      },
      {
        query: t.Object({
          warId: t.Optional(integerString('warId', 'Only orders of this war. Default: every war.', '801')),
          warID: t.Optional(integerString('warID', 'Alias of warId.', '801')),
          ...LangQuery,
          ...pagingQuery(LIMITS.majorOrders),
        }),
        response: { 200: MajorOrderPage.schema, ...errorResponses },
        detail: {
          summary: 'Major orders',
          description:
            'One row per major order ever seen, sorted by lastSeenAt descending. Without warId: all wars. With lang, title, briefing and description are the texts of that language (null when none was collected), or with lang=all objects {"<code>": text}.',
        },
      },
    )
    .get(
      '/historical-major-orders/:orderId/progress',
      async ({ params, query, storage, keptPages, now }) => {
        const orderId32 = parseInteger(params.orderId, 'orderId', 0, UINT32_MAX)
        const page = pageOf(query, LIMITS.progress)
        // An omitted bound stays open: the window never moves with the clock.
        const range = timeRange(query, { now: now() })
        const load = async () => paged(await storage.majorOrders.progress({ orderId32, range }, page), page)
        return pageAnswer(keptPages, ProgressPage, ['major-orders'], pageKey('progress', [orderId32], range, page), load)
      },
      {
        params: t.Object({ orderId: integerString('orderId', 'Major order id (orderId32, 0..4294967295).', '1234567890') }),
        query: t.Object({
          startDate: StartDate('Start of the window (inclusive). Default: open (whole history).'),
          endDate: EndDate('End of the window (inclusive; a bare date means the whole day). Default: open.'),
          ...pagingQuery(LIMITS.progress),
        }),
        response: { 200: ProgressPage.schema, ...errorResponses },
        detail: {
          summary: 'Major order progress',
          description: 'Progress snapshots of one major order, newest first. An unknown order gives 200 with no items.',
        },
      },
    )
    .get(
      '/historical-dispatches',
      async ({ query, storage, keptPages, languages, warId: defaultWarId }) => {
        const page = pageOf(query, LIMITS.dispatches)
        const lang = langOf(query, languages)
        const warId = warIdOf(query) ?? defaultWarId
        const since = query.since === undefined ? undefined : parseInteger(query.since, 'since', 0, Number.MAX_SAFE_INTEGER)
        if (query.q !== undefined && query.q.length > Q_MAX) throw badRequest(`q must be at most ${Q_MAX} characters`)
        // PostgreSQL text cannot hold NUL: refuse it here rather than fail in the query.
        if (query.q?.includes('\u0000')) throw badRequest('q must not contain NUL characters')
        const load = async () => paged(await storage.dispatches.page({ warId, since, q: query.q, lang }, page), page)
        return pageAnswer(keptPages, DispatchPage, ['dispatches'], pageKey('dispatches', [warId, since ?? null, query.q ?? null, lang ?? null], null, page), load)
      },
      {
        query: t.Object({
          ...WarIdQuery,
          since: t.Optional(integerString('since', 'Only dispatches published after this war time (seconds since the war started).', '0')),
          q: t.Optional(
            t.String({
              description: `Case-insensitive substring of the message (with lang: of that language's text, or of any language's with lang=all); %, _ and \\ match literally. At most ${Q_MAX} characters.`,
            }),
          ),
          ...LangQuery,
          ...pagingQuery(LIMITS.dispatches),
        }),
        response: { 200: DispatchPage.schema, ...errorResponses },
        detail: {
          summary: 'Dispatches',
          description:
            'Dispatches (newsfeed) of one war, sorted by publishedAt then id, descending. With lang, message is the text of that language (null when none was collected), or with lang=all an object {"<code>": text}.',
        },
      },
    )
