import type { Db } from './database.ts'
import { pgErrorOf } from './database-errors.ts'

/** PostgreSQL deadlock and serialization failures: the transaction was rolled back whole and may run again. */
export const RETRYABLE_SQLSTATES: ReadonlySet<string> = new Set(['40P01', '40001'])

/** Whether PostgreSQL rolled back a statement or transaction as a deadlock or serialization victim. */
export function isRetryable(error: unknown): boolean {
  return RETRYABLE_SQLSTATES.has(pgErrorOf(error)?.code ?? '')
}

export interface TransactionOptions {
  /**
   * Runs the work again, up to `attempts` in all (default 3), when this says the failure may pass on a second try.
   * Default: a deadlock or serialization victim (`isRetryable`). The work must then be safe to run again from the
   * start: everything it wrote was rolled back with the transaction.
   */
  readonly retryOn?: (error: unknown) => boolean
  readonly attempts?: number
  readonly isolation?: 'read committed' | 'repeatable read' | 'serializable'
  readonly accessMode?: 'read only' | 'read write'
}

/**
 * The one way Obol runs a transaction: `work` on a transaction handle, committed when it returns, rolled back when it
 * throws, and run again when PostgreSQL chose it as a deadlock or serialization victim (a race the client did not
 * cause, which it would otherwise receive as a 409). On the embedded database (one connection) every query inside
 * `work` must use `tx`, or it waits for itself.
 */
export async function withTransaction<T>(
  db: Db,
  work: (tx: Db) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  const retryOn = options.retryOn ?? isRetryable
  const attempts = options.attempts ?? 3
  const config = {
    ...(options.isolation ? { isolationLevel: options.isolation } : {}),
    ...(options.accessMode ? { accessMode: options.accessMode } : {}),
  }
  for (let attempt = 1; ; attempt++) {
    try {
      // An empty configuration would make Drizzle send a bare `set transaction`.
      return await (Object.keys(config).length > 0 ? db.transaction(work, config) : db.transaction(work))
    } catch (error) {
      if (attempt >= attempts || !retryOn(error)) throw error
    }
  }
}

/**
 * One statement outside a transaction, or `whenVictim` when PostgreSQL chose it as a deadlock or serialization
 * victim: the statement was rolled back whole, and the caller goes on as when its own checks failed.
 */
export async function unlessVictim<T>(write: Promise<T>, whenVictim: T): Promise<T> {
  try {
    return await write
  } catch (error) {
    if (isRetryable(error)) return whenVictim
    throw error
  }
}
