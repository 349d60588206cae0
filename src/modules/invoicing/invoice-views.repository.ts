import { sql, type SQL } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { parseDatabaseJson } from '../../kernel/decimal-json.ts'
import { instantText, textArray } from '../../kernel/model/json.ts'
import { registry } from '../../kernel/model/index.ts'
import { sellerRestriction, type SellerCodes } from '../../kernel/model/row-security.ts'
import type { Page } from '../../kernel/http/pagination.ts'
import {
  billingAccountCodeOf,
  billingAccountJoin,
  customerAccountJoin,
  sellerCodeOf,
  sellerJoin,
} from '../accounts/index.ts'
import { discountPlanItemCodeOf } from '../discounts/index.ts'
import { orderCodeOf, subscriptionCodeOf } from '../ordering/index.ts'
import { allowedInvoiceActions, type InvoiceStatus } from './bill-run.machine.ts'

const iso = instantText
const day = (column: SQL) => sql`to_char(${column}, 'YYYY-MM-DD')`

export interface InvoiceFilter {
  readonly id?: number
  readonly ids?: readonly number[]
  readonly status?: string
  readonly invoiceType?: string
  readonly billRun?: number
  readonly billingAccount?: string
  readonly seller?: string
  readonly invoiceDateFrom?: string
  readonly invoiceDateTo?: string
  /** Free text: the invoice number, or the billing account's code or name, containing it (any case). */
  readonly search?: string
}

/** An invoice line as the API writes it (§2.2): references by code, runs and invoices by id. */
export const lineJson = (alias: string) => {
  const l = sql.raw(alias)
  return sql`jsonb_build_object('id', ${l}.id, 'billRun', ${l}.billing_run_id, 'invoice', ${l}.invoice_id,
    'billingAccount', ${billingAccountCodeOf(sql`${l}.billing_account_id`)},
    'seller', ${sellerCodeOf(sql`${l}.seller_id`)},
    'subscription', ${subscriptionCodeOf(sql`${l}.subscription_id`)},
    'order', ${orderCodeOf(sql`${l}.order_id`)},
    'accountingArticle', (select code from accounting_article where id = ${l}.accounting_article_id),
    'tax', (select code from tax where id = ${l}.tax_id),
    'label', ${l}.label, 'quantity', ${l}.quantity, 'unitAmountWithoutTax', ${l}.unit_amount_without_tax,
    'amountWithoutTax', ${l}.amount_without_tax, 'amountTax', ${l}.amount_tax, 'amountWithTax', ${l}.amount_with_tax,
    'taxPercent', ${l}.tax_percent, 'periodStart', ${day(sql`${l}.period_start`)},
    'periodEnd', ${day(sql`${l}.period_end`)}, 'walletOperationCount', ${l}.wallet_operation_count,
    'discountPlanItem', ${discountPlanItemCodeOf(sql`${l}.discount_plan_item_id`)},
    'discountedLine', ${l}.discounted_line_id, 'creditedLine', ${l}.credited_line_id)`
}

