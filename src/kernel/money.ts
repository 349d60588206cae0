import { Decimal } from 'decimal.js'

/**
 * A private Decimal constructor: money never goes through binary floating point. Quantities and unit prices have at
 * most 18 integer digits and 12 decimals (30 significant digits), so with 80 significant digits their product is
 * exact and the only rounding an amount sees is the one to the currency's minor unit.
 */
export const Money = Decimal.clone({ precision: 80, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -40, toExpPos: 40 })
export type Money = Decimal

/** Unit prices keep 12 decimals (the database columns hold 18 integer digits and 12 decimals). */
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

/**
 * A decimal as a person writes it: plain digits, no exponent, no trailing zeros (`1`, `1.5`, `0.25`, `-3`), whatever
 * scale it was stored with (`1.000000000000`). Messages, explanations and the wire all write decimals this way.
 */
export function formatDecimal(value: Decimal.Value): string {
  return new Money(value).toFixed()
}
