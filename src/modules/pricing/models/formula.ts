import { formatDecimal, Money, UNIT_PRICE_SCALE } from '../../../kernel/money.ts'
import { evaluatePriceFormula, type Formula } from '../el/index.ts'
import type { PricedUnit, RatingInput } from './pricing-model.ts'

/** A unit price computed at rating time from `price_fx` (parsed when the draft was saved). */
export interface FormulaPricing {
  readonly model: 'FORMULA'
  readonly formula: Formula
}

/** Evaluates the formula in the rating context; throws FormulaError when it cannot. */
export function formulaUnitPrice(pricing: FormulaPricing, input: RatingInput): PricedUnit {
  const value = evaluatePriceFormula(pricing.formula, {
    quantity: input.quantity,
    attributes: Object.fromEntries(Object.entries(input.attributes).map(([k, v]) => [k, v ?? null])),
    charge: input.charge,
    ...(input.subscription ? { subscription: input.subscription } : {}),
    ...(input.offer ? { offer: input.offer } : {}),
    ...(input.product ? { product: input.product } : {}),
  })
  const unitPrice = new Money(value).toDecimalPlaces(UNIT_PRICE_SCALE, Money.ROUND_HALF_UP)
  return {
    unitPrice,
    explanation: `formula ${pricing.formula.source} with quantity ${formatDecimal(input.quantity)}: ${formatDecimal(unitPrice)}`,
  }
}
