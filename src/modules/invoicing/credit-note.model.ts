import type { Decimal } from 'decimal.js'
import { AppError, type ErrorDetail } from '../../kernel/errors.ts'
import { money, Money } from '../../kernel/money.ts'
import { taxedAmounts } from '../rating/index.ts'

/** A line of the invoice to credit, with what credit notes not cancelled (drafts included) already credit of it. */
export interface CreditableLine {
  readonly id: number
  readonly label: string
  readonly quantity: Decimal
  readonly unitAmountWithoutTax: Decimal
  readonly amountWithoutTax: Decimal
  readonly amountTax: Decimal
  readonly amountWithTax: Decimal
  readonly taxPercent: Decimal
  readonly credited: {
    readonly amountWithoutTax: Decimal
    readonly amountTax: Decimal
    readonly amountWithTax: Decimal
  }
  /** Whether any credit note not cancelled credits this line already. */
  readonly creditedBefore: boolean
}

/** A line of the credit note: it credits `creditedLineId`, its amounts positive as the charge's were. */
export interface CreditLine {
  readonly creditedLineId: number
  readonly quantity: Decimal
  readonly unitAmountWithoutTax: Decimal
  readonly amountWithoutTax: Decimal
  readonly amountTax: Decimal
  readonly amountWithTax: Decimal
}

/** What a person asks to credit of one line: a net amount, validated by the request schema (a number or a string). */
export interface RequestedCredit {
  readonly invoiceLine: number
  readonly amountWithoutTax: Decimal
}

/**
 * The lines of a partial credit note (docs/decisions.md, "Credit notes"). Each names a line of the invoice, once, and
 * a positive net in the currency's decimals (400 otherwise, naming the field); it may not be more than what is left
 * of that line's net once the credit notes not cancelled are counted (422 CREDIT_EXCEEDS_INVOICE). A credit of all
 * that is left takes exactly what is left of the line's net, tax and gross, so that crediting a line in several notes
 * gives back its amounts to the cent; a credit of less is taxed at the line's rate by the rating rule on a net amount
 * (`taxedAmounts`, the amount sent being without tax). A line credited whole, never credited before, keeps its
 * quantity and unit price; any other credit is one unit at the credited net: an amount, not a count of units.
 */
export function partialCredit(
  lines: readonly CreditableLine[],
  requested: readonly RequestedCredit[],
  invoiceId: number,
  minorUnits: number,
): CreditLine[] {
  const byId = new Map(lines.map((line) => [line.id, line]))
  const problems: ErrorDetail[] = []
  const seen = new Set<number>()
  requested.forEach((r, i) => {
    if (!byId.has(r.invoiceLine))
      problems.push({ field: `lines.${i}.invoiceLine`, message: `expected a line of invoice ${invoiceId}` })
    else if (seen.has(r.invoiceLine))
      problems.push({ field: `lines.${i}.invoiceLine`, message: `line ${r.invoiceLine} is named twice` })
    seen.add(r.invoiceLine)
    if (!r.amountWithoutTax.isPositive() || r.amountWithoutTax.isZero())
      problems.push({ field: `lines.${i}.amountWithoutTax`, message: 'expected an amount greater than 0' })
    else if (r.amountWithoutTax.decimalPlaces() > minorUnits)
      problems.push({
        field: `lines.${i}.amountWithoutTax`,
        message: `expected at most ${minorUnits} decimals (the currency's)`,
      })
  })
  if (problems.length > 0)
    throw new AppError('VALIDATION_FAILED', problems.map((p) => `${p.field}: ${p.message}`).join('; '), {
      details: problems,
    })
  return requested.map((r) => creditOf(byId.get(r.invoiceLine)!, r.amountWithoutTax, minorUnits))
}

function creditOf(line: CreditableLine, amount: Decimal, minorUnits: number): CreditLine {
  const left = {
    amountWithoutTax: line.amountWithoutTax.minus(line.credited.amountWithoutTax),
    amountTax: line.amountTax.minus(line.credited.amountTax),
    amountWithTax: line.amountWithTax.minus(line.credited.amountWithTax),
  }
  if (amount.greaterThan(left.amountWithoutTax)) {
    const most = Money.max(left.amountWithoutTax, 0).toFixed(minorUnits)
    throw new AppError(
      'CREDIT_EXCEEDS_INVOICE',
      `Line ${line.id} (${line.label}) has ${most} left to credit without tax; ${amount.toFixed(minorUnits)} asked`,
    )
  }
  if (amount.equals(left.amountWithoutTax)) {
    const whole = !line.creditedBefore
    return {
      creditedLineId: line.id,
      quantity: whole ? line.quantity : money(1),
      unitAmountWithoutTax: whole ? line.unitAmountWithoutTax : amount,
      ...left,
    }
  }
  const taxed = taxedAmounts(amount, { percent: line.taxPercent }, false, minorUnits)
  return { creditedLineId: line.id, quantity: money(1), unitAmountWithoutTax: amount, ...taxed }
}
