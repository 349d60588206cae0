import { sql } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { instantText, nullableTextArray, textArray } from '../../kernel/model/json.ts'
import { money } from '../../kernel/money.ts'
import { billingAccountJoin, sellerJoin } from '../accounts/index.ts'
import type { InvoiceStatus } from './bill-run.machine.ts'
import type { InvoiceTotals, RateSum } from './invoice-totals.ts'
import type { InvoiceFacts, RuleVerdict, ValidationRule } from './validation-rule.model.ts'

const ids = (values: readonly number[]) => sql`${textArray(values.map(String))}::bigint[]`
const texts = (values: readonly (string | null)[]) => nullableTextArray(values)
const num = (value: unknown) => Number(value)

/** The accounts of a run whose lines wait for their invoice, by id, at most `limit`: the invoices step's batch. */
export async function accountsWithLooseLines(tx: Db, runId: number, limit: number): Promise<number[]> {
  const found = await rows<{ id: unknown }>(
    tx,
    sql`select distinct billing_account_id as id from invoice_line
      where billing_run_id = ${runId} and invoice_id is null order by 1 limit ${limit}`,
  )
  return found.map((r) => num(r.id))
}

/**
 * Gives the loose lines of a batch of accounts their invoice: one per account, seller and currency of the run (the
 * partial unique key; an invoice already there, moved in or from an earlier batch, takes the new lines too), dated
 * `invoiceDate`, due `dueDays` later. Returns the invoices that got lines.
 */
export async function attachInvoices(
  tx: Db,
  runId: number,
  billingAccountIds: readonly number[],
  invoiceDate: string,
  dueDays: number,
  actor: string,
): Promise<{ touched: number[]; created: number[] }> {
  const created = await rows<{ id: unknown }>(
    tx,
    sql`insert into invoice (invoice_type, status, billing_run_id, billing_account_id, customer_account_id,
      seller_id, currency_id, invoice_date, due_date, creator)
    select distinct 'INVOICE', 'DRAFT', ${runId}::bigint, l.billing_account_id, ba.customer_account_id, l.seller_id,
      l.currency_id, ${invoiceDate}::date, ${invoiceDate}::date + ${dueDays}::int, ${actor}
    from invoice_line l ${billingAccountJoin(sql`l.billing_account_id`)}
    where l.billing_run_id = ${runId} and l.invoice_id is null and l.billing_account_id = any(${ids(billingAccountIds)})
    on conflict (billing_run_id, billing_account_id, seller_id, currency_id, invoice_type)
      where billing_run_id is not null and status <> 'CANCELLED' do nothing returning id`,
  )
  const touched = await rows<{ id: unknown }>(
    tx,
    sql`with attached as (
      update invoice_line l set invoice_id = i.id from invoice i
      where l.billing_run_id = ${runId} and l.invoice_id is null and l.billing_account_id = any(${ids(billingAccountIds)})
        and i.billing_run_id = ${runId} and i.status <> 'CANCELLED' and i.invoice_type = 'INVOICE'
        and i.billing_account_id = l.billing_account_id and i.seller_id = l.seller_id and i.currency_id = l.currency_id
      returning i.id
    ) select distinct id from attached order by id`,
  )
  return { touched: touched.map((r) => num(r.id)), created: created.map((r) => num(r.id)) }
}

export interface InvoiceRates {
  readonly invoiceId: number
  readonly minorUnits: number
  readonly rates: RateSum[]
  readonly periodStart: string | null
  readonly periodEnd: string | null
}