/** An invoice as the API writes it (§2.3); with `lines` and its `creditNotes` on get by id. */
function invoiceJson(withLines: boolean): SQL {
  return sql`jsonb_build_object('id', i.id, 'invoiceNumber', i.invoice_number, 'invoiceType', i.invoice_type,
    'status', i.status, 'rejectedByRule', i.rejected_by_rule, 'rejectReason', i.reject_reason,
    'billRun', i.billing_run_id, 'billingAccount', ba.code, 'billingAccountName', ba.name,
    'customerAccount', ca.code, 'seller', se.code, 'currency', cur.code,
    'invoiceDate', ${day(sql`i.invoice_date`)}, 'dueDate', ${day(sql`i.due_date`)},
    'periodStart', ${day(sql`i.period_start`)}, 'periodEnd', ${day(sql`i.period_end`)},
    'amountWithoutTax', i.amount_without_tax, 'amountTax', i.amount_tax, 'amountWithTax', i.amount_with_tax,
    'taxes', (select coalesce(jsonb_agg(jsonb_build_object('tax', t.code, 'taxPercent', x.tax_percent,
        'base', x.base, 'amount', x.amount) order by t.code, x.tax_percent), '[]'::jsonb)
      from invoice_tax x join tax t on t.id = x.tax_id where x.invoice_id = i.id),
    ${withLines ? sql`'lines', (select coalesce(jsonb_agg(${lineJson('l')} order by l.id), '[]'::jsonb) from invoice_line l where l.invoice_id = i.id),` : sql``}
    ${withLines ? sql`'creditNotes', (select coalesce(jsonb_agg(jsonb_build_object('id', cn.id, 'invoiceNumber', cn.invoice_number, 'status', cn.status, 'amountWithTax', cn.amount_with_tax) order by cn.id), '[]'::jsonb) from invoice cn where cn.original_invoice_id = i.id),` : sql``}
    'originalInvoice', (select jsonb_build_object('id', o.id, 'invoiceNumber', o.invoice_number)
      from invoice o where o.id = i.original_invoice_id),
    'reason', i.reason, 'movedFromRun', i.moved_from_run_id,
    'accountOperation', (select jsonb_build_object('id', a.id, 'type', a.operation_type, 'direction', a.direction,
        'reference', a.reference, 'transactionDate', ${day(sql`a.transaction_date`)}, 'dueDate', ${day(sql`a.due_date`)},
        'amount', a.amount, 'unmatchedAmount', a.unmatched_amount, 'matchingStatus', a.matching_status)
      from account_operation a where a.invoice_id = i.id),
    'pdf', jsonb_build_object('available', i.pdf_sha256 is not null, 'sha256', i.pdf_sha256),
    'validatedAt', ${iso(sql`i.validated_at`)},
    'auditable', jsonb_build_object('created', ${iso(sql`i.created`)}, 'updated', ${iso(sql`i.updated`)},
      'creator', i.creator, 'updater', i.updater))`
}

const invoiceFrom = sql`invoice i ${billingAccountJoin(sql`i.billing_account_id`)}
  ${customerAccountJoin(sql`i.customer_account_id`)} ${sellerJoin(sql`i.seller_id`)}
  join trading_currency cur on cur.id = i.currency_id`

function invoiceWhere(filter: InvoiceFilter, sellerCodes: SellerCodes): SQL {
  const conditions: SQL[] = [sql`true`]
  if (filter.id !== undefined) conditions.push(sql`i.id = ${filter.id}`)
  if (filter.ids !== undefined) conditions.push(sql`i.id = any(${textArray(filter.ids.map(String))}::bigint[])`)
  if (filter.status !== undefined) conditions.push(sql`i.status = ${filter.status}`)
  if (filter.invoiceType !== undefined) conditions.push(sql`i.invoice_type = ${filter.invoiceType}`)
  if (filter.billRun !== undefined) conditions.push(sql`i.billing_run_id = ${filter.billRun}`)
  if (filter.billingAccount !== undefined) conditions.push(sql`lower(ba.code) = lower(${filter.billingAccount})`)
  if (filter.seller !== undefined) conditions.push(sql`lower(se.code) = lower(${filter.seller})`)
  if (filter.invoiceDateFrom !== undefined) conditions.push(sql`i.invoice_date >= ${filter.invoiceDateFrom}::date`)
  if (filter.invoiceDateTo !== undefined) conditions.push(sql`i.invoice_date <= ${filter.invoiceDateTo}::date`)
  if (filter.search !== undefined) {
    const pattern = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
    conditions.push(
      sql`(i.invoice_number ilike ${pattern} or ba.code ilike ${pattern} or coalesce(ba.name, '') ilike ${pattern})`,
    )
  }
  // Seller row-level security (the registry's one rule): another seller's invoice does not exist for the caller.
  const restricted = sellerRestriction(registry, registry.get('Invoice'), 'i', sellerCodes)
  if (restricted) conditions.push(restricted)
  return sql.join(conditions, sql` and `)
}

