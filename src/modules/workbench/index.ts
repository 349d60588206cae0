import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { Clock } from '../../kernel/clock.ts'
import type { Database, Db } from '../../kernel/db/database.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import type { JobRuntime, JobType } from '../../kernel/jobs/job-runtime.ts'
import { parseDatabaseJson } from '../../kernel/decimal-json.ts'
import type { QueryEngine } from '../query/index.ts'
import type { HqlRunner, ReportQueryService } from '../reporting/index.ts'
import { createDeepService } from './deep.service.ts'
import { createExpertSchedules, expertScheduleJob } from './expert-schedule.ts'
import { createExpertService, type ExpertService } from './expert.service.ts'
import { exportPurgeJob } from './export-purge.job.ts'
import { createSchemaService } from './schema.service.ts'
import { registerWorkbenchRoutes } from './workbench.routes.ts'

export { deleteScheduleOf } from './expert-schedule.ts'

/**
 * The Expert service of the app built on a database: the scheduled-query job type, registered on the job runtime
 * before the app is built, finds it through the database its executions run on.
 */
const expertServices = new WeakMap<Db, ExpertService>()

function expertOf(db: Db): ExpertService {
  const expert = expertServices.get(db)
  if (!expert) throw new Error('no workbench module is built on this database')
  return expert
}

/** The job type of scheduled Expert queries (each schedule is a job instance of it). */
export const expertScheduledQueryJob: JobType = expertScheduleJob(expertOf)

/** The daily purge of Expert exports past the tenant's retention, in the export directory of their workbench. */
export const expertExportPurgeJob: JobType = exportPurgeJob((db) => expertOf(db).exportDir)
export { parseHql } from './hql/parser.ts'
export { toQueryAst } from './hql/to-query.ts'

/**
 * The query workbench: Deep (HQL) text parsed into the Query API's AST and run by its engine (no second engine),
 * the schema endpoints for editors, saved workbench queries (records of the reporting module), the governor and
 * the audit.
 */
export function createWorkbenchModule(deps: {
  db: Db
  bookkeeping: Db
  database: Database
  engine: QueryEngine
  clock: Clock
  jobs: JobRuntime
  exportDir: string
  log: FastifyBaseLogger
  /** Reports each Expert run that ends (`workbench.expert_run.finished`). */
  outbox: Outbox
}) {
  const deep = createDeepService(deps)
  const expert = createExpertService({ ...deps, instanceId: deps.jobs.instanceId })
  const schedules = createExpertSchedules(deps)
  expertServices.set(deps.db, expert)
  deps.jobs.addStaleSweep((db, selfId, staleSeconds) => expert.sweep(db, selfId, staleSeconds))
  const schema = createSchemaService(deps.engine)
  /** What saved report queries need to check and run a saved Deep query (100 rows, audited as REPORT). */
  const hqlRunner: HqlRunner = {
    checkHql: (text) => deep.check(text),
    runHql: async (principal, text, limit) =>
      parseDatabaseJson((await deep.run(principal, text, {}, { mode: 'REPORT', maxRows: limit })).json) as unknown[],
  }
  return {
    deep,
    expert,
    hqlRunner,
    routes: (app: FastifyInstance, queries: ReportQueryService) => {
      registerWorkbenchRoutes(app, { deep, expert, schedules, schema, queries })
      app.addHook('onClose', () => expert.stop())
    },
  }
}
