import { describe, expect, it } from 'vitest'
import { day, money, quantity } from './format.ts'

// The currency code and the amount are kept together by a no-break space.
const nb = (text: string) => text.replace(' ', '\u00a0')

describe('money', () => {
  it('writes the currency and its decimals, digit groups, and a minus sign', () => {
    expect(money('1234.5', 'EUR')).toBe(nb('EUR 1,234.50'))
    expect(money('-5', 'EUR')).toBe(nb('-EUR 5.00'))
    expect(money('1500', 'JPY')).toBe(nb('JPY 1,500'))
  })
  it('keeps every digit of an amount finer than the currency (a unit price), never rounding for display', () => {
    expect(money('0.0125', 'EUR')).toBe(nb('EUR 0.0125'))
    expect(money('12345678901234567.125', 'EUR')).toBe(nb('EUR 12,345,678,901,234,567.125'))
  })
  it('an absent amount is a dash', () => {
    expect(money(null, 'EUR')).toBe('–')
    expect(money(undefined)).toBe('–')
  })
})

describe('quantity and day', () => {
  it('groups digits and keeps decimals', () => {
    expect(quantity('12500.5')).toBe('12,500.5')
  })
  it('writes a calendar date without moving it to another day', () => {
    expect(day('2027-01-01')).toBe('1 Jan 2027')
    expect(day('2027-01-01T23:30:00Z')).toBe('1 Jan 2027')
  })
})
