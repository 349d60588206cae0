import type { Caller } from '../../kernel/caller.ts'
import type { Decimal } from 'decimal.js'
import { AppError } from '../../kernel/errors.ts'
import { money } from '../../kernel/money.ts'
import { cachedTenantSettings } from '../../kernel/settings.ts'
import {
  billUsage,
  cachedCatalog,
  giveBackUsage,
  lockedPlanInstances,
  rateUsage,
  storedPlanInstances,
  usageOperation,
  type UsageOperation,
} from '../ordering/index.ts'
import * as repo from './prepaid.repository.ts'
import { insufficientBalance, splitConsumption } from './reservation.model.ts'
import { billedUsage, heldPath, lockedPath, runLocked, type ReservationDeps } from './reservation.paths.ts'
import { confirmPlan, consumedOf } from './reservation.plan.ts'

/**
 * Confirms an OPEN usage reservation: the consumed quantity (default all; free units first) is charged as a wallet
 * operation rated as a placed order's usage, debited from the wallet; unconsumed units and amount go back
 * (`confirmPlan`, the change both paths write).
 *
 * Without discount plans (none held, none on the subscription's order): the one-statement path, the consumed paid
 * part rated from the catalog cache as the locked path rates it. Otherwise, or when that path cannot decide, the
 * locked path.
 */
export async function confirm(
  deps: ReservationDeps,
  id: number,
  consumedQuantity: Decimal | undefined,
  caller: Caller,
): Promise<string> {
  const { db, catalogCache } = deps
  const settings = await cachedTenantSettings(db)
  const done = await heldPath(deps, id, caller, settings.timeZone, 'USAGE', 'confirm', async (r) => {
    const consumed = consumedOf(r, consumedQuantity)
    const split = splitConsumption(
      { freeQuantity: money(r.freeQuantity), counterPeriodValues: r.counterPeriodValues },
      consumed,
    )
    let charged = money(0)
    const operations: UsageOperation[] = []
    if (split.paidConsumed.gt(0)) {
      const usage = await repo.usageByIds(db, r.subscriptionId!, r.chargeInstanceId!)
      if (!usage || usage.hasPlans) return undefined
      const rating = await rateUsage(
        db,
        usage.subscription,
        usage.charge,
        r.usageDay!,
        split.paidConsumed,
        settings.pricesIncludeTax,
        [],
        catalogCache && cachedCatalog(db, catalogCache.readsAt(usage.catalogGeneration)),
      )
      charged = rating.total.withTax
      operations.push(usageOperation(billedUsage(r, usage.subscription, usage.charge), rating, caller.username))
    }
    // A consumed part dearer than its hold (a tiered price re-rated on fewer units) needs the wallet's available
    // balance for the rest, checked under the wallet's lock; without a wallet, the locked path refuses it.
    const beyond = charged.minus(r.amountWithTax)
    if (beyond.gt(0) && r.walletId === null) return undefined
    return {
      ...confirmPlan(r, consumed, split, charged),
      status: 'CONFIRMED' as const,
      operations,
      ...(beyond.gt(0) ? { beyondHold: { walletId: r.walletId!, amount: beyond.toFixed() } } : {}),
    }
  })
  if (done !== undefined) return done
  return lockedPath(deps, id, caller, settings.timeZone, 'USAGE', 'confirm', async (tx, r) => {
    const consumed = consumedOf(r, consumedQuantity)
    const split = splitConsumption(
      { freeQuantity: money(r.freeQuantity), counterPeriodValues: r.counterPeriodValues },
      consumed,
    )
    // Lock order: the reservation (held), the order when its plan states change, counter periods, the wallet.
    // Rated first (reads only); the counter and wallet locks come before any write that references them (a
    // wallet operation's foreign key share-locks its wallet, which a later FOR UPDATE would have to upgrade).
    let charged = money(0)
    let currency = ''
    let write: (() => Promise<void>) | undefined
    // What the reserve's rating took from discount plans goes back first (under the order's lock); the consumed
    // part is then rated from there, as a placed order's usage would be.
    await giveBackUsage(tx, [r.discountTaken], caller.username)
    if (split.paidConsumed.gt(0)) {
      const sub = (await repo.subscriptionById(tx, r.subscriptionId!))!
      const charge = await repo.usageChargeById(tx, r.chargeInstanceId!)
      let instances = sub.orderId === null ? [] : await storedPlanInstances(tx, [sub.orderId])
      // The plan states this rating continues from are read again under the order's lock.
      if (instances.length > 0) instances = await lockedPlanInstances(tx, sub.orderId!)
      const rating = await rateUsage(
        tx,
        sub,
        charge,
        r.usageDay!,
        split.paidConsumed,
        settings.pricesIncludeTax,
        instances,
      )
      charged = rating.total.withTax
      currency = sub.parties.currencyCode
      write = () => billUsage(tx, billedUsage(r, sub, charge), rating, instances, caller.username)
    }
    await repo.lockCounterPeriods(
      tx,
      Object.keys(r.counterPeriodValues)
        .map(Number)
        .sort((a, b) => a - b),
    )
    const wallet = r.walletId === null ? undefined : (await repo.lockWallets(tx, [r.walletId])).get(r.walletId)
    // The wallet never goes below zero: the debit may exceed the hold (a tiered price re-rated on fewer units)
    // only by what the wallet has available, as read under its lock. Refused, the reservation stays OPEN.
    const held = money(r.amountWithTax)
    const payable = held.plus(wallet ? money(wallet.balance).minus(wallet.reserved) : 0)
    if (charged.gt(held) && charged.gt(payable)) {
      throw new AppError('INSUFFICIENT_BALANCE', insufficientBalance(charged, payable, currency))
    }
    await write?.()
    const plan = confirmPlan(r, consumed, split, charged)
    await runLocked(deps, tx, r, plan, caller.username)
    return plan.message
  })
}
