import type { Decimal } from 'decimal.js'
import { money } from '../../kernel/money.ts'
import { taxedAmounts } from '../rating/index.ts'

/** The lines of one invoice at one tax and rate, summed (each line's amounts already rounded at rating). */
export interface RateSum {
  readonly taxId: number
  readonly taxPercent: Decimal
  readonly amountWithoutTax: Decimal
  readonly amountWithTax: Decimal
}

/** What an invoice owes at one tax and rate: `base` is the net the tax is on. */
export interface InvoiceTaxEntry {
  readonly taxId: number
  readonly taxPercent: Decimal
  readonly base: Decimal
  readonly amount: Decimal
}

export interface InvoiceTotals {
  readonly amountWithoutTax: Decimal
  readonly amountTax: Decimal
  readonly amountWithTax: Decimal
  readonly taxes: readonly InvoiceTaxEntry[]
}

/**
 * The totals rule of an invoice (invoicing-events.md §2.3), the one place it is computed: bill runs, the invoice
 * preview and credit notes all call it. Per tax and rate, the summed amount on the side the prices are given on is
 * taxed once, by `taxedAmounts` (rating/tax.ts, the rule a price's own tax follows): without tax (B2B), tax =
 * round(rate × Σ nets) and gross = net + tax; including tax (B2C), tax = round(Σ gross × rate / (1 + rate)) and net =
 * gross − tax. HALF_UP at the currency's decimals. The invoice's amounts are the sums of the rates'; a line's own tax
 * is informative only (three 0.05 lines at 5.5 % owe 0.01 together, though each line's tax rounds to 0.00).
 */
export function invoiceTotals(rates: readonly RateSum[], pricesIncludeTax: boolean, minorUnits: number): InvoiceTotals {
  const sorted = [...rates].sort((a, b) => a.taxId - b.taxId || a.taxPercent.comparedTo(b.taxPercent))
  const taxes = sorted.map((rate) => {
    const taxed = taxedAmounts(
      pricesIncludeTax ? rate.amountWithTax : rate.amountWithoutTax,
      { percent: rate.taxPercent },
      pricesIncludeTax,
      minorUnits,
    )
    return { taxId: rate.taxId, taxPercent: rate.taxPercent, base: taxed.amountWithoutTax, amount: taxed.amountTax }
  })
  const amountWithoutTax = taxes.reduce((sum, t) => sum.plus(t.base), money(0))
  const amountTax = taxes.reduce((sum, t) => sum.plus(t.amount), money(0))
  return { amountWithoutTax, amountTax, amountWithTax: amountWithoutTax.plus(amountTax), taxes }
}
