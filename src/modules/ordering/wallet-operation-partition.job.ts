import { sql } from 'drizzle-orm'
import { rows } from '../../kernel/db/database.ts'
import type { JobType } from '../../kernel/jobs/job-runtime.ts'

/**
 * Creates the monthly partitions of `wallet_operation` ahead of need (docs/decisions.md, "Partitioned wallet operations"): the
 * current month's and the next `monthsAhead` (default 3), and one for every month the default partition holds rows
 * of (operations dated before the partitions, or far ahead), which move into it. Safe on several instances (the
 * creation is serialized in the database).
 */
export const walletOperationPartitionJob: JobType = {
  name: 'WalletOperationPartitionJob',
  description:
    'Creates the monthly wallet operation partitions: this month, the next monthsAhead (default 3), and every month the default partition holds',
  defaultInstance: {
    code: 'WalletOperationPartitions',
    description: 'Create wallet operation partitions ahead, every day at 01:00',
    timer: { second: '0', minute: '0', hour: '1' },
    parameters: { monthsAhead: 3 },
  },
  async run(context) {
    const raw = context.parameters.monthsAhead
    const ahead = typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw <= 120 ? raw : 3
    const today = context.clock.now().toISOString().slice(0, 10)
    const created = await rows<{ created: boolean }>(
      context.db,
      sql`select obol_wallet_operation_partition(month::date) as created from (
          select ${today}::date + make_interval(months => n) as month from generate_series(0, ${ahead}) as n
          union select distinct date_trunc('month', operation_date) from wallet_operation_default
        ) as months order by month`,
    )
    return { processed: created.filter((c) => c.created).length }
  },
}
