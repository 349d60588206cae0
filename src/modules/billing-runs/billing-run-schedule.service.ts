import type { Caller } from '../../kernel/caller.ts'
import type { Logger } from 'pino'
import type { Db } from '../../kernel/db/database.ts'
import { MAX_PAGE_LIMIT } from '../../kernel/http/pagination.ts'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { pgErrorOf } from '../../kernel/db/database-errors.ts'
import { AppError, validationError } from '../../kernel/errors.ts'
import { readTenantSettings } from '../../kernel/settings.ts'
import {
  afterFiring,
  nextFiring,
  scheduleFromCreate,
  scheduleFromUpdate,
  type RuleContext,
  type ScheduleBody,
} from './billing-runs.model.ts'
import * as repo from './billing-runs.repository.ts'
import { scheduleMachine } from './billing-run-schedule.machine.ts'
import { createScheduledRuns } from './billing-run.service.ts'

/** Firings claimed by one poll at most: the rest wait for the next. */
const POLL_BATCH = 200

const notFound = (code: string) => new AppError('SCHEDULE_NOT_FOUND', `Billing run schedule ${code} not found`)
const scheduleExists = (code: string) =>
  new AppError('SCHEDULE_EXISTS', `A billing run schedule named ${code} already exists`)

async function ruleContext(tx: Db): Promise<RuleContext> {
  const { timeZone } = await readTenantSettings(tx)
  return { now: await repo.databaseNow(tx), timeZone }
}

/** The ids of the billing cycles named, in order; unknown codes are a 400 naming each. */
async function resolveCycles(tx: Db, codes: readonly string[]): Promise<number[]> {
  const ids = await repo.billingCycleIds(tx, codes)
  const unknown = codes.flatMap((code, index) =>
    ids.has(code) ? [] : [{ field: `billingCycleCodes[${index}]`, message: `no billing cycle with code '${code}'` }],
  )
  if (unknown.length > 0) throw validationError(unknown)
  return codes.map((code) => ids.get(code)!)
}

/** Write races a client can cause: a duplicate name, or a billing cycle deleted while the request ran. */
function translateWriteError(error: unknown, code: string): unknown {
  const pg = pgErrorOf(error)
  if (pg?.code === '23505' && pg.constraint === 'billing_run_schedule_code_unique') {
    return scheduleExists(code)
  }
  if (pg?.code === '23503') {
    return validationError([
      { field: 'billingCycleCodes', message: 'a billing cycle was deleted while this request ran; retry' },
    ])
  }
  return error
}

export type BillingRunScheduleService = ReturnType<typeof createBillingRunScheduleService>

