import type { Decimal } from 'decimal.js'
import { formatDecimal, Money, UNIT_PRICE_SCALE } from '../../../kernel/money.ts'
import type { PricedUnit } from './pricing-model.ts'

/** One fixed unit price. */
export interface FlatPricing {
  readonly model: 'FLAT'
  readonly price: Decimal
}

export function flatUnitPrice(pricing: FlatPricing): PricedUnit {
  const unitPrice = new Money(pricing.price).toDecimalPlaces(UNIT_PRICE_SCALE, Money.ROUND_HALF_UP)
  return { unitPrice, explanation: `flat price ${formatDecimal(unitPrice)}` }
}
