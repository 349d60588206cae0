import type { JobType } from '../../kernel/jobs/job-runtime.ts'
import { rateDueRecurringCharges } from './recurring-rating.ts'

/**
 * RecurringRatingJob: rates recurring charges in arrears, every service period whose end has passed (the first
 * wallet operation of a charge appears at the end of its first calendar period). Daily by default, shortly after
 * midnight in the tenant time zone; runnable on demand through `POST /api/v1/jobs/RecurringRatingJob/run`.
 * Parameter `concurrency` (1 to 16, default 1): transactions at once, on a PostgreSQL server only.
 */
export const recurringRatingJob: JobType = {
  name: 'RecurringRatingJob',
  description: 'Rates ended periods of recurring charges (in arrears) as wallet operations with their discounts',
  defaultInstance: {
    code: 'RecurringRatingJob',
    description: 'Rate ended recurring periods every day at 00:05',
    timer: { second: '0', minute: '5', hour: '0' },
  },
  async run(context) {
    // Parallel transactions are for a PostgreSQL server; the embedded database runs them one at a time.
    const raw = context.parameters.concurrency
    const concurrency = typeof raw === 'number' && Number.isInteger(raw) && raw >= 1 && raw <= 16 ? raw : 1
    const result = await rateDueRecurringCharges({
      concurrency,
      db: context.db,
      now: context.clock.now(),
      actor: `job:${context.jobCode}`,
      signal: context.signal,
      log: context.log,
      progress: (processed, failed) => context.progress(processed, failed),
    })
    return { processed: result.processed, failed: result.failed }
  },
}
