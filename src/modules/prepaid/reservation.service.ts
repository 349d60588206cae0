import type { Decimal } from 'decimal.js'
import { sql } from 'drizzle-orm'
import type { Clock } from '../../kernel/clock.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import { one, type Db } from '../../kernel/db/database.ts'
import { unlessVictim, withTransaction } from '../../kernel/db/transaction.ts'
import { AppError, validationError } from '../../kernel/errors.ts'
import { formatDecimal, money } from '../../kernel/money.ts'
import { sellerCodeVisible, type SellerCodes } from '../../kernel/model/row-security.ts'
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
import {
  availableQuantity,
  type Consumption,
  type FreeTake,
  insufficientBalance,
  splitConsumption,
  takeFreeUnits,
} from './reservation.model.ts'
import { invalidUsageRecord, parseUsageLine, type UsageLine } from './usage-line.model.ts'

export interface Caller {
  readonly username: string
  readonly sellerCodes: SellerCodes
}

export interface ReserveAnswer {
  readonly reservationId: number
  readonly availableQuantity: Decimal
  readonly amountWithTax: Decimal
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
  return found !== undefined && sellerCodeVisible(found.code, sellerCodes)
}

/** The ledger rows giving back everything a reservation holds: its counter units and its held amount. */
function releaseEntries(r: repo.ReservationRow): repo.LedgerEntry[] {
  const entries: repo.LedgerEntry[] = Object.entries(r.counterPeriodValues).map(([periodId, units]) => ({
    type: 'RELEASE',
    counterPeriodId: Number(periodId),
    reservationId: r.id,
    balanceDelta: units,
  }))
  if (r.walletId !== null && money(r.amountWithTax).gt(0)) {
    entries.push({
      type: 'RELEASE',
      walletId: r.walletId,
      reservationId: r.id,
      balanceDelta: '0',
      reservedDelta: money(r.amountWithTax).neg().toFixed(),
    })
  }
  return entries
}

/**
 * The ledger rows of a confirm: unconsumed counter units go back; `charged` (the consumed paid part's amount with
 * tax) is debited from the wallet, from the held amount first; what stays held beyond it is released.
 */
function confirmEntries(r: repo.ReservationRow, split: Consumption, charged: Decimal): repo.LedgerEntry[] {
  const entries: repo.LedgerEntry[] = Object.entries(split.returned).map(([periodId, units]) => ({
    type: 'RELEASE',
    counterPeriodId: Number(periodId),
    reservationId: r.id,
    balanceDelta: units.toFixed(),
  }))
  const held = money(r.amountWithTax)
  const fromHold = charged.lt(held) ? charged : held
  if (r.walletId !== null && charged.gt(0)) {
    entries.push({
      type: 'CONSUME',
      walletId: r.walletId,
      reservationId: r.id,
      balanceDelta: charged.neg().toFixed(),
      reservedDelta: fromHold.neg().toFixed(),
    })
  }
  if (r.walletId !== null && held.gt(fromHold)) {
    entries.push({
      type: 'RELEASE',
      walletId: r.walletId,
      reservationId: r.id,
      balanceDelta: '0',
      reservedDelta: held.minus(fromHold).neg().toFixed(),
    })
  }
  return entries
}

/** The consumed quantity of a confirm (default all), at most the reserved quantity. */
function consumedOf(r: repo.ReservationRow, consumedQuantity: Decimal | undefined): Decimal {
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
  return consumed
}

const confirmedMessage = (id: number, consumed: Decimal, charged: Decimal) =>
  `Reservation ${id} confirmed: ${formatDecimal(consumed)} consumed, ${formatDecimal(charged)} charged`
const cancelledMessage = (id: number) => `Reservation ${id} cancelled: balance and counters restored`

/** Where a confirmed usage reservation's wallet operations belong: its wallet (else the charge's), charge, subscription. */
function operationOwner(r: repo.ReservationRow, sub: repo.SubscriptionRow, charge: repo.UsageChargeRow, actor: string) {
  return storedOperationOwner(
    sub.parties,
    {
      walletId: r.walletId ?? charge.walletId,
      chargeInstanceId: charge.id,
      subscriptionId: sub.id,
      orderId: sub.orderId,
    },
    actor,
  )
}

/** The wallet operation of a confirmed usage reservation's consumed part, dated its usage day. */
function usageOperation(
  owner: ReturnType<typeof operationOwner>,
  rating: {
    row: Parameters<typeof chargeOperation>[1]
    rated: Parameters<typeof chargeOperation>[3]
    tax: Parameters<typeof chargeOperation>[4]
    pricing: { versionId: Parameters<typeof chargeOperation>[5] }
  },
  usageDay: string,
) {
  return chargeOperation(owner, rating.row, 'USAGE', rating.rated, rating.tax, rating.pricing.versionId, usageDay, null)
}

