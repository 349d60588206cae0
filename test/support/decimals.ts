import { Decimal } from 'decimal.js'

/**
 * Money and quantities in tests are compared as decimals, never as JavaScript numbers: a stored `numeric` text or a
 * JSON number of the wire, written canonically ('12.50' and 12.5 both '12.5').
 */
export function decimalText(value: unknown): string {
  return new Decimal(String(value)).toString()
}

/** How much a decimal figure moved from `before` to `after` ('5', '-0.25'). */
export function change(before: unknown, after: unknown): string {
  return new Decimal(String(after)).minus(String(before)).toString()
}

/** `value` less `less`, in decimal arithmetic, as canonical text. */
export function minus(value: unknown, less: unknown): string {
  return new Decimal(String(value)).minus(String(less)).toString()
}
