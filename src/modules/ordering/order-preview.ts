import type { Decimal } from 'decimal.js'
import { decimalJson, type DecimalJson } from '../../kernel/decimal-json.ts'
import { money } from '../../kernel/money.ts'
import { rateCharge, type DiscountLine } from '../rating/index.ts'
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

/** Amounts of a group of lines: without tax (net of discounts), their tax, with tax. */
export interface Amounts {
  amountWithoutTax: DecimalJson
  amountTax: DecimalJson
  amountWithTax: DecimalJson
}

/** The recurring lines billed for one first service period (yyyy-MM-dd, end exclusive), their discounts included. */
export type RecurringTotal = {
  periodStart: string
  periodEnd: string
  /** The calendar's period (`1 MONTH`), null for a calendar of listed days. */
  every: { unit: string; length: number } | null
  /** True when a line's first period is a share of a calendar period (prorated). */
  prorated: boolean
} & Amounts

/** A usage line's price for one unit of what it rates, before discounts: null when only a usage event can price it. */
export interface UsagePrice {
  productCode: string | null
  chargeCode: string
  label: string
  /** The unit of measure rated (`MB`), if the charge names one. */
  unit: string | null
  unitPriceWithoutTax: DecimalJson | null
  unitPriceWithTax: DecimalJson | null
  /** FLAT, MATRIX or FORMULA: a formula's price may vary with the volume rated (the unit price is that of one unit). */
  pricingModel: string | null
}

/**
 * What the order costs, in every preview (with usage lines too): one-time lines, recurring lines per first period,
 * usage lines as unit prices, and the sum of the amounts known at order time (one-time and first periods).
 */
export interface Summary {
  oneTime: Amounts
  recurring: RecurringTotal[]
  usage: UsagePrice[]
  known: Amounts
}

