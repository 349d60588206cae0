import type { Decimal } from 'decimal.js'
import type { PricingDefinition } from '../pricing/index.ts'

/** The catalog charge types (`ONESHOT` one-shot charges carry a one-shot type). */
export type ChargeType = 'ONESHOT' | 'RECURRING' | 'USAGE'

/** A tax as rating applies it: `percent` of the amount without tax. */
export interface TaxRate {
  readonly id: number
  readonly code: string
  readonly percent: Decimal
}

/** A service period of a recurring charge: yyyy-MM-dd days, start inclusive, end exclusive. */
export interface ServicePeriod {
  readonly start: string
  readonly end: string
  /** Set when the period is prorated: `days` of the calendar period's `periodDays` are charged. */
  readonly prorata?: { readonly days: number; readonly periodDays: number }
}

/** The pricing version valid at the rating date, as a pure definition. */
export interface PricingSnapshot {
  readonly versionId: number
  readonly version: number
  readonly currency: string
  readonly definition: PricingDefinition
}

/** Everything needed to rate one charge once: nothing is read from anywhere else. */
export interface ChargeRatingInput {
  readonly charge: { readonly code: string; readonly type: ChargeType }
  readonly pricing: PricingSnapshot
  readonly quantity: Decimal
  /** Attribute values of the product, by attribute code (MATRIX dimensions, formula `attributes`). */
  readonly attributes: Readonly<Record<string, string>>
  /** A unit price given by the order (`chargeOverrides`): used instead of the pricing version's. */
  readonly unitPriceOverride?: Decimal | null
  readonly tax: TaxRate
  /** Decimals of the currency's minor unit (2 for EUR): amounts are rounded HALF_UP to it. */
  readonly minorUnits: number
  /** The tenant setting in force when rating runs: unit prices (and overrides) are amounts with tax (B2C). */
  readonly pricesIncludeTax: boolean
  /** Recurring charges: the period rated. */
  readonly period?: ServicePeriod
  /** What a formula may read besides quantity and attributes. */
  readonly context?: {
    readonly subscription?: { readonly code: string; readonly date: string }
    readonly offer?: { readonly code: string }
    readonly product?: { readonly code: string }
  }
}

/** A rated charge: unit price (12 decimals), amounts rounded to the minor unit, and how they were obtained. */
export interface RatedCharge {
  readonly quantity: Decimal
  /** The unit price as priced: with tax when prices include tax, else without. */
  readonly unitPrice: Decimal
  readonly unitAmountWithoutTax: Decimal
  readonly unitAmountWithTax: Decimal
  /** Quantity × unit price, rounded: the amount discounts apply to (with tax when prices include tax). */
  readonly amount: Decimal
  readonly amountWithoutTax: Decimal
  readonly taxPercent: Decimal
  readonly amountTax: Decimal
  readonly amountWithTax: Decimal
  /** True when the unit price came from the order rather than the pricing version. */
  readonly overridden: boolean
  readonly explanation: string
}

export type DiscountLevel = 'PRODUCT' | 'OFFER' | 'ORDER'

export interface DiscountItem {
  readonly id: number
  readonly code: string
  readonly description: string | null
  readonly type: 'PERCENTAGE' | 'FIXED'
  /** A percentage (PERCENTAGE) or an amount in the order's currency (FIXED). */
  readonly value: Decimal
  readonly articleId: number
  readonly articleCode: string
  /** The tax of the item's accounting article. */
  readonly tax: TaxRate
}

/** A discount plan instantiated for one scope: the order, a subscription, or a product of a subscription. */
export interface DiscountInstance {
  /** Identifies the instance (and its state) within one rating. */
  readonly key: string
  readonly planId: number
  readonly planCode: string
  readonly planDescription: string | null
  /** The plan's `sequence`: the first key of the cascade. */
  readonly sequence: number
  readonly level: DiscountLevel
  /** The scope key a line must carry at `level` to be discounted. */
  readonly scope: string
  /** > 0: the most lines the plan discounts per subscription, all its instances (levels) together. */
  readonly applicationLimit: number
  /** In item order. */
  readonly items: readonly DiscountItem[]
}

/** A priced line as discounts see it. */
export interface DiscountableLine {
  readonly key: string
  /** The rated charge's `amount`: without tax, or with tax when prices include tax. */
  readonly amount: Decimal
  /** The line's scope key at each level (no product for legacy service charges). */
  readonly scopes: { readonly ORDER: string; readonly OFFER: string; readonly PRODUCT: string | null }
  /** applicationLimit counts lines per subscription. */
  readonly subscription: string
}

/**
 * What an instance remembers between ratings: lines it discounted per subscription (a plan's `applicationLimit`
 * caps the sum over its instances), FIXED amounts granted per item.
 */
export interface DiscountState {
  readonly applied: Readonly<Record<string, number>>
  readonly fixedUsed: Readonly<Record<string, string>>
}

/** How amounts are made for one rating: the currency's minor unit and the tenant's `pricesIncludeTax`. */
export interface AmountRules {
  readonly minorUnits: number
  readonly pricesIncludeTax: boolean
}

/** One discount of one line by one plan item: negative amounts. */
export interface DiscountLine {
  readonly lineKey: string
  readonly instance: DiscountInstance
  readonly item: DiscountItem
  readonly amountWithoutTax: Decimal
  readonly taxPercent: Decimal
  readonly amountTax: Decimal
  readonly amountWithTax: Decimal
  readonly explanation: string
}
