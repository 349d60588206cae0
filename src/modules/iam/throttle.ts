import { sql } from 'drizzle-orm'
import { one, type Db } from '../../kernel/db/database.ts'

export interface ThrottleOptions {
  maxFailures: number
  windowSec: number
}

/**
 * Failed authentications counted per key (`client:<id>`, `address:<ip>`) in the database, so every instance
 * sees the same count. A key at the limit is refused until its window ends.
 */
export class AuthThrottle {
  private readonly db: Db
  private readonly options: ThrottleOptions

  constructor(db: Db, options: ThrottleOptions) {
    this.db = db
    this.options = options
  }

  /** Seconds until the key may try again, or 0 when it is not blocked. */
  async retryAfter(keys: string[]): Promise<number> {
    let wait = 0
    for (const key of keys) {
      const row = await one<{ failures: number; remaining: number }>(
        this.db,
        sql`select failures, ceil(extract(epoch from (window_start + make_interval(secs => ${this.options.windowSec}) - now())))::int as remaining
          from obol_secrets.auth_throttle where key = ${key}`,
      )
      if (row && row.remaining > 0 && row.failures >= this.options.maxFailures) wait = Math.max(wait, row.remaining)
    }
    return wait
  }

  async recordFailure(keys: string[]): Promise<void> {
    for (const key of keys) {
      // One atomic upsert: a window that has ended starts again at one failure.
      await this.db
        .execute(sql`insert into obol_secrets.auth_throttle (key, failures, window_start) values (${key}, 1, now())
        on conflict (key) do update set
          failures = case when auth_throttle.window_start < now() - make_interval(secs => ${this.options.windowSec}) then 1 else auth_throttle.failures + 1 end,
          window_start = case when auth_throttle.window_start < now() - make_interval(secs => ${this.options.windowSec}) then now() else auth_throttle.window_start end`)
    }
  }

  async clear(keys: string[]): Promise<void> {
    for (const key of keys) await this.db.execute(sql`delete from obol_secrets.auth_throttle where key = ${key}`)
  }
}
