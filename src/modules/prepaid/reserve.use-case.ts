import type { Caller } from '../../kernel/caller.ts'
import type { Decimal } from 'decimal.js'
import { unlessVictim, withTransaction } from '../../kernel/db/transaction.ts'
import { AppError } from '../../kernel/errors.ts'
import { money } from '../../kernel/money.ts'
import { sellerCodeVisible } from '../../kernel/model/row-security.ts'
import { cachedTenantSettings } from '../../kernel/settings.ts'
import { periodContaining } from '../accounts/index.ts'
import {
  cachedCatalog,
  holdUsageDiscounts,
  lockedPlanInstances,
  rateUsage,
  usageDiscountsTaken,
  type PlanInstanceRow,
} from '../ordering/index.ts'
import * as repo from './prepaid.repository.ts'
import { availableQuantity, insufficientBalance, takeFreeUnits } from './reservation.model.ts'
import { type ReservationDeps } from './reservation.paths.ts'
import { reservePlan } from './reservation.plan.ts'
import { invalidUsageRecord, parseUsageLine, type UsageLine } from './usage-line.model.ts'

export interface ReserveAnswer {
  readonly reservationId: number
  readonly availableQuantity: Decimal
  readonly amountWithTax: Decimal
}

/** A reserve's context as usable: its subscription (visible to the caller, ACTIVE) and usage charge, or the error. */
function usableContext(context: repo.UsageContext | undefined, line: UsageLine, caller: Caller) {
  const sub = context?.subscription
  if (!context || !sub || !sellerCodeVisible(sub.parties.sellerCode, caller.sellerCodes)) {
    throw new AppError(
      'INVALID_USAGE_RECORD',
      `Invalid usage record: subscription ${line.subscriptionCode} not found`,
      {
        details: [{ field: 'subscription', message: `no subscription with code '${line.subscriptionCode}'` }],
      },
    )
  }
  // A TERMINATED subscription takes no usage at all (subscriptions carry no termination date: their status says it).
  if (sub.status !== 'ACTIVE') {
    throw new AppError('INVALID_USAGE_RECORD', `Invalid usage record: subscription ${sub.code} is ${sub.status}`, {
      details: [{ field: 'subscription', message: `subscription ${sub.code} is ${sub.status}, not ACTIVE` }],
    })
  }
  // Usage before the subscription started is not its usage: refused before anything (a counter period) is opened.
  if (line.usageDay < sub.subscriptionDate) {
    throw invalidUsageRecord(
      'date',
      `must be on or after the start of subscription ${sub.code} (${sub.subscriptionDate}), not ${line.usageDay}`,
    )
  }
  const { charge, counter } = context
  if (!charge) {
    throw new AppError(
      'CHARGE_NOT_FOUND',
      `Subscription ${sub.code} has no active usage charge matching param1 '${line.param1}'`,
    )
  }
  return { context, sub, charge, counter }
}

/**
 * Reserves one usage line in a transaction, under row locks taken in the service's lock order, every figure read
 * again under them: the path that opens a counter period and holds discount plan states.
 */
