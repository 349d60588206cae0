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
 * The tax of a tax class for a seller country and a billing country (DECISIONS "Tax"): among the mappings of the
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
