import { present } from '../../kernel/invariant.ts'
import {
  applyDiscounts,
  rateCharge,
  type AppliedDiscounts,
  type DiscountableLine,
  type DiscountInstance,
  type DiscountState,
  type RatedCharge,
} from '../rating/index.ts'
import {
  previewChargeType,
  type ResolvedCharge,
  type ResolvedOffer,
  type ResolvedOrder,
  type ResolvedPlan,
  type ResolvedProduct,
  type ResolvedService,
} from './order.model.ts'
import { discountItem } from './rating-glue.ts'

/**
 * When a charge instance of the order is billed: one-shot subscription charges at validation (ACTIVATION), recurring
 * charges at the end of each period (RECURRING: the first one shown by the preview), usage charges when usage is
 * rated (USAGE: no amount at order time), other one-shot charges on their own event (LATER).
 */
export type Billing = 'ACTIVATION' | 'RECURRING' | 'USAGE' | 'LATER'

/** One charge instance the order creates, rated as placement and preview see it. */
export interface OrderLine {
  readonly key: string
  readonly offer: ResolvedOffer
  /** The product the charge belongs to, or null for a charge of a mandatory service. */
  readonly product: ResolvedProduct | null
  readonly service: ResolvedService | null
  readonly subscriptionKey: string
  readonly resolved: ResolvedCharge
  readonly chargeType: string
  readonly billing: Billing
  /** Null for usage lines: no volume at order time. */
  readonly rated: RatedCharge | null
}

export interface OrderRating {
  readonly order: ResolvedOrder
  /** Every charge instance, in order: offers, their products then mandatory services, each's charges. */
  readonly lines: readonly OrderLine[]
  readonly instances: readonly DiscountInstance[]
  /** Discounts of the one-shot lines billed at validation. */
  readonly activation: AppliedDiscounts
  /** Discounts of the first recurring periods, on top of the activation's state (FIXED left, lines counted). */
  readonly firstPeriods: AppliedDiscounts
}

/** The subscription a line counts in for applicationLimit: its code, or its offer's position in a preview. */
export const subscriptionKey = (offer: ResolvedOffer): string => offer.subscriptionCode ?? `offer:${offer.position}`

/** The discount scopes of an offer and of one of its products (see `discountInstances`). */
const offerScope = (offer: ResolvedOffer) => `offer:${offer.position}`
const productScope = (offer: ResolvedOffer, product: ResolvedProduct) => `product:${offer.position}:${product.position}`

/** What a line billed now was rated at: only usage lines go unrated. */
export const ratedOf = (line: OrderLine): RatedCharge => present(line.rated, `rated amount of ${line.billing} line`)

export const planInstanceKey = (plan: Pick<ResolvedPlan, 'position'>) => `plan:${plan.position}`

function billingOf(charge: ResolvedCharge['charge']): Billing {
  switch (charge.type) {
    case 'ONESHOT':
      return (charge.oneShotType ?? 'SUBSCRIPTION') === 'SUBSCRIPTION' ? 'ACTIVATION' : 'LATER'
    case 'RECURRING':
      return 'RECURRING'
    default:
      return 'USAGE'
  }
}

/** The discount instances of an order's plans, scoped by the order, an offer or a product of an offer. */
export function discountInstances(order: ResolvedOrder): DiscountInstance[] {
  return order.plans.map((selected) => ({
    key: planInstanceKey(selected),
    planId: selected.plan.id,
    planCode: selected.plan.code,
    planDescription: selected.plan.description,
    sequence: selected.plan.sequence,
    level: selected.level,
    scope:
      selected.level === 'ORDER'
        ? 'order'
        : selected.level === 'OFFER'
          ? offerScope(selected.offer)
          : productScope(selected.offer, selected.product),
    applicationLimit: selected.plan.applicationLimit,
    items: selected.items.map(({ item, article, tax }) => discountItem(item, article, tax)),
  }))
}

const discountable = (line: OrderLine): DiscountableLine => ({
  key: line.key,
  amount: ratedOf(line).amount,
  scopes: {
    ORDER: 'order',
    OFFER: offerScope(line.offer),
    PRODUCT: line.product === null ? null : productScope(line.offer, line.product),
  },
  subscription: line.subscriptionKey,
})

/**
 * Rates a resolved order with the tenant's `pricesIncludeTax` read at resolution (the setting in force when rating
 * runs): every one-shot subscription charge and every recurring charge's first period through the rating engine, then
 * discounts in two passes that together equal one (one-shot lines first, then recurring): the
 * first is what validation bills, the second what the recurring job bills at the end of the first periods.
 * Usage lines carry no amount. Pure: the same for preview and placement.
 */
export function rateOrder(order: ResolvedOrder, previous: ReadonlyMap<string, DiscountState> = new Map()): OrderRating {
  const lines: OrderLine[] = []
  for (const offer of order.offers) {
    const context = {
      subscription: { code: offer.subscriptionCode ?? '', date: offer.subscriptionDate },
      offer: { code: offer.offer.code },
    }
    const add = (charge: ResolvedCharge, product: ResolvedProduct | null, service: ResolvedService | null) => {
      const billing = billingOf(charge.charge)
      const productCode = product?.product.code
      lines.push({
        key: `line:${lines.length}`,
        offer,
        product,
        service,
        subscriptionKey: subscriptionKey(offer),
        resolved: charge,
        chargeType: previewChargeType(charge.charge),
        billing,
        rated:
          billing === 'USAGE'
            ? null
            : rateCharge({
                charge: { code: charge.charge.code, type: charge.charge.type },
                pricing: present(charge.pricing, `price of charge ${charge.charge.code}`),
                quantity: charge.quantity,
                attributes: charge.attributes,
                unitPriceOverride: charge.unitPriceOverride,
                tax: charge.tax,
                minorUnits: order.currency.minorUnits,
                pricesIncludeTax: order.pricesIncludeTax,
                ...(charge.period ? { period: charge.period } : {}),
                context: { ...context, ...(productCode ? { product: { code: productCode } } : {}) },
              }),
      })
    }
    for (const product of offer.products) {
      for (const charge of product.charges) add(charge, product, null)
    }
    for (const service of offer.services) {
      for (const charge of service.charges) add(charge, null, service)
    }
  }
  const instances = discountInstances(order)
  const rules = { minorUnits: order.currency.minorUnits, pricesIncludeTax: order.pricesIncludeTax }
  const activation = applyDiscounts(
    lines.filter((l) => l.billing === 'ACTIVATION').map(discountable),
    instances,
    previous,
    rules,
  )
  const firstPeriods = applyDiscounts(
    lines.filter((l) => l.billing === 'RECURRING').map(discountable),
    instances,
    activation.states,
    rules,
  )
  return { order, lines, instances, activation, firstPeriods }
}
