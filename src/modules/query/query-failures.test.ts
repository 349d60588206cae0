import { describe, expect, it } from 'vitest'
import { AppError, ERROR_CODES } from '../../kernel/errors.ts'
import { queryFailure, type QueryRun } from './query-failures.ts'

const pgError = (code: string) => Object.assign(new Error('canceling statement due to statement timeout'), { code })
const queryApi = (usesSql: boolean): QueryRun => ({ surface: 'queryApi', usesSql, hint: () => ': a hint' })
const deep: QueryRun = { surface: 'workbench', timeoutMs: 30_000 }

/** What the client is answered: the status and code of the AppError, or the error passed on unchanged. */
function answered(error: unknown): [number, string] | 'passed on' {
  return error instanceof AppError ? [ERROR_CODES[error.code].status, error.code] : 'passed on'
}

describe('a read statement that fails', () => {
  it.each<[string, string, QueryRun, [number, string] | 'passed on']>([
    ['past the statement timeout, Query API', '57014', queryApi(false), [503, 'SERVICE_UNAVAILABLE']],
    ['past the statement timeout, raw SQL filter', '57014', queryApi(true), [503, 'SERVICE_UNAVAILABLE']],
    ['past its time limit, Deep query (spec: 408)', '57014', deep, [408, 'QUERY_TIMEOUT']],
    ['on a raw SQL filter', '42883', queryApi(true), [400, 'INVALID_FILTER']],
    ['on a Deep query text', '22012', deep, [400, 'INVALID_QUERY']],
    ['on a Deep query, outside the query classes', '23505', deep, 'passed on'],
    ['without raw SQL, Query API', '42883', queryApi(false), 'passed on'],
    ['for an unreachable database', '57P01', queryApi(true), 'passed on'],
    ['for an unreachable database, Deep query', '08006', deep, 'passed on'],
  ])('%s (%s) is answered %j', (_what, code, run, expected) => {
    expect(answered(queryFailure(pgError(code), run))).toEqual(expected)
  })

  it('names the SQLSTATE and the hint of a raw SQL filter, and the limit of a Deep query, never the SQL', () => {
    expect((queryFailure(pgError('42883'), queryApi(true)) as AppError).message).toBe(
      'filters: the SQL filter could not be run (SQLSTATE 42883): a hint',
    )
    expect((queryFailure(pgError('57014'), deep) as AppError).message).toBe('The query ran past its 30 s limit')
  })
})
