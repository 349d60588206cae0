import type { Decimal } from 'decimal.js'
import { formatDecimal, Money, roundAmount } from '../../kernel/money.ts'
import { taxedAmounts } from './tax.ts'
import type {
  AmountRules,
  DiscountableLine,
  DiscountInstance,
  DiscountLevel,
  DiscountLine,
  DiscountState,
} from './rating.model.ts'

const LEVEL_RANK: Record<DiscountLevel, number> = { PRODUCT: 0, OFFER: 1, ORDER: 2 }
const HUNDRED = new Money(100)
const ZERO = new Money(0)

export const EMPTY_DISCOUNT_STATE: DiscountState = { applied: {}, fixedUsed: {} }

/** The cascade order of discount instances: plan sequence, then level (product, offer, order), then plan code. */
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
  /** Each line's amount once discounted (with tax when prices include tax). */
  readonly netAmounts: Map<string, Decimal>
}

/**
 * Discounts lines: each instance discounts the lines of its scope, in the
 * order given (callers pass one-shot lines before recurring ones); instances apply in cascade order, each on the
 * line's already-discounted amount, items in item order. PERCENTAGE takes that percentage of the line; FIXED grants
 * its value once per instance across lines and ratings (what was granted is in the state), never below zero. Each
 * discount amount is rounded; its tax is the item article's. Discounts apply to the lines' `amount`: without tax, or
 * with tax when prices include tax, and then a discount is an amount with tax too (`taxedAmounts`). A plan's
 * `applicationLimit` > 0 caps the lines it discounts per subscription, across ratings and across the levels listing
 * the plan (its instances count together). Lines at zero or below are not discounted.
 */
export function applyDiscounts(
  lines: readonly DiscountableLine[],
  instances: readonly DiscountInstance[],
  previous: ReadonlyMap<string, DiscountState>,
  rules: AmountRules,
): AppliedDiscounts {
  const { minorUnits, pricesIncludeTax } = rules
  const net = new Map(lines.map((line) => [line.key, line.amount]))
  const states = new Map<string, DiscountState>()
  const discounts: DiscountLine[] = []
  // Lines each plan discounted per subscription, all its instances together, previous ratings included.
  const planCounts = new Map<string, number>()
  const countKey = (planId: number, subscription: string) => `${planId}\u0000${subscription}`
  for (const instance of instances) {
    for (const [subscription, count] of Object.entries(previous.get(instance.key)?.applied ?? {})) {
      const key = countKey(instance.planId, subscription)
      planCounts.set(key, (planCounts.get(key) ?? 0) + count)
    }
  }
  const amountText = (value: Decimal) => `${value.toFixed(minorUnits)}${pricesIncludeTax ? ' with tax' : ''}`
  for (const instance of [...instances].sort(cascadeOrder)) {
    const before = previous.get(instance.key) ?? EMPTY_DISCOUNT_STATE
    const applied: Record<string, number> = { ...before.applied }
    const fixedUsed: Record<string, string> = { ...before.fixedUsed }
    for (const line of lines) {
      if (line.scopes[instance.level] !== instance.scope) continue
      const planKey = countKey(instance.planId, line.subscription)
      const planCount = planCounts.get(planKey) ?? 0
      if (instance.applicationLimit > 0 && planCount >= instance.applicationLimit) continue
      let discounted = false
      for (const item of instance.items) {
        const base = net.get(line.key)!
        if (base.lte(ZERO)) break
        let amount: Decimal
        let how: string
        if (item.type === 'PERCENTAGE') {
          amount = roundAmount(base.times(item.value).div(HUNDRED), minorUnits)
          how = `${formatDecimal(item.value)} % of ${amountText(base)}`
        } else {
          const remaining = item.value.minus(fixedUsed[item.code] ?? 0)
          amount = remaining.lte(ZERO) ? ZERO : roundAmount(Money.min(remaining, base), minorUnits)
          how = `fixed ${formatDecimal(item.value)} (${formatDecimal(remaining)} left) on ${amountText(base)}`
          fixedUsed[item.code] = formatDecimal(new Money(fixedUsed[item.code] ?? 0).plus(amount))
        }
        if (amount.lte(ZERO)) continue
        net.set(line.key, base.minus(amount))
        discounted = true
        const amounts = taxedAmounts(amount.negated(), item.tax, pricesIncludeTax, minorUnits)
        const tax = `tax ${item.tax.code} ${formatDecimal(item.tax.percent)} %`
        discounts.push({
          lineKey: line.key,
          instance,
          item,
          ...amounts,
          taxPercent: item.tax.percent,
          explanation:
            `discount plan ${instance.planCode} (${instance.level}) item ${item.code}: ${how} = ` +
            (pricesIncludeTax
              ? `${amountText(amounts.amountWithTax)}; ${tax} included = ${amounts.amountTax.toFixed(minorUnits)}; ` +
                `without tax ${amounts.amountWithoutTax.toFixed(minorUnits)}`
              : `${amounts.amountWithoutTax.toFixed(minorUnits)}; ${tax} = ${amounts.amountTax.toFixed(minorUnits)}`),
        })
      }
      if (discounted) {
        applied[line.subscription] = (applied[line.subscription] ?? 0) + 1
        planCounts.set(planKey, planCount + 1)
      }
    }
    states.set(instance.key, { applied, fixedUsed })
  }
  return { discounts, states, netAmounts: net }
}

/**
 * What a rating took from an instance's state: the lines it discounted per subscription and the FIXED amounts it
 * granted per item, `after` minus `before` (entries where nothing was taken left out). States only grow, so what a
 * held rating took can be given back later with `giveBackDiscountState`, whatever other ratings did meanwhile.
 */
export function discountStateTaken(before: DiscountState, after: DiscountState): DiscountState {
  const applied: Record<string, number> = {}
  for (const [subscription, count] of Object.entries(after.applied)) {
    const taken = count - (before.applied[subscription] ?? 0)
    if (taken !== 0) applied[subscription] = taken
  }
  const fixedUsed: Record<string, string> = {}
  for (const [item, used] of Object.entries(after.fixedUsed)) {
    const taken = new Money(used).minus(before.fixedUsed[item] ?? 0)
    if (!taken.isZero()) fixedUsed[item] = formatDecimal(taken)
  }
  return { applied, fixedUsed }
}

/** Whether a state (as taken by a rating) is empty: nothing discounted, nothing granted. */
export const isEmptyDiscountState = (state: DiscountState): boolean =>
  Object.keys(state.applied).length === 0 && Object.keys(state.fixedUsed).length === 0

/** An instance's state once what a held rating took (`discountStateTaken`) is given back; never below nothing. */
export function giveBackDiscountState(state: DiscountState, taken: DiscountState): DiscountState {
  const applied: Record<string, number> = {}
  for (const [subscription, count] of Object.entries(state.applied)) {
    const left = Math.max(0, count - (taken.applied[subscription] ?? 0))
    if (left > 0) applied[subscription] = left
  }
  const fixedUsed: Record<string, string> = {}
  for (const [item, used] of Object.entries(state.fixedUsed)) {
    const left = Money.max(ZERO, new Money(used).minus(taken.fixedUsed[item] ?? 0))
    if (!left.isZero()) fixedUsed[item] = formatDecimal(left)
  }
  return { applied, fixedUsed }
}
