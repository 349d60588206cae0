import type { Decimal } from 'decimal.js'
import { decimalJson, type DecimalJson } from '../../kernel/decimal-json.ts'
import type { ErrorDetail } from '../../kernel/errors.ts'
import { decimalStringPattern } from '../../kernel/http/schemas.ts'
import { formatDecimal, Money, UNIT_PRICE_SCALE } from '../../kernel/money.ts'

/** A decimal on the wire: a JSON number or a decimal string (never parsed through binary floating point twice). */
export const decimalSchema = {
  anyOf: [{ type: 'number' }, { type: 'string', pattern: decimalStringPattern(18) }],
  description: 'decimal, as a JSON number or a decimal string (at most 18 integer digits and 12 decimals)',
}

const LIMIT = new Money('1e18')

/**
 * Reads a schema-validated decimal (number or string) into a Decimal, or explains why it cannot be stored:
 * more than 12 decimals, 18 integer digits, or outside the given bounds.
 */
export function readDecimal(
  value: number | string,
  field: string,
  problems: ErrorDetail[],
  bounds: { min?: Decimal.Value; minExclusive?: Decimal.Value; max?: Decimal.Value } = {},
): Decimal | undefined {
  let parsed: Decimal
  try {
    parsed = new Money(typeof value === 'number' ? value.toString() : value)
  } catch {
    problems.push({ field, message: 'expected a decimal number' })
    return undefined
  }
  if (!parsed.isFinite() || parsed.abs().gte(LIMIT)) {
    problems.push({ field, message: 'expected a decimal with at most 18 integer digits' })
    return undefined
  }
  if (parsed.decimalPlaces() > UNIT_PRICE_SCALE) {
    problems.push({ field, message: `expected at most ${UNIT_PRICE_SCALE} decimals` })
    return undefined
  }
  if (bounds.min !== undefined && parsed.lt(bounds.min)) {
    problems.push({ field, message: `expected a value of at least ${formatDecimal(bounds.min)}` })
    return undefined
  }
  if (bounds.minExclusive !== undefined && parsed.lte(bounds.minExclusive)) {
    problems.push({ field, message: `expected a value greater than ${formatDecimal(bounds.minExclusive)}` })
    return undefined
  }
  if (bounds.max !== undefined && parsed.gt(bounds.max)) {
    problems.push({ field, message: `expected a value of at most ${formatDecimal(bounds.max)}` })
    return undefined
  }
  return parsed
}

/**
 * A charge's unit price (a FLAT price, a MATRIX row's price), the one place its rule lives: a decimal as above, never
 * below zero. No charge is a discount — reductions are discount plans, rated as their own negative operations — so a
 * negative price is refused, naming the field, rather than billed as a credit nobody asked for.
 */
export function readUnitPrice(value: number | string, field: string, problems: ErrorDetail[]): Decimal | undefined {
  const parsed = readDecimal(value, field, problems)
  if (parsed?.isNegative() && !parsed.isZero()) {
    problems.push({ field, message: 'a price cannot be below zero (a reduction is a discount plan)' })
    return undefined
  }
  return parsed
}

/** A stored numeric (text from the driver) as an exact JSON number (response schemas declare it `decimalOut`). */
export function decimalWire(value: string): DecimalJson {
  return decimalJson(value)
}