/** Billing run schedules: the API's use cases and the timer's claim of a due firing. */
export function createBillingRunScheduleService(deps: {
  db: Db
  log: Pick<Logger, 'warn'>
  runs: repo.BillRunStarter
}) {
  const { db, log, runs } = deps
  return {
    async create(body: ScheduleBody, actor: Pick<Caller, 'username'>): Promise<repo.ScheduleView> {
      const code = body.name?.trim() ?? ''
      try {
        return await withTransaction(db, async (tx) => {
          const state = scheduleFromCreate(body, await ruleContext(tx))
          const cycleIds = await resolveCycles(tx, state.billingCycleCodes)
          if (await repo.findSchedule(tx, state.code)) throw scheduleExists(state.code)
          const id = await repo.insertSchedule(tx, state, actor.username)
          await repo.setScheduleCycles(tx, id, cycleIds)
          return (await repo.findScheduleById(tx, id))!
        })
      } catch (error) {
        throw translateWriteError(error, code)
      }
    },

    async get(code: string): Promise<repo.ScheduleView> {
      const found = await repo.findSchedule(db, code)
      if (!found) throw notFound(code)
      return found
    },

    /**
     * Every schedule, by code; `offset` and `limit` (at most 1000) page only when sent,
     * and `limit` is echoed only then.
     */
    async list(query: { offset?: number; limit?: number }) {
      const limit = query.limit === undefined ? undefined : Math.min(query.limit, MAX_PAGE_LIMIT)
      const offset = query.offset ?? 0
      const page = await withTransaction(db, (tx) => repo.listSchedules(tx, { offset, limit }), {
        isolation: 'repeatable read',
        accessMode: 'read only',
      })
      return { total: page.total, offset, ...(limit === undefined ? {} : { limit }), data: page.data }
    },

    /** Partial: only the fields sent change; the next firing is recomputed from now. COMPLETED → 409. */
    async update(code: string, body: ScheduleBody, actor: Pick<Caller, 'username'>): Promise<repo.ScheduleView> {
      try {
        return await withTransaction(db, async (tx) => {
          const current = await repo.lockSchedule(tx, code)
          if (!current) throw notFound(code)
          // A client may send the whole schedule back: its name is accepted when it is the code.
          if (body.name !== undefined && body.name !== null && body.name !== code) {
            throw validationError([{ field: 'name', message: `expected ${code}: a schedule cannot be renamed` }])
          }
          const state = scheduleFromUpdate(repo.stateOf(current), body, await ruleContext(tx))
          if (body.billingCycleCodes !== undefined) {
            await repo.setScheduleCycles(tx, current.id, await resolveCycles(tx, state.billingCycleCodes))
          }
          await repo.updateSchedule(tx, current.id, state, actor.username)
          return (await repo.findScheduleById(tx, current.id))!
        })
      } catch (error) {
        throw translateWriteError(error, code)
      }
    },

    /** Deletes the schedule and its timer; the bill runs it created stay, carrying its code. */
    async delete(code: string): Promise<void> {
      if (!(await repo.deleteSchedule(db, code))) throw notFound(code)
    },

    /** ACTIVE → PAUSED (no firing until resumed); PAUSED stays PAUSED; COMPLETED → 409. */
    async pause(code: string, actor: Pick<Caller, 'username'>): Promise<repo.ScheduleView> {
      return withTransaction(db, async (tx) => {
        const current = await repo.lockSchedule(tx, code)
        if (!current) throw notFound(code)
        const status = scheduleMachine.next(current.status, 'pause', `Schedule ${code}`)
        if (status === current.status) return current
        await repo.setScheduleTimer(tx, current.id, { status, next: null, updater: actor.username })
        return (await repo.findScheduleById(tx, current.id))!
      })
    },

    /**
     * PAUSED → ACTIVE with the next firing computed from now; ACTIVE stays ACTIVE; COMPLETED → 409. A recurring
     * schedule whose end has passed while paused becomes COMPLETED, and the resume is refused (409).
     */
    async resume(code: string, actor: Pick<Caller, 'username'>): Promise<repo.ScheduleView> {
      const outcome = await withTransaction(db, async (tx) => {
        const current = await repo.lockSchedule(tx, code)
        if (!current) throw notFound(code)
        const resumed = scheduleMachine.next(current.status, 'resume', `Schedule ${code}`)
        if (resumed === current.status) return { view: current, ended: false }
        const { now, timeZone } = await ruleContext(tx)
        const next = nextFiring(repo.stateOf(current), timeZone, now)
        const status = next === null ? scheduleMachine.next(current.status, 'end') : resumed
        await repo.setScheduleTimer(tx, current.id, { status, next, updater: actor.username })
        return { view: (await repo.findScheduleById(tx, current.id))!, ended: next === null }
      })
      if (outcome.ended) {
        throw new AppError(
          'INVALID_STATE',
          `Schedule ${code} has no firing left before its endDate ${outcome.view.endDate ?? ''}: it is now COMPLETED`,
        )
      }
      return outcome.view
    },

    /**
     * After a change of the tenant time zone (in its transaction): each ACTIVE schedule's next firing, computed from
     * now in the new zone, as resume does. A schedule with no firing left becomes COMPLETED.
     */
    async rescheduleForTimeZone(tx: Db, timeZone: string): Promise<void> {
      const now = await repo.databaseNow(tx)
      for (const code of await repo.activeScheduleCodes(tx)) {
        const current = await repo.lockSchedule(tx, code)
        if (!current || !scheduleMachine.can(current.status, 'fire')) continue
        const next = nextFiring(repo.stateOf(current), timeZone, now)
        const status = scheduleMachine.next(current.status, next === null ? 'end' : 'fire')
        await repo.setScheduleTimer(tx, current.id, { status, next })
      }
    },

    /**
     * Fires the schedule now, whatever its state: one bill run per billing cycle. The state and the timer do not
     * change; the firing counts as the last one.
     */
    async runNow(
      code: string,
      actor: Pick<Caller, 'username'>,
    ): Promise<{ schedule: repo.ScheduleView; billingRuns: unknown[] }> {
      return withTransaction(db, async (tx) => {
        const current = await repo.lockSchedule(tx, code)
        if (!current) throw notFound(code)
        const { now, timeZone } = await ruleContext(tx)
        const ids = await createScheduledRuns(
          tx,
          runs,
          current,
          { fireTime: now, trigger: 'RUN_NOW', firedBy: actor.username },
          timeZone,
        )
        await repo.setLastFire(tx, current.id, now)
        return {
          schedule: (await repo.findScheduleById(tx, current.id))!,
          billingRuns: await runs.views(tx, ids ?? []),
        }
      })
    },

    /**
     * Fires one due time of a schedule, once across every instance: the claim (row lock, still due at the same time),
     * the unique firing record, the bill runs and the advanced timer commit together or not at all. The next firing
     * is computed from now, so firings missed while no instance ran collapse into this one.
     */
    async fireDue(id: number, due: string, firedBy: string): Promise<boolean> {
      return withTransaction(db, async (tx) => {
        const schedule = await repo.claimDueSchedule(tx, id, due)
        if (!schedule) return false
        const { now, timeZone } = await ruleContext(tx)
        const fireTime = new Date(due)
        const ids = await createScheduledRuns(tx, runs, schedule, { fireTime, trigger: 'TIMER', firedBy }, timeZone)
        let after: ReturnType<typeof afterFiring>
        try {
          after = afterFiring(repo.stateOf(schedule), timeZone, now)
        } catch (error) {
          // A stored cron the evaluator no longer accepts: the schedule cannot fire again.
          log.warn({ err: error, schedule: schedule.code }, 'billing run schedule has an invalid cron; completing it')
          after = { status: 'COMPLETED', next: null }
        }
        await repo.setScheduleTimer(tx, id, {
          status: after.status,
          next: after.next,
          ...(ids === undefined ? {} : { lastFire: fireTime }),
        })
        return ids !== undefined
      })
    },

    async completeEnded(): Promise<number> {
      return repo.completeEndedSchedules(db)
    },

    async dueSchedules(limit: number) {
      return repo.dueSchedules(db, limit)
    },

    /**
     * One poll of the recurring task (every instance that runs jobs polls; each due time fires once across them):
     * fires every due schedule (up to a batch), then completes paused schedules past their end. Answers the firings.
     */
    async poll(instanceId: string): Promise<number> {
      let fired = 0
      for (const due of await this.dueSchedules(POLL_BATCH)) {
        try {
          if (await this.fireDue(due.id, due.due, instanceId)) fired++
        } catch (error) {
          log.warn(
            { err: error, scheduleId: due.id, due: due.due },
            'billing run schedule firing failed; retried next poll',
          )
        }
      }
      await this.completeEnded()
      return fired
    },
  }
}
