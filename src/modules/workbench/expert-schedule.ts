import { sql } from 'drizzle-orm'
import type { Clock } from '../../kernel/clock.ts'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { AppError } from '../../kernel/errors.ts'
import type { Principal } from '../../kernel/http/principal.ts'
import { nextFireTime, timerError, type JobType } from '../../kernel/jobs/job-runtime.ts'
import type { ScheduleExpression } from '../../kernel/jobs/schedule-expression.ts'
import { instantText } from '../../kernel/model/json.ts'
import { readTenantSettings } from '../../kernel/settings.ts'
import { findSavedQuery, missingExpertRole, type ReportQueryService } from '../reporting/index.ts'
import { scheduleJobCode } from './expert.model.ts'
import type { ExpertService } from './expert.service.ts'

/** The job type of scheduled Expert queries; each schedule is a job instance of it. */
export const EXPERT_SCHEDULE_JOB = 'ExpertScheduledQueryJob'

export interface ExpertSchedule {
  queryCode: string
  cron: ScheduleExpression
  nextFireDate: string | null
  lastFireDate: string | null
}

/**
 * Runs a saved NATIVE_SQL query at its schedule's cadence, as its owner, through Expert mode: the schedule and the
 * owner's current roles checked, the text validated again (it may have changed), audited, a `QueryExecution` record,
 * the CSV under the same export directory. The job's execution waits for the export and counts its lines. Its error
 * names no data (anyone with api.jobs.view reads it): the run's record keeps the database's message for its owner.
 */
export function expertScheduleJob(expertOf: (db: Db) => ExpertService): JobType {
  return {
    name: EXPERT_SCHEDULE_JOB,
    description: 'Runs a saved Expert (NATIVE_SQL) query as its owner into a CSV export (parameter queryCode)',
    async run(context) {
      const code = String(context.parameters.queryCode)
      let run: Awaited<ReturnType<ExpertService['runScheduled']>>
      try {
        run = await expertOf(context.db).runScheduled(context.jobCode, context.parameters)
      } catch (error) {
        // The cause is logged with the execution's failure, not stored in it.
        throw new Error(`Scheduled Expert query ${code} could not run`, { cause: error })
      }
      if ('refused' in run) {
        // Refused once, refused at every firing: the schedule waits until someone allowed to sets it again.
        await pauseSchedule(context.db, context.jobCode)
        throw new Error(`Scheduled Expert query ${code} was refused: ${run.refused}; its schedule is paused`)
      }
      if (run.status !== 'SUCCESS') throw new Error(`Expert execution ${run.id} failed`)
      return { processed: run.lineCount ?? 0 }
    },
  }
}

/** The schedule sub-resource of saved NATIVE_SQL queries: PUT (create or replace), GET, DELETE. */
export function createExpertSchedules(deps: { db: Db; clock: Clock }) {
  /**
   * The saved query's id, if the caller may schedule it: visible to them, NATIVE_SQL, theirs (or a query manager's
   * doing), and the caller holding queryUser as well as queryExpert (the route's role), as running it needs.
   */
  async function schedulable(principal: Principal, code: string, queries: ReportQueryService): Promise<number> {
    const saved = await queries.get(principal, code)
    if (saved.queryType !== 'NATIVE_SQL')
      throw new AppError(
        'INVALID_PARAMETER',
        `${code} is a ${saved.queryType} query: only Expert queries are scheduled`,
        {
          details: [{ field: 'code', message: 'not a NATIVE_SQL query' }],
        },
      )
    const missing = missingExpertRole(principal)
    if (missing) throw new AppError('FORBIDDEN', `Scheduling an Expert query needs the role ${missing}`)
    const owner = await findSavedQuery(deps.db, code)
    if (!owner) throw new AppError('NOT_FOUND', `Saved query ${code} not found`)
    if (owner.creator !== principal.username && !principal.roles.has('queryManagement'))
      throw new AppError('FORBIDDEN', `Only the owner of ${code} or a query manager may schedule it`)
    return owner.id
  }

  /** Checks for DELETE: the schedule's query visible, its owner or a query manager asking. */
  async function removable(principal: Principal, code: string, queries: ReportQueryService): Promise<void> {
    await queries.get(principal, code)
    const owner = await findSavedQuery(deps.db, code)
    if (owner?.creator !== principal.username && !principal.roles.has('queryManagement'))
      throw new AppError('FORBIDDEN', `Only the owner of ${code} or a query manager may change its schedule`)
  }

  async function get(principal: Principal, code: string, queries: ReportQueryService): Promise<ExpertSchedule> {
    await queries.get(principal, code)
    const found = await one<{ cron: ScheduleExpression; next: string | null; last: string | null }>(
      deps.db,
      sql`select timer as cron, ${instantText(sql`next_fire_at`)} as next, ${instantText(sql`last_fire_at`)} as last
        from job_instance where code = ${scheduleJobCode(code)}`,
    )
    if (!found) throw new AppError('NOT_FOUND', `Saved query ${code} has no schedule`)
    return { queryCode: code, cron: found.cron, nextFireDate: found.next, lastFireDate: found.last }
  }

  async function put(
    principal: Principal,
    code: string,
    cron: ScheduleExpression,
    queries: ReportQueryService,
  ): Promise<ExpertSchedule> {
    const queryId = await schedulable(principal, code, queries)
    const { timeZone } = await readTenantSettings(deps.db)
    let next: Date | null
    try {
      next = nextFireTime(cron, timeZone, deps.clock.now())
    } catch (error) {
      throw timerError(error) ?? error
    }
    await deps.db.execute(sql`insert into job_instance (code, description, job_type, parameters, timer, next_fire_at,
        creator)
      values (${scheduleJobCode(code)}, ${`Scheduled Expert query ${code}`}, ${EXPERT_SCHEDULE_JOB},
        ${JSON.stringify({ queryCode: code, queryId })}::jsonb, ${JSON.stringify(cron)}::jsonb,
        ${next?.toISOString() ?? null}::timestamptz, ${principal.username})
      on conflict (code) do update set timer = excluded.timer, next_fire_at = excluded.next_fire_at, active = true,
        parameters = excluded.parameters, updater = ${principal.username}, updated = now()`)
    return get(principal, code, queries)
  }

  async function remove(principal: Principal, code: string, queries: ReportQueryService): Promise<void> {
    await removable(principal, code, queries)
    const deleted = await rows<{ id: unknown }>(
      deps.db,
      sql`delete from job_instance where code = ${scheduleJobCode(code)} returning id`,
    )
    if (deleted.length === 0) throw new AppError('NOT_FOUND', `Saved query ${code} has no schedule`)
  }

  return { get, put, remove }
}

/** A paused schedule does not fire (no next firing) until a PUT sets it again. */
async function pauseSchedule(db: Db, jobCode: string): Promise<void> {
  await db.execute(sql`update job_instance set active = false, next_fire_at = null where code = ${jobCode}`)
}

/** A schedule belongs to its query: deleted in the transaction that deletes the query. */
export async function deleteScheduleOf(tx: Db, queryCode: string): Promise<void> {
  await tx.execute(sql`delete from job_instance where code = ${scheduleJobCode(queryCode)}`)
}

export type ExpertSchedules = ReturnType<typeof createExpertSchedules>
