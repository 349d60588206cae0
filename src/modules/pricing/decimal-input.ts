import type { Decimal } from 'decimal.js'
import type { ErrorDetail } from '../../kernel/errors.ts'
import { Money, UNIT_PRICE_SCALE } from '../../kernel/money.ts'

/** A decimal on the wire: a JSON number or a decimal string (never parsed through binary floating point twice). */
export const decimalSchema = {
  anyOf: [{ type: 'number' }, { type: 'string', pattern: '^-?\\d{1,18}(\\.\\d{1,12})?$' }],
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
    problems.push({ field, message: `expected a value of at least ${bounds.min.toString()}` })
    return undefined
  }
  if (bounds.minExclusive !== undefined && parsed.lte(bounds.minExclusive)) {
    problems.push({ field, message: `expected a value greater than ${bounds.minExclusive.toString()}` })
    return undefined
  }
  if (bounds.max !== undefined && parsed.gt(bounds.max)) {
    problems.push({ field, message: `expected a value of at most ${bounds.max.toString()}` })
    return undefined
  }
  return parsed
}

/** A stored numeric (string from the driver) as a JSON number, as the v1 resources write decimals. */
export function decimalWire(value: string): number {
  return new Money(value).toNumber()
}
