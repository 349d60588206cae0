import { sql } from 'drizzle-orm'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { one, type Db } from '../../kernel/db/database.ts'
import { readTenantSettings } from '../../kernel/settings.ts'
import { nextFiring, type ScheduleTiming } from './billing-runs.model.ts'
import { databaseNow } from './billing-runs.repository.ts'

/** Demo: a monthly schedule billing CYC_MONTHLY at midnight on the 1st (tenant time zone). Idempotent. */
export async function seedBillingRunsDemo(db: Db): Promise<{ created: boolean }> {
  return withTransaction(db, async (tx) => {
    const cycle = await one<{ id: string | number }>(tx, sql`select id from billing_cycle where code = 'CYC_MONTHLY'`)
    if (!cycle) return { created: false }
    const cron = { second: '0', minute: '0', hour: '0', dayOfMonth: '1', month: '*', dayOfWeek: '*', year: '*' }
    const timing: ScheduleTiming = { repeats: 'MONTHLY', cron, startDate: null, endDate: null }
    const next = nextFiring(timing, (await readTenantSettings(tx)).timeZone, await databaseNow(tx))
    const inserted = await one<{ id: string | number }>(
      tx,
      sql`insert into billing_run_schedule (code, name, repeats, cron, process_type, status, next_fire_date, creator)
        values ('MONTHLY_BILLING', 'MONTHLY_BILLING', 'MONTHLY', ${JSON.stringify(cron)}::jsonb, 'AUTOMATIC', 'ACTIVE',
          ${next?.toISOString() ?? null}::timestamptz, 'demo')
        on conflict (code) do nothing returning id`,
    )
    if (!inserted) return { created: false }
    await tx.execute(sql`insert into billing_run_schedule_cycle (schedule_id, billing_cycle_id, position)
      values (${inserted.id}, ${cycle.id}, 0)`)
    return { created: true }
  })
}
