import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import { parseDatabaseJson } from '../../kernel/decimal-json.ts'
import { AppError } from '../../kernel/errors.ts'
import type { Principal } from '../../kernel/http/principal.ts'
import { cachedTenantSettings } from '../../kernel/settings.ts'
import type { QueryEngine } from '../query/index.ts'
import { queryLimitExceeded } from './governor.ts'
import { HqlError } from './hql/lexer.ts'
import { parseHql } from './hql/parser.ts'
import { toQueryAst } from './hql/to-query.ts'
import {
  closeAudit,
  openAudit,
  openGovernedAudit,
  type AuditStatus,
  type WorkbenchMode,
} from './workbench.repository.ts'

export interface DeepResult {
  /** The rows as JSON array text (decimals exact). */
  readonly json: string
  readonly rowCount: number
  /** Rows past the limit existed and were left out. */
  readonly truncated: boolean
}

/** A Deep text's problem as the 400 the workbench answers: INVALID_QUERY with the line and column when known. */
export function invalidQuery(error: HqlError): AppError {
  return new AppError('INVALID_QUERY', error.message, {
    position: error.line === undefined ? undefined : { line: error.line, column: error.column ?? 1 },
  })
}

const auditStatusOf = (error: unknown): AuditStatus =>
  error instanceof AppError && error.code === 'QUERY_LIMIT_EXCEEDED'
    ? 'REFUSED'
    : error instanceof AppError && error.code === 'QUERY_TIMEOUT'
      ? 'TIMEOUT'
      : 'FAILED'

/**
 * Deep mode (HQL): the text is parsed into the shared query AST and run by the Query API engine, so the roles of
 * every entity reached, row-level security and the query role apply exactly as on the Query API. Read-only and
 * bounded: `maxRowsSync` rows, `maxQueryDurationSyncSec` (PostgreSQL), `maxQueriesPerMinutePerUser` per user.
 * Every submission is audited, refused and failed ones included. The audit and the governor's counts are written
 * through `bookkeeping`, whose commits do not wait for the disk: a database crash may lose the last second of them.
 */
export function createDeepService(deps: { db: Db; bookkeeping: Db; engine: QueryEngine; clock: Clock }) {
  /** Parses and resolves a text without running it (saving a query checks it so); answers its root entity. */
  function check(text: string): string {
    try {
      return toQueryAst(parseHql(text), {
        registry: deps.engine.registry,
        resolve: (name) => deps.engine.resolveEntity(name),
        parameters: undefined,
        limit: 1,
      }).ast.entity
    } catch (error) {
      if (error instanceof HqlError) throw invalidQuery(error)
      throw error
    }
  }

  async function run(
    principal: Principal,
    text: string,
    parameters: Readonly<Record<string, string>>,
    options: { mode?: WorkbenchMode; maxRows?: number; governed?: boolean } = {},
  ): Promise<DeepResult> {
    const started = deps.clock.now()
    const settings = await cachedTenantSettings(deps.db)
    const perMinute = settings.governorMaxQueriesPerMinutePerUser
    const submission = { username: principal.username, mode: options.mode ?? 'DEEP', text, at: started } as const
    // The audit entry and the governor's slot in one round trip: a refused query is audited too.
    const { id: auditId, slot } =
      options.governed === false
        ? { id: await openAudit(deps.bookkeeping, submission), slot: true }
        : await openGovernedAudit(deps.bookkeeping, submission, perMinute)
    const elapsed = () => deps.clock.now().getTime() - started.getTime()
    try {
      if (!slot) throw queryLimitExceeded(started, perMinute)
      const maxRows = options.maxRows ?? settings.governorMaxRowsSync
      let ast
      try {
        const translated = toQueryAst(parseHql(text), {
          registry: deps.engine.registry,
          resolve: (name) => deps.engine.resolveEntity(name),
          parameters,
          // One row past the limit tells whether rows were cut.
          limit: maxRows + 1,
        })
        const unused = Object.keys(parameters).filter((name) => !translated.usedParameters.has(name))
        if (unused.length > 0)
          throw new HqlError(`The parameter ${unused.join(', ')} is not used in the query (:${unused[0]!})`)
        ast = translated.ast
      } catch (error) {
        if (error instanceof HqlError) throw invalidQuery(error)
        throw error
      }
      const json = await deps.engine.runAst(principal, ast, {
        timeoutMs: settings.governorMaxQueryDurationSyncSec * 1000,
      })
      const rows = parseDatabaseJson(json) as unknown[]
      const truncated = rows.length > maxRows
      const kept = truncated ? rows.slice(0, maxRows) : rows
      await closeAudit(deps.bookkeeping, auditId, { status: 'SUCCESS', rowCount: kept.length, durationMs: elapsed() })
      return { json: truncated ? JSON.stringify(kept) : json, rowCount: kept.length, truncated }
    } catch (error) {
      const message = error instanceof Error ? error.message : 'failed'
      await closeAudit(deps.bookkeeping, auditId, {
        status: auditStatusOf(error),
        durationMs: elapsed(),
        error: error instanceof AppError ? message : 'An unexpected error occurred',
      })
      throw error
    }
  }

  return { run, check }
}

export type DeepService = ReturnType<typeof createDeepService>