export async function findInvoices(
  db: Db,
  filter: InvoiceFilter,
  sellerCodes: SellerCodes,
  options: { page?: Page; withLines?: boolean } = {},
): Promise<unknown[]> {
  const tail = options.page
    ? sql` order by i.invoice_date desc, i.id desc limit ${options.page.limit} offset ${options.page.offset}`
    : sql` order by i.id`
  const found = await rows<{ j: string }>(
    db,
    sql`select (${invoiceJson(options.withLines ?? false)})::text as j from ${invoiceFrom}
      where ${invoiceWhere(filter, sellerCodes)}${tail}`,
  )
  return found.map((r) => parseDatabaseJson(r.j))
}

/** A stored invoice with the actions its state allows (the invoice machine's), for a person's screen. */
export function withInvoiceActions(invoice: unknown): unknown {
  const { status, invoiceType } = invoice as { status: InvoiceStatus; invoiceType: string }
  return { ...(invoice as object), allowedActions: allowedInvoiceActions({ status, invoiceType }) }
}

export async function countInvoices(db: Db, filter: InvoiceFilter, sellerCodes: SellerCodes): Promise<number> {
  const found = await one<{ n: number }>(
    db,
    sql`select count(*)::int as n from ${invoiceFrom} where ${invoiceWhere(filter, sellerCodes)}`,
  )
  return found?.n ?? 0
}

/** Accounting operations (§2.6), filtered by customer account code or invoice id, under seller row security. */
export async function findAccountOperations(
  db: Db,
  filter: { customerAccount?: string; invoice?: number },
  sellerCodes: SellerCodes,
  page: Page,
): Promise<{ total: number; data: unknown[] }> {
  const conditions: SQL[] = [sql`true`]
  if (filter.customerAccount !== undefined) conditions.push(sql`lower(ca.code) = lower(${filter.customerAccount})`)
  if (filter.invoice !== undefined) conditions.push(sql`a.invoice_id = ${filter.invoice}`)
  const restricted = sellerRestriction(registry, registry.get('AccountOperation'), 'a', sellerCodes)
  if (restricted) conditions.push(restricted)
  const where = sql.join(conditions, sql` and `)
  const from = sql`account_operation a ${customerAccountJoin(sql`a.customer_account_id`)}
    ${sellerJoin(sql`a.seller_id`)} join trading_currency cur on cur.id = a.currency_id
    join invoice i on i.id = a.invoice_id`
  const total = await one<{ n: number }>(db, sql`select count(*)::int as n from ${from} where ${where}`)
  const found = await rows<{ j: string }>(
    db,
    sql`select jsonb_build_object('id', a.id, 'type', a.operation_type, 'direction', a.direction,
        'customerAccount', ca.code, 'seller', se.code, 'invoice', a.invoice_id, 'invoiceNumber', i.invoice_number,
        'currency', cur.code, 'reference', a.reference, 'transactionDate', ${day(sql`a.transaction_date`)},
        'dueDate', ${day(sql`a.due_date`)}, 'amount', a.amount, 'unmatchedAmount', a.unmatched_amount,
        'matchingStatus', a.matching_status, 'created', ${iso(sql`a.created`)})::text as j
      from ${from} where ${where} order by a.id desc limit ${page.limit} offset ${page.offset}`,
  )
  return { total: total?.n ?? 0, data: found.map((r) => parseDatabaseJson(r.j)) }
}

/** Whether a billing account exists and is visible to the caller (its id), for the invoice preview. */
export { visibleBillingAccount } from '../accounts/index.ts'

/** Invoices as the API writes them (without lines), with their sellers: what their events carry. */
export async function invoiceEventObjects(
  db: Db,
  ids: readonly number[],
): Promise<{ id: number; sellerId: number; object: unknown }[]> {
  if (ids.length === 0) return []
  const found = await rows<{ id: unknown; seller_id: unknown; j: string }>(
    db,
    sql`select i.id, i.seller_id, (${invoiceJson(false)})::text as j from ${invoiceFrom}
      where i.id = any(${textArray(ids.map(String))}::bigint[]) order by i.id`,
  )
  return found.map((r) => ({ id: Number(r.id), sellerId: Number(r.seller_id), object: parseDatabaseJson(r.j) }))
}
