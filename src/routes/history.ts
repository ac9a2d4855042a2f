/**
 * The paged historical routes: player counts, planet status, war summary, major orders,
 * major order progress and dispatches. Each validates, resolves its filters with the
 * shared helpers (paging, dates, aliases), runs one storage read (pages are located in
 * storage/time-pages.ts) and returns the shared paged body, never HTTP-cached (no-store).
 *
 * Every page is kept per version of the dataset it reads (http/keep.ts). A window ending
 * now (the default last 24 hours or 7 days) is kept while no row can have entered or left it.
 */
import { Elysia, t } from 'elysia'
import { dateString, timeRange } from '../http/dates.ts'
import { errorResponses } from '../http/errors.ts'
import { Paged, pageOf, paged, pagingQuery, type PageLimits } from '../http/paging.ts'
import { badRequest, integerString, LangQuery, langOf, parseInteger, planetIndexOf, PlanetIdQuery, UINT32_MAX, warIdOf, WarIdQuery } from '../http/params.ts'
import { LocalizedDispatchRow } from '../storage/dispatches.ts'
import { LocalizedMajorOrderRow, ProgressRow } from '../storage/major-orders.ts'
import { PlanetStatusRow } from '../storage/planet-status.ts'
import { PlayerCountRow } from '../storage/player-counts.ts'
import { WarSummaryRow } from '../storage/war-summary.ts'
import type { KeepContext, RouteContext } from './context.ts'

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

/** The default windows of the windowed routes (when startDate is omitted). */
const PLANET_STATUS_SPAN_MS = 24 * HOUR_MS
const WAR_SUMMARY_SPAN_MS = 7 * 24 * HOUR_MS

type DateQuery = { startDate?: string; endDate?: string }
type C = KeepContext<DateQuery & { planetId?: string; planetID?: string; warId?: string; warID?: string }>

/**
 * A windowed route's window (planet status, war summary): from startDate (default: the
 * end minus the span) to endDate (default: now).
 */
const windowOf = (query: DateQuery, at: Date, spanMs: number) => timeRange(query, { now: at, defaultSpanMs: spanMs })

/**
 * The keep rule of a windowed route's window: one that ends now (no endDate) is `spanMs`
 * long, or starts at startDate; one with an endDate does not move.
 */
const windowSpan = (query: DateQuery, spanMs: number) => (query.endDate !== undefined ? undefined : query.startDate !== undefined ? null : spanMs)

const planetOf = (query: { planetId?: string; planetID?: string }) => {
  const planetIndex = planetIndexOf(query)
  if (planetIndex === undefined) throw badRequest('planetId is required')
  return planetIndex
}

const PlayerCountPage = Paged(PlayerCountRow, 'A page of player-count snapshots, newest first')
const PlanetStatusPage = Paged(PlanetStatusRow, 'A page of planet status snapshots, newest first')
const WarSummaryPage = Paged(WarSummaryRow, 'A page of war summary snapshots, newest first')
const MajorOrderPage = Paged(LocalizedMajorOrderRow, 'A page of major orders, last seen first')
const ProgressPage = Paged(ProgressRow, 'A page of progress snapshots, newest first')
const DispatchPage = Paged(LocalizedDispatchRow, 'A page of dispatches, newest first')

const StartDate = (description: string) => t.Optional(dateString('startDate', description, '2026-01-01'))
const EndDate = (description: string) => t.Optional(dateString('endDate', description, '2026-01-02 12:00:00'))

