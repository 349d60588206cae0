import type { Decimal } from 'decimal.js'
import { Money, roundAmount, UNIT_PRICE_SCALE } from '../../kernel/money.ts'
import { priceUnit } from '../pricing/index.ts'
import type { ChargeRatingInput, RatedCharge, TaxRate } from './rating.model.ts'

const HUNDRED = new Money(100)

/** The tax on an amount: `round(amount × percent / 100)` HALF_UP to the minor unit (DECISIONS "Tax"). */
export function taxOf(amountWithoutTax: Decimal, tax: Pick<TaxRate, 'percent'>, minorUnits: number): Decimal {
  return roundAmount(amountWithoutTax.times(tax.percent).div(HUNDRED), minorUnits)
}

/**
 * Rates one charge: unit price from the pricing version (FLAT, MATRIX, FORMULA through `priceUnit`) or the order's
 * override, amount = quantity × unit price (× the prorata share of a prorated period) rounded HALF_UP to the minor
 * unit, then tax. Throws PRICE_NOT_FOUND / INVALID_FORMULA as `priceUnit` does.
 */
export function rateCharge(input: ChargeRatingInput): RatedCharge {
  const overridden = input.unitPriceOverride !== undefined && input.unitPriceOverride !== null
  const priced = overridden
    ? {
        unitPrice: new Money(input.unitPriceOverride).toDecimalPlaces(UNIT_PRICE_SCALE, Money.ROUND_HALF_UP),
        explanation: '',
      }
    : priceUnit(input.pricing.definition, {
        quantity: input.quantity,
        attributes: input.attributes,
        charge: { code: input.charge.code, type: input.charge.type },
        ...input.context,
      })
  const unitPrice = priced.unitPrice
  let raw = input.quantity.times(unitPrice)
  const prorata = input.period?.prorata
  if (prorata) raw = raw.times(prorata.days).div(prorata.periodDays)
  const amountWithoutTax = roundAmount(raw, input.minorUnits)
  const amountTax = taxOf(amountWithoutTax, input.tax, input.minorUnits)
  const amountWithTax = amountWithoutTax.plus(amountTax)
  const source = overridden
    ? `unit price ${unitPrice.toString()} given by the order`
    : `pricing version ${input.pricing.version}: ${priced.explanation}`
  const share = prorata ? ` × ${prorata.days}/${prorata.periodDays} days` : ''
  const period = input.period ? ` for ${input.period.start}..${input.period.end}` : ''
  return {
    quantity: input.quantity,
    unitPrice,
    amountWithoutTax,
    taxPercent: input.tax.percent,
    amountTax,
    amountWithTax,
    overridden,
    explanation:
      `${source}; ${input.quantity.toString()} × ${unitPrice.toString()}${share}${period} = ${amountWithoutTax.toFixed(input.minorUnits)}; ` +
      `tax ${input.tax.code} ${input.tax.percent.toString()} % = ${amountTax.toFixed(input.minorUnits)}`,
  }
}
