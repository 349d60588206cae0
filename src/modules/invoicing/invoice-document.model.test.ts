import { describe, expect, it } from 'vitest'
import {
  addressLines,
  formatAmount,
  formatMoney,
  formatPercent,
  formatQuantity,
  formatUnitPrice,
  pdfFileOf,
} from './invoice-document.model.ts'

describe('document formats', () => {
  it.each([
    ['1234.5', 2, '1,234.50'],
    ['1234567.891', 2, '1,234,567.89'],
    ['-1250', 2, '-1,250.00'],
    ['0', 2, '0.00'],
    ['999', 2, '999.00'],
    ['1500', 0, '1,500'],
    ['12.345', 3, '12.345'],
  ])('writes the amount %s at %i decimals as %s', (value, decimals, expected) => {
    expect(formatAmount(value, decimals)).toBe(expected)
  })

  it('puts the currency code after the amount', () => {
    expect(formatMoney('1234.50', 2, 'EUR')).toBe('1,234.50 EUR')
  })

  it('writes quantities without trailing zeros, unit prices with the currency decimals and up to 6 more', () => {
    expect(formatQuantity('12000.000000000000')).toBe('12,000')
    expect(formatQuantity('1.500')).toBe('1.5')
    expect(formatUnitPrice('100.000000000000', 2)).toBe('100.00')
    expect(formatUnitPrice('0.012500000000', 2)).toBe('0.0125')
    expect(formatUnitPrice('33.333333333333', 2)).toBe('33.333333')
    expect(formatUnitPrice('0.6666666666666', 2)).toBe('0.666667')
    expect(formatPercent('5.5000')).toBe('5.5 %')
    expect(formatPercent('20.0000')).toBe('20 %')
  })

  it('prints an address line by line, leaving out what is empty', () => {
    expect(
      addressLines({ address1: '7 Baker Street', address2: ' ', zipCode: 'NW1 6XE', city: 'London', country: 'UK' }),
    ).toEqual(['7 Baker Street', 'NW1 6XE London', 'UK'])
    expect(addressLines({ address1: null, address2: null, zipCode: null, city: 'Paris', country: null })).toEqual([
      'Paris',
    ])
  })
})

describe(pdfFileOf.name, () => {
  it('stores a PDF under its invoice date’s year, named by its number', () => {
    expect(pdfFileOf('INV-2026-000001', '2026-12-01')).toBe('invoices/2026/INV-2026-000001.pdf')
  })

  it('writes every other character of a number as %XX, so two numbers never share a file and none leaves the folder', () => {
    expect(pdfFileOf('INV/2026/00..1', '2027-01-05')).toBe('invoices/2027/INV%2F2026%2F00%2E%2E1.pdf')
    expect(pdfFileOf('FA é_1', '2027-01-05')).toBe('invoices/2027/FA%20%C3%A9_1.pdf')
    expect(pdfFileOf('A%2F', '2027-01-05')).not.toBe(pdfFileOf('A/', '2027-01-05'))
  })
})