export const historyRoutes = (context: RouteContext) =>
  new Elysia({ name: 'routes/history', detail: { tags: ['history'] } })
    .use(context)
    .get(
      '/historical-player-count',
      async ({ query, storage, at }) => {
        const page = pageOf(query, LIMITS.playerCount)
        const range = timeRange(query, { now: at, required: true })
        return paged(await storage.playerCounts.history({ range, gameName: query.gameName }, page), page)
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
        response: { 200: PlayerCountPage, ...errorResponses },
        keep: { datasets: ['player-counts'] },
        detail: {
          summary: 'Player-count history',
          description: 'Player-count snapshots (both row shapes) between startDate and endDate, newest first; gameName (Game or Game 2) keeps one game. 400 when startDate or endDate is missing.',
        },
      },
    )
    .get(
      '/historical-planet-status',
      async ({ query, storage, at, warId }) => {
        const page = pageOf(query, LIMITS.planetStatus)
        const f = { warId: warIdOf(query) ?? warId, planetIndex: planetOf(query), range: windowOf(query, at, PLANET_STATUS_SPAN_MS) }
        return paged(await storage.planetStatus.history(f, page), page)
      },
      {
        query: t.Object({
          ...PlanetIdQuery,
          ...WarIdQuery,
          startDate: StartDate('Start of the window (inclusive). Default: endDate minus 24 hours.'),
          endDate: EndDate('End of the window (inclusive; a bare date means the whole day). Default: now.'),
          ...pagingQuery(LIMITS.planetStatus),
        }),
        response: { 200: PlanetStatusPage, ...errorResponses },
        keep: {
          datasets: ['planet-status'],
          window: {
            spanMs: ({ query }: C) => windowSpan(query, PLANET_STATUS_SPAN_MS),
            edges: ({ query, storage, at, warId }: C) =>
              storage.planetStatus.historyEdges({ warId: warIdOf(query) ?? warId, planetIndex: planetOf(query) }, windowOf(query, at, PLANET_STATUS_SPAN_MS).from!),
          },
        },
        detail: {
          summary: 'Planet status history',
          description: 'Status snapshots of one planet (planetId or planetID, required) of one war, newest first. Without startDate the window is the last 24 hours.',
        },
      },
    )
    .get(
      '/historical-war-summary',
      async ({ query, storage, at, warId }) => {
        const page = pageOf(query, LIMITS.warSummary)
        const f = { warId: warIdOf(query) ?? warId, range: windowOf(query, at, WAR_SUMMARY_SPAN_MS) }
        return paged(await storage.warSummary.history(f, page), page)
      },
      {
        query: t.Object({
          ...WarIdQuery,
          startDate: StartDate('Start of the window (inclusive). Default: endDate minus 7 days.'),
          endDate: EndDate('End of the window (inclusive; a bare date means the whole day). Default: now.'),
          ...pagingQuery(LIMITS.warSummary),
        }),
        response: { 200: WarSummaryPage, ...errorResponses },
        keep: {
          datasets: ['war-summary'],
          window: {
            spanMs: ({ query }: C) => windowSpan(query, WAR_SUMMARY_SPAN_MS),
            edges: ({ query, storage, at, warId }: C) => storage.warSummary.historyEdges({ warId: warIdOf(query) ?? warId }, windowOf(query, at, WAR_SUMMARY_SPAN_MS).from!),
          },
        },
        detail: {
          summary: 'War summary history',
          description: 'Cumulative galaxy statistics, one row per full-status tick, newest first. Without startDate the window is the last 7 days. Per-tick deltas: subtract consecutive rows.',
        },
      },
    )
    .get(
      '/historical-major-orders',
      async ({ query, storage, languages }) => {
        const page = pageOf(query, LIMITS.majorOrders)
        return paged(await storage.majorOrders.orders({ warId: warIdOf(query), lang: langOf(query, languages) }, page), page)
      },
      {
        query: t.Object({
          warId: t.Optional(integerString('warId', 'Only orders of this war. Default: every war.', '801')),
          warID: t.Optional(integerString('warID', 'Alias of warId.', '801')),
          ...LangQuery,
          ...pagingQuery(LIMITS.majorOrders),
        }),
        response: { 200: MajorOrderPage, ...errorResponses },
        keep: { datasets: ['major-orders'] },
        detail: {
          summary: 'Major orders',
          description:
            'One row per major order ever seen, sorted by lastSeenAt descending. Without warId: all wars. With lang, title, briefing and description are the texts of that language (null when none was collected), or with lang=all objects {"<code>": text}.',
        },
      },
    )
    .get(
      '/historical-major-orders/:orderId/progress',
      async ({ params, query, storage, at }) => {
        const orderId32 = parseInteger(params.orderId, 'orderId', 0, UINT32_MAX)
        const page = pageOf(query, LIMITS.progress)
        // An omitted bound stays open: the window never moves with the clock.
        const range = timeRange(query, { now: at })
        return paged(await storage.majorOrders.progress({ orderId32, range }, page), page)
      },
      {
        params: t.Object({ orderId: integerString('orderId', 'Major order id (orderId32, 0..4294967295).', '1234567890') }),
        query: t.Object({
          startDate: StartDate('Start of the window (inclusive). Default: open (whole history).'),
          endDate: EndDate('End of the window (inclusive; a bare date means the whole day). Default: open.'),
          ...pagingQuery(LIMITS.progress),
        }),
        response: { 200: ProgressPage, ...errorResponses },
        keep: { datasets: ['major-orders'] },
        detail: {
          summary: 'Major order progress',
          description: 'Progress snapshots of one major order, newest first. An unknown order gives 200 with no items.',
        },
      },
    )
    .get(
      '/historical-dispatches',
      async ({ query, storage, languages, warId: defaultWarId }) => {
        const page = pageOf(query, LIMITS.dispatches)
        const lang = langOf(query, languages)
        const warId = warIdOf(query) ?? defaultWarId
        const since = query.since === undefined ? undefined : parseInteger(query.since, 'since', 0, Number.MAX_SAFE_INTEGER)
        if (query.q !== undefined && query.q.length > Q_MAX) throw badRequest(`q must be at most ${Q_MAX} characters`)
        // PostgreSQL text cannot hold NUL: refuse it here rather than fail in the query.
        if (query.q?.includes('\u0000')) throw badRequest('q must not contain NUL characters')
        return paged(await storage.dispatches.page({ warId, since, q: query.q, lang }, page), page)
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
        response: { 200: DispatchPage, ...errorResponses },
        keep: { datasets: ['dispatches'] },
        detail: {
          summary: 'Dispatches',
          description:
            'Dispatches (newsfeed) of one war, sorted by publishedAt then id, descending. With lang, message is the text of that language (null when none was collected), or with lang=all an object {"<code>": text}.',
        },
      },
    )