/** Per invoice, its lines summed by tax and rate (the totals rule's input), with its currency's decimals and period. */
export async function invoiceRates(tx: Db, invoiceIds: readonly number[]): Promise<InvoiceRates[]> {
  if (invoiceIds.length === 0) return []
  const found = await rows<{
    invoice_id: unknown
    minor_units: unknown
    tax_id: unknown
    tax_percent: string | null
    without_tax: string | null
    with_tax: string | null
    period_start: string | null
    period_end: string | null
  }>(
    tx,
    sql`select i.id as invoice_id, cur.decimal_places as minor_units, l.tax_id, l.tax_percent::text as tax_percent,
        sum(l.amount_without_tax)::text as without_tax, sum(l.amount_with_tax)::text as with_tax,
        to_char(min(min(l.period_start)) over (partition by i.id), 'YYYY-MM-DD') as period_start,
        to_char(max(max(l.period_end)) over (partition by i.id), 'YYYY-MM-DD') as period_end
      from invoice i join trading_currency cur on cur.id = i.currency_id
      left join invoice_line l on l.invoice_id = i.id
      where i.id = any(${ids(invoiceIds)})
      group by i.id, cur.decimal_places, l.tax_id, l.tax_percent
      order by i.id, l.tax_id, l.tax_percent`,
  )
  const byInvoice = new Map<number, InvoiceRates>()
  for (const row of found) {
    const id = num(row.invoice_id)
    let entry = byInvoice.get(id)
    if (!entry) {
      entry = {
        invoiceId: id,
        minorUnits: num(row.minor_units),
        rates: [],
        periodStart: row.period_start,
        periodEnd: row.period_end,
      }
      byInvoice.set(id, entry)
    }
    if (row.tax_id !== null && row.tax_percent !== null) {
      entry.rates.push({
        taxId: num(row.tax_id),
        taxPercent: money(row.tax_percent),
        amountWithoutTax: money(row.without_tax ?? '0'),
        amountWithTax: money(row.with_tax ?? '0'),
      })
    }
  }
  return [...byInvoice.values()]
}

/** Writes invoices' totals and tax breakdowns (replacing what they had), and their periods. */
export async function writeTotals(
  tx: Db,
  totals: readonly { invoiceId: number; totals: InvoiceTotals; periodStart: string | null; periodEnd: string | null }[],
): Promise<void> {
  if (totals.length === 0) return
  const invoiceIds = totals.map((t) => t.invoiceId)
  await tx.execute(sql`delete from invoice_tax where invoice_id = any(${ids(invoiceIds)})`)
  const taxes = totals.flatMap((t) => t.totals.taxes.map((tax) => ({ invoiceId: t.invoiceId, ...tax })))
  if (taxes.length > 0) {
    await tx.execute(sql`insert into invoice_tax (invoice_id, tax_id, tax_percent, base, amount)
      select * from unnest(${ids(taxes.map((t) => t.invoiceId))}, ${ids(taxes.map((t) => t.taxId))},
        ${texts(taxes.map((t) => t.taxPercent.toFixed()))}::numeric[], ${texts(taxes.map((t) => t.base.toFixed()))}::numeric[],
        ${texts(taxes.map((t) => t.amount.toFixed()))}::numeric[])`)
  }
  await tx.execute(sql`update invoice i set amount_without_tax = v.net, amount_tax = v.tax, amount_with_tax = v.gross,
      period_start = v.period_start::date, period_end = v.period_end::date,
      updated = now()
    from (select unnest(${ids(invoiceIds)}) as id,
      unnest(${texts(totals.map((t) => t.totals.amountWithoutTax.toFixed()))}::numeric[]) as net,
      unnest(${texts(totals.map((t) => t.totals.amountTax.toFixed()))}::numeric[]) as tax,
      unnest(${texts(totals.map((t) => t.totals.amountWithTax.toFixed()))}::numeric[]) as gross,
      unnest(${texts(totals.map((t) => t.periodStart))}) as period_start,
      unnest(${texts(totals.map((t) => t.periodEnd))}) as period_end) v
    where i.id = v.id`)
}

export interface DraftFacts {
  readonly invoiceId: number
  readonly status: InvoiceStatus
  readonly invoiceType: string
  readonly invoiceDate: string
  readonly movedFromRunId: number | null
  readonly facts: InvoiceFacts
}

