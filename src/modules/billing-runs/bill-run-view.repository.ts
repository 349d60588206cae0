/**
 * A bill run as the API writes it (invoicing-events.md §2.1), as fragments the invoicing module's statement composes
 * with what it adds of the run's invoices (their counts by status and amounts): the run is `r`, its cycle `c`, its
 * schedule firing `f`. Also the count of runs, which needs nothing of invoices.
 */
import { sql, type SQL } from 'drizzle-orm'
import { one, type Db } from '../../kernel/db/database.ts'
import { instantText, textArray } from '../../kernel/model/json.ts'

const iso = instantText
const ids = (values: readonly number[]) => sql`${textArray(values.map(String))}::bigint[]`

const auditJson = sql`jsonb_build_object('created', ${iso(sql`r.created`)}, 'updated', ${iso(sql`r.updated`)},
  'creator', r.creator, 'updater', r.updater)`

/** What a run's view shows of its invoices: each an SQL expression over the statement's row (the run is `r`). */
export interface RunInvoiceFacts {
  /** The run's invoices counted by status, as a JSON object. */
  readonly counts: SQL
  readonly amountWithoutTax: SQL
  readonly amountTax: SQL
  readonly amountWithTax: SQL
}

/** The run `r` as a JSON object: options, state, progress, counts and amounts (those of invoices given). */
export function billRunViewJson(invoices: RunInvoiceFacts): SQL {
  return sql`jsonb_build_object(
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
    'invoices', ${invoices.counts},
    'invoiceLines', r.invoice_line_count, 'walletOperations', r.wallet_operation_count),
  'amountWithoutTax', ${invoices.amountWithoutTax}, 'amountTax', ${invoices.amountTax},
  'amountWithTax', ${invoices.amountWithTax},
  'nextBillRunId', r.next_bill_run_id, 'originBillRunId', r.origin_bill_run_id, 'lastError', r.last_error,
  'auditable', ${auditJson})`
}

/** The from-list of run views: the run `r`, its cycle `c`, its firing `f`, then `joins` (over `r`). */
export function billRunViewFrom(joins: SQL): SQL {
  return sql`billing_run r join billing_cycle c on c.id = r.billing_cycle_id
  left join billing_run_schedule_firing f on f.id = r.firing_id
  ${joins}`
}

export interface BillRunFilter {
  ids?: readonly number[]
  scheduleCode?: string
  billingCycle?: string
  status?: string
}

/** The condition of a filter over the run `r` and its cycle `c`. */
export function billRunWhere(filter: BillRunFilter): SQL {
  const conditions: SQL[] = [sql`true`]
  if (filter.ids) conditions.push(sql`r.id = any(${ids(filter.ids)})`)
  if (filter.scheduleCode !== undefined) conditions.push(sql`r.schedule_code = ${filter.scheduleCode}`)
  if (filter.billingCycle !== undefined) conditions.push(sql`c.code = ${filter.billingCycle}`)
  if (filter.status !== undefined) conditions.push(sql`r.status = ${filter.status}`)
  return sql.join(conditions, sql` and `)
}

export async function countBillRuns(db: Db, filter: BillRunFilter): Promise<number> {
  const found = await one<{ n: string }>(
    db,
    sql`select count(*)::text as n from billing_run r join billing_cycle c on c.id = r.billing_cycle_id
      where ${billRunWhere(filter)}`,
  )
  return Number(found?.n ?? 0)
}