/**
 * Prepaid usage reservations. Every balance and counter change runs under row locks taken in one order —
 * the reservation, then its counter periods by id, then its wallet — and decides from the figures read under those
 * locks, so two requests (or instances) racing on one wallet, counter or reservation serialize and each sees the
 * other's result. The common cases take the locks and write in one statement (`reserveHeld`, `closeHeld`: no
 * transaction round trips) after reading without a lock, and check under the locks that what they read still holds;
 * the rest (a counter period to open, discount plan states, a consumed part to rate, a reservation past its expiry)
 * run in a transaction that locks first and reads again.
 */
export function createReservationService(deps: { db: Db; clock: Clock; catalogCache?: CatalogCache; outbox: Outbox }) {
  const { db, clock, catalogCache } = deps
  // Every write of a reservation's status carries its event, in the same statement.
  const report = repo.prepaidReport(deps.outbox)

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
    await repo.applyLedger(tx, reservations.flatMap(releaseEntries), actor, report)
    for (const r of reservations) {
      await repo.closeReservation(tx, r.id, { status, consumedQuantity: null, at: clock.now() }, actor, report)
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
    const outcome = await withTransaction(db, async (tx) => {
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

  /** The holds of a reservation: counter units taken, the amount with tax against the wallet. */
  function holdsOf(take: FreeTake, walletId: number | null, amountWithTax: Decimal): repo.LedgerEntry[] {
    const holds: repo.LedgerEntry[] = Object.entries(take.taken).map(([periodId, units]) => ({
      type: 'HOLD',
      counterPeriodId: Number(periodId),
      balanceDelta: money(units).neg().toFixed(),
    }))
    if (walletId !== null && amountWithTax.gt(0)) {
      holds.push({ type: 'HOLD', walletId, balanceDelta: '0', reservedDelta: amountWithTax.toFixed() })
    }
    return holds
  }

  /** The row of a usage reservation made at `now`, expiring after the tenant's delay. */
  function reservationValues(
    line: UsageLine,
    sub: repo.SubscriptionRow,
    charge: repo.UsageChargeRow,
    walletId: number | null,
    take: FreeTake,
    total: { withoutTax: Decimal; withTax: Decimal },
    discountTaken: Record<string, DiscountState>,
    now: Date,
    settings: { prepaidReservationExpirationDelayMs: number },
  ): repo.NewReservation {
    return {
      type: 'USAGE',
      sellerId: sub.parties.sellerId,
      userAccountId: sub.userAccountId,
      subscriptionId: sub.id,
      walletId,
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
    }
  }

  /**
   * Reserves one usage line in a transaction, under row locks taken in the service's lock order, every figure read
   * again under them: the path that opens a counter period and holds discount plan states.
   */
  async function reserveLocked(line: UsageLine, caller: Caller, now: Date): Promise<ReserveAnswer> {
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
      const walletId = wallet?.id ?? null
      const available = wallet ? money(wallet.balance).minus(wallet.reserved) : money(0)
      if (total.withTax.gt(available)) {
        throw new AppError(
          'INSUFFICIENT_BALANCE',
          insufficientBalance(total.withTax, available, sub.parties.currencyCode),
        )
      }
      const reservationId = await repo.insertReservation(
        tx,
        reservationValues(line, sub, charge, walletId, take, total, discountTaken, now, settings),
        caller.username,
        holdsOf(take, walletId, total.withTax),
        report,
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
  }

  /**
   * Closes an OPEN reservation in one statement, without a transaction (`closeHeld`), when what it writes depends
   * only on the reservation and the published catalog: `plan` gives the status, consumed quantity, ledger rows, wallet
   * operations and answer, or undefined when the close needs the locked path (discount plan states to rate the
   * consumed part with). Undefined too when the reservation holds discount
   * plan states, is past its expiry date, or changed before the write: `openReservation` then decides (and expires it
   * when due). Not found and not OPEN are answered from the read: a reservation's type and seller never change, and
   * a status other than OPEN is final.
   */
  async function closeUnlocked(
    id: number,
    caller: Caller,
    timeZone: string,
    type: 'USAGE' | 'OFFER',
    plan: (r: repo.ReservationRow) => Promise<
      | {
          status: 'CONFIRMED' | 'CANCELLED'
          consumedQuantity: string | null
          entries: repo.LedgerEntry[]
          operations?: ReturnType<typeof usageOperation>[]
          /** What a confirm debits beyond the hold: the wallet's available balance must cover it (`closeHeld`). */
          beyondHold?: { walletId: number; amount: string }
          message: string
        }
      | undefined
    >,
  ): Promise<string | undefined> {
    const r = await repo.reservationById(db, id, (d) => dayIn(d, timeZone))
    if (!r || r.type !== type || !sellerCodeVisible(r.sellerCode, caller.sellerCodes)) throw notFound(id)
    if (r.status !== 'OPEN') throw notOpen(id, r.status)
    const now = clock.now()
    if (r.expiryDate.getTime() <= now.getTime() || Object.keys(r.discountTaken).length > 0) return undefined
    const close = await plan(r)
    if (!close) return undefined
    const closed = await unlessVictim(
      repo.closeHeld(
        db,
        r.id,
        {
          status: close.status,
          consumedQuantity: close.consumedQuantity,
          at: now,
          now,
          ...(close.beyondHold ? { beyondHold: close.beyondHold } : {}),
        },
        close.entries,
        caller.username,
        report,
        close.operations,
      ),
      false,
    )
    return closed ? close.message : undefined
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
      // Read, rate, then one conditional write (`reserveHeld`); again when a concurrent reserve took the counter
      // units this one was rated with. After three such turns, or when the reservation needs what only the locked
      // path does (a counter period to open, discount plan states to hold), the locked path.
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
        const held = await unlessVictim(
          repo.reserveHeld(
            db,
            reservationValues(line, sub, charge, walletId, take, total, {}, now, settings),
            Object.entries(take.taken).map(([periodId, units]) => ({ periodId: Number(periodId), units })),
            holdsOf(take, walletId, total.withTax),
            caller.username,
            report,
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
      return reserveLocked(line, caller, now)
    },

    /**
     * Confirms an OPEN reservation: the consumed quantity (default all; free units first) is charged as a wallet
     * operation rated as a placed order's usage, debited from the wallet; unconsumed units and amount go back.
     */
    async confirm(id: number, consumedQuantity: Decimal | undefined, caller: Caller): Promise<string> {
      const settings = await cachedTenantSettings(db)
      // Without discount plans (none held, none on the subscription's order): the one-statement close, the consumed
      // paid part rated from the catalog cache as the locked path rates it.
      const done = await closeUnlocked(id, caller, settings.timeZone, 'USAGE', async (r) => {
        const consumed = consumedOf(r, consumedQuantity)
        const split = splitConsumption(
          { freeQuantity: money(r.freeQuantity), counterPeriodValues: r.counterPeriodValues },
          consumed,
        )
        let charged = money(0)
        const operations: ReturnType<typeof usageOperation>[] = []
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
          operations.push(
            usageOperation(operationOwner(r, usage.subscription, usage.charge, caller.username), rating, r.usageDay!),
          )
        }
        // A consumed part dearer than its hold (a tiered price re-rated on fewer units) needs the wallet's available
        // balance for the rest, checked under the wallet's lock; without a wallet, the locked path refuses it.
        const beyond = charged.minus(r.amountWithTax)
        if (beyond.gt(0) && r.walletId === null) return undefined
        return {
          status: 'CONFIRMED',
          consumedQuantity: consumed.toFixed(),
          entries: confirmEntries(r, split, charged),
          operations,
          ...(beyond.gt(0) ? { beyondHold: { walletId: r.walletId!, amount: beyond.toFixed() } } : {}),
          message: confirmedMessage(r.id, consumed, charged),
        }
      })
      if (done !== undefined) return done
      return openReservation(id, caller, settings.timeZone, 'USAGE', async (tx, r) => {
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
          currency = sub.parties.currencyCode
          write = async () => {
            const owner = operationOwner(r, sub, charge, caller.username)
            const ids = await reserveWalletOperationIds(tx, 1 + rating.discounts.discounts.length)
            const instanceIds = new Map(instances.map((i) => [planInstanceKey(i), i.id]))
            await insertWalletOperations(tx, [
              { ...usageOperation(owner, rating, r.usageDay!), id: ids[0]! },
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
        const wallet = r.walletId === null ? undefined : (await repo.lockWallets(tx, [r.walletId])).get(r.walletId)
        // The wallet never goes below zero: the debit may exceed the hold (a tiered price re-rated on fewer units)
        // only by what the wallet has available, as read under its lock. Refused, the reservation stays OPEN.
        const held = money(r.amountWithTax)
        const payable = held.plus(wallet ? money(wallet.balance).minus(wallet.reserved) : 0)
        if (charged.gt(held) && charged.gt(payable)) {
          throw new AppError('INSUFFICIENT_BALANCE', insufficientBalance(charged, payable, currency))
        }
        await write?.()
        const entries = confirmEntries(r, split, charged)
        await repo.applyLedger(tx, entries, caller.username, report)
        await repo.closeReservation(
          tx,
          r.id,
          { status: 'CONFIRMED', consumedQuantity: consumed.toFixed(), at: clock.now() },
          caller.username,
          report,
        )
        return confirmedMessage(r.id, consumed, charged)
      })
    },

    /** Runs `work` on an OPEN reservation of the type, locked (see `openReservation`). */
    withOpen: openReservation,

    /** Cancels an OPEN reservation: its counter units and held amount are given back, once. */
    async cancel(id: number, caller: Caller, type: 'USAGE' | 'OFFER' = 'USAGE'): Promise<string> {
      const settings = await cachedTenantSettings(db)
      const done = await closeUnlocked(id, caller, settings.timeZone, type, async (r) => ({
        status: 'CANCELLED',
        consumedQuantity: null,
        entries: releaseEntries(r),
        message: cancelledMessage(r.id),
      }))
      if (done !== undefined) return done
      return openReservation(id, caller, settings.timeZone, type, async (tx, r) => {
        await releaseAll(tx, [r], 'CANCELLED', caller.username)
        return cancelledMessage(r.id)
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
        const claimed = await withTransaction(db, async (tx) => {
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
