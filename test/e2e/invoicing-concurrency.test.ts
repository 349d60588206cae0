import { sql } from 'drizzle-orm'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp, type App } from '../../src/app.ts'
import { openPostgres, rows, type Database } from '../../src/kernel/db/database.ts'
import { JobRuntime } from '../../src/kernel/jobs/job-runtime.ts'
import { systemClock } from '../../src/kernel/clock.ts'
import { testAppDeps, useTestApp } from '../support/test-app.ts'
import { onPostgres } from '../support/test-database.ts'
import {
  freshAccounts,
  invoicesOf,
  orderFor,
  runCycle,
  seedInvoicingCatalog,
  settledRun,
  startRun,
} from './invoicing-fixtures.ts'

const t = useTestApp()

/** A second application instance on the same PostgreSQL database: its own pool, job runtime (a worker) and app. */
async function workerInstance(url: string): Promise<{ app: App; jobs: JobRuntime; close(): Promise<void> }> {
  const database: Database = openPostgres(url, { max: 5 })
  const jobs = new JobRuntime({
    database,
    clock: systemClock,
    log: pino({ level: 'silent' }),
    heartbeatIntervalMs: 200,
    instanceStaleAfterMs: 2000,
    timerPollIntervalMs: 100,
    worker: true,
    roles: 'all',
  })
  await jobs.start()
  const app = await buildApp(testAppDeps(database, jobs))
  return {
    app,
    jobs,
    close: async () => {
      await app.server.close()
      await jobs.stop(1000)
      await database.close()
    },
  }
}

/** Every wallet operation of these accounts, with the line it names and the line's invoice status. */
async function billing(accounts: readonly string[]) {
  return rows<{ status: string; lines: number; billed_twice: number; sums_match: boolean }>(
    t.db.current.db,
    sql`select
        (select string_agg(distinct w.status, ',') from wallet_operation w join billing_account ba on ba.id = w.billing_account_id
          where ba.code = any(${`{${accounts.join(',')}}`}::text[])) as status,
        (select count(*)::int from invoice_line l join billing_account ba on ba.id = l.billing_account_id
          where ba.code = any(${`{${accounts.join(',')}}`}::text[])) as lines,
        (select count(*)::int from (select l.id from invoice_line l
          join wallet_operation w on w.invoice_line_id = l.id group by l.id
          having count(*) <> max(l.wallet_operation_count)) x) as billed_twice,
        (select bool_and(l.amount_without_tax = s.total) from invoice_line l
          join (select invoice_line_id, sum(amount_without_tax) as total from wallet_operation
            where invoice_line_id is not null group by invoice_line_id) s on s.invoice_line_id = l.id) as sums_match`,
  )
}

describe.skipIf(!onPostgres)('bill runs racing (PostgreSQL server)', () => {
  let other: Awaited<ReturnType<typeof workerInstance>> | undefined

  beforeAll(async () => {
    await seedInvoicingCatalog(t)
    other = await workerInstance(t.db.url!)
  })
  afterAll(async () => {
    await other?.close()
  })

  it('two runs of one cycle started together bill each operation once: the first all, the second nothing', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'RACE', { accounts: 4 })
    for (const account of accounts) await orderFor(t, account, { fee: true, items: 2 })
    const [a, b] = await Promise.all([
      startRun(t, cycle, { processType: 'FULL_AUTOMATIC' }),
      startRun(t, cycle, { processType: 'FULL_AUTOMATIC' }),
    ])
    const [first, second] = [a, b].sort((x, y) => x.id - y.id)
    const [done1, done2] = await Promise.all([settledRun(t, first.id), settledRun(t, second.id)])
    expect(done1).toMatchObject({ status: 'VALIDATED', counts: { walletOperations: 12, invoices: { VALIDATED: 4 } } })
    expect(done2).toMatchObject({ status: 'VALIDATED', counts: { walletOperations: 0, invoices: {} } })
    const [check] = await billing(accounts)
    expect(check).toMatchObject({ status: 'BILLED', lines: 12, billed_twice: 0, sums_match: true })
  })

  it('runs of several cycles on two instances at once number their invoices without a gap or a repeat', async () => {
    const scenarios = await Promise.all(
      ['TWO_A', 'TWO_B', 'TWO_C'].map((name) => freshAccounts(t, name, { accounts: 5 })),
    )
    for (const { accounts } of scenarios) for (const account of accounts) await orderFor(t, account, { fee: true })
    const before = await rows<{ n: number }>(
      t.db.current.db,
      sql`select count(*)::int as n from invoice where invoice_number is not null`,
    )
    // Created through both instances: each instance's workers take the runs' messages.
    const started = await Promise.all(
      scenarios.map(({ cycle }, i) =>
        (i % 2 === 0 ? t.app : other!.app).server.inject({
          method: 'POST',
          url: '/api/v1/billingRuns',
          headers: { authorization: `Bearer ${t.adminToken}` },
          payload: { billingCycle: cycle, processType: 'FULL_AUTOMATIC', lastTransactionDate: '2027-01-01' },
        }),
      ),
    )
    const runs = await Promise.all(started.map((r) => settledRun(t, r.json<{ id: number }>().id)))
    for (const run of runs) expect(run).toMatchObject({ status: 'VALIDATED', counts: { invoices: { VALIDATED: 5 } } })
    const numbers = (await Promise.all(runs.map((run) => invoicesOf(t, run.id))))
      .flat()
      .map((i) => Number(String(i.invoiceNumber).slice(-6)))
      .sort((x, y) => x - y)
    expect(new Set(numbers).size).toBe(15)
    // Consecutive: the default sequence had handed out `before` numbers, these are the next fifteen.
    expect(numbers).toEqual(Array.from({ length: 15 }, (_, i) => before[0]!.n + 1 + i))
  })

  it('two whole credit notes of one invoice asked at once on two instances: one is issued (201), the other refused (422)', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'CN_RACE', { accounts: 6 })
    for (const account of accounts) await orderFor(t, account, { fee: true, items: 1 })
    const run = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC' })
    const invoices = await invoicesOf(t, run.id)
    expect(invoices).toHaveLength(6)
    // Each invoice gets two requests together, one through each instance (two pools): without the lock on the
    // invoice's row both would read nothing credited yet and both would be issued.
    const answers = await Promise.all(
      invoices.flatMap((invoice) =>
        [t.app, other!.app].map((app) =>
          app.server.inject({
            method: 'POST',
            url: `/api/v1/invoices/${invoice.id}/creditNotes`,
            headers: { authorization: `Bearer ${t.adminToken}` },
            payload: { reason: 'asked twice at once', whole: true },
          }),
        ),
      ),
    )
    for (let i = 0; i < invoices.length; i++) {
      const pair = answers.slice(2 * i, 2 * i + 2)
      expect(pair.map((a) => a.statusCode).sort()).toEqual([201, 422])
      expect(pair.find((a) => a.statusCode === 422)!.json()).toMatchObject({ errorCode: 'CREDIT_EXCEEDS_INVOICE' })
    }
    const [notes] = await rows<{ originals: number; notes: number }>(
      t.db.current.db,
      sql`select count(distinct original_invoice_id)::int as originals, count(*)::int as notes from invoice
        where original_invoice_id = any(${`{${invoices.map((i) => i.id).join(',')}}`}::bigint[])`,
    )
    expect(notes).toEqual({ originals: 6, notes: 6 })
  })
})
