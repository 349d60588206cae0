import { sql } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { textArray } from '../../kernel/model/json.ts'
import { money } from '../../kernel/money.ts'
import { billingAccountJoin } from '../accounts/index.ts'
import type { CreditableLine, CreditLine } from './credit-note.model.ts'

const ids = (values: readonly number[]) => sql`${textArray(values.map(String))}::bigint[]`
const decimals = (values: readonly { toFixed(): string }[]) =>
  sql`${textArray(values.map((v) => v.toFixed()))}::numeric[]`

/** What counts as crediting an invoice: its credit notes that are not cancelled, drafts included. */
const creditingNotes = (originalId: number) =>
  sql`select cn.id from invoice cn where cn.original_invoice_id = ${originalId} and cn.invoice_type = 'CREDIT_NOTE'
    and cn.status <> 'CANCELLED'`

/** The named lines of an invoice (others are absent), each with what its crediting notes already credit of it. */
export async function creditableLines(
  tx: Db,
  invoiceId: number,
  lineIds: readonly number[],
): Promise<CreditableLine[]> {
  const found = await rows<Record<string, string | number>>(
    tx,
    sql`with credited as (
        select cl.credited_line_id as id, sum(cl.amount_without_tax) as net, sum(cl.amount_tax) as tax,
          sum(cl.amount_with_tax) as gross
        from invoice_line cl where cl.invoice_id in (${creditingNotes(invoiceId)}) group by cl.credited_line_id
      )
      select l.id, l.label, l.quantity::text as quantity, l.unit_amount_without_tax::text as unit,
        l.amount_without_tax::text as net, l.amount_tax::text as tax, l.amount_with_tax::text as gross,
        l.tax_percent::text as percent, coalesce(c.net, 0)::text as credited_net,
        coalesce(c.tax, 0)::text as credited_tax, coalesce(c.gross, 0)::text as credited_gross,
        c.id is not null as credited_before
      from invoice_line l left join credited c on c.id = l.id
      where l.invoice_id = ${invoiceId} and l.id = any(${ids(lineIds)}) order by l.id`,
  )
  return found.map((r) => ({
    id: Number(r.id),
    label: String(r.label),
    quantity: money(r.quantity!),
    unitAmountWithoutTax: money(r.unit!),
    amountWithoutTax: money(r.net!),
    amountTax: money(r.tax!),
    amountWithTax: money(r.gross!),
    taxPercent: money(r.percent!),
    credited: {
      amountWithoutTax: money(r.credited_net!),
      amountTax: money(r.credited_tax!),
      amountWithTax: money(r.credited_gross!),
    },
    creditedBefore: Boolean(r.credited_before),
  }))
}

/**
 * A draft credit note of an invoice: its account, seller and currency, no bill run, dated `today` and due after its
 * billing cycle's `dueDateDelay` (both recomputed when it is validated). Returns its id.
 */
export async function insertCreditNote(
  tx: Db,
  originalId: number,
  fields: { today: string; reason: string; actor: string },
): Promise<number> {
  const created = await one<{ id: unknown }>(
    tx,
    sql`insert into invoice (invoice_type, status, billing_account_id, customer_account_id, seller_id, currency_id,
        invoice_date, due_date, original_invoice_id, reason, creator)
      select 'CREDIT_NOTE', 'DRAFT', i.billing_account_id, i.customer_account_id, i.seller_id, i.currency_id,
        ${fields.today}::date, ${fields.today}::date + c.due_date_delay, i.id, ${fields.reason}, ${fields.actor}
      from invoice i ${billingAccountJoin(sql`i.billing_account_id`)}
      join billing_cycle c on c.id = ba.billing_cycle_id
      where i.id = ${originalId}
      returning id`,
  )
  return Number(created!.id)
}

/** Columns a credit line takes from the line it credits: who, what, which tax, which period. */
const copied = sql`l.billing_account_id, l.seller_id, l.currency_id, l.accounting_article_id, l.tax_id, l.tax_percent,
  l.subscription_id, l.order_id, l.label`
const lineColumns = sql`invoice_id, billing_account_id, seller_id, currency_id, accounting_article_id, tax_id,
  tax_percent, subscription_id, order_id, label, quantity, unit_amount_without_tax, amount_without_tax, amount_tax,
  amount_with_tax, period_start, period_end, wallet_operation_count, discount_plan_item_id, credited_line_id`

/** A whole credit note's lines: a copy of every line of the original (quantity, unit price, amounts), set-based. */
export async function copyAllLines(tx: Db, creditNoteId: number, originalId: number): Promise<void> {
  await tx.execute(sql`insert into invoice_line (${lineColumns})
    select ${creditNoteId}::bigint, ${copied}, l.quantity, l.unit_amount_without_tax, l.amount_without_tax,
      l.amount_tax, l.amount_with_tax, l.period_start, l.period_end, 0, l.discount_plan_item_id, l.id
    from invoice_line l where l.invoice_id = ${originalId} order by l.id`)
}

/** A partial credit note's lines, each crediting a line of the original with its own quantity and amounts. */
export async function insertCreditLines(
  tx: Db,
  creditNoteId: number,
  originalId: number,
  lines: readonly CreditLine[],
): Promise<void> {
  if (lines.length === 0) return
  await tx.execute(sql`insert into invoice_line (${lineColumns})
    select ${creditNoteId}::bigint, ${copied}, v.quantity, v.unit, v.net, v.tax, v.gross, l.period_start,
      l.period_end, 0, l.discount_plan_item_id, l.id
    from unnest(${ids(lines.map((l) => l.creditedLineId))}, ${decimals(lines.map((l) => l.quantity))},
      ${decimals(lines.map((l) => l.unitAmountWithoutTax))}, ${decimals(lines.map((l) => l.amountWithoutTax))},
      ${decimals(lines.map((l) => l.amountTax))}, ${decimals(lines.map((l) => l.amountWithTax))})
      with ordinality as v(id, quantity, unit, net, tax, gross, n)
    join invoice_line l on l.id = v.id and l.invoice_id = ${originalId}
    order by v.n`)
}

/** An invoice's gross, what its crediting notes total (gross), and its currency: the ceiling of credit notes. */
export async function creditBalance(
  tx: Db,
  invoiceId: number,
): Promise<{ invoiceNumber: string | null; invoiced: string; credited: string; currency: string; minorUnits: number }> {
  const found = await one<Record<string, unknown>>(
    tx,
    sql`select i.invoice_number, i.amount_with_tax::text as invoiced, cur.code as currency,
        cur.decimal_places as minor_units,
        (select coalesce(sum(cn.amount_with_tax), 0) from invoice cn where cn.id in (${creditingNotes(invoiceId)}))::text
          as credited
      from invoice i join trading_currency cur on cur.id = i.currency_id where i.id = ${invoiceId}`,
  )
  return {
    invoiceNumber: found!.invoice_number as string | null,
    invoiced: found!.invoiced as string,
    credited: found!.credited as string,
    currency: found!.currency as string,
    minorUnits: Number(found!.minor_units),
  }
}
