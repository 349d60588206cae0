import type { FastifyInstance } from 'fastify'
import type { Database } from '../../kernel/db/database.ts'
import { registerQueryRoutes } from './query.routes.ts'
import { createQueryEngine } from './query.service.ts'
import { routeFamily } from '../../kernel/http/error-handler.ts'

export type * from './query.model.ts'
export { combine, negate, freeze, TRUE } from './query.model.ts'
export {
  createQueryEngine,
  listEnvelopeText,
  type QueryEngine,
  type ListPage,
  type ListResult,
  type FieldMapping,
} from './query.service.ts'
export { ValueProblem, valueFor } from './filter-values.ts'
/** Vetting of raw SQL, shared with the workbench's Expert statements. */
export { expertSqlProblem, loadSqlParser, type ExpertStatement, type SqlProblem } from './raw-sql.ts'
export {
  entityProjection,
  buildQuery,
  requestFromLegacyBody,
  requestFromQueryParameters,
  LEGACY_BODY_KEYS,
  type QueryRequest,
  type BuildContext,
  type BuiltQuery,
} from './request-parser.ts'
export { parseFilters, type FilterContext, type CustomFieldTemplate } from './filter-parser.ts'
export { compileList, compileCount, compileObject, type CompileOptions } from './sql-compiler.ts'

/**
 * The Query API: filter JSON and parameters → immutable AST → one parameterized statement whose JSON PostgreSQL
 * builds. `engine` is what saved report queries and the workbench run on; `routes` registers the HTTP endpoints.
 */
export function createQueryModule(deps: { database: Database }) {
  const engine = createQueryEngine(deps)
  return {
    engine,
    // The Query API and the Opencell generic API answer errors as QueryError (with `code`).
    routes: (app: FastifyInstance) =>
      routeFamily(
        app,
        { family: 'query', prefixes: ['/api/v1/query', '/api/rest/v2', '/opencell/api/rest/v2'] },
        (scope) => registerQueryRoutes(scope, engine),
      ),
  }
}
