import type { FastifyInstance } from 'fastify'
import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import { createReportQueryService, type QueryDeleteListener, type QueryRunner } from './report-query.service.ts'
import { registerReportQueryRoutes } from './report-query.routes.ts'
import { routeFamily } from '../../kernel/http/error-handler.ts'

export { createReportQueryService, type ReportQueryService, type QueryRunner } from './report-query.service.ts'
export { queryApiRunner, type HqlRunner } from './query-runner.ts'
export { EXPERT_ROLES, missingExpertRole } from './report-query.model.ts'
/** A saved query's owner, type and text, for the Expert runs it starts (by hand or on its schedule). */
export { findSavedQuery } from './report-query.repository.ts'

/** Saved report queries: metadata, visibility, system queries, execution through the Query API engine. */
export function createReportingModule(deps: {
  db: Db
  runner: QueryRunner
  clock: Clock
  onDelete?: readonly QueryDeleteListener[]
}) {
  const service = createReportQueryService(deps)
  return {
    service,
    // Report queries, extracts and reports answer errors as the spec's ErrorV1 (`error_code`).
    routes: (app: FastifyInstance) =>
      routeFamily(
        app,
        { family: 'v1', prefixes: ['/api/v1/reportQueries', '/api/v1/reportExtracts', '/api/v1/reports'] },
        (scope) => registerReportQueryRoutes(scope, service),
      ),
  }
}
