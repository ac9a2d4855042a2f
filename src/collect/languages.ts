/**
 * The full-status tick's texts in the other languages (FEED_LANGUAGES after the primary):
 * assignments and newsfeed fetched once per language through the same throttled client
 * (one cache entry per endpoint and language), after the primary's payloads. A language
 * that fails is logged and left out: the tick goes on with what arrived.
 */
import type { Assignment, NewsItem } from '../feeds/upstream.ts'
import { errorText } from '../log.ts'
import type { DispatchTextInput, OrderTextInput } from '../storage/texts.ts'
import { COLLECTOR_FETCH, type FetchContext } from './collector.ts'

/** Languages fetched at once: two requests each, so at most four extra requests in flight. */
const LANGUAGES_AT_ONCE = 2

export interface LanguagePayloads {
  /** The other languages' payloads; an endpoint that failed for a language is absent. */
  fetched: { language: string; assignments?: Assignment[]; news?: NewsItem[] }[]
  /**
   * Per language, which dispatches of the primary newsfeed already have a stored text;
   * undefined when the database could not say at once (the tick then carries no other
   * language's dispatch texts: they are still in the feed at the next tick).
   */
  stored: Map<string, Set<number>> | undefined
}

/** The tick's texts beyond the primary's (which the write takes from the tick's own rows). */
export interface TextRows {
  /** Accept-Language of the tick's primary payloads. */
  primary: string
  orders: OrderTextInput[]
  dispatches: DispatchTextInput[]
}

export async function fetchLanguages(ctx: FetchContext, newsIds: number[]): Promise<LanguagePayloads> {
  const up = ctx.feeds.upstream
  const others = up.languages.slice(1)
  if (others.length === 0) return { fetched: [], stored: new Map() }
  const fetched: LanguagePayloads['fetched'] = []
  const failed: Record<string, Record<string, string>> = {}
  let next = 0
  const worker = async () => {
    while (next < others.length) {
      const language = others[next++]!
      const opts = { ...COLLECTOR_FETCH, language }
      const [assignments, news] = await Promise.allSettled([up.assignments(ctx.warId, opts), up.newsfeed(ctx.warId, opts)])
      const entry: LanguagePayloads['fetched'][number] = { language }
      if (assignments.status === 'fulfilled') entry.assignments = assignments.value.data
      else (failed[language] ??= {}).assignment = errorText(assignments.reason)
      if (news.status === 'fulfilled') entry.news = news.value.data
      else (failed[language] ??= {}).newsfeed = errorText(news.reason)
      fetched.push(entry)
    }
  }
  await Promise.all(Array.from({ length: Math.min(LANGUAGES_AT_ONCE, others.length) }, worker))
  if (Object.keys(failed).length > 0) {
    ctx.log.warn('texts unavailable in some languages; the tick goes on without them', { collector: 'full-status', warId: ctx.warId, failed })
  }
  // The order of `others`, whatever order the answers came in.
  fetched.sort((a, b) => others.indexOf(a.language) - others.indexOf(b.language))
  const stored = newsIds.length === 0 ? new Map() : await ctx.peek((store) => store.texts.storedDispatchTexts({ warId: ctx.warId, ids: newsIds }))
  return { fetched, stored }
}

/**
 * The other languages' texts of the items in the primary payloads (an item the primary
 * feed does not list yet waits for the next tick); dispatch texts only where none is
 * stored.
 */
export function textRows(primary: string, orders: Assignment[], news: NewsItem[], { fetched, stored }: LanguagePayloads): TextRows {
  const orderIds = new Set(orders.map((a) => a.id32))
  const newsIds = new Set(news.map((n) => n.id))
  return {
    primary,
    orders: fetched.flatMap(({ language, assignments = [] }) =>
      assignments
        .filter((a) => orderIds.has(a.id32))
        .map((a) => ({
          order_id32: a.id32, lang: language, title: a.setting.overrideTitle, briefing: a.setting.overrideBrief, task_description: a.setting.taskDescription,
        })),
    ),
    dispatches: stored === undefined
      ? []
      : fetched.flatMap(({ language, news: items = [] }) =>
          items.flatMap((n) =>
            newsIds.has(n.id) && n.message !== undefined && !stored.get(language)?.has(n.id) ? [{ dispatch_id: n.id, lang: language, message: n.message }] : [],
          ),
        ),
  }
}
