import { Decimal } from 'decimal.js'
import { FormulaError } from './formula-error.ts'

/**
 * The formula language's number: decimal, 40 significant digits, HALF_UP, truncating remainder (as Java's
 * BigDecimal), and a bounded exponent so no value grows without limit (beyond it a value becomes infinite, which
 * the evaluator reports as an overflow).
 */
export const ElDecimal = Decimal.clone({
  precision: 40,
  rounding: Decimal.ROUND_HALF_UP,
  modulo: Decimal.ROUND_DOWN,
  maxE: 1000,
  minE: -1000,
  toExpNeg: -40,
  toExpPos: 40,
})

/** What a formula computes with. Objects of the context are read-only maps: lookups never reach a prototype. */
export type ElValue = Decimal | string | boolean | null | ElMap | readonly ElValue[]
export type ElMap = ReadonlyMap<string, ElValue>

export const isDecimal = (value: ElValue): value is Decimal => Decimal.isDecimal(value)
export const isMap = (value: ElValue): value is ElMap => value instanceof Map

const DECIMAL_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/

export function describe(value: ElValue): string {
  if (value === null) return 'null'
  if (isDecimal(value)) return 'a number'
  if (typeof value === 'string') return 'a string'
  if (typeof value === 'boolean') return 'a boolean'
  if (isMap(value)) return 'an object'
  return 'a list'
}

/** A decimal from a literal or a numeric string; infinite results (beyond the exponent bound) are an overflow. */
export function decimalOf(text: string, position: number): Decimal {
  if (text.length > 200) throw new FormulaError('number too long (at most 200 characters)', position)
  if (!DECIMAL_TEXT.test(text)) throw new FormulaError(`'${shorten(text)}' is not a number`, position)
  const value = new ElDecimal(text)
  if (!value.isFinite()) throw new FormulaError('number out of range', position)
  return value
}

/** Numeric coercion (EL rules, except that null is an error rather than 0: a missing value must not price at 0). */
export function toNumber(value: ElValue, position: number): Decimal {
  if (isDecimal(value)) return value
  if (typeof value === 'string') return decimalOf(value, position)
  if (value === null) throw new FormulaError('a null value cannot be used as a number', position)
  throw new FormulaError(`${describe(value)} cannot be used as a number`, position)
}

/** Boolean coercion (EL rules): a string is true when it reads "true" in any case; null is false. */
export function toBoolean(value: ElValue, position: number): boolean {
  if (typeof value === 'boolean') return value
  if (value === null) return false
  if (typeof value === 'string') return value.toLowerCase() === 'true'
  throw new FormulaError(`${describe(value)} cannot be used as a boolean`, position)
}

/** `empty`: null, the empty string, an empty object or list. */
export function isEmpty(value: ElValue): boolean {
  if (value === null) return true
  if (typeof value === 'string') return value.length === 0
  if (isMap(value)) return value.size === 0
  if (Array.isArray(value)) return value.length === 0
  return false
}

/** A finite result, or an overflow error at the operator. */
export function checked(value: Decimal, position: number): Decimal {
  if (!value.isFinite()) throw new FormulaError('numeric overflow', position)
  return value
}

function shorten(text: string): string {
  return text.length > 20 ? `${text.slice(0, 20)}…` : text
}

/**
 * Converts plain data into formula values: strings, booleans and null as they are, numbers and decimals as decimals,
 * arrays as lists, plain objects as read-only maps of their own enumerable properties. Anything else (functions,
 * symbols, class instances) is refused, so nothing executable ever enters a formula's context.
 */
export function toElValue(value: unknown): ElValue {
  if (value === null || value === undefined) return null
  if (typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('formula context: numbers must be finite')
    return new ElDecimal(value.toString())
  }
  if (Decimal.isDecimal(value)) return new ElDecimal(value)
  if (Array.isArray(value)) return value.map((item) => toElValue(item))
  if (value instanceof Map) {
    return new Map([...(value as Map<unknown, unknown>)].map(([k, v]) => [String(k), toElValue(v)]))
  }
  if (typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null)) {
    return new Map(Object.keys(value).map((k) => [k, toElValue((value as Record<string, unknown>)[k])]))
  }
  throw new TypeError(`formula context: unsupported value of type ${typeof value}`)
}
