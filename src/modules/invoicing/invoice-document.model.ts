import { Money } from '../../kernel/money.ts'
import type { InvoiceStatus } from './bill-run.machine.ts'

/** A party as the document prints it: its name, its postal address as lines, its VAT number when it has one. */
export interface DocumentParty {
  readonly name: string
  readonly address: readonly string[]
  readonly vatNo: string | null
}

/** A line as printed: the stored label, quantity, unit price, net and rate (decimal texts, exact). */
export interface DocumentLine {
  readonly label: string
  readonly quantity: string
  readonly unitAmountWithoutTax: string
  readonly amountWithoutTax: string
  readonly taxPercent: string
  readonly periodStart: string
  readonly periodEnd: string
}

/** One entry of the tax breakdown: what is owed at one tax and rate, on its base. */
export interface DocumentTax {
  readonly label: string
  readonly taxPercent: string
  readonly base: string
  readonly amount: string
}

/**
 * Everything an invoice's document shows, read from stored rows only (the invoice, its lines and tax breakdown, its
 * seller, billing account and customer): rendering it again gives the same document.
 */
export interface InvoiceDocument {
  readonly id: number
  readonly invoiceType: 'INVOICE' | 'CREDIT_NOTE'
  readonly status: InvoiceStatus
  /** Null until VALIDATED: a draft's document carries no number. */
  readonly invoiceNumber: string | null
  readonly invoiceDate: string
  readonly dueDate: string
  readonly periodStart: string | null
  readonly periodEnd: string | null
  readonly currency: string
  readonly minorUnits: number
  readonly seller: DocumentParty
  /** The billing account billed: its name and address, the customer's VAT number, its code. */
  readonly billTo: DocumentParty & { readonly account: string; readonly customerName: string | null }
  readonly lines: readonly DocumentLine[]
  readonly taxes: readonly DocumentTax[]
  readonly amountWithoutTax: string
  readonly amountTax: string
  readonly amountWithTax: string
  /** A credit note: the invoice it corrects (number and date) and why. */
  readonly original: { readonly invoiceNumber: string | null; readonly invoiceDate: string } | null
  readonly reason: string | null
  /** The document's own date (its PDF creation date): the validation's instant, a draft's last change. */
  readonly stampedAt: Date
}

/** The postal lines of an address: the two lines, then zip code and city, then the country, leaving out the empty. */
export function addressLines(address: {
  address1: string | null
  address2: string | null
  zipCode: string | null
  city: string | null
  country: string | null
}): string[] {
  const town = [address.zipCode, address.city].filter((p) => p !== null && p.trim() !== '').join(' ')
  return [address.address1, address.address2, town, address.country].filter(
    (line): line is string => line !== null && line.trim() !== '',
  )
}

/** Groups an unsigned integer's digits by three with commas: `1234567` → `1,234,567`. */
function grouped(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** A decimal text as written, digits grouped by three (English: `,` groups, `.` decimals), its sign kept. */
function withGroups(fixed: string): string {
  const negative = fixed.startsWith('-')
  const [whole, fraction] = (negative ? fixed.slice(1) : fixed).split('.')
  return `${negative ? '-' : ''}${grouped(whole!)}${fraction === undefined ? '' : `.${fraction}`}`
}

/**
 * An amount as the document prints it: the stored amount at the currency's decimals, English grouping, no currency
 * (`1,234.50`). Stored amounts already have those decimals; nothing is rounded here.
 */
export function formatAmount(value: string, minorUnits: number): string {
  return withGroups(new Money(value).toFixed(minorUnits))
}

/** An amount with its currency's code after it: `1,234.50 EUR`. */
export function formatMoney(value: string, minorUnits: number, currency: string): string {
  return `${formatAmount(value, minorUnits)} ${currency}`
}

/** A quantity as written, without trailing zeros: `3`, `1.5`, `12,000`. */
export function formatQuantity(value: string): string {
  return withGroups(new Money(value).toFixed())
}

/** Decimals a unit price shows at most: its 12 stored decimals would not fit a column; the amounts are exact anyway. */
const UNIT_PRICE_DECIMALS = 6

/**
 * A unit price: the currency's decimals at least, more when the price has them, up to 6 (HALF_UP, for display only:
 * a line's net is its stored amount, never quantity × this): `100.00`, `0.0125`, `33.333333`.
 */
export function formatUnitPrice(value: string, minorUnits: number): string {
  const shown = new Money(value).toDecimalPlaces(UNIT_PRICE_DECIMALS, Money.ROUND_HALF_UP)
  return withGroups(shown.toFixed(Math.max(minorUnits, shown.decimalPlaces())))
}

/** A tax rate: `20 %`, `5.5 %`. */
export function formatPercent(value: string): string {
  return `${new Money(value).toFixed()} %`
}

/** A period of days: one day alone, or `start – end`. */
export function formatPeriod(start: string | null, end: string | null): string | null {
  if (start === null || end === null) return start ?? end
  return start === end ? start : `${start} – ${end}`
}

/**
 * The file a validated invoice's PDF is stored in, relative to EXPORT_DIR: `invoices/<yyyy of its date>/<number>.pdf`.
 * A number may hold any printable character (`INV/2026/000001`): every character but letters, digits, `-` and `_` is
 * written `%XX` (its UTF-8 bytes), so the name is one safe file name and two numbers never share it.
 */
export function pdfFileOf(invoiceNumber: string, invoiceDate: string): string {
  const name = Array.from(new TextEncoder().encode(invoiceNumber), (byte) => {
    const c = String.fromCharCode(byte)
    return /[A-Za-z0-9_-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }).join('')
  return `invoices/${invoiceDate.slice(0, 4)}/${name}.pdf`
}
