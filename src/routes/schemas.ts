/** Response schemas shared by several read routes (and the OpenAPI document). */
import { t } from 'elysia'

export const IsoDate = (description: string) => t.String({ format: 'date-time', description })

/** The error responses every validated route can give. */
export const errorResponses = {
  400: t.Object({ error: t.String() }, { description: 'Invalid parameter (the message names it)' }),
  503: t.Object({ error: t.String() }, { description: 'Database or upstream feed unavailable' }),
}
