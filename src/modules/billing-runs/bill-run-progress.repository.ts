/**
 * A bill run's row as the invoicing chain works it: inserted by a firing or a person, locked, its state and progress
 * changed, the cycle's runs taken oldest first, and when the cycle's next run is due. The states and steps are the
 * chain's (its transition table): this file stores them, typed by the caller.
 */
import { sql, type SQL } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { instantText } from '../../kernel/model/json.ts'
import { billingAccountCountOfCycle } from '../accounts/index.ts'
import type { AutoAction, ProcessType } from './billing-runs.model.ts'
import type { NewBillRun } from './billing-runs.repository.ts'

const iso = instantText
const param = (date: Date | null) => sql`${date?.toISOString() ?? null}::timestamptz`
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
      ${r.creator}, ${billingAccountCountOfCycle(sql`${r.billingCycleId}`)})`,
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
export interface BillRunRecord<Status extends string = string, Step extends string = string> {
  readonly id: number
  readonly status: Status
  readonly step: Step | null
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
  readonly ignoreSubscriptions: boolean
  readonly ignoreOrders: boolean
  readonly dateAggregation: 'NONE' | 'DAY' | 'WEEK' | 'MONTH'
  readonly discountAggregation: boolean
  readonly disableAggregation: boolean
}

const runColumns = sql`r.id, r.status, r.step, r.cursor, r.process_type, r.billing_cycle_id, c.due_date_delay,
  ${iso(sql`r.last_transaction_date`)} as last_transaction_date, ${iso(sql`r.invoice_date`)} as invoice_date,
  r.reject_auto_action, r.suspect_auto_action, r.generate_ao, r.compute_dates_at_validation, r.validation_requested,
  r.cancel_mode, r.progress_total, r.next_bill_run_id, r.description, r.schedule_code,
  r.ignore_subscriptions, r.ignore_orders, r.date_aggregation, r.discount_aggregation, r.disable_aggregation`

function recordOf<Status extends string, Step extends string>(r: Record<string, unknown>): BillRunRecord<Status, Step> {
  return {
    id: num(r.id),
    status: r.status as Status,
    step: r.step as Step | null,
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
    cancelMode: r.cancel_mode as BillRunRecord['cancelMode'],
    progressTotal: num(r.progress_total),
    nextBillRunId: r.next_bill_run_id === null ? null : num(r.next_bill_run_id),
    description: r.description as string | null,
    scheduleCode: r.schedule_code as string | null,
    ignoreSubscriptions: r.ignore_subscriptions as boolean,
    ignoreOrders: r.ignore_orders as boolean,
    dateAggregation: r.date_aggregation as BillRunRecord['dateAggregation'],
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
export async function lockBillRun<Status extends string, Step extends string>(
  tx: Db,
  id: number,
  options: { skipLocked?: boolean } = {},
): Promise<BillRunRecord<Status, Step> | undefined> {
  const found = await one<Record<string, unknown>>(
    tx,
    sql`select ${runColumns} from billing_run r join billing_cycle c on c.id = r.billing_cycle_id where r.id = ${id}
      for no key update of r${options.skipLocked ? sql` skip locked` : sql``}`,
  )
  return found && recordOf<Status, Step>(found)
}

/** The fields of a run the chain changes; absent ones keep their value. */
export interface BillRunChange<Status extends string = string, Step extends string = string> {
  status?: Status
  step?: Step | null
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

/** Changes a run (locked by `lockBillRun` in the same transaction), stamped with `actor`. */
export async function updateBillRun(tx: Db, id: number, change: BillRunChange, actor: string): Promise<void> {
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

/** A run of a cycle, as the cycle's order of runs sees it. */
export interface CycleRun {
  readonly id: number
  readonly billingCycleId: number
}

/** Whether an older run of the cycle has not finished its lines step: a cycle's lines steps go oldest first. */
export async function olderRunPending(tx: Db, run: CycleRun): Promise<boolean> {
  const found = await one<{ pending: boolean }>(
    tx,
    sql`select exists (select 1 from billing_run where billing_cycle_id = ${run.billingCycleId} and status = 'NEW'
      and id < ${run.id}) as pending`,
  )
  return found?.pending ?? false
}

/** The next run of the cycle waiting for its lines step, after `run`. */
export async function nextPendingRun(tx: Db, run: CycleRun): Promise<number | undefined> {
  const found = await one<{ id: unknown }>(
    tx,
    sql`select id from billing_run where billing_cycle_id = ${run.billingCycleId} and status = 'NEW'
      and step = 'CREATING_INVOICE_LINES' and id > ${run.id} order by id limit 1`,
  )
  return found ? num(found.id) : undefined
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
