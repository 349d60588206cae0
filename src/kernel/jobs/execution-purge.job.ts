import { sql } from 'drizzle-orm'
import { rows } from '../db/database.ts'
import type { JobType } from './job-runtime.ts'

/** Deletes finished job executions older than `retentionDays` (default 90), keeping history bounded. */
export const executionPurgeJob: JobType = {
  name: 'JobExecutionPurgeJob',
  description: 'Deletes finished job executions older than the retentionDays parameter (default 90)',
  defaultInstance: {
    code: 'JobExecutionPurge',
    description: 'Purge job execution history every day at 03:00',
    timer: { second: '0', minute: '0', hour: '3' },
    parameters: { retentionDays: 90 },
  },
  async run(context) {
    const raw = context.parameters.retentionDays
    const days = typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 ? raw : 90
    const deleted = await rows<{ id: unknown }>(
      context.db,
      sql`delete from job_execution where status in ('SUCCESS', 'FAILED') and ended_at < now() - make_interval(days => ${days})
        and id <> ${context.executionId} returning id`,
    )
    return { processed: deleted.length }
  },
}
