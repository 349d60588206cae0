import { formatDecimal, Money, roundAmount, UNIT_PRICE_SCALE } from '../../kernel/money.ts'
import { priceUnit } from '../pricing/index.ts'
import type { ChargeRatingInput, RatedCharge } from './rating.model.ts'
import { taxedAmounts, unitAmounts } from './tax.ts'

/**
 * Rates one charge: unit price from the pricing version (FLAT, MATRIX, FORMULA through `priceUnit`) or the order's
 * override, amount = quantity × unit price (× the prorata share of a prorated period) rounded HALF_UP to the minor
 * unit, then tax (`taxedAmounts`): added to the amount with net prices, taken out of it when prices include tax.
 * Throws PRICE_NOT_FOUND / INVALID_FORMULA as `priceUnit` does.
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
  const amount = roundAmount(raw, input.minorUnits)
  const amounts = taxedAmounts(amount, input.tax, input.pricesIncludeTax, input.minorUnits)
  const units = unitAmounts(unitPrice, input.tax, input.pricesIncludeTax)
  const fixed = (value: Money) => value.toFixed(input.minorUnits)
  const source = overridden
    ? `unit price ${formatDecimal(unitPrice)} given by the order`
    : `pricing version ${input.pricing.version}: ${priced.explanation}`
  const share = prorata ? ` × ${prorata.days}/${prorata.periodDays} days` : ''
  const period = input.period ? ` for ${input.period.start}..${input.period.end}` : ''
  const tax = `tax ${input.tax.code} ${formatDecimal(input.tax.percent)} %`
  return {
    quantity: input.quantity,
    unitPrice,
    unitAmountWithoutTax: units.withoutTax,
    unitAmountWithTax: units.withTax,
    amount,
    ...amounts,
    taxPercent: input.tax.percent,
    overridden,
    explanation:
      `${source}; ${formatDecimal(input.quantity)} × ${formatDecimal(unitPrice)}${share}${period} = ${fixed(amount)}` +
      (input.pricesIncludeTax
        ? ` with tax; ${tax} included = ${fixed(amounts.amountTax)}; without tax ${fixed(amounts.amountWithoutTax)}`
        : `; ${tax} = ${fixed(amounts.amountTax)}`),
  }
}