/** What the validation rules read of each invoice (§2.4), the account's last validated invoice included. */
export async function draftFacts(tx: Db, invoiceIds: readonly number[]): Promise<DraftFacts[]> {
  if (invoiceIds.length === 0) return []
  const found = await rows<Record<string, unknown>>(
    tx,
    sql`select i.id, i.status, i.invoice_type, to_char(i.invoice_date, 'YYYY-MM-DD') as invoice_date,
        i.moved_from_run_id, i.amount_without_tax::text as net, i.amount_tax::text as tax,
        i.amount_with_tax::text as gross, cur.code as currency, ba.code as billing_account_code,
        se.code as seller_code, (select count(*)::int from invoice_line l where l.invoice_id = i.id) as line_count,
        coalesce((select p.amount_with_tax from invoice p
          where p.billing_account_id = i.billing_account_id and p.status = 'VALIDATED' and p.invoice_type = i.invoice_type
          order by p.validated_at desc, p.id desc limit 1), 0)::text as previous
      from invoice i join trading_currency cur on cur.id = i.currency_id
      ${billingAccountJoin(sql`i.billing_account_id`)} ${sellerJoin(sql`i.seller_id`)}
      where i.id = any(${ids(invoiceIds)}) order by i.id`,
  )
  return found.map((r) => ({
    invoiceId: num(r.id),
    status: r.status as InvoiceStatus,
    invoiceType: r.invoice_type as string,
    invoiceDate: r.invoice_date as string,
    movedFromRunId: r.moved_from_run_id === null ? null : num(r.moved_from_run_id),
    facts: {
      amountWithoutTax: money(r.net as string),
      amountTax: money(r.tax as string),
      amountWithTax: money(r.gross as string),
      lineCount: num(r.line_count),
      currency: r.currency as string,
      billingAccountCode: r.billing_account_code as string,
      sellerCode: r.seller_code as string,
      previousAmountWithTax: money(r.previous as string),
    },
  }))
}

/** Sets the rules' verdicts on invoices (status, the failing rule and its reason). */
export async function writeVerdicts(
  tx: Db,
  verdicts: readonly { invoiceId: number; verdict: RuleVerdict }[],
): Promise<void> {
  if (verdicts.length === 0) return
  await tx.execute(sql`update invoice i set status = v.status, rejected_by_rule = v.rule, reject_reason = v.reason,
      updated = now()
    from (select unnest(${ids(verdicts.map((v) => v.invoiceId))}) as id,
      unnest(${texts(verdicts.map((v) => v.verdict.status))}) as status,
      unnest(${texts(verdicts.map((v) => v.verdict.rejectedByRule))}) as rule,
      unnest(${texts(verdicts.map((v) => v.verdict.rejectReason))}) as reason) v
    where i.id = v.id and i.status in ('DRAFT', 'SUSPECT', 'REJECTED')`)
}

/** The rules that may apply to a run's invoices (active ones; dates and type are checked per invoice). */
export async function activeRules(tx: Db): Promise<ValidationRule[]> {
  return rows<ValidationRule>(
    tx,
    sql`select code, description, priority, invoice_type as "invoiceType", condition, fail_status as "failStatus",
        active, to_char(valid_from, 'YYYY-MM-DD') as "validFrom", to_char(valid_to, 'YYYY-MM-DD') as "validTo"
      from invoice_validation_rule where active order by priority, code`,
  )
}

export interface InvoiceRow {
  readonly id: number
  readonly status: InvoiceStatus
  readonly invoiceType: 'INVOICE' | 'CREDIT_NOTE'
  readonly billingRunId: number | null
  readonly billingAccountId: number
  readonly sellerId: number
  readonly sellerCode: string
  readonly originalInvoiceId: number | null
  readonly movedFromRunId: number | null
}

const invoiceRowColumns = sql`i.id, i.status, i.invoice_type as "invoiceType", i.billing_run_id as "billingRunId",
  i.billing_account_id as "billingAccountId", i.seller_id as "sellerId", se.code as "sellerCode",
  i.original_invoice_id as "originalInvoiceId", i.moved_from_run_id as "movedFromRunId"`

