import { sql, type SQL } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { instantText, textArray } from '../../kernel/model/json.ts'
import { parseDatabaseJson } from '../../kernel/decimal-json.ts'
import {
  allowedBillRunActions,
  type AutoAction,
  type BillRunStatus,
  type BillRunStep,
  type ProcessType,
} from './bill-run.machine.ts'
import type { Aggregation } from './invoice-lines.repository.ts'
import type { NewBillRun } from '../billing-runs/index.ts'

export type { NewBillRun }

const iso = instantText
const param = (date: Date | null) => sql`${date?.toISOString() ?? null}::timestamptz`
const ids = (values: readonly number[]) => sql`${textArray(values.map(String))}::bigint[]`
const num = (value: unknown) => Number(value)

/**
 * Inserts runs in status NEW, their lines step pending (`step` set: the job takes them at once), its progress out of
 * the cycle's billing accounts (what the step works through).
 */
export async function insertBillRuns(db: Db, runs: readonly NewBillRun[]): Promise<number[]> {
  if (runs.length === 0) return []
  const values = runs.map(
    (r) => sql`(${r.description}, 'NEW', 'CREATING_INVOICE_LINES', ${r.billingCycleId}, ${r.processType},
      ${param(r.lastTransactionDate)}, ${param(r.invoiceDate)}, ${r.rejectAutoAction}, ${r.suspectAutoAction},
      ${r.generateAO}, ${r.computeDatesAtValidation}, ${r.ignoreOrders}, ${r.ignoreSubscriptions}, ${r.dateAggregation},
      ${r.discountAggregation}, ${r.disableAggregation}, ${r.scheduleCode}, ${r.firingId}, ${r.originBillRunId ?? null},
      ${r.creator}, (select count(*) from billing_account where billing_cycle_id = ${r.billingCycleId}))`,
  )
  const inserted = await rows<{ id: string | number }>(
    db,
    sql`insert into billing_run (description, status, step, billing_cycle_id, process_type, last_transaction_date,
      invoice_date, reject_auto_action, suspect_auto_action, generate_ao, compute_dates_at_validation, ignore_orders,
      ignore_subscriptions, date_aggregation, discount_aggregation, disable_aggregation, schedule_code, firing_id,
      origin_bill_run_id, creator, progress_total)
      values ${sql.join(values, sql`, `)} returning id`,
  )
  return inserted.map((row) => Number(row.id)).sort((a, b) => a - b)
}

/** What the chain reads of a run: its state and progress, its options, and its cycle's due date delay. */
export interface RunRow extends Aggregation {
  readonly id: number
  readonly status: BillRunStatus
  readonly step: BillRunStep | null
  readonly cursor: string | null
  readonly processType: ProcessType
  readonly billingCycleId: number
  readonly dueDateDelay: number
  readonly lastTransactionDate: Date
  readonly invoiceDate: Date
  readonly rejectAutoAction: AutoAction | null
  readonly suspectAutoAction: AutoAction | null
  readonly generateAO: boolean
  readonly computeDatesAtValidation: boolean
  readonly validationRequested: boolean
  readonly cancelMode: 'REOPEN' | 'CANCEL' | null
  readonly progressTotal: number
  readonly nextBillRunId: number | null
  readonly description: string | null
  readonly scheduleCode: string | null
}

const runColumns = sql`r.id, r.status, r.step, r.cursor, r.process_type, r.billing_cycle_id, c.due_date_delay,
  ${iso(sql`r.last_transaction_date`)} as last_transaction_date, ${iso(sql`r.invoice_date`)} as invoice_date,
  r.reject_auto_action, r.suspect_auto_action, r.generate_ao, r.compute_dates_at_validation, r.validation_requested,
  r.cancel_mode, r.progress_total, r.next_bill_run_id, r.description, r.schedule_code,
  r.ignore_subscriptions, r.ignore_orders, r.date_aggregation, r.discount_aggregation, r.disable_aggregation`

function runRowOf(r: Record<string, unknown>): RunRow {
  return {
    id: num(r.id),
    status: r.status as BillRunStatus,
    step: r.step as BillRunStep | null,
    cursor: r.cursor as string | null,
    processType: r.process_type as ProcessType,
    billingCycleId: num(r.billing_cycle_id),
    dueDateDelay: num(r.due_date_delay),
    lastTransactionDate: new Date(r.last_transaction_date as string),
    invoiceDate: new Date(r.invoice_date as string),
    rejectAutoAction: r.reject_auto_action as AutoAction | null,
    suspectAutoAction: r.suspect_auto_action as AutoAction | null,
    generateAO: r.generate_ao as boolean,
    computeDatesAtValidation: r.compute_dates_at_validation as boolean,
    validationRequested: r.validation_requested as boolean,
    cancelMode: r.cancel_mode as RunRow['cancelMode'],
    progressTotal: num(r.progress_total),
    nextBillRunId: r.next_bill_run_id === null ? null : num(r.next_bill_run_id),
    description: r.description as string | null,
    scheduleCode: r.schedule_code as string | null,
    ignoreSubscriptions: r.ignore_subscriptions as boolean,
    ignoreOrders: r.ignore_orders as boolean,
    dateAggregation: r.date_aggregation as Aggregation['dateAggregation'],
    discountAggregation: r.discount_aggregation as boolean,
    disableAggregation: r.disable_aggregation as boolean,
  }
}

