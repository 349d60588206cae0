import { describe, expect, it } from 'vitest'
import {
  evaluate,
  evaluatePriceFormula,
  FormulaError,
  parseFormula,
  parsePriceFormula,
  priceScope,
  type PriceFormulaContext,
} from './index.ts'

const context: PriceFormulaContext = {
  quantity: '1500',
  attributes: { TIER: 'GOLD', size: '12', flag: 'TRUE', blank: '', missing: null },
  charge: { code: 'CH_DATA', type: 'USAGE' },
  subscription: { code: 'SUB_1', date: '2026-03-01' },
  offer: { code: 'OF_NET' },
  product: { code: 'PR_NET' },
}

const price = (source: string, quantity = '1500') =>
  evaluatePriceFormula(parsePriceFormula(source), { ...context, quantity }).toString()

function evaluationError(source: string): FormulaError {
  try {
    price(source)
  } catch (error) {
    if (error instanceof FormulaError) return error
    throw error
  }
  throw new Error(`expected ${source} to fail`)
}

describe(evaluatePriceFormula.name, () => {
  it.each([
    ['#{0.1 + 0.2}', '0.3'],
    ['#{0.3 - 0.1}', '0.2'],
    ['#{1.1 * 1.1}', '1.21'],
    ['#{1 / 3}', '0.3333333333333333333333333333333333333333'],
    ['#{10 div 4}', '2.5'],
    ['#{10 mod 4}', '2'],
    ['#{-7 % 3}', '-1'],
    ['#{7.5 % 2}', '1.5'],
    ['#{-quantity}', '-1500'],
    ['#{- -2}', '2'],
    ['#{2 + 3 * 4}', '14'],
    ['#{(2 + 3) * 4}', '20'],
    ['#{10 - 4 - 3}', '3'],
    ['#{quantity * 0.01}', '15'],
    ['#{quantity > 1000 ? 0.008 : 0.01}', '0.008'],
    ["#{attributes.TIER == 'GOLD' ? 10 : 5}", '10'],
    ["#{attributes.TIER eq 'gold' ? 10 : 5}", '5'],
    ['#{attributes.size * 2}', '24'],
    ["#{attributes['size'] + 1}", '13'],
    ['#{attributes.size > 9 ? 1 : 0}', '1'],
    ["#{attributes.size > '9' ? 1 : 0}", '0'],
    ['#{attributes.flag ? 1 : 0}', '1'],
    ['#{empty attributes.blank ? 1 : 0}', '1'],
    ['#{empty attributes.missing ? 1 : 0}', '1'],
    ['#{empty attributes.unknown ? 1 : 0}', '1'],
    ['#{empty attributes.TIER ? 1 : 0}', '0'],
    ['#{attributes.unknown == null ? 1 : 0}', '1'],
    ['#{attributes.unknown.deeper == null ? 1 : 0}', '1'],
    ['#{null < 1 ? 1 : 0}', '0'],
    ['#{true && false || !false ? 1 : 0}', '1'],
    ['#{not true or false and true ? 1 : 0}', '0'],
    ['#{1 lt 2 and 2 le 2 and 3 gt 2 and 3 ge 3 and 1 ne 2 ? 1 : 0}', '1'],
    ["#{'b' > 'a' ? 1 : 0}", '1'],
    ['#{min(3, 1, 2)}', '1'],
    ['#{max(-3, -1)}', '-1'],
    ['#{abs(-2.5)}', '2.5'],
    ['#{round(2.5)}', '3'],
    ['#{round(-2.5)}', '-3'],
    ['#{round(1.005, 2)}', '1.01'],
    ['#{ceil(1.1)}', '2'],
    ['#{floor(-1.1)}', '-2'],
    ['#{1e3}', '1000'],
    ['#{"12.5"}', '12.5'],
    ['#{0 * -1}', '0'],
    ['#{subscription.date >= "2026-01-01" ? 1 : 2}', '1'],
    ["#{charge.code == 'CH_DATA' && offer.code == 'OF_NET' && product.code == 'PR_NET' ? 1 : 0}", '1'],
    ['#{99999999999999999999 * 99999999999999999999}', '9999999999999999999800000000000000000001'],
  ])('%s = %s', (source, expected) => {
    expect(price(source)).toBe(expected)
  })

  it.each([
    ['0', '0.01'],
    ['1000', '0.01'],
    ['1000.000001', '0.008'],
    ['-5', '0.01'],
    ['123456789012345678901234567890', '0.008'],
  ])('applies a volume break at quantity %s', (quantity, unitPrice) => {
    expect(price('#{quantity > 1000 ? 0.008 : 0.01}', quantity)).toBe(unitPrice)
  })

  it.each([
    ['#{1 / 0}', 4, 'division by zero'],
    ['#{1 mod 0}', 4, 'modulo by zero'],
    ['#{attributes.missing * 2}', 2, 'a null value cannot be used as a number'],
    ['#{attributes.TIER * 2}', 2, "'GOLD' is not a number"],
    ['#{attributes.TIER > 2 ? 1 : 0}', 18, "'GOLD' is not a number"],
    ['#{true + 1}', 2, 'a boolean cannot be used as a number'],
    ['#{attributes + 1}', 2, 'an object cannot be used as a number'],
    ['#{1 && true ? 1 : 0}', 2, 'a number cannot be used as a boolean'],
    ['#{quantity.x}', 10, 'cannot read a property of a number'],
    ['#{true < false ? 1 : 0}', 7, 'cannot order a boolean and a boolean'],
    ['#{attributes == attributes ? 1 : 0}', 13, 'cannot compare an object and an object'],
    ['#{round(1, 13)}', 11, 'round scale must be an integer from 0 to 12'],
    ['#{round(1, 0.5)}', 11, 'round scale must be an integer'],
    ['#{9e999 * 9e999}', 8, 'numeric overflow'],
    ['#{1e1001}', 2, 'number out of range'],
    ['#{attributes.unknown}', 2, 'the formula yielded no value'],
    ['#{quantity > 1}', 2, 'the formula must yield a number, not a boolean'],
    ["#{'abc'}", 2, "'abc' is not a number"],
    ['#{attributes}', 2, 'the formula must yield a number, not an object'],
  ])('%s fails at position %i', (source, position, reason) => {
    const error = evaluationError(source)
    expect(error.reason).toContain(reason)
    expect(error.position).toBe(position)
  })

  it('reads context keys as plain names, never as object internals', () => {
    const formula = (name: string) => parseFormula(`#{attributes['${name}']}`, { variables: ['attributes'] })
    const scope = priceScope({ ...context, attributes: { ['__proto__']: '1' } })
    expect(evaluate(formula('__proto__'), scope)).toBe('1')
    for (const name of ['constructor', 'toString', 'hasOwnProperty', 'size', 'get', 'prototype']) {
      expect(evaluate(formula(name), scope)).toBeNull()
    }
  })

  it('short-circuits && and || and evaluates only the chosen branch', () => {
    expect(price('#{false && 1 / 0 > 1 ? 1 : 2}')).toBe('2')
    expect(price('#{true || 1 / 0 > 1 ? 1 : 2}')).toBe('1')
    expect(price('#{true ? 1 : 1 / 0}')).toBe('1')
  })
})
