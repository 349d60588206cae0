import { Decimal } from 'decimal.js'

/** A private Decimal constructor: money never goes through binary floating point. */
export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -40, toExpPos: 40 })
export type Money = Decimal

/** Unit prices keep 12 decimals (DECISIONS "General"). */
export const UNIT_PRICE_SCALE = 12

export function money(value: Decimal.Value): Decimal {
  return new Money(value)
}

/** Rounds HALF_UP to the currency's minor unit: the only rounding applied to amounts. */
export function roundAmount(value: Decimal.Value, minorUnits = 2): Decimal {
  return new Money(value).toDecimalPlaces(minorUnits, Decimal.ROUND_HALF_UP)
}

/** True for strings that are plain decimal numbers: what the API accepts for amounts and quantities. */
export function isDecimalString(value: string): boolean {
  return /^-?\d{1,28}(\.\d{1,12})?$/.test(value)
}