/**
 * A run, row-locked (`for no key update`: invoices referencing it may still be inserted) until the transaction ends:
 * every change of a run's state or progress is made under this lock, so two instances, a person and the job never
 * interleave on one run. `skipLocked`: undefined when another transaction holds it (the job then leaves the run to
 * whoever works on it).
 */
export async function lockRun(tx: Db, id: number, options: { skipLocked?: boolean } = {}): Promise<RunRow | undefined> {
  const found = await one<Record<string, unknown>>(
    tx,
    sql`select ${runColumns} from billing_run r join billing_cycle c on c.id = r.billing_cycle_id where r.id = ${id}
      for no key update of r${options.skipLocked ? sql` skip locked` : sql``}`,
  )
  return found && runRowOf(found)
}

/** The fields of a run the chain changes; absent ones keep their value. */
export interface RunChange {
  status?: BillRunStatus
  step?: BillRunStep | null
  cursor?: string | null
  progressDone?: number
  progressTotal?: number
  addProgress?: number
  addLines?: number
  addOperations?: number
  validationRequested?: boolean
  cancelMode?: 'REOPEN' | 'CANCEL' | null
  started?: boolean
  ended?: boolean
  nextBillRunId?: number
  lastError?: string | null
}

export async function updateRun(tx: Db, id: number, change: RunChange, actor: string): Promise<void> {
  const sets: SQL[] = [sql`updated = now()`, sql`updater = ${actor}`]
  if (change.status !== undefined) sets.push(sql`status = ${change.status}`)
  if (change.step !== undefined) sets.push(sql`step = ${change.step}`)
  if (change.cursor !== undefined) sets.push(sql`cursor = ${change.cursor}`)
  if (change.progressDone !== undefined) sets.push(sql`progress_done = ${change.progressDone}`)
  if (change.progressTotal !== undefined) sets.push(sql`progress_total = ${change.progressTotal}`)
  if (change.addProgress !== undefined) sets.push(sql`progress_done = progress_done + ${change.addProgress}`)
  if (change.addLines !== undefined) sets.push(sql`invoice_line_count = invoice_line_count + ${change.addLines}`)
  if (change.addOperations !== undefined)
    sets.push(sql`wallet_operation_count = wallet_operation_count + ${change.addOperations}`)
  if (change.validationRequested !== undefined) sets.push(sql`validation_requested = ${change.validationRequested}`)
  if (change.cancelMode !== undefined) sets.push(sql`cancel_mode = ${change.cancelMode}`)
  if (change.started) sets.push(sql`started_at = coalesce(started_at, now())`)
  if (change.ended) sets.push(sql`ended_at = now()`)
  if (change.nextBillRunId !== undefined) sets.push(sql`next_bill_run_id = ${change.nextBillRunId}`)
  if (change.lastError !== undefined) sets.push(sql`last_error = ${change.lastError}`)
  await tx.execute(sql`update billing_run set ${sql.join(sets, sql`, `)} where id = ${id}`)
}

/** Whether an older run of the cycle has not finished its lines step: a cycle's lines steps go oldest first. */
export async function olderRunPending(tx: Db, run: RunRow): Promise<boolean> {
  const found = await one<{ pending: boolean }>(
    tx,
    sql`select exists (select 1 from billing_run where billing_cycle_id = ${run.billingCycleId} and status = 'NEW'
      and id < ${run.id}) as pending`,
  )
  return found?.pending ?? false
}

/** The next run of the cycle waiting for its lines step, after `run`. */
export async function nextPendingRun(tx: Db, run: RunRow): Promise<number | undefined> {
  const found = await one<{ id: unknown }>(
    tx,
    sql`select id from billing_run where billing_cycle_id = ${run.billingCycleId} and status = 'NEW'
      and step = 'CREATING_INVOICE_LINES' and id > ${run.id} order by id limit 1`,
  )
  return found ? num(found.id) : undefined
}

/** The cycle's billing accounts after `afterId`, by id, at most `limit`: the lines step's batch. */
export async function cycleAccounts(tx: Db, cycleId: number, afterId: number, limit: number): Promise<number[]> {
  const found = await rows<{ id: unknown }>(
    tx,
    sql`select id from billing_account where billing_cycle_id = ${cycleId} and id > ${afterId} order by id
      limit ${limit}`,
  )
  return found.map((r) => num(r.id))
}

