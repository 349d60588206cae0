import { AppError } from '../errors.ts'

interface PgErrorLike {
  code?: string
  constraint?: string
  table?: string
  detail?: string
  cause?: unknown
}

/** Drizzle wraps driver errors; the PostgreSQL error (with its SQLSTATE) is somewhere in the cause chain. */
export function pgErrorOf(error: unknown): PgErrorLike | undefined {
  let current: unknown = error
  for (let i = 0; i < 5 && current && typeof current === 'object'; i++) {
    const e = current as PgErrorLike
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e
    current = e.cause
  }
  return undefined
}

/** Seconds a client is told to wait (`Retry-After`) when the database cannot be reached. */
export const DATABASE_RETRY_AFTER_SEC = 5

/**
 * SQLSTATEs of a database that is going away or cannot be reached: class 08 (connection exception), admin shutdown
 * (57P01), crash shutdown (57P02), cannot connect now (57P03, starting up or in recovery), too many connections (53300).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/
/** Errors of the socket below the driver. */
const UNAVAILABLE_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])
/** What node-postgres, its pool and PGlite say when the connection is gone, carrying no code. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'PGlite is closed',
  'PGlite is closing',
]

/**
 * Whether a failure means the database is unavailable (a stopped or restarting server, a failover, a network cut, a
 * closed embedded database) rather than anything the request did: the client may retry the same request later.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error
  for (let i = 0; i < 5 && current && typeof current === 'object'; i++) {
    const e = current as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown }
    if (typeof e.code === 'string' && (UNAVAILABLE_SQLSTATE.test(e.code) || UNAVAILABLE_ERRNO.has(e.code))) return true
    if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.some((m) => (e.message as string).startsWith(m)))
      return true
    // A connection attempt to several addresses fails with an AggregateError of each attempt's error.
    if (Array.isArray(e.errors) && e.errors.some((inner) => isDatabaseUnavailable(inner))) return true
    current = e.cause
  }
  return false
}

/**
 * The database failures a client can cause map to clean 4xx answers, an unavailable database to 503 with
 * `Retry-After`. The database's own message is never sent: it can carry SQL, values or table names.
 */
export function translateDatabaseError(error: unknown): AppError | undefined {
  if (isDatabaseUnavailable(error)) {
    return new AppError(
      'DATABASE_UNAVAILABLE',
      `The database is unavailable (stopped, restarting or unreachable); retry in ${DATABASE_RETRY_AFTER_SEC} s`,
      { headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SEC) } },
    )
  }
  const pgError = pgErrorOf(error)
  if (!pgError) return undefined
  switch (pgError.code) {
    case '23505':
      return new AppError('ENTITY_ALREADY_EXISTS', 'A record with the same unique value already exists')
    case '23503':
      return new AppError('ENTITY_IN_USE', 'The record is referenced by other records')
    case '23514':
    case '22003':
    case '22P02':
    case '22007':
    case '22008':
      return new AppError('VALIDATION_FAILED', 'A value is outside what the field accepts')
    case '22021':
    case '22P05':
      // character_not_in_repertoire, untranslatable_character: NUL or an unpaired surrogate the edge did not see.
      return new AppError(
        'VALIDATION_FAILED',
        'A text value contains a character that cannot be stored (NUL or an unpaired UTF-16 surrogate)',
      )
    case '40001':
    case '40P01':
      return new AppError(
        'INVALID_STATE',
        'A concurrent change conflicted with this request; nothing was changed, retry it',
      )
    case '57014':
      return new AppError('SERVICE_UNAVAILABLE', 'The query was cancelled because it ran past the statement timeout')
    case '25006':
      return new AppError('INVALID_PARAMETER', 'The statement tried to write in a read-only transaction')
    default:
      return undefined
  }
}
