import { describe, expect, it } from 'vitest'
import { FormulaError, MAX_FORMULA_LENGTH, parsePriceFormula } from './index.ts'

function syntaxError(source: string): FormulaError {
  try {
    parsePriceFormula(source)
  } catch (error) {
    if (error instanceof FormulaError) return error
    throw error
  }
  throw new Error(`expected ${source} to be refused`)
}

describe(parsePriceFormula.name, () => {
  it.each([
    '#{1}',
    '  #{ quantity }  ',
    '#{quantity * 0.01}',
    '#{quantity > 1000 ? 0.008 : 0.01}',
    "#{attributes.TIER == 'GOLD' && attributes['region-code'] ne \"EU\" ? 10 : 5}",
    '#{min(quantity, 100) + max(1, 2, 3) - abs(-1) + round(1.255, 2) + ceil(0.1) + floor(0.9)}',
    '#{not empty attributes.x or !true and false}',
    '#{10 div 3 + 10 mod 3 + 10 / 3 + 10 % 3}',
    '#{1 eq 1 ? 1 lt 2 ? 1 : 2 : 3}',
    '#{.5 + 1. + 1e3 + 2E-2}',
    '#{subscription.date >= "2026-01-01" ? 1 : 2}',
    '#{charge.code == offer.code ? product.code : 3}',
  ])('accepts %s', (source) => {
    expect(parsePriceFormula(source).source).toBe(source)
  })

  it.each([
    ['quantity * 2', 0, 'expected a formula of the form #{...}'],
    ['${quantity}', 0, 'expected a formula of the form #{...}'],
    ['#{}', 2, 'empty formula'],
    ['#{1 +}', 5, "unexpected '}'"],
    ['#{1 + 2', 7, 'missing closing }'],
    ['#{1 2}', 4, 'unexpected number 2'],
    ['#{(1 + 2}', 8, "expected ')'"],
    ['#{1} #{2}', 5, 'a formula holds one #{...} expression'],
    ['#{1} x', 5, 'unexpected text after the closing }'],
    ['#{x = 1}', 4, 'assignment is not allowed'],
    ['#{1; 2}', 3, 'several expressions are not allowed'],
    ['#{foo + 1}', 2, 'unknown variable foo'],
    ['#{process.exit(1)}', 2, 'unknown variable process'],
    ['#{quantity.toString()}', 19, 'method calls are not allowed'],
    ["#{attributes['x']()}", 17, 'method calls are not allowed'],
    ['#{(1)(2)}', 5, 'only the functions'],
    ['#{pow(2, 3)}', 2, 'unknown function pow'],
    ['#{abs(1, 2)}', 2, 'abs takes 1 argument, not 2'],
    ['#{round()}', 2, 'round takes 1 or 2 arguments, not 0'],
    ["#{'abc}", 2, 'unterminated string'],
    ["#{'a\\n'}", 4, 'unsupported escape'],
    ['#{1e}', 3, 'malformed number exponent'],
    ['#{12abc}', 4, 'unexpected character a after a number'],
    ['#{1 & 2}', 4, 'logical and is &&'],
    ['#{a instanceof b}', 2, 'unknown variable a'],
    ['#{quantity instanceof b}', 11, 'instanceof is not supported'],
    ['#{quantity.}', 11, "expected a property name after '.'"],
    ['#{1 ? 2}', 7, "expected ':' of the conditional"],
    ['#{{1}}', 2, 'set and map literals are not allowed'],
    ['#{1 @ 2}', 4, 'unexpected character @'],
    ['#{1 é 2}', 4, 'unexpected character U+E9'],
  ])('refuses %s at position %i', (source, position, reason) => {
    const error = syntaxError(source)
    expect(error.position).toBe(position)
    expect(error.reason).toContain(reason)
    expect(error.message).toBe(`${error.reason} at position ${position}`)
  })

  it('bounds the length, the nesting and the tree height', () => {
    expect(syntaxError(`#{${'1+'.repeat(MAX_FORMULA_LENGTH)}1}`).reason).toContain('longer than')
    expect(syntaxError(`#{${'('.repeat(100)}1${')'.repeat(100)}}`).reason).toContain('nested deeper')
    expect(syntaxError(`#{${'-'.repeat(100)}1}`).reason).toContain('nested deeper')
    expect(syntaxError(`#{${'1+'.repeat(300)}1}`).reason).toContain('too complex')
    expect(() => parsePriceFormula(`#{${'1+'.repeat(200)}1}`)).not.toThrow()
  })
})
