/**
 * The paged historical routes: player counts, planet status, war summary, major orders,
 * major order progress and dispatches. Each validates, resolves its filters with the
 * shared helpers (paging, dates, aliases), runs one query function and returns the
 * shared paged body. Never cached.
 */
import { Elysia, t } from 'elysia'
import { dateString, timeRange } from '../http/dates.ts'
import { errorResponses } from '../http/errors.ts'
import { Paged, pageOf, paged, pagingQuery, type PageLimits } from '../http/paging.ts'
import { badRequest, integerString, LangQuery, langOf, parseInteger, planetIndexOf, PlanetIdQuery, UINT32_MAX, warIdOf, WarIdQuery } from '../http/params.ts'
import { httpPolicy } from '../http/policy.ts'
import { LocalizedDispatchRow } from '../storage/dispatches.ts'
import { LocalizedMajorOrderRow, ProgressRow } from '../storage/major-orders.ts'
import { PlanetStatusRow } from '../storage/planet-status.ts'
import { PlayerCountRow } from '../storage/player-counts.ts'
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

const StartDate = (description: string) => t.Optional(dateString('startDate', description, '2026-01-01'))
const EndDate = (description: string) => t.Optional(dateString('endDate', description, '2026-01-02 12:00:00'))

export const historyRoutes = (context: ReadContext) =>
  new Elysia({ name: 'routes/history', detail: { tags: ['history'] } })
    .use(context)
    .use(httpPolicy)
    .guard({ noStore: true }, (app) =>
      app
        .get(
          '/historical-player-count',
          async ({ query, storage, now }) => {
            const page = pageOf(query, LIMITS.playerCount)
            const range = timeRange(query, { now: now(), required: true })
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
            response: { 200: Paged(PlayerCountRow, 'A page of player-count snapshots, newest first'), ...errorResponses },
            detail: {
              summary: 'Player-count history',
              description: 'Player-count snapshots (both row shapes) between startDate and endDate, newest first; gameName (Game or Game 2) keeps one game. 400 when startDate or endDate is missing.',
            },
          },
        )
        .get(
          '/historical-planet-status',
          async ({ query, storage, now, warId: defaultWarId }) => {
            const page = pageOf(query, LIMITS.planetStatus)
            const planetIndex = planetIndexOf(query)
            if (planetIndex === undefined) throw badRequest('planetId is required')
            const warId = warIdOf(query) ?? defaultWarId
            const range = timeRange(query, { now: now(), defaultSpanMs: 24 * HOUR_MS })
            return paged(await storage.planetStatus.history({ warId, planetIndex, range }, page), page)
          },
          {
            query: t.Object({
              ...PlanetIdQuery,
              ...WarIdQuery,
              startDate: StartDate('Start of the window (inclusive). Default: endDate minus 24 hours.'),
              endDate: EndDate('End of the window (inclusive; a bare date means the whole day). Default: now.'),
              ...pagingQuery(LIMITS.planetStatus),
            }),
            response: { 200: Paged(PlanetStatusRow, 'A page of planet status snapshots, newest first'), ...errorResponses },
            detail: {
              summary: 'Planet status history',
              description: 'Status snapshots of one planet (planetId or planetID, required) of one war, newest first. Without startDate the window is the last 24 hours.',
            },
          },
        )
        .get(
          '/historical-war-summary',
          async ({ query, storage, now, warId: defaultWarId }) => {
            const page = pageOf(query, LIMITS.warSummary)
            const warId = warIdOf(query) ?? defaultWarId
            const range = timeRange(query, { now: now(), defaultSpanMs: 7 * 24 * HOUR_MS })
            return paged(await storage.warSummary.history({ warId, range }, page), page)
          },
          {
            query: t.Object({
              ...WarIdQuery,
              startDate: StartDate('Start of the window (inclusive). Default: endDate minus 7 days.'),
              endDate: EndDate('End of the window (inclusive; a bare date means the whole day). Default: now.'),
              ...pagingQuery(LIMITS.warSummary),
            }),
            response: { 200: Paged(WarSummaryRow, 'A page of war summary snapshots, newest first'), ...errorResponses },
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
            const lang = langOf(query, languages)
            return paged(await storage.majorOrders.orders({ warId: warIdOf(query), lang }, page), page)
          },
          {
            query: t.Object({
              warId: t.Optional(integerString('warId', 'Only orders of this war. Default: every war.', '801')),
              warID: t.Optional(integerString('warID', 'Alias of warId.', '801')),
              ...LangQuery,
              ...pagingQuery(LIMITS.majorOrders),
            }),
            response: { 200: Paged(LocalizedMajorOrderRow, 'A page of major orders, last seen first'), ...errorResponses },
            detail: {
              summary: 'Major orders',
              description:
                'One row per major order ever seen, sorted by lastSeenAt descending. Without warId: all wars. With lang, title, briefing and description are the texts of that language (null when none was collected), or with lang=all objects {"<code>": text}.',
            },
          },
        )
        .get(
          '/historical-major-orders/:orderId/progress',
          async ({ params, query, storage, now }) => {
            const orderId32 = parseInteger(params.orderId, 'orderId', 0, UINT32_MAX)
            const page = pageOf(query, LIMITS.progress)
            const range = timeRange(query, { now: now() })
            return paged(await storage.majorOrders.progress({ orderId32, range }, page), page)
          },
          {
            params: t.Object({ orderId: integerString('orderId', 'Major order id (orderId32, 0..4294967295).', '1234567890') }),
            query: t.Object({
              startDate: StartDate('Start of the window (inclusive). Default: open (whole history).'),
              endDate: EndDate('End of the window (inclusive; a bare date means the whole day). Default: open.'),
              ...pagingQuery(LIMITS.progress),
            }),
            response: { 200: Paged(ProgressRow, 'A page of progress snapshots, newest first'), ...errorResponses },
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
            response: { 200: Paged(LocalizedDispatchRow, 'A page of dispatches, newest first'), ...errorResponses },
            detail: {
              summary: 'Dispatches',
              description:
                'Dispatches (newsfeed) of one war, sorted by publishedAt then id, descending. With lang, message is the text of that language (null when none was collected), or with lang=all an object {"<code>": text}.',
            },
          },
        ),
    )
