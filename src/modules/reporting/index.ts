import type { FastifyInstance } from 'fastify'
import type { Db } from '../../kernel/db/database.ts'
import { ReportQueryService, type QueryRunner } from './report-query.service.ts'
import { registerReportQueryRoutes } from './report-query.routes.ts'

export { ReportQueryService, type QueryRunner } from './report-query.service.ts'
export { queryApiRunner, type HqlRunner } from './query-runner.ts'

/** Saved report queries: metadata, visibility, system queries, execution through the Query API engine. */
export function createReportingModule(deps: { db: Db; runner: QueryRunner }) {
  const service = new ReportQueryService(deps.db, deps.runner)
  return {
    service,
    routes: (app: FastifyInstance) => registerReportQueryRoutes(app, service),
  }
}
