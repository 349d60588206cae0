import type { Decimal } from 'decimal.js'
import { decimalJson, type DecimalJson } from '../../kernel/decimal-json.ts'
import { money } from '../../kernel/money.ts'
import type { DiscountLine } from '../rating/index.ts'
import { startOfDay } from '../../kernel/time-zone.ts'
import type { OrderLine, OrderRating } from './order-rating.ts'

export interface PreviewLine {
  productCode: string | null
  chargeCode: string
  chargeType: string
  label: string
  amountWithoutTax: DecimalJson | null
  amountWithTax: DecimalJson | null
  overridden: boolean
  discountPlanCode: string | null
  servicePeriodStart?: number
  servicePeriodEnd?: number
}

interface Totals {
  totalOneTime: DecimalJson
  totalRecurring: DecimalJson
  totalTax: DecimalJson
  totalWithTax: DecimalJson
}

export type PreviewOffer = {
  subscriptionCode: string | null
  offerCode: string
  lines: PreviewLine[]
} & Partial<Totals>

export interface ChargeItem {
  subscriptionCode: string | null
  productCode: string | null
  chargeCode: string
  chargeType: string
  quantity: DecimalJson
  unitPrice: DecimalJson | null
  pricingVersion: number | null
}

export type OrderPreview = { currency: string; offers: PreviewOffer[]; chargeItems: ChargeItem[] } & Partial<Totals>

class Sums {
  oneTime: Decimal = money(0)
  recurring: Decimal = money(0)
  tax: Decimal = money(0)
  withTax: Decimal = money(0)

  add(line: OrderLine, amountWithoutTax: Decimal, amountTax: Decimal, amountWithTax: Decimal): void {
    if (line.billing === 'RECURRING') this.recurring = this.recurring.plus(amountWithoutTax)
    else this.oneTime = this.oneTime.plus(amountWithoutTax)
    this.tax = this.tax.plus(amountTax)
    this.withTax = this.withTax.plus(amountWithTax)
  }

  merge(other: Sums): void {
    this.oneTime = this.oneTime.plus(other.oneTime)
    this.recurring = this.recurring.plus(other.recurring)
    this.tax = this.tax.plus(other.tax)
    this.withTax = this.withTax.plus(other.withTax)
  }

  wire(): Totals {
    return {
      totalOneTime: decimalJson(this.oneTime),
      totalRecurring: decimalJson(this.recurring),
      totalTax: decimalJson(this.tax),
      totalWithTax: decimalJson(this.withTax),
    }
  }
}

/**
 * The preview of a rated order, rated by the same engine as placement (so a preview equals what placing it writes):
 * per offer, each billed line followed by its discounts (negative, tagged with their plan); recurring lines carry their first
 * service period in epoch milliseconds (tenant time zone); usage lines have null amounts, and an offer with one has
 * no totals, nor has the order. Totals are net of discounts; a discount counts in the total of the line it discounts.
 * Every amount, quantity and unit price is written from its decimal text.
 */
export function previewOf(rating: OrderRating): OrderPreview {
  const { order } = rating
  const discountsOf = new Map<string, DiscountLine[]>()
  for (const discount of [...rating.activation.discounts, ...rating.firstPeriods.discounts]) {
    const list = discountsOf.get(discount.lineKey) ?? []
    list.push(discount)
    discountsOf.set(discount.lineKey, list)
  }
  const orderSums = new Sums()
  let orderComplete = true
  const offers: PreviewOffer[] = order.offers.map((offer) => {
    const sums = new Sums()
    let complete = true
    const lines: PreviewLine[] = []
    for (const line of rating.lines.filter((l) => l.offer === offer && l.billing !== 'LATER')) {
      const charge = line.resolved.charge
      const period = line.resolved.period
      const periodFields = period
        ? {
            servicePeriodStart: startOfDay(period.start, order.timeZone),
            servicePeriodEnd: startOfDay(period.end, order.timeZone),
          }
        : {}
      const rated = line.rated
      if (!rated) complete = false
      else sums.add(line, rated.amountWithoutTax, rated.amountTax, rated.amountWithTax)
      lines.push({
        productCode: line.product?.product.code ?? null,
        chargeCode: charge.code,
        chargeType: line.chargeType,
        label: charge.description ?? charge.code,
        amountWithoutTax: rated ? decimalJson(rated.amountWithoutTax) : null,
        amountWithTax: rated ? decimalJson(rated.amountWithTax) : null,
        overridden: rated?.overridden ?? line.resolved.unitPriceOverride !== null,
        discountPlanCode: null,
        ...periodFields,
      })
      for (const discount of discountsOf.get(line.key) ?? []) {
        sums.add(line, discount.amountWithoutTax, discount.amountTax, discount.amountWithTax)
        lines.push({
          productCode: line.product?.product.code ?? null,
          chargeCode: charge.code,
          chargeType: line.chargeType,
          label: discount.item.description ?? discount.instance.planDescription ?? discount.instance.planCode,
          amountWithoutTax: decimalJson(discount.amountWithoutTax),
          amountWithTax: decimalJson(discount.amountWithTax),
          overridden: false,
          discountPlanCode: discount.instance.planCode,
          ...periodFields,
        })
      }
    }
    if (complete) orderSums.merge(sums)
    else orderComplete = false
    return {
      subscriptionCode: offer.subscriptionCode,
      offerCode: offer.offer.code,
      lines,
      ...(complete ? sums.wire() : {}),
    }
  })
  const chargeItems: ChargeItem[] = rating.lines.map((line) => ({
    subscriptionCode: line.offer.subscriptionCode,
    productCode: line.product?.product.code ?? null,
    chargeCode: line.resolved.charge.code,
    chargeType: line.chargeType,
    quantity: decimalJson(line.resolved.quantity),
    unitPrice: line.billing === 'USAGE' || !line.rated ? null : decimalJson(line.rated.unitPrice),
    pricingVersion: line.resolved.pricing?.version ?? null,
  }))
  return {
    currency: order.currency.code,
    offers,
    chargeItems,
    ...(orderComplete ? orderSums.wire() : {}),
  }
}
