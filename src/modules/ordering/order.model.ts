import type { Decimal } from 'decimal.js'
import { formatDecimal } from '../../kernel/money.ts'
import type { PricingSnapshot, ServicePeriod, TaxRate } from '../rating/index.ts'
import type { AttributeRow, ChargeRow } from '../catalog/index.ts'
import type { DiscountItemRow, DiscountPlanRow } from '../discounts/index.ts'
import type { ItemArticle } from './rating-glue.ts'
import type { OrderAttributeInput, OrderInput } from './order.schemas.ts'

export type {
  ChargeOverrideInput,
  OrderAttributeInput,
  OrderInput,
  OrderOfferInput,
  OrderProductInput,
} from './order.schemas.ts'

/** A charge of an ordered product or mandatory service, with everything rating needs. */
export interface ResolvedCharge {
  readonly charge: ChargeRow
  /** The version valid at the subscription date; null only for a usage charge without price that day. */
  readonly pricing: PricingSnapshot | null
  readonly quantity: Decimal
  readonly attributes: Readonly<Record<string, string>>
  readonly unitPriceOverride: Decimal | null
  readonly tax: TaxRate
  /** Recurring charges: the first service period. */
  readonly period: ServicePeriod | null
}

export interface ResolvedProduct {
  readonly position: number
  readonly product: { readonly id: number; readonly code: string }
  readonly version: { readonly id: number; readonly version: number }
  readonly quantity: Decimal
  readonly attributes: Readonly<Record<string, string>>
  readonly chargeOverrides: readonly { chargeCode: string; unitPrice: Decimal }[]
  readonly charges: readonly ResolvedCharge[]
}

export interface ResolvedService {
  readonly service: { readonly id: number; readonly code: string; readonly description: string | null }
  readonly charges: readonly ResolvedCharge[]
}

export interface ResolvedOffer {
  readonly position: number
  readonly subscriptionCode: string | null
  readonly subscriptionDate: string
  readonly orderLineType: string
  readonly offer: { readonly id: number; readonly code: string }
  readonly products: readonly ResolvedProduct[]
  readonly services: readonly ResolvedService[]
}

/** An item of a plan the order applies, with the accounting article it is booked on and the article's tax. */
export interface ResolvedDiscountItem {
  readonly item: DiscountItemRow
  readonly article: ItemArticle
  readonly tax: TaxRate
}

/** What a plan discounts: the whole order, one offer (its subscription), or one product of an offer. */
export type PlanTarget =
  | { readonly level: 'ORDER'; readonly offer: null; readonly product: null }
  | { readonly level: 'OFFER'; readonly offer: ResolvedOffer; readonly product: null }
  | { readonly level: 'PRODUCT'; readonly offer: ResolvedOffer; readonly product: ResolvedProduct }

/** A discount plan the order applies, at its level: listed in the order, or automatic on the offer. */
export type ResolvedPlan = PlanTarget & {
  readonly plan: DiscountPlanRow
  readonly automatic: boolean
  /** Order of selection (order level, then each offer, then its products; automatic plans last). */
  readonly position: number
  /** In item order. */
  readonly items: readonly ResolvedDiscountItem[]
}

/** An order checked against the catalog and the accounts: what placement persists and rating rates. */
export interface ResolvedOrder {
  readonly input: OrderInput
  readonly timeZone: string
  /** The tenant setting read when the order was resolved: unit prices are amounts with tax. */
  readonly pricesIncludeTax: boolean
  readonly seller: { readonly id: number; readonly code: string; readonly countryId: number | null }
  readonly billingAccount: { readonly id: number; readonly code: string; readonly countryId: number }
  readonly userAccount: { readonly id: number; readonly code: string }
  readonly currency: { readonly id: number; readonly code: string; readonly minorUnits: number }
  readonly offers: readonly ResolvedOffer[]
  readonly plans: readonly ResolvedPlan[]
}

export { USABLE_PLAN_STATUSES } from '../discounts/index.ts'

const NUMERIC = /^-?\d+(\.\d+)?$/
const INTEGER = /^-?\d+$/
const DATE = /^\d{4}-\d{2}-\d{2}$/

/** The value of an order attribute as text: the one typed value sent. */
export function attributeValue(input: OrderAttributeInput): string | null | undefined {
  if (input.stringValue !== undefined && input.stringValue !== null) return input.stringValue
  if (input.doubleValue !== undefined && input.doubleValue !== null) return formatDecimal(input.doubleValue)
  if (input.booleanValue !== undefined && input.booleanValue !== null) return String(input.booleanValue)
  if (input.dateValue !== undefined && input.dateValue !== null) return input.dateValue
  return null
}

/** Why a value does not fit an attribute (its type and allowed values), or undefined when it does. */
export function attributeValueProblem(attribute: AttributeRow, value: string): string | undefined {
  const allowed = attribute.allowedValues
  const listed = (v: string) => allowed.length === 0 || allowed.includes(v)
  switch (attribute.attributeType) {
    case 'LIST_TEXT':
      return listed(value) ? undefined : `expected one of ${allowed.join(', ')}`
    case 'LIST_MULTIPLE_TEXT': {
      const bad = value.split(';').filter((v) => !listed(v))
      return bad.length === 0 ? undefined : `expected values among ${allowed.join(', ')} separated by ;`
    }
    case 'LIST_NUMERIC':
      if (!NUMERIC.test(value)) return 'expected a number'
      // Exact text, as MATRIX rows match it: "1.0" is not the allowed "1".
      return allowed.length === 0 || listed(value) ? undefined : `expected one of ${allowed.join(', ')}`
    case 'NUMERIC':
      return NUMERIC.test(value) ? undefined : 'expected a number'
    case 'INTEGER':
      return INTEGER.test(value) ? undefined : 'expected an integer'
    case 'BOOLEAN':
      return value === 'true' || value === 'false' ? undefined : 'expected true or false'
    case 'DATE':
      return DATE.test(value) ? undefined : 'expected a date (yyyy-MM-dd)'
    default:
      return undefined
  }
}

/** The preview's `chargeType` of a charge (DECISIONS: ONE_SHOT_<oneShotType>, RECURRING, USAGE). */
export function previewChargeType(charge: Pick<ChargeRow, 'type' | 'oneShotType'>): string {
  return charge.type === 'ONESHOT' ? `ONE_SHOT_${charge.oneShotType ?? 'SUBSCRIPTION'}` : charge.type
}
