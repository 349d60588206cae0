import { describe, expect, it } from 'vitest'
import { AppError } from '../../kernel/errors.ts'
import { money } from '../../kernel/money.ts'
import {
  checkInvoice,
  parseRuleCondition,
  ruleApplies,
  type InvoiceFacts,
  type ValidationRule,
} from './validation-rule.model.ts'

const facts: InvoiceFacts = {
  amountWithoutTax: money('100.15'),
  amountTax: money('20.01'),
  amountWithTax: money('120.16'),
  lineCount: 2,
  currency: 'EUR',
  billingAccountCode: 'BA_1',
  sellerCode: 'MAIN',
  previousAmountWithTax: money(0),
}

const rule = (code: string, condition: string, failStatus: 'SUSPECT' | 'REJECTED', priority = 0): ValidationRule => ({
  code,
  description: `${code} failed`,
  priority,
  invoiceType: 'INVOICE',
  condition,
  failStatus,
  active: true,
  validFrom: null,
  validTo: null,
})

const check = (...rules: ValidationRule[]) =>
  checkInvoice(
    rules.map((r) => ({ rule: r, formula: parseRuleCondition(r.condition) })),
    facts,
  )

describe(parseRuleCondition.name, () => {
  it('takes a condition with or without its #{…} wrapper', () => {
    expect(check(rule('BIG', 'amountWithTax > 100', 'SUSPECT')).status).toBe('SUSPECT')
    expect(check(rule('BIG', '#{amountWithTax > 100}', 'SUSPECT')).status).toBe('SUSPECT')
  })

  it('refuses a condition that does not parse with its line and column in the text as written', () => {
    const refusal = (() => {
      try {
        parseRuleCondition('amountWithTax >\n  > 3')
      } catch (error) {
        return error as AppError
      }
      return undefined
    })()
    expect(refusal?.code).toBe('INVALID_RULE_CONDITION')
    expect(refusal?.position).toEqual({ line: 2, column: 3 })
  })

  it('refuses a variable invoices do not have', () => {
    expect(() => parseRuleCondition('quantity > 3')).toThrow(/quantity/)
  })
})

describe(checkInvoice.name, () => {
  it('passes a draft no rule fails', () => {
    expect(check(rule('SMALL', 'amountWithTax < 10', 'REJECTED'))).toEqual({
      status: 'DRAFT',
      rejectedByRule: null,
      rejectReason: null,
    })
  })

  it('lets the worst status win, naming its first failing rule in priority order', () => {
    const verdict = check(
      rule('S1', 'lineCount >= 1', 'SUSPECT', 1),
      rule('R2', "currency == 'EUR'", 'REJECTED', 5),
      rule('R1', "sellerCode == 'MAIN'", 'REJECTED', 3),
    )
    expect(verdict).toEqual({ status: 'REJECTED', rejectedByRule: 'R1', rejectReason: 'R1 failed' })
  })

  it('fails a rule whose condition cannot be evaluated, with the message as reason', () => {
    const verdict = check(rule('DIV', 'amountWithTax / (lineCount - 2) > 1', 'SUSPECT'))
    expect(verdict.status).toBe('SUSPECT')
    expect(verdict.rejectReason).toMatch(/^condition of rule DIV cannot be evaluated: /)
  })

  it('compares with the previous validated invoice (0 when none)', () => {
    expect(check(rule('JUMP', 'amountWithTax > previousAmountWithTax * 2', 'SUSPECT')).rejectedByRule).toBe('JUMP')
  })
})

describe(ruleApplies.name, () => {
  it('applies an active rule of the type within its validity, both bounds inclusive', () => {
    const bounded = { ...rule('R', 'true', 'SUSPECT'), validFrom: '2026-01-01', validTo: '2026-12-31' }
    expect(ruleApplies(bounded, 'INVOICE', '2026-12-31')).toBe(true)
    expect(ruleApplies(bounded, 'INVOICE', '2027-01-01')).toBe(false)
    expect(ruleApplies(bounded, 'CREDIT_NOTE', '2026-06-01')).toBe(false)
    expect(ruleApplies({ ...bounded, active: false }, 'INVOICE', '2026-06-01')).toBe(false)
  })
})
