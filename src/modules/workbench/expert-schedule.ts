import { sql } from 'drizzle-orm'
import type { Clock } from '../../kernel/clock.ts'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { AppError } from '../../kernel/errors.ts'
import type { Principal } from '../../kernel/http/principal.ts'
import { nextFireTime, timerError, type JobType } from '../../kernel/jobs/job-runtime.ts'
import type { ScheduleExpression } from '../../kernel/jobs/schedule-expression.ts'
import { instantText } from '../../kernel/model/json.ts'
import { readTenantSettings } from '../../kernel/settings.ts'
import type { ReportQueryService } from '../reporting/index.ts'
import { findSavedQuery } from './expert.repository.ts'
import type { ExpertService } from './expert.service.ts'

/** The job type of scheduled Expert queries; each schedule is a job instance of it. */
export const EXPERT_SCHEDULE_JOB = 'ExpertScheduledQueryJob'

/** The job instance of a saved query's schedule. */
const instanceCode = (queryCode: string) => `ExpertQuery:${queryCode}`

export interface ExpertSchedule {
  queryCode: string
  cron: ScheduleExpression
  nextFireDate: string | null
  lastFireDate: string | null
}

/**
 * Runs a saved NATIVE_SQL query at its schedule's cadence, as its owner, through Expert mode: validated again (the
 * text may have changed), audited, a `QueryExecution` record, the CSV under the same export directory. The job's
 * execution waits for the export and counts its lines.
 */
export function expertScheduleJob(expertOf: (db: Db) => ExpertService): JobType {
  return {
    name: EXPERT_SCHEDULE_JOB,
    description: 'Runs a saved Expert (NATIVE_SQL) query as its owner into a CSV export (parameter queryCode)',
    async run(context) {
      const code = context.parameters.queryCode
      if (typeof code !== 'string') throw new Error('parameter queryCode is missing')
      const run = await expertOf(context.db).runScheduled(code)
      if (run.status !== 'SUCCESS')
        throw new Error(`Expert execution ${run.id} ended ${run.status}: ${run.errorMessage ?? ''}`.trim())
      return { processed: run.lineCount ?? 0 }
    },
  }
}

/** The schedule sub-resource of saved NATIVE_SQL queries: PUT (create or replace), GET, DELETE. */
export function createExpertSchedules(deps: { db: Db; clock: Clock }) {
  /** The saved query, if the caller may schedule it: visible to them, NATIVE_SQL, theirs (or a query manager). */
  async function schedulable(principal: Principal, code: string, queries: ReportQueryService): Promise<void> {
    const saved = await queries.get(principal, code)
    if (saved.queryType !== 'NATIVE_SQL')
      throw new AppError(
        'INVALID_PARAMETER',
        `${code} is a ${saved.queryType} query: only Expert queries are scheduled`,
        {
          details: [{ field: 'code', message: 'not a NATIVE_SQL query' }],
        },
      )
    const owner = await findSavedQuery(deps.db, code)
    if (owner?.creator !== principal.username && !principal.roles.has('queryManagement'))
      throw new AppError('FORBIDDEN', `Only the owner of ${code} or a query manager may schedule it`)
  }

  async function get(principal: Principal, code: string, queries: ReportQueryService): Promise<ExpertSchedule> {
    await queries.get(principal, code)
    const found = await one<{ cron: ScheduleExpression; next: string | null; last: string | null }>(
      deps.db,
      sql`select timer as cron, ${instantText(sql`next_fire_at`)} as next, ${instantText(sql`last_fire_at`)} as last
        from job_instance where code = ${instanceCode(code)}`,
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
    await schedulable(principal, code, queries)
    const { timeZone } = await readTenantSettings(deps.db)
    let next: Date | null
    try {
      next = nextFireTime(cron, timeZone, deps.clock.now())
    } catch (error) {
      throw timerError(error) ?? error
    }
    await deps.db.execute(sql`insert into job_instance (code, description, job_type, parameters, timer, next_fire_at,
        creator)
      values (${instanceCode(code)}, ${`Scheduled Expert query ${code}`}, ${EXPERT_SCHEDULE_JOB},
        ${JSON.stringify({ queryCode: code })}::jsonb, ${JSON.stringify(cron)}::jsonb,
        ${next?.toISOString() ?? null}::timestamptz, ${principal.username})
      on conflict (code) do update set timer = excluded.timer, next_fire_at = excluded.next_fire_at, active = true,
        updater = ${principal.username}, updated = now()`)
    return get(principal, code, queries)
  }

  async function remove(principal: Principal, code: string, queries: ReportQueryService): Promise<void> {
    await schedulable(principal, code, queries)
    const deleted = await rows<{ id: unknown }>(
      deps.db,
      sql`delete from job_instance where code = ${instanceCode(code)} returning id`,
    )
    if (deleted.length === 0) throw new AppError('NOT_FOUND', `Saved query ${code} has no schedule`)
  }

  return { get, put, remove }
}

export type ExpertSchedules = ReturnType<typeof createExpertSchedules>