export type PreviewOffer = {
  subscriptionCode: string | null
  offerCode: string
  lines: PreviewLine[]
  summary: Summary
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

export type OrderPreview = {
  currency: string
  offers: PreviewOffer[]
  chargeItems: ChargeItem[]
  summary: Summary
} & Partial<Totals>

class Triple {
  withoutTax: Decimal = money(0)
  tax: Decimal = money(0)
  withTax: Decimal = money(0)

  add(withoutTax: Decimal, tax: Decimal, withTax: Decimal): void {
    this.withoutTax = this.withoutTax.plus(withoutTax)
    this.tax = this.tax.plus(tax)
    this.withTax = this.withTax.plus(withTax)
  }

  wire(): Amounts {
    return {
      amountWithoutTax: decimalJson(this.withoutTax),
      amountTax: decimalJson(this.tax),
      amountWithTax: decimalJson(this.withTax),
    }
  }
}

interface RecurringGroup {
  readonly periodStart: string
  readonly periodEnd: string
  readonly every: RecurringTotal['every']
  prorated: boolean
  readonly sums: Triple
}

/** The summary's sums, for an offer or for the whole order. */
class Summing {
  readonly oneTime = new Triple()
  readonly known = new Triple()
  readonly recurring = new Map<string, RecurringGroup>()
  readonly usage: UsagePrice[] = []

  add(line: OrderLine, withoutTax: Decimal, tax: Decimal, withTax: Decimal): void {
    this.known.add(withoutTax, tax, withTax)
    const period = line.resolved.period
    if (line.billing !== 'RECURRING' || !period) return this.oneTime.add(withoutTax, tax, withTax)
    const calendar = line.resolved.charge.calendar
    const every =
      calendar?.calendarType === 'PERIOD' && calendar.periodUnit
        ? { unit: calendar.periodUnit, length: calendar.periodLength ?? 1 }
        : null
    const key = `${period.start}/${period.end}/${every ? `${every.length} ${every.unit}` : ''}`
    const group = this.recurring.get(key) ?? {
      periodStart: period.start,
      periodEnd: period.end,
      every,
      prorated: false,
      sums: new Triple(),
    }
    group.prorated ||= period.prorata !== undefined
    group.sums.add(withoutTax, tax, withTax)
    this.recurring.set(key, group)
  }

  merge(other: Summing): void {
    this.oneTime.add(other.oneTime.withoutTax, other.oneTime.tax, other.oneTime.withTax)
    this.known.add(other.known.withoutTax, other.known.tax, other.known.withTax)
    for (const [key, group] of other.recurring) {
      const mine = this.recurring.get(key) ?? { ...group, sums: new Triple() }
      mine.prorated ||= group.prorated
      mine.sums.add(group.sums.withoutTax, group.sums.tax, group.sums.withTax)
      this.recurring.set(key, mine)
    }
    this.usage.push(...other.usage)
  }

  wire(): Summary {
    return {
      oneTime: this.oneTime.wire(),
      recurring: [...this.recurring.values()].map(({ sums, ...group }) => ({ ...group, ...sums.wire() })),
      usage: this.usage,
      known: this.known.wire(),
    }
  }
}

/**
 * A usage line's price for one unit, rated as a usage of 1 unit would be (the order's attribute values, tax and
 * `pricesIncludeTax`): null when the price needs what only a usage event carries (a matrix row matching none, a
 * formula failing) or the charge has no price that day.
 */
function usagePrice(line: OrderLine, rating: OrderRating): UsagePrice {
  const { resolved } = line
  const productCode = line.product?.product.code ?? null
  let unit: { withoutTax: Decimal; withTax: Decimal } | null = null
  if (resolved.pricing) {
    try {
      const rated = rateCharge({
        charge: { code: resolved.charge.code, type: resolved.charge.type },
        pricing: resolved.pricing,
        quantity: money(1),
        attributes: resolved.attributes,
        unitPriceOverride: resolved.unitPriceOverride,
        tax: resolved.tax,
        minorUnits: rating.order.currency.minorUnits,
        pricesIncludeTax: rating.order.pricesIncludeTax,
        context: {
          subscription: { code: line.offer.subscriptionCode ?? '', date: line.offer.subscriptionDate },
          offer: { code: line.offer.offer.code },
          ...(productCode ? { product: { code: productCode } } : {}),
        },
      })
      unit = { withoutTax: rated.unitAmountWithoutTax, withTax: rated.unitAmountWithTax }
    } catch {
      unit = null
    }
  }
  return {
    productCode,
    chargeCode: resolved.charge.code,
    label: resolved.charge.description ?? resolved.charge.code,
    unit: resolved.charge.ratingUnit,
    unitPriceWithoutTax: unit ? decimalJson(unit.withoutTax) : null,
    unitPriceWithTax: unit ? decimalJson(unit.withTax) : null,
    pricingModel: resolved.pricing?.definition.model ?? null,
  }
}

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
 * no totals, nor has the order (the spec's rule 7); the `summary` of every offer and of the order is always there: one-time
 * amounts, recurring amounts per first service period, usage lines as unit prices, the sum of the amounts known at
 * order time. Totals are net of discounts; a discount counts in the total of the line it discounts.
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
  const orderSummary = new Summing()
  let orderComplete = true
  const offers: PreviewOffer[] = order.offers.map((offer) => {
    const sums = new Sums()
    const summary = new Summing()
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
      if (!rated) {
        complete = false
        summary.usage.push(usagePrice(line, rating))
      } else {
        sums.add(line, rated.amountWithoutTax, rated.amountTax, rated.amountWithTax)
        summary.add(line, rated.amountWithoutTax, rated.amountTax, rated.amountWithTax)
      }
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
        summary.add(line, discount.amountWithoutTax, discount.amountTax, discount.amountWithTax)
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
    orderSummary.merge(summary)
    return {
      subscriptionCode: offer.subscriptionCode,
      offerCode: offer.offer.code,
      lines,
      summary: summary.wire(),
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
    summary: orderSummary.wire(),
    ...(orderComplete ? orderSums.wire() : {}),
  }
}
