import type { Decimal } from 'decimal.js'
import { formatDecimal, money } from '../../kernel/money.ts'

export const RESERVATION_STATUSES = ['OPEN', 'CONFIRMED', 'CANCELLED', 'EXPIRED'] as const
export type ReservationStatus = (typeof RESERVATION_STATUSES)[number]

/** A counter period as a reservation sees it: units left. */
export interface CounterSlot {
  readonly periodId: number
  readonly value: Decimal
}

export interface FreeTake {
  /** Units taken per counter period id (only periods something was taken from). */
  readonly taken: Readonly<Record<string, string>>
  readonly free: Decimal
  /** The rest, paid from the wallet. */
  readonly paid: Decimal
}

/** Free units first: from each counter period in turn, as many as it has left, up to the quantity. */
export function takeFreeUnits(slots: readonly CounterSlot[], quantity: Decimal): FreeTake {
  const taken: Record<string, string> = {}
  let left = quantity
  for (const slot of slots) {
    if (left.lte(0)) break
    const take = left.lt(slot.value) ? left : slot.value
    if (take.gt(0)) {
      taken[String(slot.periodId)] = take.toFixed()
      left = left.minus(take)
    }
  }
  return { taken, free: quantity.minus(left), paid: left }
}

export interface Consumption {
  /** Free units consumed (they stay taken from their counters). */
  readonly freeConsumed: Decimal
  /** Units charged to the wallet. */
  readonly paidConsumed: Decimal
  /** Units given back per counter period id. */
  readonly returned: Readonly<Record<string, Decimal>>
}

/**
 * How a confirmed quantity splits: free units are consumed first (the usage used what was free before what is paid);
 * unconsumed free units go back to the periods taken from last, first.
 */
export function splitConsumption(
  reservation: { freeQuantity: Decimal; counterPeriodValues: Readonly<Record<string, string>> },
  consumed: Decimal,
): Consumption {
  const freeConsumed = consumed.lt(reservation.freeQuantity) ? consumed : reservation.freeQuantity
  let toReturn = reservation.freeQuantity.minus(freeConsumed)
  const returned: Record<string, Decimal> = {}
  for (const [periodId, units] of Object.entries(reservation.counterPeriodValues).reverse()) {
    if (toReturn.lte(0)) break
    const back = toReturn.lt(units) ? toReturn : money(units)
    returned[periodId] = back
    toReturn = toReturn.minus(back)
  }
  return { freeConsumed, paidConsumed: consumed.minus(freeConsumed), returned }
}

/**
 * The quantity still available after a reservation: free units left in its counter periods, plus the whole units the
 * wallet's remaining available balance pays for at this usage's unit price with tax (none when the unit is free).
 */
export function availableQuantity(freeLeft: Decimal, availableBalance: Decimal, unitAmountWithTax: Decimal): Decimal {
  const paid =
    unitAmountWithTax.gt(0) && availableBalance.gt(0) ? availableBalance.div(unitAmountWithTax).floor() : money(0)
  return freeLeft.plus(paid)
}

export const insufficientBalance = (required: Decimal, available: Decimal, currency: string) =>
  `Insufficient balance: ${formatDecimal(required)} ${currency} required, ${formatDecimal(available)} ${currency} available`
