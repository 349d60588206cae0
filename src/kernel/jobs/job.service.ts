import type { Clock } from '../clock.ts'
import type { Db } from '../db/database.ts'
import { AppError } from '../errors.ts'
import { readTenantSettings } from '../settings.ts'
import { nextFireTime, timerError } from './job-runtime.ts'
import { findJob, listJobs, lockJob, updateJob, type JobChange, type JobRecord } from './job.repository.ts'

export type JobService = ReturnType<typeof createJobService>

/** Reading and changing job instances; their runs and executions are the runtime's. */
export function createJobService(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps

  async function get(code: string): Promise<JobRecord> {
    const job = await findJob(db, code)
    if (!job) throw new AppError('ENTITY_NOT_FOUND', `Job ${code} not found`)
    return job
  }

  return {
    list: () => listJobs(db),
    get,

    /**
     * A partial change. The next fire time follows the timer (the new one, or the one kept) from now, in the tenant
     * time zone; a job without a timer has none. A timer that never fires again is refused with its field named.
     */
    async update(code: string, change: JobChange, updater: string): Promise<JobRecord> {
      await db.transaction(async (tx) => {
        const current = await lockJob(tx, code)
        if (!current) throw new AppError('ENTITY_NOT_FOUND', `Job ${code} not found`)
        const timer = change.timer === undefined ? current.timer : change.timer
        let next: Date | null = null
        if (timer) {
          try {
            next = nextFireTime(timer, (await readTenantSettings(tx)).timeZone, clock.now())
          } catch (error) {
            throw timerError(error) ?? error
          }
        }
        await updateJob(tx, current.id, change, next, updater)
      })
      return get(code)
    },
  }
}
