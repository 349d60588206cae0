import type { Db } from '../../kernel/db/database.ts'
import * as repo from './billing-runs.repository.ts'
import { addDays } from '../../kernel/time-zone.ts'

export interface Firing {
  /** The due time fired (timer), or the database time of a runNow. Dates are resolved from it. */
  fireTime: Date
  trigger: 'TIMER' | 'RUN_NOW'
  /** The application instance (timer) or the user (runNow). */
  firedBy: string
}

/**
 * Creates the bill runs of one firing of a schedule, in the caller's transaction: one per billing cycle, in
 * status NEW, with the schedule's options, its dates or else each cycle's (fire time + the cycle's delay in
 * days, in the tenant time zone), and the cycle's aggregation rules. Undefined when this timer due time was
 * already fired (the unique firing record exists): nothing is created twice.
 */
export async function createScheduledRuns(
  tx: Db,
  runs: repo.BillRunStarter,
  schedule: repo.ScheduleView,
  firing: Firing,
  timeZone: string,
): Promise<number[] | undefined> {
  const firingId = await repo.insertFiring(tx, { scheduleId: schedule.id, ...firing })
  if (firingId === undefined) return undefined
  const state = repo.stateOf(schedule)
  const cycles = await repo.scheduleCycleRules(tx, schedule.id)
  return runs.create(
    tx,
    cycles.map((cycle) => ({
      description: null,
      billingCycleId: cycle.id,
      processType: state.processType,
      lastTransactionDate:
        state.lastTransactionDate ?? addDays(firing.fireTime, cycle.lastTransactionDateDelay, timeZone),
      invoiceDate: state.invoiceDate ?? addDays(firing.fireTime, cycle.invoiceDateDelay, timeZone),
      rejectAutoAction: state.rejectAutoAction,
      suspectAutoAction: state.suspectAutoAction,
      generateAO: state.generateAO,
      computeDatesAtValidation: state.computeDatesAtValidation,
      ignoreOrders: cycle.ignoreOrders,
      ignoreSubscriptions: cycle.ignoreSubscriptions,
      dateAggregation: cycle.dateAggregation,
      discountAggregation: cycle.discountAggregation,
      disableAggregation: cycle.disableAggregation,
      scheduleCode: schedule.code,
      firingId,
      creator: firing.trigger === 'TIMER' ? 'system' : firing.firedBy,
    })),
  )
}
