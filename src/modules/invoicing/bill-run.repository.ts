import { sql } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { textArray } from '../../kernel/model/json.ts'
import { parseDatabaseJson } from '../../kernel/decimal-json.ts'
import { allowedBillRunActions, type AutoAction, type BillRunStatus, type BillRunStep } from './bill-run.machine.ts'
import {
  billRunViewFrom,
  billRunViewJson,
  billRunWhere,
  lockBillRun,
  updateBillRun,
  type BillRunChange,
  type BillRunFilter,
  type BillRunRecord,
  type NewBillRun,
} from '../billing-runs/index.ts'
import { releaseRunOperations } from '../ordering/index.ts'

export type { NewBillRun, BillRunFilter }
/** What the chain asks of the run's and the cycle's owners, under the names it knows them by. */
export {
  countBillRuns,
  insertBillRuns,
  nextFiringOfCycle,
  nextPendingRun,
  olderRunPending,
} from '../billing-runs/index.ts'
/** The cycle's billing accounts after an id, by id, at most a limit (the lines step's batch), and their count. */
export {
  billingAccountsOfCycle as cycleAccounts,
  countBillingAccountsOfCycle as countCycleAccounts,
} from '../accounts/index.ts'

const ids = (values: readonly number[]) => sql`${textArray(values.map(String))}::bigint[]`
const num = (value: unknown) => Number(value)

/** What the chain reads of a run: its state and progress, its options, and its cycle's due date delay. */
export type RunRow = BillRunRecord<BillRunStatus, BillRunStep>

/**
 * A run, row-locked (`for no key update`: invoices referencing it may still be inserted) until the transaction ends:
 * every change of a run's state or progress is made under this lock, so two instances, a person and the job never
 * interleave on one run. `skipLocked`: undefined when another transaction holds it (the job then leaves the run to
 * whoever works on it).
 */
export async function lockRun(tx: Db, id: number, options: { skipLocked?: boolean } = {}): Promise<RunRow | undefined> {
  return lockBillRun<BillRunStatus, BillRunStep>(tx, id, options)
}

/** The fields of a run the chain changes; absent ones keep their value. */
export type RunChange = BillRunChange<BillRunStatus, BillRunStep>

export async function updateRun(tx: Db, id: number, change: RunChange, actor: string): Promise<void> {
  await updateBillRun(tx, id, change, actor)
}

/** Whether the run has anything to invoice: lines, or invoices moved in. */
export async function hasWork(tx: Db, runId: number): Promise<boolean> {
  const found = await one<{ any: boolean }>(
    tx,
    sql`select exists (select 1 from invoice_line where billing_run_id = ${runId})
      or exists (select 1 from invoice where billing_run_id = ${runId}) as any`,
  )
  return found?.any ?? false
}

/** How many billing accounts have lines of the run still without an invoice. */
export async function countAccountsWithLooseLines(tx: Db, runId: number): Promise<number> {
  const found = await one<{ n: number }>(
    tx,
    sql`select count(distinct billing_account_id)::int as n from invoice_line
      where billing_run_id = ${runId} and invoice_id is null`,
  )
  return found?.n ?? 0
}

const accountsOfRun = (runId: number) => sql`(
  select billing_account_id from invoice_line where billing_run_id = ${runId}
  union select billing_account_id from invoice where billing_run_id = ${runId} and status <> 'VALIDATED'
) a`

/** The accounts whose lines the cancel step has not removed yet, at most `limit`. */
export async function accountsToCancel(tx: Db, runId: number, limit: number): Promise<number[]> {
  const found = await rows<{ id: unknown }>(
    tx,
    sql`select billing_account_id as id from ${accountsOfRun(runId)} order by 1 limit ${limit}`,
  )
  return found.map((r) => num(r.id))
}

export async function countAccountsToCancel(tx: Db, runId: number): Promise<number> {
  const found = await one<{ n: number }>(tx, sql`select count(*)::int as n from ${accountsOfRun(runId)}`)
  return found?.n ?? 0
}

/**
 * Cancels a batch of a run's accounts (§3.1 cancel): their billed operations become OPEN again (billed by a later
 * run) or CANCELED, their lines and unvalidated invoices are deleted (with their taxes).
 */
export async function cancelAccounts(
  tx: Db,
  runId: number,
  accountIds: readonly number[],
  mode: 'REOPEN' | 'CANCEL',
): Promise<void> {
  await releaseRunOperations(tx, runId, accountIds, mode)
  await tx.execute(sql`delete from invoice_line where billing_run_id = ${runId}
    and billing_account_id = any(${ids(accountIds)})`)
  await tx.execute(sql`delete from invoice where billing_run_id = ${runId}
    and billing_account_id = any(${ids(accountIds)}) and status <> 'VALIDATED'`)
}

