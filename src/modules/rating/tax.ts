import type { Decimal } from 'decimal.js'
import { Money, roundAmount, UNIT_PRICE_SCALE } from '../../kernel/money.ts'
import type { TaxRate } from './rating.model.ts'

/** A tax mapping: a tax class, optionally narrowed to a seller country and a billing country, gives a tax. */
export interface TaxMapping {
  readonly id: number
  readonly taxClassId: number
  readonly sellerCountryId: number | null
  readonly billingCountryId: number | null
  readonly priority: number
  readonly tax: TaxRate
}

const specificity = (m: TaxMapping) => (m.sellerCountryId === null ? 0 : 1) + (m.billingCountryId === null ? 0 : 1)

/**
 * The tax of a tax class for a seller country and a billing country: among the mappings of the
 * class whose countries are absent or equal, the most specific (both countries, then one, then none), then the
 * highest priority, then the oldest. Undefined when no mapping applies.
 */
export function selectTax(
  mappings: readonly TaxMapping[],
  taxClassId: number,
  sellerCountryId: number | null,
  billingCountryId: number | null,
): TaxRate | undefined {
  const applicable = mappings.filter(
    (m) =>
      m.taxClassId === taxClassId &&
      (m.sellerCountryId === null || m.sellerCountryId === sellerCountryId) &&
      (m.billingCountryId === null || m.billingCountryId === billingCountryId),
  )
  applicable.sort((a, b) => specificity(b) - specificity(a) || b.priority - a.priority || a.id - b.id)
  return applicable[0]?.tax
}

const HUNDRED = new Money(100)

/** The tax on an amount without tax: `round(amount × percent / 100)` HALF_UP to the minor unit. */
export function taxOf(amountWithoutTax: Decimal, tax: Pick<TaxRate, 'percent'>, minorUnits: number): Decimal {
  return roundAmount(amountWithoutTax.times(tax.percent).div(HUNDRED), minorUnits)
}

/**
 * The tax included in an amount with tax: `round(amount × rate / (1 + rate))` with rate = percent / 100, that is
 * `round(amount × percent / (100 + percent))`, HALF_UP to the minor unit (docs/decisions.md, "Money on the wire and prices including tax").
 */
export function includedTaxOf(amountWithTax: Decimal, tax: Pick<TaxRate, 'percent'>, minorUnits: number): Decimal {
  return roundAmount(amountWithTax.times(tax.percent).div(HUNDRED.plus(tax.percent)), minorUnits)
}

export interface TaxedAmounts {
  readonly amountWithoutTax: Decimal
  readonly amountTax: Decimal
  readonly amountWithTax: Decimal
}

/**
 * The three amounts of a priced amount already rounded to the minor unit: the only place that decides what a price
 * means. Net prices (default, B2B): the amount is without tax, the tax is added. Prices including tax (tenant setting
 * `pricesIncludeTax`, B2C): the amount is with tax, the tax is the part of it `includedTaxOf` gives, and the amount
 * without tax is the difference. Either way `amountWithTax = amountWithoutTax + amountTax` exactly.
 */
export function taxedAmounts(
  amount: Decimal,
  tax: Pick<TaxRate, 'percent'>,
  pricesIncludeTax: boolean,
  minorUnits: number,
): TaxedAmounts {
  if (pricesIncludeTax) {
    const amountTax = includedTaxOf(amount, tax, minorUnits)
    return { amountWithoutTax: amount.minus(amountTax), amountTax, amountWithTax: amount }
  }
  const amountTax = taxOf(amount, tax, minorUnits)
  return { amountWithoutTax: amount, amountTax, amountWithTax: amount.plus(amountTax) }
}

/**
 * A unit price without and with tax, 12 decimals HALF_UP: the price as given on its side, the other side by the rate
 * (`× (100 + percent) / 100` or `× 100 / (100 + percent)`). Informative only: amounts are always computed from the
 * quantity and the price as given, never from these.
 */
export function unitAmounts(
  unitPrice: Decimal,
  tax: Pick<TaxRate, 'percent'>,
  pricesIncludeTax: boolean,
): { readonly withoutTax: Decimal; readonly withTax: Decimal } {
  const factor = HUNDRED.plus(tax.percent)
  return pricesIncludeTax
    ? {
        withoutTax: unitPrice.times(HUNDRED).div(factor).toDecimalPlaces(UNIT_PRICE_SCALE, Money.ROUND_HALF_UP),
        withTax: unitPrice,
      }
    : {
        withoutTax: unitPrice,
        withTax: unitPrice.times(factor).div(HUNDRED).toDecimalPlaces(UNIT_PRICE_SCALE, Money.ROUND_HALF_UP),
      }
}
