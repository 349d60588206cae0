import { describe, expect, it } from 'vitest'
import { formatDecimal, roundAmount, money, isDecimalString } from './money.ts'

describe(roundAmount.name, () => {
  it.each([
    ['0.005', '0.01'],
    ['0.004', '0'],
    ['-0.005', '-0.01'],
    ['2.675', '2.68'],
    ['1.005', '1.01'],
    ['123456789012345678.125', '123456789012345678.13'],
  ])('rounds %s HALF_UP to %s', (value, expected) => {
    expect(roundAmount(value).toString()).toBe(expected)
  })

  it('adds 0.1 and 0.2 exactly', () => {
    expect(money('0.1').plus('0.2').toString()).toBe('0.3')
  })

  it('rounds to the currency minor unit', () => {
    expect(roundAmount('10.0005', 3).toString()).toBe('10.001')
  })

  it.each([
    ['12', true],
    ['-0.5', true],
    ['1e5', false],
    ['0.1234567890123', false],
    ['', false],
  ])('recognizes %s as a decimal string: %s', (value, expected) => expect(isDecimalString(value)).toBe(expected))
})

describe(formatDecimal.name, () => {
  it.each([
    ['1.000000000000', '1'],
    ['1.500000000000', '1.5'],
    ['0.25', '0.25'],
    ['-3.10', '-3.1'],
    ['1e-7', '0.0000001'],
    ['123456789012345678.123456789012', '123456789012345678.123456789012'],
  ])('writes %s as %s', (value, written) => expect(formatDecimal(value)).toBe(written))

  it('multiplies 30-digit quantities and prices exactly before the one rounding (checked with Python decimal)', () => {
    const product = money('123456789012345678.123456789012').times('987654321098765432.987654321098')
    expect(product.decimalPlaces()).toBe(24)
    expect(roundAmount(product).toString()).toBe('121932631137021794566377074494610576.62')
  })
})