async function reserveLocked(
  deps: ReservationDeps,
  line: UsageLine,
  caller: Caller,
  now: Date,
): Promise<ReserveAnswer> {
  const { db, catalogCache } = deps
  const settings = await cachedTenantSettings(db)
  return withTransaction(db, async (tx) => {
    // The subscription, the usage charge, its counter and the period open on the day: one statement.
    const { context, sub, charge, counter } = usableContext(
      await repo.usageContext(tx, {
        subscriptionCode: line.subscriptionCode,
        param1: line.param1,
        day: line.usageDay,
      }),
      line,
      caller,
    )
    // Counter periods are created before any lock is taken (creation does not change a figure). The period the
    // calendar gives for the day is the one read with the context, unless it was never opened.
    const periodIds: number[] = []
    if (counter) {
      const period = periodContaining(counter.calendar, line.usageDay)
      periodIds.push(
        context.period?.start === period.start
          ? context.period.id
          : await repo.ensureCounterPeriod(
              tx,
              { subscriptionId: sub.id, templateId: counter.id, ...period, ceiling: counter.ceiling },
              caller.username,
            ),
      )
    }
    // Discount plan states are figures a rating uses up (a plan's applications, a FIXED item's amount), held by
    // the reservation like counter units: read again under the order's lock, which every rating changing them
    // takes first (lock order: reservation, order, counter periods, wallet), so two reservations cannot both
    // count on a plan's last application.
    let instances: PlanInstanceRow[] = []
    if (sub.orderId !== null && context.hasPlans) instances = await lockedPlanInstances(tx, sub.orderId)
    const values = await repo.lockCounterPeriods(tx, periodIds)
    const take = takeFreeUnits(
      periodIds.map((periodId) => ({ periodId, value: money(values.get(periodId) ?? '0') })),
      line.quantity,
    )
    const { rated, total, discounts } = await rateUsage(
      tx,
      sub,
      charge,
      line.usageDay,
      take.paid,
      settings.pricesIncludeTax,
      instances,
      // Catalog rows (charge, price, tax mappings, plans) from this instance's catalog cache, at the generation
      // read with the context: published rows a reserve never changes.
      catalogCache && cachedCatalog(tx, catalogCache.readsAt(context.catalogGeneration)),
    )
    const discountTaken = usageDiscountsTaken(instances, { discounts })
    const wallet = await repo.lockPrepaidWalletOf(tx, sub.userAccountId)
    const walletId = wallet?.id ?? null
    const available = wallet ? money(wallet.balance).minus(wallet.reserved) : money(0)
    if (total.withTax.gt(available)) {
      throw new AppError(
        'INSUFFICIENT_BALANCE',
        insufficientBalance(total.withTax, available, sub.parties.currencyCode),
      )
    }
    const plan = reservePlan(line, sub, charge, walletId, take, total, discountTaken, now, settings)
    const reservationId = await repo.insertReservation(tx, plan.row, caller.username, plan.holds, deps.report)
    await holdUsageDiscounts(tx, instances, { discounts }, caller.username)
    const freeLeft = periodIds.reduce(
      (sum, id) => sum.plus(money(values.get(id) ?? '0')).minus(take.taken[String(id)] ?? '0'),
      money(0),
    )
    return {
      reservationId,
      availableQuantity: availableQuantity(freeLeft, available.minus(total.withTax), rated.unitAmountWithTax),
      amountWithTax: total.withTax,
    }
  })
}

/**
 * Reserves one usage line: rates it, takes free units from the counter period of its day first, holds the rest's
 * amount with tax against the user account's PREPAID wallet. INSUFFICIENT_BALANCE holds nothing.
 *
 * The common case reads without a lock, rates, then holds in one conditional statement (`reserveHeld`: no
 * transaction round trips), which checks under the locks that what it read still holds; again when a concurrent
 * reserve took the counter units this one was rated with. After three such turns, or when the reservation needs
 * what only the locked path does (a counter period to open, discount plan states to hold), the locked path.
 */
export async function reserve(deps: ReservationDeps, text: string, caller: Caller): Promise<ReserveAnswer> {
  const { db, clock, catalogCache } = deps
  const settings = await cachedTenantSettings(db)
  const line = parseUsageLine(text, settings.timeZone)
  const now = clock.now()
  for (let attempt = 1; attempt <= 3; attempt++) {
    const { context, sub, charge, counter } = usableContext(
      await repo.usageContextSoon(db, {
        subscriptionCode: line.subscriptionCode,
        param1: line.param1,
        day: line.usageDay,
      }),
      line,
      caller,
    )
    const period = counter && periodContaining(counter.calendar, line.usageDay)
    if ((sub.orderId !== null && context.hasPlans) || (period && context.period?.start !== period.start)) break
    const slots = context.period ? [{ periodId: context.period.id, value: money(context.period.value) }] : []
    const take = takeFreeUnits(slots, line.quantity)
    const { rated, total } = await rateUsage(
      db,
      sub,
      charge,
      line.usageDay,
      take.paid,
      settings.pricesIncludeTax,
      [],
      catalogCache && cachedCatalog(db, catalogCache.readsAt(context.catalogGeneration)),
    )
    const walletId = context.prepaidWalletId ?? null
    const plan = reservePlan(line, sub, charge, walletId, take, total, {}, now, settings)
    const held = await unlessVictim(
      repo.reserveHeld(
        db,
        plan.row,
        Object.entries(take.taken).map(([periodId, units]) => ({ periodId: Number(periodId), units })),
        plan.holds,
        caller.username,
        deps.report,
      ),
      { outcome: 'COUNTER_MOVED' } as const,
    )
    if (held.outcome === 'COUNTER_MOVED') continue
    const available = money(held.available ?? '0')
    if (held.outcome === 'INSUFFICIENT') {
      throw new AppError(
        'INSUFFICIENT_BALANCE',
        insufficientBalance(total.withTax, available, sub.parties.currencyCode),
      )
    }
    return {
      reservationId: held.id,
      availableQuantity: availableQuantity(
        money(held.freeBefore).minus(take.free),
        available.minus(total.withTax),
        rated.unitAmountWithTax,
      ),
      amountWithTax: total.withTax,
    }
  }
  return reserveLocked(deps, line, caller, now)
}