export async function countCycleAccounts(tx: Db, cycleId: number): Promise<number> {
  const found = await one<{ n: number }>(
    tx,
    sql`select count(*)::int as n from billing_account where billing_cycle_id = ${cycleId}`,
  )
  return found?.n ?? 0
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
  await tx.execute(
    mode === 'REOPEN'
      ? sql`update wallet_operation set status = 'OPEN', billing_run_id = null, invoice_line_id = null
          where billing_account_id = any(${ids(accountIds)}) and billing_run_id = ${runId} and status = 'BILLED'`
      : sql`update wallet_operation set status = 'CANCELED', invoice_line_id = null
          where billing_account_id = any(${ids(accountIds)}) and billing_run_id = ${runId} and status = 'BILLED'`,
  )
  // Operations a cancelled invoice of the run gave back or cancelled keep no link to the lines removed here.
  await tx.execute(sql`update wallet_operation set invoice_line_id = null
    where billing_account_id = any(${ids(accountIds)}) and billing_run_id = ${runId} and invoice_line_id is not null`)
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

const auditJson = sql`jsonb_build_object('created', ${iso(sql`r.created`)}, 'updated', ${iso(sql`r.updated`)},
  'creator', r.creator, 'updater', r.updater)`

const billRunJson = sql`jsonb_build_object(
  'id', r.id, 'description', r.description, 'status', r.status, 'billingCycle', c.code,
  'processType', r.process_type, 'processDate', ${iso(sql`r.process_date`)},
  'lastTransactionDate', ${iso(sql`r.last_transaction_date`)}, 'invoiceDate', ${iso(sql`r.invoice_date`)},
  'rejectAutoAction', r.reject_auto_action, 'suspectAutoAction', r.suspect_auto_action,
  'generateAO', r.generate_ao, 'computeDatesAtValidation', r.compute_dates_at_validation,
  'ignoreOrders', r.ignore_orders, 'ignoreSubscriptions', r.ignore_subscriptions,
  'dateAggregation', r.date_aggregation, 'discountAggregation', r.discount_aggregation,
  'disableAggregation', r.disable_aggregation, 'scheduleCode', r.schedule_code,
  'fireTime', ${iso(sql`f.fire_time`)},
  'progress', jsonb_build_object('step', r.step, 'done', r.progress_done, 'total', r.progress_total,
    'startedAt', ${iso(sql`r.started_at`)}, 'endedAt', ${iso(sql`r.ended_at`)}),
  'counts', jsonb_build_object(
    'invoices', (select coalesce(jsonb_object_agg(s.status, s.n), '{}'::jsonb) from
      (select status, count(*) as n from invoice where billing_run_id = r.id group by status) s),
    'invoiceLines', r.invoice_line_count, 'walletOperations', r.wallet_operation_count),
  'amountWithoutTax', coalesce(t.without_tax, 0), 'amountTax', coalesce(t.tax, 0),
  'amountWithTax', coalesce(t.with_tax, 0),
  'nextBillRunId', r.next_bill_run_id, 'originBillRunId', r.origin_bill_run_id, 'lastError', r.last_error,
  'auditable', ${auditJson})`

// The amounts are the sums over the run's invoices that are not cancelled (§2.1).
const billRunFrom = sql`billing_run r join billing_cycle c on c.id = r.billing_cycle_id
  left join billing_run_schedule_firing f on f.id = r.firing_id
  left join lateral (select sum(amount_without_tax) as without_tax, sum(amount_tax) as tax,
    sum(amount_with_tax) as with_tax from invoice where billing_run_id = r.id and status <> 'CANCELLED') t on true`

export interface BillRunFilter {
  ids?: readonly number[]
  scheduleCode?: string
  billingCycle?: string
  status?: string
}

function billRunWhere(filter: BillRunFilter): SQL {
  const conditions: SQL[] = [sql`true`]
  if (filter.ids) conditions.push(sql`r.id = any(${ids(filter.ids)})`)
  if (filter.scheduleCode !== undefined) conditions.push(sql`r.schedule_code = ${filter.scheduleCode}`)
  if (filter.billingCycle !== undefined) conditions.push(sql`c.code = ${filter.billingCycle}`)
  if (filter.status !== undefined) conditions.push(sql`r.status = ${filter.status}`)
  return sql.join(conditions, sql` and `)
}

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

export async function countBillRuns(db: Db, filter: BillRunFilter): Promise<number> {
  const found = await one<{ n: string }>(
    db,
    sql`select count(*)::text as n from billing_run r join billing_cycle c on c.id = r.billing_cycle_id
      where ${billRunWhere(filter)}`,
  )
  return Number(found?.n ?? 0)
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

/** When the cycle's next run is due: the earliest next firing of the active schedules billing it. */
export async function nextFiringOfCycle(db: Db, cycleId: number): Promise<Date | undefined> {
  const found = await one<{ next: string | null }>(
    db,
    sql`select ${iso(sql`min(s.next_fire_date)`)} as next from billing_run_schedule s
      join billing_run_schedule_cycle l on l.schedule_id = s.id
      where l.billing_cycle_id = ${cycleId} and s.status = 'ACTIVE'`,
  )
  return found?.next ? new Date(found.next) : undefined
}
