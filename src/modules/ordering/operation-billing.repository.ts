/**
 * What billing does to wallet operations, for invoicing's statements: which operations a bill run may claim, marking
 * a batch BILLED, and giving billed ones back when a run or an invoice is cancelled or moved. A bill run works over
 * millions of operations, so these stay set-based: fragments its statements compose (the operation is `w`, its
 * columns read through that alias), or whole statements over the lines invoicing names. Each is the text invoicing's
 * statements had, so their plans do not change.
 */
import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../kernel/db/database.ts'
import { textArray } from '../../kernel/model/json.ts'

const ids = (values: readonly number[]) => sql`${textArray(values.map(String))}::bigint[]`

/**
 * The from-item and condition of the operations a bill run may claim for these billing accounts: OPEN ones of the
 * accounts' principal wallets (a PREPAID wallet's were paid when it was credited), dated before `cutoffDay`. The
 * operation is `w`, its wallet `wl`.
 */
export function billableOperations(billingAccountIds: readonly number[], cutoffDay: string): SQL {
  return sql`wallet_operation w join wallet wl on wl.id = w.wallet_id
    where w.billing_account_id = any(${ids(billingAccountIds)}) and w.status = 'OPEN'
      and w.operation_date < ${cutoffDay}::date and wl.wallet_type <> 'PREPAID'`
}

/**
 * An UPDATE (for a CTE) making the operations of `claims` BILLED by `runId`, each naming its line: `claims` yields
 * (id, operation_date, line_id), the operation date being the partition key. It claims: `status = 'OPEN'` is in its
 * condition, so an operation billed meanwhile by another run is skipped; it returns one row per operation billed.
 */
export function markOperationsBilled(runId: number, claims: SQL): SQL {
  return sql`update wallet_operation w set status = 'BILLED', billing_run_id = ${runId}, invoice_line_id = o.line_id
      from ${claims} o
      where w.id = o.id and w.operation_date = o.operation_date and w.status = 'OPEN'
      returning 1`
}

/**
 * Gives back what a cancelled bill run billed of these billing accounts (§3.1 cancel): its BILLED operations become
 * OPEN again, for a later run (REOPEN), or CANCELED; and every operation of the run no longer names a line (those the
 * run's cancelled invoices gave back or cancelled included), as the run's lines are removed.
 */
export async function releaseRunOperations(
  tx: Db,
  runId: number,
  billingAccountIds: readonly number[],
  mode: 'REOPEN' | 'CANCEL',
): Promise<void> {
  await tx.execute(
    mode === 'REOPEN'
      ? sql`update wallet_operation set status = 'OPEN', billing_run_id = null, invoice_line_id = null
          where billing_account_id = any(${ids(billingAccountIds)}) and billing_run_id = ${runId} and status = 'BILLED'`
      : sql`update wallet_operation set status = 'CANCELED', invoice_line_id = null
          where billing_account_id = any(${ids(billingAccountIds)}) and billing_run_id = ${runId} and status = 'BILLED'`,
  )
  await tx.execute(sql`update wallet_operation set invoice_line_id = null
    where billing_account_id = any(${ids(billingAccountIds)}) and billing_run_id = ${runId} and invoice_line_id is not null`)
}

/**
 * Invoice lines as another module's statement names them: `from` its from-list and `where` its condition, with the
 * billing account and line id of each row (SQL expressions over them). A line's operations are the BILLED ones of its
 * billing account naming it.
 */
export interface BilledLines {
  readonly from: SQL
  readonly where: SQL
  readonly billingAccountId: SQL
  readonly lineId: SQL
}

const billedOf = (lines: BilledLines) => sql`from ${lines.from}
      where ${lines.where} and w.billing_account_id = ${lines.billingAccountId} and w.status = 'BILLED'
        and w.invoice_line_id = ${lines.lineId}`

/**
 * Gives back the operations of cancelled lines (§3.2): OPEN again and out of their run (REOPEN: a later run bills
 * them) or CANCELED (CANCEL); either way they no longer name a line.
 */
export async function releaseOperationsOfLines(tx: Db, lines: BilledLines, mode: 'REOPEN' | 'CANCEL'): Promise<void> {
  await tx.execute(
    sql`update wallet_operation w set status = ${mode === 'REOPEN' ? 'OPEN' : 'CANCELED'},
        billing_run_id = ${mode === 'REOPEN' ? sql`null` : sql`w.billing_run_id`}, invoice_line_id = null
      ${billedOf(lines)}`,
  )
}

/** Moves the operations of lines into another bill run (MOVE, §3.2); they stay BILLED, naming their lines. */
export async function moveOperationsOfLines(tx: Db, lines: BilledLines, toRunId: number): Promise<void> {
  await tx.execute(
    sql`update wallet_operation w set billing_run_id = ${toRunId}
      ${billedOf(lines)}`,
  )
}

/** The code of the subscription `subscriptionId`, as a scalar subquery. */
export function subscriptionCodeOf(subscriptionId: SQL): SQL {
  return sql`(select code from subscription where id = ${subscriptionId})`
}

/** The code of the order `orderId`, as a scalar subquery. */
export function orderCodeOf(orderId: SQL): SQL {
  return sql`(select code from customer_order where id = ${orderId})`
}
