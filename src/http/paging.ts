import { t, type TSchema } from 'elysia'
import type { PageOf, Slice } from '../storage/query.ts'
import { badRequest, DIGITS, INT32_MAX } from './params.ts'

/** The default and maximum `limit` of one paged route (spec "Limits"). */
export interface PageLimits {
  defaultLimit: number
  maxLimit: number
}

/** The page a request asked for: its number (from 1), and the rows it skips and takes. */
export interface Page extends Slice {
  page: number
}

/**
 * `page` and `limit` query parameters of a paged route. Both must be positive integers
 * (400 otherwise); a `limit` above the route's maximum is clamped to it, not rejected.
 */
export const pagingQuery = ({ defaultLimit, maxLimit }: PageLimits) => ({
  page: t.Optional(
    t.String({ pattern: DIGITS, description: 'Page number, from 1. Default 1.', examples: ['1'], error: 'page must be a positive integer' }),
  ),
  limit: t.Optional(
    t.String({
      pattern: DIGITS,
      description: `Rows per page, a positive integer. Default ${defaultLimit}; values above ${maxLimit} are clamped to ${maxLimit}.`,
      examples: [String(defaultLimit)],
      error: 'limit must be a positive integer',
    }),
  ),
})

/** The page requested by a query: validated, defaulted and clamped. */
export function pageOf(query: { page?: string; limit?: string }, { defaultLimit, maxLimit }: PageLimits): Page {
  const page = query.page === undefined ? 1 : Number(query.page)
  if (!Number.isInteger(page) || page < 1 || page > INT32_MAX) throw badRequest(`page must be an integer between 1 and ${INT32_MAX}`)
  // Any digit string is a number (possibly Infinity): only "0" is not positive.
  const asked = query.limit === undefined ? defaultLimit : Number(query.limit)
  if (!(asked >= 1)) throw badRequest('limit must be a positive integer')
  const limit = Math.min(asked, maxLimit)
  return { page, limit, offset: (page - 1) * limit }
}

/** The paged response body shared by every paged route. */
export function paged<R>({ rows, total }: PageOf<R>, { page, limit }: Page) {
  return { items: rows, page, limit, totalResults: total, totalPages: Math.ceil(total / limit) }
}

/** Response schema of a paged route whose rows match `row`. */
export const Paged = <S extends TSchema>(row: S, description: string) =>
  t.Object(
    {
      items: t.Array(row, { description: 'The rows of this page' }),
      page: t.Integer({ minimum: 1, description: 'Page number, from 1' }),
      limit: t.Integer({ minimum: 1, description: 'Rows per page after clamping' }),
      totalResults: t.Integer({ minimum: 0, description: 'Rows matching the filters, over all pages' }),
      totalPages: t.Integer({ minimum: 0, description: 'ceil(totalResults / limit); 0 when nothing matches' }),
    },
    { description },
  )
