import { AppError } from '../../kernel/errors.ts'
import type { Db } from '../../kernel/db/database.ts'
import { takeMinuteSlot } from './workbench.repository.ts'

/**
 * The workbench governor's rate rule: every workbench query of a user (Deep and Expert alike, refused texts too)
 * takes a slot of the current minute; past `maxQueriesPerMinutePerUser` the query is refused with 429 and the
 * seconds until the next minute in Retry-After. The count lives in PostgreSQL, so it holds across instances.
 */
export async function takeQuerySlot(db: Db, username: string, now: Date, perMinute: number): Promise<void> {
  if ((await takeMinuteSlot(db, username, now, perMinute)) === undefined) throw queryLimitExceeded(now, perMinute)
}

/** The 429 of a user past the minute's slots, with the seconds until the next minute in Retry-After. */
export function queryLimitExceeded(now: Date, perMinute: number): AppError {
  const retryAfter = Math.max(1, 60 - Math.floor((now.getTime() % 60_000) / 1000))
  return new AppError(
    'QUERY_LIMIT_EXCEEDED',
    `At most ${perMinute} workbench queries a minute per user: retry in ${retryAfter} s`,
    { headers: { 'retry-after': String(retryAfter) } },
  )
}
