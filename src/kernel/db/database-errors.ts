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

/**
 * The few database failures a client can cause map to clean 4xx answers. The database's own message is
 * never sent: it can carry SQL, values or table names.
 */
export function translateDatabaseError(error: unknown): AppError | undefined {
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
