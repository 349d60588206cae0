/**
 * The rating engine: pure functions from a charge, its pricing version, quantity,
 * attributes, date, tax and discounts to rated lines with amounts and an explanation. Order preview, order
 * placement and recurring rating all call these; nothing else computes a price.
 */
export type * from './rating.model.ts'
export { rateCharge } from './charge-rating.ts'
export {
  applyDiscounts,
  cascadeOrder,
  discountStateTaken,
  EMPTY_DISCOUNT_STATE,
  giveBackDiscountState,
  isEmptyDiscountState,
  type AppliedDiscounts,
} from './discounts.ts'
export { daysBetween, firstServicePeriod, nextServicePeriod, servicePeriodFrom } from './service-period.ts'
export {
  includedTaxOf,
  selectTax,
  taxedAmounts,
  taxOf,
  unitAmounts,
  type TaxMapping,
  type TaxedAmounts,
} from './tax.ts'
