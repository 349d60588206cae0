import { sql, type SQL } from 'drizzle-orm'
import { Type } from 'typebox'
import type { Db } from '../db/database.ts'
import { cachedTenantSettings } from '../settings.ts'

/** The most records one page of any list holds, whatever the client asks: a larger `limit` is lowered to it. */
export const MAX_PAGE_LIMIT = 1000

/**
 * The tenant's default page size (`defaultListLimit`, 100 unless changed), the one every list uses when no `limit`
 * is sent. Read as request paths read settings (`cachedTenantSettings`: at most a second old, this instance's own
 * change seen at once).
 */
export async function defaultPageLimit(db: Db): Promise<number> {
  return (await cachedTenantSettings(db)).defaultListLimit
}

/** What a client asks of a page: `offset` (default 0) and `limit` (default: the tenant's `defaultListLimit`). */
export interface PageRequest {
  readonly offset?: number | undefined
  readonly limit?: number | undefined
}

export interface Page {
  readonly offset: number
  readonly limit: number
}

/** The page a list serves: the tenant's default limit when none is asked, never more than MAX_PAGE_LIMIT. */
export function pageOf(request: PageRequest, defaultLimit: number): Page {
  return { offset: request.offset ?? 0, limit: Math.min(request.limit ?? defaultLimit, MAX_PAGE_LIMIT) }
}

/** `limit … offset …` of a page. Lists end their order with `id`, so pages are stable (`orderById`). */
export function pageSql(page: Page): SQL {
  return sql`limit ${page.limit} offset ${page.offset}`
}

/** The paging query parameters of a list route. */
export const PageQuery = {
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'records to skip' })),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: `records to return (default: the tenant's defaultListLimit, 100 unless changed; at most ${MAX_PAGE_LIMIT})`,
    }),
  ),
}

/**
 * Keyset paging of a huge list read newest first: the rows strictly before the last row of the previous page, by
 * `(date, id)` descending. Offset paging would read and drop every earlier row; this reads only the page.
 */
export function beforeKey(date: SQL, id: SQL, after: { date: string; id: number } | undefined): SQL {
  return after === undefined ? sql`true` : sql`(${date}, ${id}) < (${after.date}::timestamptz, ${after.id})`
}
