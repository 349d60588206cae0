import { sql } from 'drizzle-orm'
import { one, type Db } from '../../kernel/db/database.ts'

export interface ThrottleOptions {
  /** Failures of one identity from one address before that pair is refused. */
  maxFailures: number
  /** Failures from one address, whatever the identities, before the address is refused. */
  maxAddressFailures: number
  windowSec: number
}

/** One authentication attempt: who claims to be whom (`client` id or `user` name), from which address. */
export interface Attempt {
  kind: 'client' | 'user'
  identity: string
  address: string
}

/** Why an attempt is refused for now, and for how long. */
export interface Refusal {
  retryAfterSec: number
  /** `identity`: this identity is being guessed from this address; `address`: the address is. */
  scope: 'identity' | 'address'
}

/**
 * Failed authentications, counted in the database so every instance sees the same counts, under two keys:
 *
 * - the pair (identity, address), refused at `maxFailures`: someone guessing one client's secret or one user's
 *   password from one address is stopped, while that client or user, and everyone else at that address, still gets
 *   in with the right credentials;
 * - the address alone, refused at the much higher `maxAddressFailures`: one address trying many identities.
 *
 * There is deliberately no count per identity across addresses: it would let anyone lock any client or user out by
 * failing on purpose (client secrets are 32 random bytes and cannot be guessed; passwords have 10 characters or more).
 * A window that has ended starts again; a success clears its pair (never the address: a valid client of an attacker
 * must not reset the count of the address it guesses from).
 */
export class AuthThrottle {
  private readonly db: Db
  private readonly options: ThrottleOptions
  private lastPurge = 0

  constructor(db: Db, options: ThrottleOptions) {
    this.db = db
    this.options = options
  }

  private static keys(attempt: Attempt): { pair: string; address: string } {
    // An address has no space: `<kind>:<address> <identity>` cannot be read two ways.
    return { pair: `${attempt.kind}:${attempt.address} ${attempt.identity}`, address: `address:${attempt.address}` }
  }

  /** Whether the attempt is refused before its credentials are even checked. */
  async refusal(attempt: Attempt): Promise<Refusal | undefined> {
    const keys = AuthThrottle.keys(attempt)
    const pair = await this.blockedFor(keys.pair, this.options.maxFailures)
    if (pair > 0) return { retryAfterSec: pair, scope: 'identity' }
    const address = await this.blockedFor(keys.address, this.options.maxAddressFailures)
    if (address > 0) return { retryAfterSec: address, scope: 'address' }
    return undefined
  }

  /** Seconds until the key may try again, or 0 when it is not blocked. */
  private async blockedFor(key: string, limit: number): Promise<number> {
    const row = await one<{ failures: number; remaining: number }>(
      this.db,
      sql`select failures, ceil(extract(epoch from (window_start + make_interval(secs => ${this.options.windowSec}) - now())))::int as remaining
        from obol_secrets.auth_throttle where key = ${key}`,
    )
    return row && row.remaining > 0 && row.failures >= limit ? row.remaining : 0
  }

  async recordFailure(attempt: Attempt): Promise<void> {
    const keys = AuthThrottle.keys(attempt)
    for (const key of [keys.pair, keys.address]) {
      // One atomic upsert: a window that has ended starts again at one failure.
      await this.db
        .execute(sql`insert into obol_secrets.auth_throttle (key, failures, window_start) values (${key}, 1, now())
        on conflict (key) do update set
          failures = case when auth_throttle.window_start < now() - make_interval(secs => ${this.options.windowSec}) then 1 else auth_throttle.failures + 1 end,
          window_start = case when auth_throttle.window_start < now() - make_interval(secs => ${this.options.windowSec}) then now() else auth_throttle.window_start end`)
    }
    await this.purgeEndedWindows()
  }

  async recordSuccess(attempt: Attempt): Promise<void> {
    await this.db.execute(sql`delete from obol_secrets.auth_throttle where key = ${AuthThrottle.keys(attempt).pair}`)
  }

  /** Failures under made-up identities would otherwise pile up: rows whose window ended go, once per window. */
  private async purgeEndedWindows(): Promise<void> {
    const now = Date.now()
    if (now - this.lastPurge < this.options.windowSec * 1000) return
    this.lastPurge = now
    await this.db.execute(
      sql`delete from obol_secrets.auth_throttle where window_start < now() - make_interval(secs => ${this.options.windowSec})`,
    )
  }
}

/** The 429 message: whether this identity is being guessed from the caller's address, or the address itself is busy. */
export function refusalMessage(refusal: Refusal, identity: string): string {
  const from =
    refusal.scope === 'identity'
      ? `Too many failed authentications of ${identity} from this address`
      : 'Too many failed authentications from this address'
  return `${from}; retry in ${refusal.retryAfterSec} s`
}
