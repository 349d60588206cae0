import { describe, expect, it } from 'vitest'
import { decimalText, nextDay, temporalValue, ValueProblem, valueFor } from './filter-values.ts'
import { parseJsonExact } from './json-text.ts'

describe(temporalValue.name, () => {
  it.each([
    ['2026-03-01', { kind: 'day', day: '2026-03-01' }],
    ['2026-03-01T10:15:00Z', { kind: 'instant', iso: '2026-03-01T10:15:00.000Z' }],
    ['2026-03-01T10:15:00+01:00', { kind: 'instant', iso: '2026-03-01T09:15:00.000Z' }],
    ['2026-03-01T10:15:00.123456-0230', { kind: 'instant', iso: '2026-03-01T12:45:00.123Z' }],
    ['2026-03-01T10:15', { kind: 'localDateTime', text: '2026-03-01T10:15:00' }],
    ['2026-03-01 10:15:30.5', { kind: 'localDateTime', text: '2026-03-01T10:15:30.5' }],
    [1772323200000, { kind: 'instant', iso: '2026-03-01T00:00:00.000Z' }],
    ['1772323200000', { kind: 'instant', iso: '2026-03-01T00:00:00.000Z' }],
    ['0001-01-01', { kind: 'day', day: '0001-01-01' }],
  ])('reads %j', (raw, expected) => {
    expect(temporalValue(raw)).toEqual(expected)
  })

  it.each([
    '2026-02-30',
    '2026-13-01',
    '0000-01-01',
    '2026-03-01T24:00:00Z',
    '2026-03-01T10:00:00+19:00',
    'tomorrow',
    1.5,
    true,
    1e20,
    '',
    null,
  ])('refuses %j', (raw) => {
    expect(() => temporalValue(raw)).toThrow(ValueProblem)
  })
})

describe(nextDay.name, () => {
  it.each([
    ['2026-02-28', '2026-03-01'],
    ['2024-02-28', '2024-02-29'],
    ['2026-12-31', '2027-01-01'],
    ['0099-12-31', '0100-01-01'],
  ])('follows %s with %s', (day, expected) => {
    expect(nextDay(day)).toBe(expected)
  })
})

describe(valueFor.name, () => {
  it('keeps decimals as exact text, from JSON source text too', () => {
    const parsed = parseJsonExact('{"a": 0.10000000000000000001, "b": 12.30, "c": 1e3}') as Record<string, unknown>
    expect(decimalText(parsed.a)).toBe('0.10000000000000000001')
    expect(decimalText(parsed.b)).toBe('12.3')
    expect(decimalText(parsed.c)).toBe('1000')
    expect(decimalText('-5.50')).toBe('-5.5')
  })

  it('bounds integers by the column type', () => {
    expect(valueFor('long', '9223372036854775807')).toEqual({ kind: 'number', text: '9223372036854775807' })
    expect(() => valueFor('long', '9223372036854775808')).toThrow('expected an integer between')
    expect(() => valueFor('integer', 2147483648)).toThrow('expected an integer between')
    expect(() => valueFor('integer', 1.5)).toThrow('expected an integer')
  })

  it('reads booleans in any case, and text from strings only', () => {
    expect(valueFor('boolean', 'TRUE')).toEqual({ kind: 'boolean', value: true })
    expect(valueFor('string', '42')).toEqual({ kind: 'text', text: '42' })
    expect(() => valueFor('string', 42)).toThrow('expected a string for a text field, got a number')
    expect(() => valueFor('string', true)).toThrow('expected a string for a text field, got a boolean')
    expect(() => valueFor('string', { a: 1 })).toThrow('expected a string')
    expect(() => valueFor('json', 'x')).toThrow('cannot be compared')
  })
})
