import { money } from '../../kernel/money.ts'
import {
  applyDiscounts,
  rateCharge,
  type AppliedDiscounts,
  type DiscountableLine,
  type DiscountInstance,
  type DiscountState,
  type RatedCharge,
} from '../rating/index.ts'
import { previewChargeType, type ResolvedCharge, type ResolvedOrder, type ResolvedPlan } from './order.model.ts'

/**
 * When a charge instance of the order is billed: one-shot subscription charges at validation (ACTIVATION), recurring
 * charges at the end of each period (RECURRING: the first one shown by the preview), usage charges when usage is
 * rated (USAGE: no amount at order time), other one-shot charges on their own event (LATER).
 */
export type Billing = 'ACTIVATION' | 'RECURRING' | 'USAGE' | 'LATER'

/** One charge instance the order creates, rated as placement and preview see it. */
export interface OrderLine {
  readonly key: string
  readonly offerPosition: number
  readonly productPosition: number | null
  readonly productCode: string | null
  readonly serviceCode: string | null
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
export const subscriptionKey = (order: ResolvedOrder, offerPosition: number): string =>
  order.offers.find((o) => o.position === offerPosition)?.subscriptionCode ?? `offer:${offerPosition}`

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

/** The discount instances of an order's plans, scoped by order, offer position or product position. */
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
          ? `offer:${selected.offerPosition!}`
          : `product:${selected.offerPosition!}:${selected.productPosition!}`,
    applicationLimit: selected.plan.applicationLimit,
    items: selected.plan.items.map((item) => ({
      id: item.id,
      code: item.code,
      description: item.description,
      type: item.type,
      value: money(item.value),
      articleId: item.articleId!,
      articleCode: item.articleCode!,
      tax: selected.taxes.get(item.id)!,
    })),
  }))
}

const discountable = (line: OrderLine): DiscountableLine => ({
  key: line.key,
  amount: line.rated!.amount,
  scopes: {
    ORDER: 'order',
    OFFER: `offer:${line.offerPosition}`,
    PRODUCT: line.productPosition === null ? null : `product:${line.offerPosition}:${line.productPosition}`,
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
    const add = (
      charge: ResolvedCharge,
      productPosition: number | null,
      productCode: string | null,
      serviceCode: string | null,
    ) => {
      const billing = billingOf(charge.charge)
      lines.push({
        key: `line:${lines.length}`,
        offerPosition: offer.position,
        productPosition,
        productCode,
        serviceCode,
        subscriptionKey: subscriptionKey(order, offer.position),
        resolved: charge,
        chargeType: previewChargeType(charge.charge),
        billing,
        rated:
          billing === 'USAGE'
            ? null
            : rateCharge({
                charge: { code: charge.charge.code, type: charge.charge.type },
                pricing: charge.pricing!,
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
      for (const charge of product.charges) add(charge, product.position, product.product.code, null)
    }
    for (const service of offer.services) {
      for (const charge of service.charges) add(charge, null, null, service.service.code)
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
