import type { FastifyInstance } from 'fastify'
import type { Db } from '../../kernel/db/database.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import { createBillingRunScheduleService, type WarningLog } from './billing-run-schedule.service.ts'
import { BillingRunScheduleTimer } from './billing-run-schedule.timer.ts'
import { createBillRunService } from './billing-run.service.ts'
import { registerBillingRunRoutes } from './billing-runs.routes.ts'

export { BillingRunScheduleTimer } from './billing-run-schedule.timer.ts'
export { seedBillingRunsDemo } from './demo-data.ts'

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
}) {
  const schedules = createBillingRunScheduleService({ db: deps.db, log: deps.log })
  const billRuns = createBillRunService({ db: deps.db })
  const timer = new BillingRunScheduleTimer({
    service: schedules,
    log: deps.log,
    instanceId: deps.instanceId,
    ...(deps.pollIntervalMs === undefined ? {} : { pollIntervalMs: deps.pollIntervalMs }),
  })
  return {
    schedules,
    billRuns,
    timer,
    routes(app: FastifyInstance) {
      registerBillingRunRoutes(app, { schedules, billRuns, actorOf: deps.actorOf })
      // Closing the app stops the timer before the database goes away.
      app.addHook('onClose', () => timer.stop())
    },
  }
}
