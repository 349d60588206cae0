import type { Decimal } from 'decimal.js'
import { AppError } from '../../kernel/errors.ts'
import {
  ElDecimal,
  evaluate,
  FormulaError,
  parseFormula,
  toElValue,
  type ElValue,
  type Formula,
} from '../pricing/index.ts'

/** What a rule condition reads of a draft invoice (invoicing-events.md §2.4). */
export const RULE_VARIABLES = [
  'amountWithoutTax',
  'amountTax',
  'amountWithTax',
  'lineCount',
  'currency',
  'billingAccountCode',
  'sellerCode',
  'previousAmountWithTax',
] as const

export interface InvoiceFacts {
  readonly amountWithoutTax: Decimal
  readonly amountTax: Decimal
  readonly amountWithTax: Decimal
  readonly lineCount: number
  readonly currency: string
  readonly billingAccountCode: string
  readonly sellerCode: string
  /** The account's last validated invoice's amount with tax; 0 when there is none. */
  readonly previousAmountWithTax: Decimal
}

export type FailStatus = 'SUSPECT' | 'REJECTED'

export interface ValidationRule {
  readonly code: string
  readonly description: string | null
  readonly priority: number
  readonly invoiceType: string
  readonly condition: string
  readonly failStatus: FailStatus
  readonly active: boolean
  readonly validFrom: string | null
  readonly validTo: string | null
}

/** The 1-based line and column of a 0-based offset in a text. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)))
  const lines = before.split('\n')
  return { line: lines.length, column: lines.at(-1)!.length + 1 }
}

/** A condition with its `#{…}` wrapper: written without one, it is wrapped (positions shift by the two characters). */
function wrapped(condition: string): { source: string; shift: number } {
  return /^\s*#\{/.test(condition) ? { source: condition, shift: 0 } : { source: `#{${condition}}`, shift: 2 }
}

/**
 * Parses a rule condition in the pricing formula language (its parser: no second language), over the invoice's
 * variables. A condition that does not parse is INVALID_RULE_CONDITION with the line and column in the text as given.
 */
export function parseRuleCondition(condition: string): Formula {
  const { source, shift } = wrapped(condition)
  try {
    return parseFormula(source, { variables: RULE_VARIABLES })
  } catch (error) {
    if (!(error instanceof FormulaError)) throw error
    const position = lineAndColumn(condition, error.position - shift)
    return refuse(`condition: ${error.reason} (line ${position.line}, column ${position.column})`, position)
  }
}

function refuse(message: string, position: { line: number; column: number }): never {
  throw new AppError('INVALID_RULE_CONDITION', message, {
    details: [{ field: 'condition', message }],
    position,
  })
}

function scopeOf(facts: InvoiceFacts): ReadonlyMap<string, ElValue> {
  const number = (value: Decimal | number) => new ElDecimal(value.toString())
  return new Map<string, ElValue>([
    ['amountWithoutTax', number(facts.amountWithoutTax)],
    ['amountTax', number(facts.amountTax)],
    ['amountWithTax', number(facts.amountWithTax)],
    ['lineCount', number(facts.lineCount)],
    ['currency', toElValue(facts.currency)],
    ['billingAccountCode', toElValue(facts.billingAccountCode)],
    ['sellerCode', toElValue(facts.sellerCode)],
    ['previousAmountWithTax', number(facts.previousAmountWithTax)],
  ])
}

/** Whether a rule applies to an invoice of this type and date: active, and its validity (both bounds inclusive). */
export function ruleApplies(rule: ValidationRule, invoiceType: string, invoiceDate: string): boolean {
  return (
    rule.active &&
    rule.invoiceType === invoiceType &&
    (rule.validFrom === null || rule.validFrom <= invoiceDate) &&
    (rule.validTo === null || invoiceDate <= rule.validTo)
  )
}

export interface RuleVerdict {
  readonly status: 'DRAFT' | FailStatus
  readonly rejectedByRule: string | null
  readonly rejectReason: string | null
}

const PASSED: RuleVerdict = { status: 'DRAFT', rejectedByRule: null, rejectReason: null }

/**
 * Checks a draft against every rule that applies (in priority order, then code): a rule fails when its condition is
 * true, or when it cannot be evaluated (its message is then the reason). The worst status wins — REJECTED over
 * SUSPECT — and names its first failing rule in that order, with the rule's description as the reason.
 */
export function checkInvoice(
  rules: readonly { rule: ValidationRule; formula: Formula }[],
  facts: InvoiceFacts,
): RuleVerdict {
  const scope = scopeOf(facts)
  let verdict = PASSED
  const ordered = [...rules].sort((a, b) => a.rule.priority - b.rule.priority || a.rule.code.localeCompare(b.rule.code))
  for (const { rule, formula } of ordered) {
    let reason: string | undefined
    try {
      const value = evaluate(formula, scope)
      if (value === true) reason = rule.description ?? `rule ${rule.code} failed`
      else if (value !== false && value !== null) reason = `condition of rule ${rule.code} is not true or false`
    } catch (error) {
      if (!(error instanceof FormulaError)) throw error
      reason = `condition of rule ${rule.code} cannot be evaluated: ${error.reason}`
    }
    if (reason === undefined) continue
    // Only a worse status replaces the first failure found: REJECTED over SUSPECT.
    if (verdict.status === 'DRAFT' || (verdict.status === 'SUSPECT' && rule.failStatus === 'REJECTED')) {
      verdict = { status: rule.failStatus, rejectedByRule: rule.code, rejectReason: reason }
    }
  }
  return verdict
}
