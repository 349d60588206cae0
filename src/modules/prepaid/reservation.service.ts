import type { Decimal } from 'decimal.js'
import { sql } from 'drizzle-orm'
import type { Clock } from '../../kernel/clock.ts'
import { one, type Db } from '../../kernel/db/database.ts'
import { pgErrorOf } from '../../kernel/db/database-errors.ts'
import { AppError, validationError } from '../../kernel/errors.ts'
import { formatDecimal, money } from '../../kernel/money.ts'
import type { SellerCodes } from '../../kernel/model/row-security.ts'
import { cachedTenantSettings } from '../../kernel/settings.ts'
import { periodContaining } from '../accounts/index.ts'
import type { CatalogCache } from '../catalog/index.ts'
import {
  cachedCatalog,
  type CatalogLookups,
  chargeOperation,
  dayIn,
  discountOperation,
  giveBackPlanStates,
  planInstanceKey,
  savePlanStates,
  storedPlanInstances,
  storedScopes,
  type PlanInstanceRow,
  insertWalletOperations,
  RatingCatalog,
  reserveWalletOperationIds,
  storedChargeInput,
  storedOperationOwner,
  type StoredCharge,
} from '../ordering/index.ts'
import {
  applyDiscounts,
  discountStateTaken,
  EMPTY_DISCOUNT_STATE,
  isEmptyDiscountState,
  rateCharge,
  type DiscountState,
} from '../rating/index.ts'
import * as repo from './prepaid.repository.ts'
import { availableQuantity, insufficientBalance, splitConsumption, takeFreeUnits } from './reservation.model.ts'
import { parseUsageLine } from './usage-line.model.ts'

export interface Caller {
  readonly username: string
  readonly sellerCodes: SellerCodes
}

export interface ReserveAnswer {
  readonly reservationId: number
  readonly availableQuantity: Decimal
  readonly amountWithTax: Decimal
}

/** PostgreSQL deadlock and serialization failures: the transaction is rolled back whole and may run again. */
const RETRYABLE = new Set(['40P01', '40001'])

/** Runs a transaction, again (up to 3 times) when PostgreSQL chose it as a deadlock or serialization victim. */
export async function inTransaction<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work)
    } catch (error) {
      if (attempt >= 3 || !RETRYABLE.has(pgErrorOf(error)?.code ?? '')) throw error
    }
  }
}

const notFound = (id: number) => new AppError('ENTITY_NOT_FOUND', `Reservation ${id} not found`)
const notOpen = (id: number, status: string) =>
  new AppError(
    'INVALID_STATE',
    `Reservation ${id} is ${status}: only an OPEN reservation can be confirmed or cancelled`,
  )

/** The seller of a record is one the caller may see (row-level security; unrestricted callers see all). */
export async function sellerVisible(db: Db, sellerId: number, sellerCodes: SellerCodes): Promise<boolean> {
  if (sellerCodes === null) return true
  const found = await one<{ code: string }>(db, sql`select code from seller where id = ${sellerId}`)
  return found !== undefined && sellerCodes.includes(found.code)
}

/**
 * Prepaid usage reservations. Every balance and counter change runs under row locks taken in one order —
 * the reservation, then its counter periods by id, then its wallet — and re-reads the figures inside the lock, so
 * two requests (or instances) racing on one wallet, counter or reservation serialize and each sees the other's result.
 */
