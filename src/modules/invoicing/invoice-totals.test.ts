import { describe, expect, it } from 'vitest'
import { money } from '../../kernel/money.ts'
import { invoiceTotals, type RateSum } from './invoice-totals.ts'

const rate = (taxId: number, percent: string, withoutTax: string, withTax: string): RateSum => ({
  taxId,
  taxPercent: money(percent),
  amountWithoutTax: money(withoutTax),
  amountWithTax: money(withTax),
})

const text = (totals: ReturnType<typeof invoiceTotals>) => ({
  net: totals.amountWithoutTax.toFixed(2),
  tax: totals.amountTax.toFixed(2),
  gross: totals.amountWithTax.toFixed(2),
  taxes: totals.taxes.map((t) => `${t.taxId}@${t.taxPercent.toFixed()}: ${t.base.toFixed(2)} → ${t.amount.toFixed(2)}`),
})

describe(invoiceTotals.name, () => {
  it('taxes each rate once on its summed net (B2B): three 0.05 items at 5.5 % owe 0.01 together', () => {
    // Each 0.05 item's own tax rounds to 0.00 (0.00275); the invoice owes round(0.15 × 5.5 %) = round(0.00825) = 0.01.
    const totals = invoiceTotals([rate(1, '20', '100', '120'), rate(2, '5.5', '0.15', '0.15')], false, 2)
    expect(text(totals)).toEqual({
      net: '100.15',
      tax: '20.01',
      gross: '120.16',
      taxes: ['1@20: 100.00 → 20.00', '2@5.5: 0.15 → 0.01'],
    })
  })

  it('rounds HALF_UP at the currency decimals: 0.125 of tax is 0.13, 0.124 is 0.12', () => {
    expect(text(invoiceTotals([rate(1, '10', '1.25', '1.37')], false, 2)).tax).toBe('0.13')
    expect(text(invoiceTotals([rate(1, '10', '1.24', '1.36')], false, 2)).tax).toBe('0.12')
  })

  it('takes the tax out of the summed gross when prices include tax (B2C)', () => {
    // 3 × 9.99 gross at 20 %: tax = round(29.97 × 20 / 120) = round(4.995) = 5.00, net = 24.97.
    const totals = invoiceTotals([rate(1, '20', '24.99', '29.97')], true, 2)
    expect(text(totals)).toEqual({ net: '24.97', tax: '5.00', gross: '29.97', taxes: ['1@20: 24.97 → 5.00'] })
  })

  it('keeps two rates of one tax apart, and a zero-decimal currency rounds to units', () => {
    const totals = invoiceTotals([rate(1, '8', '1001', '1081'), rate(1, '10', '999', '1099')], false, 0)
    expect(text(totals).taxes).toEqual(['1@8: 1001.00 → 80.00', '1@10: 999.00 → 100.00'])
    expect(totals.amountTax.toFixed()).toBe('180')
  })

  it('keeps negative nets (discounts larger than charges) exact, rounding half away from zero', () => {
    const totals = invoiceTotals([rate(1, '10', '-1.25', '-1.37')], false, 2)
    expect(text(totals)).toEqual({ net: '-1.25', tax: '-0.13', gross: '-1.38', taxes: ['1@10: -1.25 → -0.13'] })
  })

  it('is zero for an invoice without lines', () => {
    expect(text(invoiceTotals([], false, 2))).toEqual({ net: '0.00', tax: '0.00', gross: '0.00', taxes: [] })
  })
})