/** Whether a run has a validated invoice: then it cannot be cancelled. */
export async function hasValidatedInvoice(tx: Db, runId: number): Promise<boolean> {
  const found = await one<{ any: boolean }>(
    tx,
    sql`select exists (select 1 from invoice where billing_run_id = ${runId} and status = 'VALIDATED') as any`,
  )
  return found?.any ?? false
}

/** A run as the API shows it (invoicing-events.md §2.1): options, state, progress, counts and amounts. */
export interface BillRunView {
  id: number
  status: BillRunStatus
  [field: string]: unknown
}

// The amounts are the sums over the run's invoices that are not cancelled (§2.1).
const billRunJson = billRunViewJson({
  counts: sql`(select coalesce(jsonb_object_agg(s.status, s.n), '{}'::jsonb) from
      (select status, count(*) as n from invoice where billing_run_id = r.id group by status) s)`,
  amountWithoutTax: sql`coalesce(t.without_tax, 0)`,
  amountTax: sql`coalesce(t.tax, 0)`,
  amountWithTax: sql`coalesce(t.with_tax, 0)`,
})

const billRunFrom =
  billRunViewFrom(sql`left join lateral (select sum(amount_without_tax) as without_tax, sum(amount_tax) as tax,
    sum(amount_with_tax) as with_tax from invoice where billing_run_id = r.id and status <> 'CANCELLED') t on true`)

export async function findBillRuns(
  db: Db,
  filter: BillRunFilter,
  page?: { offset: number; limit: number },
): Promise<BillRunView[]> {
  const tail = page ? sql` order by r.id desc limit ${page.limit} offset ${page.offset}` : sql` order by r.id`
  const found = await rows<{ j: string }>(
    db,
    sql`select (${billRunJson})::text as j from ${billRunFrom} where ${billRunWhere(filter)}${tail}`,
  )
  return found.map((row) => withActions(parseDatabaseJson(row.j) as BillRunView))
}

/** A run with the actions its state allows (asked of the machine, so a screen shows only what will be accepted). */
function withActions(run: BillRunView): BillRunView {
  const { progress, counts } = run as unknown as {
    progress: { step: BillRunStep | null }
    counts: { invoices: Record<string, number> }
  }
  const allowedActions = allowedBillRunActions({
    status: run.status,
    step: progress.step,
    suspectAutoAction: run.suspectAutoAction as AutoAction | null,
    rejectAutoAction: run.rejectAutoAction as AutoAction | null,
    invoices: counts.invoices,
  })
  return { ...run, allowedActions }
}

/** What a bill run inherits from its billing cycle: the date delays and the aggregation rules. */
export interface CycleRules {
  id: number
  code: string
  invoiceDateDelay: number
  lastTransactionDateDelay: number
  ignoreOrders: boolean
  ignoreSubscriptions: boolean
  dateAggregation: string
  discountAggregation: boolean
  disableAggregation: boolean
}

export async function cycleRules(db: Db, code: string): Promise<CycleRules | undefined> {
  const found = await one<Omit<CycleRules, 'id'> & { id: string | number }>(
    db,
    sql`select c.id, c.code, c.invoice_date_delay as "invoiceDateDelay",
      c.last_transaction_date_delay as "lastTransactionDateDelay", c.ignore_orders as "ignoreOrders",
      c.ignore_subscriptions as "ignoreSubscriptions", c.date_aggregation as "dateAggregation",
      c.discount_aggregation as "discountAggregation", c.disable_aggregation as "disableAggregation"
      from billing_cycle c where c.code = ${code}`,
  )
  return found && { ...found, id: Number(found.id) }
}

/** The database clock. */
export async function databaseNow(db: Db): Promise<Date> {
  const found = await one<{ now: string }>(
    db,
    sql`select to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as now`,
  )
  return new Date(found!.now)
}

/** A billing cycle's rules as a preview bills with them, and its due date delay. */
export async function cycleOf(db: Db, id: number): Promise<CycleRules & { dueDateDelay: number }> {
  const found = await one<Omit<CycleRules, 'id'> & { id: string | number; dueDateDelay: number }>(
    db,
    sql`select c.id, c.code, c.invoice_date_delay as "invoiceDateDelay",
      c.last_transaction_date_delay as "lastTransactionDateDelay", c.ignore_orders as "ignoreOrders",
      c.ignore_subscriptions as "ignoreSubscriptions", c.date_aggregation as "dateAggregation",
      c.discount_aggregation as "discountAggregation", c.disable_aggregation as "disableAggregation",
      c.due_date_delay as "dueDateDelay"
      from billing_cycle c where c.id = ${id}`,
  )
  if (!found) throw new Error(`billing cycle ${id} is missing`)
  return { ...found, id: Number(found.id) }
}
