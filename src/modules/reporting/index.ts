import type { FastifyInstance } from 'fastify'
import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import { createReportQueryService, type QueryDeleteListener, type QueryRunner } from './report-query.service.ts'
import { registerReportQueryRoutes } from './report-query.routes.ts'

export { createReportQueryService, type ReportQueryService, type QueryRunner } from './report-query.service.ts'
export { queryApiRunner, type HqlRunner } from './query-runner.ts'
export { EXPERT_ROLES, missingExpertRole } from './report-query.model.ts'

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
    routes: (app: FastifyInstance) => registerReportQueryRoutes(app, service),
  }
}
