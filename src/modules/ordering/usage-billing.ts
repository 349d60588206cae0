import type { Decimal } from 'decimal.js'
import type { Db } from '../../kernel/db/database.ts'
import { present } from '../../kernel/invariant.ts'
import {
  applyDiscounts,
  discountStateTaken,
  EMPTY_DISCOUNT_STATE,
  isEmptyDiscountState,
  rateCharge,
  type DiscountState,
} from '../rating/index.ts'
import type { CatalogLookups } from './cached-catalog.ts'
import {
  giveBackPlanStates,
  planInstanceKey,
  RatingCatalog,
  savePlanStates,
  storedChargeInput,
  storedOperationOwner,
  storedScopes,
  type PlanInstanceRow,
  type StoredCharge,
} from './rating-glue.ts'
import type { UsageChargeRow, UsageSubscriptionRow } from './usage-billing.repository.ts'
import { chargeOperation, discountOperation } from './wallet-operation.model.ts'
import { insertWalletOperations, reserveWalletOperationIds } from './wallet-operation.repository.ts'

/**
 * The use cases of usage billing that prepaid's reservations run: rating usage of a subscription's charge as a
 * placed order's usage would be rated, holding and giving back what ratings take from the order's discount plan
 * states, and billing a confirmed usage (its wallet operations and the plan states after it).
 */

/**
 * Rates `quantity` units of a usage charge of a subscription at its usage day, as a placed order's usage would be:
 * the charge, then the discounts of the subscription's order plans (`instances`, with their states) on it.
 */
export async function rateUsage(
  tx: Db,
  sub: UsageSubscriptionRow,
  charge: UsageChargeRow,
  usageDay: string,
  quantity: Decimal,
  pricesIncludeTax: boolean,
  instances: readonly PlanInstanceRow[],
  lookups?: CatalogLookups,
) {
  const catalog = new RatingCatalog()
  await catalog.load(
    tx,
    {
      chargeIds: [charge.chargeId],
      prices: [{ chargeId: charge.chargeId, day: usageDay }],
      planIds: instances.map((i) => i.discountPlanId),
    },
    lookups,
  )
  const row = catalog.charge(charge.chargeId)
  const pricing = catalog.priceOn(row, usageDay, sub.parties)
  const tax = catalog.tax(row.taxClassId, sub.parties, `charge ${row.code}`)
  const stored: StoredCharge = {
    chargeInstanceId: charge.id,
    quantity: charge.quantity,
    unitPriceOverride: charge.unitPriceOverride,
    attributes: charge.attributes,
    subscriptionCode: sub.code,
    subscriptionDate: sub.subscriptionDate,
    offerCode: sub.offerCode,
    productCode: charge.productCode,
  }
  const rated = rateCharge(
    storedChargeInput(row, stored, { pricing, tax, parties: sub.parties, pricesIncludeTax, quantity }),
  )
  const discounts = applyDiscounts(
    quantity.gt(0)
      ? [
          {
            key: 'usage',
            amount: rated.amount,
            scopes: storedScopes(sub.id, charge.productInstanceId),
            subscription: sub.code,
          },
        ]
      : [],
    catalog.discountInstances(instances, sub.parties),
    new Map(instances.map((i) => [planInstanceKey(i), i.state])),
    { minorUnits: sub.parties.minorUnits, pricesIncludeTax },
  )
  const total = discounts.discounts.reduce(
    (sum, d) => ({
      withoutTax: sum.withoutTax.plus(d.amountWithoutTax),
      withTax: sum.withTax.plus(d.amountWithTax),
    }),
    { withoutTax: rated.amountWithoutTax, withTax: rated.amountWithTax },
  )
  return { row, pricing, tax, rated, discounts, total }
}

export type RatedUsage = Awaited<ReturnType<typeof rateUsage>>

/** Where a usage's wallet operations belong: `walletId`, the charge instance, its subscription and order. */
function usageOwner(sub: UsageSubscriptionRow, charge: UsageChargeRow, walletId: number, actor: string) {
  return storedOperationOwner(
    sub.parties,
    { walletId, chargeInstanceId: charge.id, subscriptionId: sub.id, orderId: sub.orderId },
    actor,
  )
}