function invoiceRowOf(r: Record<string, unknown>): InvoiceRow {
  return {
    id: num(r.id),
    status: r.status as InvoiceStatus,
    invoiceType: r.invoiceType as InvoiceRow['invoiceType'],
    billingRunId: r.billingRunId === null ? null : num(r.billingRunId),
    billingAccountId: num(r.billingAccountId),
    sellerId: num(r.sellerId),
    sellerCode: r.sellerCode as string,
    originalInvoiceId: r.originalInvoiceId === null ? null : num(r.originalInvoiceId),
    movedFromRunId: r.movedFromRunId === null ? null : num(r.movedFromRunId),
  }
}

export async function invoiceRow(tx: Db, id: number, lock = false): Promise<InvoiceRow | undefined> {
  const found = await one<Record<string, unknown>>(
    tx,
    sql`select ${invoiceRowColumns} from invoice i ${sellerJoin(sql`i.seller_id`)} where i.id = ${id}
      ${lock ? sql`for no key update of i` : sql``}`,
  )
  return found && invoiceRowOf(found)
}

/**
 * A run's invoices waiting for validation, at most `limit`, in billing account code order (then seller, currency
 * and id): DRAFT ones, SUSPECT ones under AUTOMATIC_VALIDATION, REJECTED ones under AUTOMATIC_VALIDATION. Invoices
 * moved in wait for a person, whatever the actions.
 */
export async function validatableInvoices(
  tx: Db,
  runId: number,
  autoValidate: { suspect: boolean; rejected: boolean },
  limit: number,
): Promise<number[]> {
  const found = await rows<{ id: unknown }>(
    tx,
    sql`select i.id from invoice i ${billingAccountJoin(sql`i.billing_account_id`)}
      ${sellerJoin(sql`i.seller_id`)} join trading_currency cur on cur.id = i.currency_id
      where ${validatable(runId, autoValidate)}
      order by ba.code, se.code, cur.code, i.id limit ${limit}`,
  )
  return found.map((r) => num(r.id))
}

function validatable(runId: number, autoValidate: { suspect: boolean; rejected: boolean }) {
  const statuses = [...(autoValidate.suspect ? ['SUSPECT'] : []), ...(autoValidate.rejected ? ['REJECTED'] : [])]
  return sql`i.billing_run_id = ${runId} and (i.status = 'DRAFT' or (i.status = any(${texts(statuses)})
    and i.moved_from_run_id is null))`
}

export async function countValidatable(
  tx: Db,
  runId: number,
  autoValidate: { suspect: boolean; rejected: boolean },
): Promise<number> {
  const found = await one<{ n: number }>(
    tx,
    sql`select count(*)::int as n from invoice i where ${validatable(runId, autoValidate)}`,
  )
  return found?.n ?? 0
}

/** How many of a run's invoices are in each status. */
export async function statusCounts(tx: Db, runId: number): Promise<Map<InvoiceStatus, number>> {
  const found = await rows<{ status: InvoiceStatus; n: number }>(
    tx,
    sql`select status, count(*)::int as n from invoice where billing_run_id = ${runId} group by status`,
  )
  return new Map(found.map((r) => [r.status, r.n]))
}

/** A run's REJECTED invoices that wait for a person (none of an AUTOMATIC_VALIDATION run: validated with the drafts). */
export async function waitingRejected(tx: Db, runId: number, rejectedAutoValidated: boolean): Promise<number> {
  const found = await one<{ n: number }>(
    tx,
    sql`select count(*)::int as n from invoice where billing_run_id = ${runId} and status = 'REJECTED'
      and (${!rejectedAutoValidated} or moved_from_run_id is not null)`,
  )
  return found?.n ?? 0
}

/** The instant columns of the wire, and a decimal column as JSON (a number PostgreSQL writes exactly). */
export const iso = instantText
