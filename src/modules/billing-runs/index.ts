import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { Db } from '../../kernel/db/database.ts'
import type { JobRuntime } from '../../kernel/jobs/job-runtime.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import { createBillingRunScheduleService } from './billing-run-schedule.service.ts'
import { registerBillingRunRoutes } from './billing-runs.routes.ts'
import type { BillRunStarter } from './billing-runs.repository.ts'

/** Firing granularity is the second: poll well within it. */
export const DEFAULT_POLL_INTERVAL_MS = 500
/** The job runtime's recurring task firing billing run schedules. */
export const SCHEDULE_POLL_TASK = 'billing-run-schedules'
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

/** A bill run's row as the invoicing chain works it, and its view (composed with what invoicing adds of invoices). */
export {
  insertBillRuns,
  lockBillRun,
  nextFiringOfCycle,
  nextPendingRun,
  olderRunPending,
  updateBillRun,
  type BillRunChange,
  type BillRunRecord,
  type CycleRun,
} from './bill-run-progress.repository.ts'
export {
  billRunViewFrom,
  billRunViewJson,
  billRunWhere,
  countBillRuns,
  type BillRunFilter,
  type RunInvoiceFacts,
} from './bill-run-view.repository.ts'

/**
 * Billing run schedules, bill runs and the poll firing the schedules: a recurring task of the job runtime, run by
 * the processes that run jobs from its start to its stop (HTTP-only ones never poll). Timers live in PostgreSQL and
 * are compared with the database clock; the first poll runs at start, so a firing missed while every instance was
 * down runs then, once.
 */
export function createBillingRunsModule(deps: {
  db: Db
  actorOf: ActorOf
  log: Pick<Logger, 'warn'>
  jobs: JobRuntime
  pollIntervalMs?: number
  /** The bill runs a firing creates are the invoicing module's. */
  runs: BillRunStarter
}) {
  const schedules = createBillingRunScheduleService({ db: deps.db, log: deps.log, runs: deps.runs })
  // The application instance is recorded on each firing.
  const timer = deps.jobs.every(SCHEDULE_POLL_TASK, deps.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, () =>
    schedules.poll(deps.jobs.instanceId),
  )
  return {
    schedules,
    timer,
    routes(app: FastifyInstance) {
      registerBillingRunRoutes(app, { schedules, actorOf: deps.actorOf })
    },
  }
}