/**
 * The wallet operation of a usage's rated charge, dated its usage day, in `walletId` (a reservation's wallet, else
 * the charge instance's): what a confirm without discounts writes (`usageOperationsInsert`).
 */
export function usageOperation(
  usage: { sub: UsageSubscriptionRow; charge: UsageChargeRow; walletId: number; day: string },
  rating: Pick<RatedUsage, 'row' | 'rated' | 'tax' | 'pricing'>,
  actor: string,
) {
  const owner = usageOwner(usage.sub, usage.charge, usage.walletId, actor)
  return chargeOperation(
    owner,
    rating.row,
    'USAGE',
    rating.rated,
    rating.tax,
    rating.pricing.versionId,
    usage.day,
    null,
  )
}

export type UsageOperation = ReturnType<typeof usageOperation>

/**
 * Bills a confirmed usage: writes the wallet operations of its rated charge and of each discount on it, and saves
 * the plan states of `instances` after the rating. The caller holds the order's lock (`lockedPlanInstances`) when
 * `instances` is not empty, and the wallet's.
 */
export async function billUsage(
  tx: Db,
  usage: { sub: UsageSubscriptionRow; charge: UsageChargeRow; walletId: number; day: string },
  rating: RatedUsage,
  instances: readonly PlanInstanceRow[],
  actor: string,
): Promise<void> {
  const owner = usageOwner(usage.sub, usage.charge, usage.walletId, actor)
  const ids = await reserveWalletOperationIds(tx, 1 + rating.discounts.discounts.length)
  const id = (n: number) => present(ids[n], `wallet operation id ${n}`)
  const instanceIds = new Map(instances.map((i) => [planInstanceKey(i), i.id]))
  await insertWalletOperations(tx, [
    { ...usageOperation(usage, rating, actor), id: id(0) },
    ...rating.discounts.discounts.map((discount, i) => ({
      ...discountOperation(
        owner,
        'USAGE',
        discount,
        instanceIds.get(discount.instance.key) ?? null,
        id(0),
        usage.day,
        null,
      ),
      id: id(i + 1),
    })),
  ])
  await savePlanStates(
    tx,
    instances.map((i) => ({ id: i.id, state: rating.discounts.states.get(planInstanceKey(i)) ?? i.state })),
    actor,
  )
}

/** What a rating took from each of `instances` (by instance id; those it took nothing from are left out). */
export function usageDiscountsTaken(
  instances: readonly PlanInstanceRow[],
  rating: Pick<RatedUsage, 'discounts'>,
): Record<string, DiscountState> {
  const taken: Record<string, DiscountState> = {}
  for (const instance of instances) {
    const took = discountStateTaken(
      instance.state,
      rating.discounts.states.get(planInstanceKey(instance)) ?? EMPTY_DISCOUNT_STATE,
    )
    if (!isEmptyDiscountState(took)) taken[String(instance.id)] = took
  }
  return taken
}

/**
 * Holds what a reserved usage's rating took from discount plan states (`usageDiscountsTaken`): saves the states after
 * the rating of the instances it took from. The caller holds the order's lock (`lockedPlanInstances`).
 */
export async function holdUsageDiscounts(
  tx: Db,
  instances: readonly PlanInstanceRow[],
  rating: Pick<RatedUsage, 'discounts'>,
  actor: string,
): Promise<void> {
  const taken = usageDiscountsTaken(instances, rating)
  await savePlanStates(
    tx,
    instances.flatMap((i) => {
      const state = rating.discounts.states.get(planInstanceKey(i))
      return taken[String(i.id)] && state ? [{ id: i.id, state }] : []
    }),
    actor,
  )
}

/**
 * Gives back what held usage ratings took from discount plan states (`usageDiscountsTaken` of each), under the
 * locks of their orders, taken here in id order.
 */
export async function giveBackUsage(
  tx: Db,
  taken: readonly Readonly<Record<string, DiscountState>>[],
  actor: string,
): Promise<void> {
  await giveBackPlanStates(tx, taken, actor)
}