export function createReservationService(deps: { db: Db; clock: Clock; catalogCache?: CatalogCache }) {
  const { db, clock, catalogCache } = deps

  /**
   * Rates `quantity` units of a reservation's usage charge at its usage day, as a placed order's usage would be: the
   * charge, then the discounts of the subscription's order plans (`instances`, with their states) on it.
   */
  async function rateUsage(
    tx: Db,
    sub: repo.SubscriptionRow,
    charge: repo.UsageChargeRow,
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

  /**
   * Gives back everything an OPEN reservation (locked by the caller) holds — discount plan applications, counter
   * units and the held amount — and closes it as CANCELLED or EXPIRED. Orders, counter periods and wallets are locked
   * here, in the lock order.
   */
  async function releaseAll(
    tx: Db,
    reservations: readonly repo.ReservationRow[],
    status: 'CANCELLED' | 'EXPIRED',
    actor: string,
  ): Promise<void> {
    await giveBackPlanStates(
      tx,
      reservations.map((r) => r.discountTaken),
      actor,
    )
    const periodIds = [...new Set(reservations.flatMap((r) => Object.keys(r.counterPeriodValues).map(Number)))]
    await repo.lockCounterPeriods(
      tx,
      periodIds.sort((a, b) => a - b),
    )
    const walletIds = [...new Set(reservations.flatMap((r) => (r.walletId === null ? [] : [r.walletId])))]
    await repo.lockWallets(
      tx,
      walletIds.sort((a, b) => a - b),
    )
    const entries: repo.LedgerEntry[] = []
    for (const r of reservations) {
      for (const [periodId, units] of Object.entries(r.counterPeriodValues)) {
        entries.push({ type: 'RELEASE', counterPeriodId: Number(periodId), reservationId: r.id, balanceDelta: units })
      }
      if (r.walletId !== null && money(r.amountWithTax).gt(0)) {
        entries.push({
          type: 'RELEASE',
          walletId: r.walletId,
          reservationId: r.id,
          balanceDelta: '0',
          reservedDelta: money(r.amountWithTax).neg().toFixed(),
        })
      }
    }
    await repo.applyLedger(tx, entries, actor)
    for (const r of reservations) {
      await repo.closeReservation(tx, r.id, { status, consumedQuantity: null, at: clock.now() }, actor)
    }
  }

  /**
   * Locks an OPEN reservation the caller may see. One past its expiry date is expired here (the sweep would do the
   * same a moment later) and the answer is then INVALID_STATE: the expiry wins whatever the sweep's timing.
   */
  async function openReservation(
    id: number,
    caller: Caller,
    timeZone: string,
    type: 'USAGE' | 'OFFER',
    work: (tx: Db, r: repo.ReservationRow) => Promise<string>,
  ): Promise<string> {
    const outcome = await inTransaction(db, async (tx) => {
      const r = await repo.lockReservation(tx, id, (d) => dayIn(d, timeZone))
      // Usage and offer reservations have their own routes: one of the other kind is not found on these.
      if (!r || r.type !== type || !(await sellerVisible(tx, r.sellerId, caller.sellerCodes))) throw notFound(id)
      if (r.status !== 'OPEN') throw notOpen(id, r.status)
      if (r.expiryDate.getTime() <= clock.now().getTime()) {
        await releaseAll(tx, [r], 'EXPIRED', caller.username)
        return { expired: true as const }
      }
      return { expired: false as const, message: await work(tx, r) }
    })
    if (outcome.expired) throw notOpen(id, 'EXPIRED')
    return outcome.message
  }

  return {
    /**
     * Reserves one usage line: rates it, takes free units from the counter period of its day first, holds the rest's
     * amount with tax against the user account's PREPAID wallet. INSUFFICIENT_BALANCE holds nothing.
     */
    async reserve(text: string, caller: Caller): Promise<ReserveAnswer> {
      const settings = await cachedTenantSettings(db)
      const line = parseUsageLine(text, settings.timeZone)
      const now = clock.now()
      return inTransaction(db, async (tx) => {
        // The subscription, the usage charge, its counter and the period open on the day: one statement.
        const context = await repo.usageContext(tx, line.subscriptionCode, line.param1, line.usageDay)
        const sub = context?.subscription
        if (!context || !sub || !(await sellerVisible(tx, sub.parties.sellerId, caller.sellerCodes))) {
          throw new AppError(
            'INVALID_USAGE_RECORD',
            `Invalid usage record: subscription ${line.subscriptionCode} not found`,
            {
              details: [{ field: 'subscription', message: `no subscription with code '${line.subscriptionCode}'` }],
            },
          )
        }
        if (sub.status !== 'ACTIVE') {
          throw new AppError(
            'INVALID_USAGE_RECORD',
            `Invalid usage record: subscription ${sub.code} is ${sub.status}`,
            {
              details: [{ field: 'subscription', message: `subscription ${sub.code} is ${sub.status}, not ACTIVE` }],
            },
          )
        }
        const { charge, counter } = context
        if (!charge) {
          throw new AppError(
            'CHARGE_NOT_FOUND',
            `Subscription ${sub.code} has no active usage charge matching param1 '${line.param1}'`,
          )
        }
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
        if (sub.orderId !== null && context.hasPlans) {
          await repo.lockOrderForRating(tx, sub.orderId)
          instances = await storedPlanInstances(tx, [sub.orderId])
        }
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
        const discountTaken: Record<string, DiscountState> = {}
        for (const instance of instances) {
          const taken = discountStateTaken(
            instance.state,
            discounts.states.get(planInstanceKey(instance)) ?? EMPTY_DISCOUNT_STATE,
          )
          if (!isEmptyDiscountState(taken)) discountTaken[String(instance.id)] = taken
        }
        const wallet = await repo.lockPrepaidWalletOf(tx, sub.userAccountId)
        const walletId = wallet?.id
        const available = wallet ? money(wallet.balance).minus(wallet.reserved) : money(0)
        if (total.withTax.gt(available)) {
          throw new AppError(
            'INSUFFICIENT_BALANCE',
            insufficientBalance(total.withTax, available, sub.parties.currencyCode),
          )
        }
        // The holds: counter units taken, the amount with tax against the wallet; written with the reservation.
        const holds: repo.LedgerEntry[] = Object.entries(take.taken).map(([periodId, units]) => ({
          type: 'HOLD',
          counterPeriodId: Number(periodId),
          balanceDelta: money(units).neg().toFixed(),
        }))
        if (walletId !== undefined && total.withTax.gt(0)) {
          holds.push({ type: 'HOLD', walletId, balanceDelta: '0', reservedDelta: total.withTax.toFixed() })
        }
        const reservationId = await repo.insertReservation(
          tx,
          {
            type: 'USAGE',
            sellerId: sub.parties.sellerId,
            userAccountId: sub.userAccountId,
            subscriptionId: sub.id,
            walletId: walletId ?? null,
            chargeInstanceId: charge.id,
            offerTemplateId: null,
            quantity: line.quantity.toFixed(),
            freeQuantity: take.free.toFixed(),
            amountWithoutTax: total.withoutTax.toFixed(),
            amountWithTax: total.withTax.toFixed(),
            counterPeriodValues: take.taken,
            discountTaken,
            usageDate: line.usageDate,
            param1: line.param1,
            param2: line.param2,
            creditLimit: null,
            subscriptionDate: null,
            subscriptionCode: null,
            reservationDate: now,
            expiryDate: new Date(now.getTime() + settings.prepaidReservationExpirationDelayMs),
          },
          caller.username,
          holds,
        )
        await savePlanStates(
          tx,
          instances.flatMap((i) =>
            discountTaken[String(i.id)] ? [{ id: i.id, state: discounts.states.get(planInstanceKey(i))! }] : [],
          ),
          caller.username,
        )
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
    },

    /**
     * Confirms an OPEN reservation: the consumed quantity (default all; free units first) is charged as a wallet
     * operation rated as a placed order's usage, debited from the wallet; unconsumed units and amount go back.
     */
    async confirm(id: number, consumedQuantity: Decimal | undefined, caller: Caller): Promise<string> {
      const settings = await cachedTenantSettings(db)
      return openReservation(id, caller, settings.timeZone, 'USAGE', async (tx, r) => {
        const quantity = money(r.quantity)
        const consumed = consumedQuantity ?? quantity
        if (consumed.gt(quantity)) {
          throw validationError([
            {
              field: 'consumedQuantity',
              message: `must be at most the reserved quantity ${formatDecimal(quantity)}, not ${formatDecimal(consumed)}`,
            },
          ])
        }
        const split = splitConsumption(
          { freeQuantity: money(r.freeQuantity), counterPeriodValues: r.counterPeriodValues },
          consumed,
        )
        // Lock order: the reservation (held), the order when its plan states change, counter periods, the wallet.
        // Rated first (reads only); the counter and wallet locks come before any write that references them (a
        // wallet operation's foreign key share-locks its wallet, which a later FOR UPDATE would have to upgrade).
        let charged = money(0)
        let write: (() => Promise<void>) | undefined
        // What the reserve's rating took from discount plans goes back first (under the order's lock); the consumed
        // part is then rated from there, as a placed order's usage would be.
        await giveBackPlanStates(tx, [r.discountTaken], caller.username)
        if (split.paidConsumed.gt(0)) {
          const sub = (await repo.subscriptionById(tx, r.subscriptionId!))!
          const charge = await repo.usageChargeById(tx, r.chargeInstanceId!)
          let instances = sub.orderId === null ? [] : await storedPlanInstances(tx, [sub.orderId])
          if (instances.length > 0) {
            // The plan states this rating continues from are read again under the order's lock.
            await repo.lockOrderForRating(tx, sub.orderId!)
            instances = await storedPlanInstances(tx, [sub.orderId!])
          }
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
          write = async () => {
            const owner = storedOperationOwner(
              sub.parties,
              {
                walletId: r.walletId ?? charge.walletId,
                chargeInstanceId: charge.id,
                subscriptionId: sub.id,
                orderId: sub.orderId,
              },
              caller.username,
            )
            const ids = await reserveWalletOperationIds(tx, 1 + rating.discounts.discounts.length)
            const instanceIds = new Map(instances.map((i) => [planInstanceKey(i), i.id]))
            await insertWalletOperations(tx, [
              {
                ...chargeOperation(
                  owner,
                  rating.row,
                  'USAGE',
                  rating.rated,
                  rating.tax,
                  rating.pricing.versionId,
                  r.usageDay!,
                  null,
                ),
                id: ids[0]!,
              },
              ...rating.discounts.discounts.map((discount, i) => ({
                ...discountOperation(
                  owner,
                  'USAGE',
                  discount,
                  instanceIds.get(discount.instance.key) ?? null,
                  ids[0]!,
                  r.usageDay!,
                  null,
                ),
                id: ids[i + 1]!,
              })),
            ])
            await savePlanStates(
              tx,
              instances.map((i) => ({ id: i.id, state: rating.discounts.states.get(planInstanceKey(i)) ?? i.state })),
              caller.username,
            )
          }
        }
        await repo.lockCounterPeriods(
          tx,
          Object.keys(r.counterPeriodValues)
            .map(Number)
            .sort((a, b) => a - b),
        )
        if (r.walletId !== null) await repo.lockWallets(tx, [r.walletId])
        const entries: repo.LedgerEntry[] = Object.entries(split.returned).map(([periodId, units]) => ({
          type: 'RELEASE',
          counterPeriodId: Number(periodId),
          reservationId: r.id,
          balanceDelta: units.toFixed(),
        }))
        await write?.()
        const held = money(r.amountWithTax)
        const fromHold = charged.lt(held) ? charged : held
        if (r.walletId !== null && (charged.gt(0) || held.gt(0))) {
          if (charged.gt(0)) {
            entries.push({
              type: 'CONSUME',
              walletId: r.walletId,
              reservationId: r.id,
              balanceDelta: charged.neg().toFixed(),
              reservedDelta: fromHold.neg().toFixed(),
            })
          }
          if (held.gt(fromHold)) {
            entries.push({
              type: 'RELEASE',
              walletId: r.walletId,
              reservationId: r.id,
              balanceDelta: '0',
              reservedDelta: held.minus(fromHold).neg().toFixed(),
            })
          }
        }
        await repo.applyLedger(tx, entries, caller.username)
        await repo.closeReservation(
          tx,
          r.id,
          { status: 'CONFIRMED', consumedQuantity: consumed.toFixed(), at: clock.now() },
          caller.username,
        )
        return `Reservation ${r.id} confirmed: ${formatDecimal(consumed)} consumed, ${formatDecimal(charged)} charged`
      })
    },

    /** Runs `work` on an OPEN reservation of the type, locked (see `openReservation`). */
    withOpen: openReservation,

    /** Cancels an OPEN reservation: its counter units and held amount are given back, once. */
    async cancel(id: number, caller: Caller, type: 'USAGE' | 'OFFER' = 'USAGE'): Promise<string> {
      const settings = await cachedTenantSettings(db)
      return openReservation(id, caller, settings.timeZone, type, async (tx, r) => {
        await releaseAll(tx, [r], 'CANCELLED', caller.username)
        return `Reservation ${r.id} cancelled: balance and counters restored`
      })
    },

    /**
     * Expires the OPEN reservations due at the clock's now, a batch per transaction, giving back what each held.
     * Rows held by a confirm, a cancel or another instance's sweep are skipped (they are closed or will be
     * claimed next time). Returns how many expired.
     */
    async expireDue(batch = 200): Promise<number> {
      const { timeZone } = await cachedTenantSettings(db)
      let expired = 0
      for (;;) {
        const claimed = await inTransaction(db, async (tx) => {
          const due = await repo.claimDue(tx, clock.now(), batch, (d) => dayIn(d, timeZone))
          await releaseAll(tx, due, 'EXPIRED', 'ReservationExpiry')
          return due.length
        })
        expired += claimed
        if (claimed < batch) return expired
      }
    },
  }
}

export type ReservationService = ReturnType<typeof createReservationService>
