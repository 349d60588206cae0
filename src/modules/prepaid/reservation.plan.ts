import type { Decimal } from 'decimal.js'
import { AppError, validationError } from '../../kernel/errors.ts'
import { formatDecimal, money } from '../../kernel/money.ts'
import type { DiscountState } from '../rating/index.ts'
import type * as repo from './prepaid.repository.ts'
import { reservationMachine, type ReservationStatus, type ReservationTrigger } from './reservation.machine.ts'
import type { Consumption, FreeTake } from './reservation.model.ts'
import type { UsageLine } from './usage-line.model.ts'

/**
 * The changes of the reservation use cases, as pure plans: what a reserve holds, what a confirm, a cancel or an
 * expiry writes. Each use case states its change here once; the one-statement path (`closeHeld`, `reserveHeld`) and
 * the locked path (a transaction) both run the same plan.
 */

export const reservationNotFound = (id: number) => new AppError('ENTITY_NOT_FOUND', `Reservation ${id} not found`)

/** The reservation's status allows `trigger` (the machine's table), else INVALID_STATE naming the reservation. */
export function checkMove(r: Pick<repo.ReservationRow, 'id' | 'status'>, trigger: ReservationTrigger): void {
  reservationMachine.next(r.status, trigger, `Reservation ${r.id}`)
}

/** The refusal of `trigger` on a reservation found in `status` (the machine's, as `checkMove` throws it). */
export const moveRefused = (id: number, status: ReservationStatus, trigger: ReservationTrigger) =>
  reservationMachine.refusal(status, trigger, `Reservation ${id}`)

/** What closing a reservation writes: its final status, the consumed quantity, the ledger rows, the answer. */
export interface ClosePlan {
  readonly trigger: ReservationTrigger
  readonly status: 'CONFIRMED' | 'CANCELLED' | 'EXPIRED'
  readonly consumedQuantity: string | null
  readonly entries: repo.LedgerEntry[]
  readonly message: string
}

/** The ledger rows giving back everything a reservation holds: its counter units and its held amount. */
export function releaseEntries(r: repo.ReservationRow): repo.LedgerEntry[] {
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
export function confirmEntries(r: repo.ReservationRow, split: Consumption, charged: Decimal): repo.LedgerEntry[] {
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
export function consumedOf(r: repo.ReservationRow, consumedQuantity: Decimal | undefined): Decimal {
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

/** A confirm: `consumed` units used (split into free and paid), the paid part `charged` with tax. */
export function confirmPlan(
  r: repo.ReservationRow,
  consumed: Decimal,
  split: Consumption,
  charged: Decimal,
): ClosePlan {
  return {
    trigger: 'confirm',
    status: 'CONFIRMED',
    consumedQuantity: consumed.toFixed(),
    entries: confirmEntries(r, split, charged),
    message: `Reservation ${r.id} confirmed: ${formatDecimal(consumed)} consumed, ${formatDecimal(charged)} charged`,
  }
}

/** A cancel or an expiry: everything the reservation holds goes back. */
export function releasePlan(r: repo.ReservationRow, trigger: 'cancel' | 'expire'): ClosePlan {
  return {
    trigger,
    status: trigger === 'cancel' ? 'CANCELLED' : 'EXPIRED',
    consumedQuantity: null,
    entries: releaseEntries(r),
    message: trigger === 'cancel' ? `Reservation ${r.id} cancelled: balance and counters restored` : '',
  }
}

/** What a reserve writes: the reservation's row and its holds (both paths write this one plan). */
export interface ReservePlan {
  readonly row: repo.NewReservation
  readonly holds: repo.LedgerEntry[]
}

/** A reserve of `line`: the free units `take` took, the rest's `total` held against the wallet `walletId`. */
export function reservePlan(
  line: UsageLine,
  sub: repo.SubscriptionRow,
  charge: repo.UsageChargeRow,
  walletId: number | null,
  take: FreeTake,
  total: { withoutTax: Decimal; withTax: Decimal },
  discountTaken: Record<string, DiscountState>,
  now: Date,
  settings: { prepaidReservationExpirationDelayMs: number },
): ReservePlan {
  return {
    row: reservationValues(line, sub, charge, walletId, take, total, discountTaken, now, settings),
    holds: holdsOf(take, walletId, total.withTax),
  }
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
