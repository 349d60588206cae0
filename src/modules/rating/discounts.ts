import type { Decimal } from 'decimal.js'
import { Money, roundAmount } from '../../kernel/money.ts'
import { taxOf } from './charge-rating.ts'
import type { DiscountableLine, DiscountInstance, DiscountLevel, DiscountLine, DiscountState } from './rating.model.ts'

const LEVEL_RANK: Record<DiscountLevel, number> = { PRODUCT: 0, OFFER: 1, ORDER: 2 }
const HUNDRED = new Money(100)
const ZERO = new Money(0)

export const EMPTY_DISCOUNT_STATE: DiscountState = { applied: {}, fixedUsed: {} }

/** The cascade order (DECISIONS): plan sequence, then level (product, offer, order), then plan code. */
export function cascadeOrder(a: DiscountInstance, b: DiscountInstance): number {
  return (
    a.sequence - b.sequence ||
    LEVEL_RANK[a.level] - LEVEL_RANK[b.level] ||
    (a.planCode < b.planCode ? -1 : a.planCode > b.planCode ? 1 : 0)
  )
}

export interface AppliedDiscounts {
  /** In the order they were computed (cascade order, then line order, then item order). */
  readonly discounts: DiscountLine[]
  /** The state of every instance after these lines (instances without a previous state start empty). */
  readonly states: Map<string, DiscountState>
  /** Each line's amount once discounted. */
  readonly netAmounts: Map<string, Decimal>
}

/**
 * Discounts lines (DECISIONS "Discount scope" and cascade): each instance discounts the lines of its scope, in the
 * order given (callers pass one-shot lines before recurring ones); instances apply in cascade order, each on the
 * line's already-discounted amount, items in item order. PERCENTAGE takes that percentage of the line; FIXED grants
 * its value once per instance across lines and ratings (what was granted is in the state), never below zero. Each
 * discount amount is rounded; its tax is the item article's. `applicationLimit` > 0 caps the lines a plan
 * discounts per subscription, also across ratings. Lines at zero or below are not discounted.
 */
export function applyDiscounts(
  lines: readonly DiscountableLine[],
  instances: readonly DiscountInstance[],
  previous: ReadonlyMap<string, DiscountState>,
  minorUnits: number,
): AppliedDiscounts {
  const net = new Map(lines.map((line) => [line.key, line.amountWithoutTax]))
  const states = new Map<string, DiscountState>()
  const discounts: DiscountLine[] = []
  for (const instance of [...instances].sort(cascadeOrder)) {
    const before = previous.get(instance.key) ?? EMPTY_DISCOUNT_STATE
    const applied: Record<string, number> = { ...before.applied }
    const fixedUsed: Record<string, string> = { ...before.fixedUsed }
    for (const line of lines) {
      if (line.scopes[instance.level] !== instance.scope) continue
      const count = applied[line.subscription] ?? 0
      if (instance.applicationLimit > 0 && count >= instance.applicationLimit) continue
      let discounted = false
      for (const item of instance.items) {
        const base = net.get(line.key)!
        if (base.lte(ZERO)) break
        let amount: Decimal
        let how: string
        if (item.type === 'PERCENTAGE') {
          amount = roundAmount(base.times(item.value).div(HUNDRED), minorUnits)
          how = `${item.value.toString()} % of ${base.toFixed(minorUnits)}`
        } else {
          const remaining = item.value.minus(fixedUsed[item.code] ?? 0)
          amount = remaining.lte(ZERO) ? ZERO : roundAmount(Money.min(remaining, base), minorUnits)
          how = `fixed ${item.value.toString()} (${remaining.toString()} left) on ${base.toFixed(minorUnits)}`
          fixedUsed[item.code] = new Money(fixedUsed[item.code] ?? 0).plus(amount).toString()
        }
        if (amount.lte(ZERO)) continue
        net.set(line.key, base.minus(amount))
        discounted = true
        const amountWithoutTax = amount.negated()
        const amountTax = taxOf(amountWithoutTax, item.tax, minorUnits)
        discounts.push({
          lineKey: line.key,
          instance,
          item,
          amountWithoutTax,
          taxPercent: item.tax.percent,
          amountTax,
          amountWithTax: amountWithoutTax.plus(amountTax),
          explanation:
            `discount plan ${instance.planCode} (${instance.level}) item ${item.code}: ${how} = ` +
            `${amountWithoutTax.toFixed(minorUnits)}; tax ${item.tax.code} ${item.tax.percent.toString()} % = ${amountTax.toFixed(minorUnits)}`,
        })
      }
      if (discounted) applied[line.subscription] = count + 1
    }
    states.set(instance.key, { applied, fixedUsed })
  }
  return { discounts, states, netAmounts: net }
}
