import { sql } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import {
  billingAccountJoin,
  customerAccountJoin,
  customerOfCustomerAccountJoin,
  sellerJoin,
} from '../accounts/index.ts'
import type { InvoiceStatus } from './bill-run.machine.ts'
import { addressLines, type DocumentLine, type DocumentTax, type InvoiceDocument } from './invoice-document.model.ts'

type Row = Record<string, string | number | boolean | null>
const text = (value: Row[string] | undefined) => (value === null || value === undefined ? null : String(value))

/**
 * What an invoice's document prints, from its stored rows only: the invoice (amounts as stored, decimal texts), its
 * lines, its tax breakdown, its seller, billing account and customer, and the invoice a credit note corrects. No
 * amount is computed here or in the renderer. Undefined when there is no such invoice.
 */
export async function invoiceDocument(tx: Db, invoiceId: number): Promise<InvoiceDocument | undefined> {
  const found = await one<Row>(
    tx,
    sql`select i.id, i.invoice_type, i.status, i.invoice_number, to_char(i.invoice_date, 'YYYY-MM-DD') as invoice_date,
        to_char(i.due_date, 'YYYY-MM-DD') as due_date, to_char(i.period_start, 'YYYY-MM-DD') as period_start,
        to_char(i.period_end, 'YYYY-MM-DD') as period_end, cur.code as currency, cur.decimal_places as minor_units,
        i.amount_without_tax::text as net, i.amount_tax::text as tax, i.amount_with_tax::text as gross, i.reason,
        to_char(coalesce(i.validated_at, i.updated, i.created) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
          as stamped_at,
        coalesce(se.description, se.code) as seller_name, se.address_1 as seller_address_1,
        se.address_2 as seller_address_2, se.zip_code as seller_zip_code, se.city as seller_city,
        sco.description as seller_country, se.vat_no as seller_vat_no,
        ba.code as account, coalesce(ba.name, cu.name, ba.code) as bill_to_name, cu.name as customer_name,
        ba.address_1, ba.address_2, ba.zip_code, ba.city, bco.description as country, cu.vat_no,
        o.invoice_number as original_number, to_char(o.invoice_date, 'YYYY-MM-DD') as original_date
      from invoice i join trading_currency cur on cur.id = i.currency_id
      ${sellerJoin(sql`i.seller_id`)} left join country sco on sco.id = se.country_id
      ${billingAccountJoin(sql`i.billing_account_id`)} left join country bco on bco.id = ba.country_id
      ${customerAccountJoin(sql`i.customer_account_id`)} ${customerOfCustomerAccountJoin}
      left join invoice o on o.id = i.original_invoice_id
      where i.id = ${invoiceId}`,
  )
  if (!found) return undefined
  const lines = await rows<DocumentLine>(
    tx,
    sql`select label, quantity::text as "quantity", unit_amount_without_tax::text as "unitAmountWithoutTax",
        amount_without_tax::text as "amountWithoutTax", tax_percent::text as "taxPercent",
        to_char(period_start, 'YYYY-MM-DD') as "periodStart", to_char(period_end, 'YYYY-MM-DD') as "periodEnd"
      from invoice_line where invoice_id = ${invoiceId} order by id`,
  )
  // The breakdown in the order the API lists it: by tax code, then rate.
  const taxes = await rows<DocumentTax>(
    tx,
    sql`select coalesce(t.description, t.code) as label, x.tax_percent::text as "taxPercent", x.base::text as base,
        x.amount::text as amount
      from invoice_tax x join tax t on t.id = x.tax_id where x.invoice_id = ${invoiceId} order by t.code, x.tax_percent`,
  )
  return {
    id: Number(found.id),
    invoiceType: found.invoice_type as InvoiceDocument['invoiceType'],
    status: found.status as InvoiceStatus,
    invoiceNumber: text(found.invoice_number),
    invoiceDate: String(found.invoice_date),
    dueDate: String(found.due_date),
    periodStart: text(found.period_start),
    periodEnd: text(found.period_end),
    currency: String(found.currency),
    minorUnits: Number(found.minor_units),
    seller: {
      name: String(found.seller_name),
      address: addressLines({
        address1: text(found.seller_address_1),
        address2: text(found.seller_address_2),
        zipCode: text(found.seller_zip_code),
        city: text(found.seller_city),
        country: text(found.seller_country),
      }),
      vatNo: text(found.seller_vat_no),
    },
    billTo: {
      name: String(found.bill_to_name),
      customerName: text(found.customer_name),
      account: String(found.account),
      address: addressLines({
        address1: text(found.address_1),
        address2: text(found.address_2),
        zipCode: text(found.zip_code),
        city: text(found.city),
        country: text(found.country),
      }),
      vatNo: text(found.vat_no),
    },
    lines,
    taxes,
    amountWithoutTax: String(found.net),
    amountTax: String(found.tax),
    amountWithTax: String(found.gross),
    original:
      found.original_date === null
        ? null
        : { invoiceNumber: text(found.original_number), invoiceDate: String(found.original_date) },
    reason: text(found.reason),
    stampedAt: new Date(String(found.stamped_at)),
  }
}

/** The stored PDF of an invoice: its EXPORT_DIR-relative file and SHA-256, when rendered. */
export async function storedPdf(tx: Db, invoiceId: number): Promise<{ file: string; sha256: string } | undefined> {
  const found = await one<{ file: string | null; sha256: string | null }>(
    tx,
    sql`select pdf_file as file, pdf_sha256 as sha256 from invoice where id = ${invoiceId}`,
  )
  return found?.file && found.sha256 ? { file: found.file, sha256: found.sha256 } : undefined
}

/** Records a validated invoice's stored PDF. Only a validated one: a draft's document is never stored. */
export async function recordPdf(tx: Db, invoiceId: number, file: string, sha256: string): Promise<boolean> {
  const updated = await rows<{ id: unknown }>(
    tx,
    sql`update invoice set pdf_file = ${file}, pdf_sha256 = ${sha256}
      where id = ${invoiceId} and status = 'VALIDATED' returning id`,
  )
  return updated.length > 0
}
