/**
 * The `#{...}` formula language of `price_fx` (DECISIONS "Catalog, pricing, orders"): numbers, strings, booleans,
 * null; `+ - * / div % mod`; `== != < <= > >= eq ne lt le gt ge`; `&& || ! and or not`; `empty`; `?:`; property
 * access on the context; the functions min, max, abs, round, ceil, floor. Decimal arithmetic throughout; no method
 * calls, no globals, no loops. A hand-written parser and tree evaluator: nothing is ever handed to `eval`.
 */
import type { Decimal } from 'decimal.js'
import type { Formula } from './ast.ts'
import { evaluateNumber } from './evaluator.ts'
import { parseFormula } from './parser.ts'
import { ElDecimal, toElValue, type ElMap } from './values.ts'

export type { Formula, Node } from './ast.ts'
export { FormulaError } from './formula-error.ts'
export { parseFormula, MAX_FORMULA_LENGTH, MAX_NESTING, FUNCTIONS } from './parser.ts'
export { evaluate, evaluateNumber } from './evaluator.ts'
export { toElValue, ElDecimal, type ElValue, type ElMap } from './values.ts'

/** The variables a price formula can read (DECISIONS: quantity, attributes, charge, subscription, offer, product). */
export const PRICE_VARIABLES = ['quantity', 'attributes', 'charge', 'subscription', 'offer', 'product'] as const

/** What a price formula sees when a charge is rated. */
export interface PriceFormulaContext {
  /** The quantity being rated (usage volume, or the ordered quantity). */
  quantity: Decimal | string
  /** The order's attribute values, by attribute code. */
  attributes: Readonly<Record<string, string | null>>
  charge: { code: string; type?: string }
  subscription?: { code: string; date: string }
  offer?: { code: string }
  product?: { code: string }
}

/** Parses a `price_fx` against the price variables; throws FormulaError with the position of a syntax error. */
export function parsePriceFormula(source: string): Formula {
  return parseFormula(source, { variables: PRICE_VARIABLES })
}

export function priceScope(context: PriceFormulaContext): ElMap {
  return new Map([
    ['quantity', new ElDecimal(typeof context.quantity === 'string' ? context.quantity : context.quantity.toString())],
    ['attributes', toElValue({ ...context.attributes })],
    ['charge', toElValue({ ...context.charge })],
    ['subscription', toElValue(context.subscription ? { ...context.subscription } : null)],
    ['offer', toElValue(context.offer ? { ...context.offer } : null)],
    ['product', toElValue(context.product ? { ...context.product } : null)],
  ])
}

/** The unit price a formula yields in a rating context. */
export function evaluatePriceFormula(formula: Formula, context: PriceFormulaContext): Decimal {
  return evaluateNumber(formula, priceScope(context))
}
