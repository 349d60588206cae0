import type { SQL } from 'drizzle-orm'
import { AppError } from '../../kernel/errors.ts'
import type { EntityDef, EntityRegistry } from '../../kernel/model/index.ts'
import { entitiesReached, expansionWeight } from './ast-analysis.ts'
import {
  combine,
  EXPANDED_COLLECTION_LIMIT,
  EXPANDED_COLLECTION_LIMITS,
  type Condition,
  type QueryAst,
} from './query.model.ts'
import { parameterError, parameterNames, type QueryRequest } from './request-parser.ts'
import { compileCount, compileList, compileObject, type CompileOptions } from './sql-compiler.ts'
import { ID_PLACEHOLDER, toCompiled, type CompiledStatement } from './statement-cache.ts'

/**
 * The most objects (rows written, nested ones included) a response may hold, estimated before the query runs from
 * the page size and the projection, and the most characters its data may have once built. Both keep any request to
 * a few seconds and megabytes, whatever the data.
 */
const MAX_EXPANDED_OBJECTS = 100_000
export const MAX_RESPONSE_CHARS = 16 * 1024 * 1024

/** PostgreSQL takes at most 65,535 values in a statement; a request needing more is refused long before. */
const MAX_STATEMENT_VALUES = 20_000

/** What a statement answers: a page of a list, a count, or one object by id (its id a placeholder). */
export type StatementKind = 'list' | 'count' | 'get'

export const hasNumericId = (entity: EntityDef): boolean => {
  const type = entity.fields.get('id')?.type
  return type === 'long' || type === 'integer'
}

/**
 * The one compile path of the query layer: a validated AST → one parameterized statement, with the collection cut
 * its projection allows, the entities it reaches (for the caller's roles) and its bounded values. The Query API's
 * lists, counts and gets and the Deep workbench's ASTs all come through here.
 */
export function compileStatement(
  registry: EntityRegistry,
  kind: StatementKind,
  entity: EntityDef,
  built: { readonly ast: QueryAst; readonly usesSql: boolean },
  request: QueryRequest,
  options: Omit<CompileOptions, 'collectionLimit'> & { readonly count: boolean },
): CompiledStatement {
  const { ast } = built
  const collectionLimit =
    kind === 'count' ? undefined : collectionLimitFor(registry, entity, ast, request, kind === 'get' ? 1 : ast.limit)
  const compileOptions = { ...options, collectionLimit }
  let query: SQL
  if (kind === 'list') query = compileList(registry, ast, compileOptions)
  else if (kind === 'count') query = compileCount(registry, ast, compileOptions)
  else {
    if (ast.select.kind !== 'entities') throw parameterError('fields', 'aggregations are not available on get by id')
    const byId: Condition = {
      kind: 'compare',
      target: { relations: [], field: 'id' },
      op: '=',
      value: { kind: hasNumericId(entity) ? 'number' : 'text', text: ID_PLACEHOLDER },
      ignoreCase: false,
    }
    query = compileObject(registry, { ...ast, where: combine('and', [ast.where, byId]) }, compileOptions)
  }
  // A count writes no object: only what its filters and grouping read counts.
  const analysed =
    kind === 'count' && ast.select.kind === 'entities'
      ? { ...ast, select: { kind: 'entities' as const, projection: { fields: [], relations: [] } } }
      : ast
  const reached = entitiesReached(registry, analysed)
  return boundedValues(toCompiled(query, { usesSql: built.usesSql, limit: ast.limit, offset: ast.offset, reached }))
}

/**
 * The elements written per expanded collection: the largest of EXPANDED_COLLECTION_LIMITS under which `rows` root
 * rows stay within MAX_EXPANDED_OBJECTS. Refuses, before it runs, a projection that would exceed it even at the
 * smallest.
 */
function collectionLimitFor(
  registry: EntityRegistry,
  entity: EntityDef,
  ast: QueryAst,
  request: QueryRequest,
  rows: number,
): number {
  if (ast.select.kind !== 'entities') return EXPANDED_COLLECTION_LIMIT
  const projection = ast.select.projection
  let weight = 0
  for (const limit of EXPANDED_COLLECTION_LIMITS) {
    weight = expansionWeight(registry, entity, projection, limit)
    if (weight * rows <= MAX_EXPANDED_OBJECTS) return limit
  }
  const smallest = EXPANDED_COLLECTION_LIMITS[EXPANDED_COLLECTION_LIMITS.length - 1]
  throw expansionError(
    request,
    `could write up to ${Math.min(weight * rows, 1e12).toLocaleString('en-US')} objects even with collections cut at ${smallest} elements`,
  )
}

/** A request whose answer would be too large, refused naming the parameter that made it so. */
export function expansionError(request: QueryRequest, what: string): AppError {
  const names = parameterNames(request)
  const parameter =
    (request.depth ?? 0) > 0 ? names.depth : (request.nested?.length ?? 0) > 0 ? names.nested : names.fields
  const message = `${what}, more than one response may hold (${MAX_EXPANDED_OBJECTS.toLocaleString('en-US')} objects): lower ${names.depth}, expand fewer relations in ${names.nested} or ${names.fields}, or ask for fewer rows with limit`
  return new AppError('INVALID_PARAMETER', `${parameter}: ${message}`, { details: [{ field: parameter, message }] })
}

function boundedValues(compiled: CompiledStatement): CompiledStatement {
  const count = compiled.statement.values.length
  if (count > MAX_STATEMENT_VALUES) {
    throw new AppError(
      'INVALID_FILTER',
      `filters: too many conditions and values (the query would carry ${count} values, at most ${MAX_STATEMENT_VALUES})`,
      { details: [{ field: 'filters', message: `at most ${MAX_STATEMENT_VALUES} values in all` }] },
    )
  }
  return compiled
}
