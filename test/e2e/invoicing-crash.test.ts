import path from 'node:path'
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { rows } from '../../src/kernel/db/database.ts'
import { api, obol, startServer, useCli, type Server } from '../support/cli.ts'
import { createTestDatabase, onPostgres } from '../support/test-database.ts'

const { root } = useCli()

/** Polls a bill run until `done` says so (real processes: no clock to move), 90 s at most. */
async function waitRun(server: Server, id: number, done: (run: any) => boolean): Promise<any> {
  const deadline = Date.now() + 90_000
  for (;;) {
    const response = await api(server, 'GET', `/api/v1/billingRuns/${id}`)
    if (response.status === 200 && done(response.body)) return response.body
    if (Date.now() > deadline) throw new Error(`bill run ${id}: ${JSON.stringify(response.body)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe.skipIf(!onPostgres)('a bill run killed in the middle (PostgreSQL server)', { timeout: 240_000 }, () => {
  it('resumes on another instance after kill -9: every operation billed once, numbers without a gap', async () => {
    const database = await createTestDatabase()
    try {
      const env = {
        DATABASE_URL: database.url!,
        // Two billing accounts per batch: a step takes several batches.
        BILL_RUN_BATCH_SIZE: '2',
        INSTANCE_STALE_AFTER_MS: '3000',
        HEARTBEAT_INTERVAL_MS: '500',
        OBOL_FROM_SOURCES: '1',
      }
      // The demo's older operations are TREATED: 26,000 more give a run of more than 20,000 OPEN ones.
      const seeded = await obol(['seed-demo', '--volume', '26000'], env).exited
      expect(seeded.code, seeded.stderr).toBe(0)
      const db = database.database.db
      const [open] = await rows<{ n: number }>(
        db,
        sql`select count(*)::int as n from wallet_operation w join wallet wl on wl.id = w.wallet_id
          where w.status = 'OPEN' and wl.wallet_type <> 'PREPAID'`,
      )
      const first = await startServer(path.join(root, 'unused-1'), env)
      const created = await api(first, 'POST', '/api/v1/billingRuns', {
        billingCycle: 'CYC_MONTHLY',
        processType: 'FULL_AUTOMATIC',
        lastTransactionDate: '2030-01-01',
      })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      const id = created.body.id as number
      // Killed once some batches of the lines step have committed, while others have not run.
      const midway = await waitRun(first, id, (run) => run.progress.done >= 4)
      expect(midway.progress.step).toBe('CREATING_INVOICE_LINES')
      first.child.kill('SIGKILL')
      await first.exited

      const second = await startServer(path.join(root, 'unused-2'), env)
      const done = await waitRun(second, id, (run) => run.status === 'VALIDATED')
      const [check] = await rows<Record<string, number>>(
        db,
        sql`select
          ${open!.n}::int as operations,
          (select count(*)::int from wallet_operation where status = 'BILLED' and billing_run_id = ${id}) as billed,
          (select count(*)::int from wallet_operation where status = 'OPEN') as open,
          (select coalesce(sum(wallet_operation_count), 0)::int from invoice_line where billing_run_id = ${id}) as counted,
          (select count(*)::int from invoice_line l
            join (select invoice_line_id, sum(amount_without_tax) as total, count(*) as n from wallet_operation
              where invoice_line_id is not null group by invoice_line_id) w on w.invoice_line_id = l.id
            where l.amount_without_tax <> w.total or l.wallet_operation_count <> w.n) as wrong_sums,
          (select count(*)::int from invoice where billing_run_id = ${id}) as invoices,
          (select count(distinct billing_account_id)::int from wallet_operation where billing_run_id = ${id}) as accounts,
          (select count(distinct invoice_number)::int from invoice where billing_run_id = ${id}) as numbers,
          (select max(substring(invoice_number from '\\d+$')::int) - min(substring(invoice_number from '\\d+$')::int) + 1
            from invoice where billing_run_id = ${id}) as span`,
      )
      const n = check!.operations!
      const accounts = check!.accounts!
      expect(check, JSON.stringify(check)).toEqual({
        operations: n,
        billed: n,
        open: 0,
        counted: n,
        wrong_sums: 0,
        invoices: accounts,
        accounts,
        numbers: accounts,
        span: accounts,
      })
      expect(check!.operations).toBeGreaterThanOrEqual(20_000)
      expect(done.counts.walletOperations).toBe(check!.operations)
      second.child.kill('SIGTERM')
      await second.exited
    } finally {
      await database.drop()
    }
  })
})
