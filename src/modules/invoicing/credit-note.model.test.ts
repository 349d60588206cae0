import { describe, expect, it } from 'vitest'
import { AppError } from '../../kernel/errors.ts'
import { money } from '../../kernel/money.ts'
import { partialCredit, type CreditableLine } from './credit-note.model.ts'

function line(overrides: Partial<Omit<CreditableLine, 'credited'>> & { credited?: [string, string, string] } = {}) {
  const [net, tax, gross] = overrides.credited ?? ['0', '0', '0']
  return {
    id: 7,
    label: 'Monthly fee',
    quantity: money(3),
    unitAmountWithoutTax: money('33.333333333333'),
    amountWithoutTax: money('100'),
    amountTax: money('20'),
    amountWithTax: money('120'),
    taxPercent: money('20'),
    creditedBefore: overrides.credited !== undefined,
    ...overrides,
    credited: { amountWithoutTax: money(net), amountTax: money(tax), amountWithTax: money(gross) },
  } satisfies CreditableLine
}

const credit = (lines: CreditableLine[], amount: string, minorUnits = 2) =>
  partialCredit(lines, [{ invoiceLine: 7, amountWithoutTax: money(amount) }], 1, minorUnits).map((c) => [
    c.quantity.toFixed(),
    c.unitAmountWithoutTax.toFixed(),
    c.amountWithoutTax.toFixed(2),
    c.amountTax.toFixed(2),
    c.amountWithTax.toFixed(2),
  ])

describe(partialCredit.name, () => {
  it('taxes a part of a line at its rate, HALF_UP: 33.33 at 20 % owes 6.67 (6.666)', () => {
    expect(credit([line()], '33.33')).toEqual([['1', '33.33', '33.33', '6.67', '40.00']])
  })

  it('credits a line never credited, whole, at its quantity and unit price', () => {
    expect(credit([line()], '100')).toEqual([['3', '33.333333333333', '100.00', '20.00', '120.00']])
  })

  it('gives back exactly what is left of a line already credited in part, its tax included', () => {
    // 33.33 credited before with 6.67 of tax: the rest takes the 13.32 of tax left, not round(66.67 × 20 %) = 13.33.
    const left = line({ amountTax: money('19.99'), amountWithTax: money('119.99'), credited: ['33.33', '6.67', '40'] })
    expect(credit([left], '66.67')).toEqual([['1', '66.67', '66.67', '13.32', '79.99']])
  })

  it('refuses more than what is left of the line, and any credit of a discount line', () => {
    const refused = (lines: CreditableLine[], amount: string) => {
      try {
        credit(lines, amount)
      } catch (error) {
        return error instanceof AppError ? [error.code, error.message] : error
      }
      return 'accepted'
    }
    expect(refused([line({ credited: ['99.99', '20', '119.99'] })], '0.02')).toEqual([
      'CREDIT_EXCEEDS_INVOICE',
      'Line 7 (Monthly fee) has 0.01 left to credit without tax; 0.02 asked',
    ])
    const discount = line({ amountWithoutTax: money('-10'), amountTax: money('-2'), amountWithTax: money('-12') })
    expect(refused([discount], '1')).toEqual([
      'CREDIT_EXCEEDS_INVOICE',
      'Line 7 (Monthly fee) has 0.00 left to credit without tax; 1.00 asked',
    ])
  })

  it('keeps a zero-decimal currency to units', () => {
    expect(() => credit([line()], '10.5', 0)).toThrow(/at most 0 decimals/)
    expect(credit([line()], '11', 0)).toEqual([['1', '11', '11.00', '2.00', '13.00']])
  })
})
