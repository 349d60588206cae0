import type { Db } from '../../kernel/db/database.ts'
import { AppError, validationError } from '../../kernel/errors.ts'
import type { Actor } from '../../kernel/resources/resource.service.ts'
import { readTenantSettings } from '../../kernel/settings.ts'
import { DEFAULT_PROCESS_TYPE, checkRunOptions, parseDates } from './billing-runs.model.ts'
import * as repo from './billing-runs.repository.ts'
import { addDays } from '../../kernel/time-zone.ts'

import type { BillRunBody, BillRunQuery } from './billing-runs.schemas.ts'
export type { BillRunBody, BillRunQuery }

export interface Firing {
  /** The due time fired (timer), or the database time of a runNow. Dates are resolved from it. */
  fireTime: Date
  trigger: 'TIMER' | 'RUN_NOW'
  /** The application instance (timer) or the user (runNow). */
  firedBy: string
}

const MAX_LIMIT = 1000

/**
 * Creates the bill runs of one firing of a schedule, in the caller's transaction: one per billing cycle, in
 * status NEW, with the schedule's options, its dates or else each cycle's (fire time + the cycle's delay in
 * days, in the tenant time zone), and the cycle's aggregation rules. Undefined when this timer due time was
 * already fired (the unique firing record exists): nothing is created twice.
 */
export async function createScheduledRuns(
  tx: Db,
  schedule: repo.ScheduleView,
  firing: Firing,
  timeZone: string,
): Promise<number[] | undefined> {
  const firingId = await repo.insertFiring(tx, { scheduleId: schedule.id, ...firing })
  if (firingId === undefined) return undefined
  const state = repo.stateOf(schedule)
  const cycles = await repo.scheduleCycleRules(tx, schedule.id)
  return repo.insertBillRuns(
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

export type BillRunService = ReturnType<typeof createBillRunService>

/** Bill runs: one-off creation with their own aggregation rules, reading and listing. */
export function createBillRunService(deps: { db: Db }) {
  const { db } = deps
  return {
    async create(body: BillRunBody, actor: Actor): Promise<repo.BillRunView> {
      return db.transaction(async (tx) => {
        const options = checkRunOptions({ ...body, processType: body.processType ?? DEFAULT_PROCESS_TYPE })
        const { timeZone } = await readTenantSettings(tx)
        const dates = parseDates(body, ['lastTransactionDate', 'invoiceDate'] as const, timeZone)
        const cycle = await repo.cycleRules(tx, body.billingCycle)
        if (!cycle) {
          throw validationError([
            { field: 'billingCycle', message: `no billing cycle with code '${body.billingCycle}'` },
          ])
        }
        const now = await repo.databaseNow(tx)
        const [id] = await repo.insertBillRuns(tx, [
          {
            description: body.description ?? null,
            billingCycleId: cycle.id,
            processType: options.processType ?? DEFAULT_PROCESS_TYPE,
            lastTransactionDate: dates.lastTransactionDate ?? addDays(now, cycle.lastTransactionDateDelay, timeZone),
            invoiceDate: dates.invoiceDate ?? addDays(now, cycle.invoiceDateDelay, timeZone),
            rejectAutoAction: options.rejectAutoAction ?? null,
            suspectAutoAction: options.suspectAutoAction ?? null,
            generateAO: body.generateAO ?? false,
            computeDatesAtValidation: body.computeDatesAtValidation ?? false,
            ignoreOrders: body.ignoreOrders ?? cycle.ignoreOrders,
            ignoreSubscriptions: body.ignoreSubscriptions ?? cycle.ignoreSubscriptions,
            dateAggregation: body.dateAggregation ?? cycle.dateAggregation,
            discountAggregation: body.discountAggregation ?? cycle.discountAggregation,
            disableAggregation: body.disableAggregation ?? cycle.disableAggregation,
            scheduleCode: null,
            firingId: null,
            creator: actor.username,
          },
        ])
        return (await repo.findBillRuns(tx, { ids: [id!] }))[0]!
      })
    },

    async get(id: number): Promise<repo.BillRunView> {
      const found = (await repo.findBillRuns(db, { ids: [id] }))[0]
      if (!found) throw new AppError('ENTITY_NOT_FOUND', `Bill run ${id} not found`)
      return found
    },

    /** Newest first; filtered by schedule, billing cycle or status. */
    async list(query: BillRunQuery) {
      const limit = Math.min(query.limit ?? (await readTenantSettings(db)).defaultListLimit, MAX_LIMIT)
      const offset = query.offset ?? 0
      const filter: repo.BillRunFilter = {
        ...(query.scheduleCode === undefined ? {} : { scheduleCode: query.scheduleCode }),
        ...(query.billingCycle === undefined ? {} : { billingCycle: query.billingCycle }),
        ...(query.status === undefined ? {} : { status: query.status }),
      }
      // One snapshot for the page and its total: timers insert bill runs concurrently.
      return db.transaction(
        async (tx) => ({
          total: await repo.countBillRuns(tx, filter),
          offset,
          limit,
          data: await repo.findBillRuns(tx, filter, { offset, limit }),
        }),
        { isolationLevel: 'repeatable read', accessMode: 'read only' },
      )
    },
  }
}
