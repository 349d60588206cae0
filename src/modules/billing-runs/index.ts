import type { FastifyInstance } from 'fastify'
import type { Db } from '../../kernel/db/database.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import { createBillingRunScheduleService, type WarningLog } from './billing-run-schedule.service.ts'
import { BillingRunScheduleTimer } from './billing-run-schedule.timer.ts'
import { registerBillingRunRoutes } from './billing-runs.routes.ts'
import type { BillRunStarter } from './billing-runs.repository.ts'

export { BillingRunScheduleTimer } from './billing-run-schedule.timer.ts'
export { seedBillingRunsDemo } from './demo-data.ts'
/** What the bill runs of the invoicing module share with schedules: their options' rules and wire shape. */
export {
  AUTO_ACTIONS,
  checkRunOptions,
  DATE_AGGREGATIONS,
  DEFAULT_PROCESS_TYPE,
  parseDates,
  PROCESS_TYPES,
  type AutoAction,
  type ProcessType,
} from './billing-runs.model.ts'
export { billRunBody, billRunList, billRunListQuery, billRunView, idParams } from './billing-runs.schemas.ts'
export type { BillRunBody, BillRunQuery } from './billing-runs.schemas.ts'
export type { BillRunStarter, NewBillRun } from './billing-runs.repository.ts'

/**
 * Billing run schedules, bill runs and the timer firing the schedules. The timer is not started here: processes
 * that run jobs start it (`main`), HTTP-only ones leave it stopped.
 */
export function createBillingRunsModule(deps: {
  db: Db
  actorOf: ActorOf
  log: WarningLog
  /** The application instance recorded on each timer firing. */
  instanceId: string
  pollIntervalMs?: number
  /** The bill runs a firing creates are the invoicing module's. */
  runs: BillRunStarter
}) {
  const schedules = createBillingRunScheduleService({ db: deps.db, log: deps.log, runs: deps.runs })
  const timer = new BillingRunScheduleTimer({
    service: schedules,
    log: deps.log,
    instanceId: deps.instanceId,
    ...(deps.pollIntervalMs === undefined ? {} : { pollIntervalMs: deps.pollIntervalMs }),
  })
  return {
    schedules,
    timer,
    routes(app: FastifyInstance) {
      registerBillingRunRoutes(app, { schedules, actorOf: deps.actorOf })
      // Closing the app stops the timer before the database goes away.
      app.addHook('onClose', () => timer.stop())
    },
  }
}
