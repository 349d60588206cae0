import { isDatabaseUnavailable, pgErrorOf, translateDatabaseError } from '../../kernel/db/database-errors.ts'
import { AppError } from '../../kernel/errors.ts'

/** SQLSTATE query_canceled: the statement ran past its statement timeout (PostgreSQL only). */
export const QUERY_CANCELED = '57014'

/**
 * Who ran a read statement, which decides how its failure is answered:
 * - `queryApi`: the Query API's family (list, count, get, saved report queries); `usesSql` when a raw SQL filter
 *   took part, `hint` naming what in the filters may be wrong.
 * - `workbench`: a Deep query run from its AST, with its own time limit (`timeoutMs`).
 */
export type QueryRun =
  | { readonly surface: 'queryApi'; readonly usesSql: boolean; readonly hint: () => string }
  | { readonly surface: 'workbench'; readonly timeoutMs: number }

/**
 * The one map from a failed read statement to what the client is told (docs/errors.md):
 *
 * | failure                             | Query API                         | workbench (Deep)            |
 * |-------------------------------------|-----------------------------------|-----------------------------|
 * | database unreachable                | 503 DATABASE_UNAVAILABLE          | 503 DATABASE_UNAVAILABLE    |
 * | 57014, past the statement timeout   | 503 SERVICE_UNAVAILABLE           | 408 QUERY_TIMEOUT (spec)    |
 * | any other SQLSTATE, raw SQL filter  | 400 INVALID_FILTER (SQLSTATE, hint) | —                         |
 * | 22xxx, 42xxx                        | (the kernel's translation)        | 400 INVALID_QUERY           |
 *
 * The two timeouts differ on purpose: the spec gives the workbench's Deep query 408 QUERY_TIMEOUT (DECISIONS
 * "Workbench errors"), while the Query API's statement timeout is the tenant's server-side guard, answered as the
 * service being unable to serve the read now (its contract tests hold 503). Anything else is left to the kernel's
 * translation of database errors (translateDatabaseError), which the app's error handler applies.
 */
export function queryFailure(error: unknown, run: QueryRun): unknown {
  const code = pgErrorOf(error)?.code
  if (code === undefined || isDatabaseUnavailable(error)) return error
  if (code === QUERY_CANCELED) {
    return run.surface === 'workbench'
      ? new AppError('QUERY_TIMEOUT', `The query ran past its ${Math.round(run.timeoutMs / 1000)} s limit`)
      : (translateDatabaseError(error) ?? error)
  }
  if (run.surface === 'queryApi') {
    return run.usesSql
      ? new AppError('INVALID_FILTER', `filters: the SQL filter could not be run (SQLSTATE ${code})${run.hint()}`)
      : error
  }
  return /^(22|42)/.test(code) ? new AppError('INVALID_QUERY', `The query could not be run (SQLSTATE ${code})`) : error
}
