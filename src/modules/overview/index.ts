import type { FastifyInstance } from 'fastify'
import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import type { QueryEngine } from '../query/index.ts'
import { registerOverviewRoutes } from './overview.routes.ts'
import { createOverviewService } from './overview.service.ts'

/** The landing screen's figures, read across modules' tables (read only). */
export function createOverviewModule(deps: { db: Db; clock: Clock; engine: QueryEngine }) {
  const service = createOverviewService(deps)
  return { service, routes: (app: FastifyInstance) => registerOverviewRoutes(app, service) }
}
