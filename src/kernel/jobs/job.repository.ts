import { sql } from 'drizzle-orm'
import { instantText } from '../model/json.ts'
import { one, rows, type Db } from '../db/database.ts'
import type { ScheduleExpression } from './schedule-expression.ts'

/** A job instance as the API shows it. */
/** A job instance as answered: what `jobColumns` selects, instants as UTC ISO text. */
export interface JobRecord {
  code: string
  description: string | null
  jobType: string
  parameters: Record<string, unknown>
  timer: ScheduleExpression | null
  active: boolean
  nextFireAt: string | null
  lastFireAt: string | null
}

const jobColumns = sql`code, description, job_type as "jobType", parameters, timer, active,
  ${instantText(sql`next_fire_at`)} as "nextFireAt",
  ${instantText(sql`last_fire_at`)} as "lastFireAt"`

export async function findJob(db: Db, code: string): Promise<JobRecord | undefined> {
  return one<JobRecord>(db, sql`select ${jobColumns} from job_instance where code = ${code}`)
}

export async function listJobs(db: Db): Promise<JobRecord[]> {
  return rows<JobRecord>(db, sql`select ${jobColumns} from job_instance order by code`)
}

/** The job's id and timer, locked until the transaction ends: two changes of one job apply one after the other. */
export async function lockJob(
  tx: Db,
  code: string,
): Promise<{ id: number; timer: ScheduleExpression | null } | undefined> {
  return one(tx, sql`select id, timer from job_instance where code = ${code} for update`)
}

export interface JobChange {
  readonly description?: string | null
  readonly parameters?: object
  readonly timer?: ScheduleExpression | null
  readonly active?: boolean
}

/** Writes the given fields, the next fire time and who changed the job. */
export async function updateJob(
  tx: Db,
  id: number,
  change: JobChange,
  nextFireAt: Date | null,
  updater: string,
): Promise<void> {
  const sets = [
    sql`updated = now()`,
    sql`updater = ${updater}`,
    sql`next_fire_at = ${nextFireAt?.toISOString() ?? null}::timestamptz`,
  ]
  if (change.description !== undefined) sets.push(sql`description = ${change.description}`)
  if (change.parameters !== undefined) sets.push(sql`parameters = ${JSON.stringify(change.parameters)}::jsonb`)
  if (change.timer !== undefined) sets.push(sql`timer = ${change.timer ? JSON.stringify(change.timer) : null}::jsonb`)
  if (change.active !== undefined) sets.push(sql`active = ${change.active}`)
  await tx.execute(sql`update job_instance set ${sql.join(sets, sql`, `)} where id = ${id}`)
}
