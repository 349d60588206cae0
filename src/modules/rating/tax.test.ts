import { describe, expect, it } from 'vitest'
import { money } from '../../kernel/money.ts'
import { includedTaxOf, selectTax, taxedAmounts, taxOf, type TaxMapping } from './tax.ts'

const NORMAL = 1
const REDUCED = 2
const [FR, DE, US] = [10, 11, 12]

const mapping = (
  id: number,
  taxClassId: number,
  sellerCountryId: number | null,
  billingCountryId: number | null,
  percent: string,
  priority = 0,
): TaxMapping => ({
  id,
  taxClassId,
  sellerCountryId,
  billingCountryId,
  priority,
  tax: { id: id * 100, code: `TAX_${id}`, percent: money(percent) },
})

const MAPPINGS = [
  mapping(1, NORMAL, null, null, '20'),
  mapping(2, NORMAL, FR, DE, '19'),
  mapping(3, NORMAL, null, US, '0'),
  mapping(4, NORMAL, null, US, '7', 5),
  mapping(5, REDUCED, null, null, '5.5'),
]

describe(selectTax.name, () => {
  it.each<[number, number | null, number | null, string | undefined]>([
    [NORMAL, FR, FR, 'TAX_1'],
    [NORMAL, FR, DE, 'TAX_2'],
    [NORMAL, DE, DE, 'TAX_1'],
    [NORMAL, FR, US, 'TAX_4'],
    [NORMAL, null, null, 'TAX_1'],
    [REDUCED, FR, US, 'TAX_5'],
    [99, FR, FR, undefined],
  ])('class %i, seller country %s, billing country %s → %s', (taxClass, seller, billing, expected) => {
    expect(selectTax(MAPPINGS, taxClass, seller, billing)?.code).toBe(expected)
  })
})

describe(taxOf.name, () => {
  it.each([
    ['10', '20', '2'],
    ['0.02', '20', '0'],
    ['0.03', '20', '0.01'],
    ['-5', '20', '-1'],
    ['-0.05', '5.5', '0'],
    ['-0.1', '5', '-0.01'],
  ])('tax on %s at %s %% is %s (HALF_UP, symmetric)', (amount, percent, expected) => {
    expect(taxOf(money(amount), { percent: money(percent) }, 2).toString()).toBe(expected)
  })
})

describe(includedTaxOf.name, () => {
  it.each([
    ['100', '20', '16.67'],
    ['99.99', '20', '16.67'],
    ['-99.99', '20', '-16.67'],
    ['0.05', '20', '0.01'],
    ['-0.05', '20', '-0.01'],
    ['100', '5.5', '5.21'],
    ['100', '0', '0'],
    ['0.03', '20', '0.01'],
  ])('tax included in %s at %s %% is %s (HALF_UP, symmetric)', (amount, percent, expected) => {
    expect(includedTaxOf(money(amount), { percent: money(percent) }, 2).toString()).toBe(expected)
  })
})

describe(taxedAmounts.name, () => {
  it.each<[string, boolean, string, string, string]>([
    // amount, prices include tax, without tax, tax, with tax
    ['100', false, '100', '20', '120'],
    ['100', true, '83.33', '16.67', '100'],
    ['-12', true, '-10', '-2', '-12'],
    ['-5', true, '-4.17', '-0.83', '-5'],
  ])('splits %s (prices include tax: %s)', (amount, pricesIncludeTax, withoutTax, tax, withTax) => {
    const split = taxedAmounts(money(amount), { percent: money(20) }, pricesIncludeTax, 2)
    expect([split.amountWithoutTax, split.amountTax, split.amountWithTax].map(String)).toEqual([
      withoutTax,
      tax,
      withTax,
    ])
  })

  it('rounds to the currency minor unit (3 decimals)', () => {
    const split = taxedAmounts(money('10.005'), { percent: money(20) }, true, 3)
    // 10.005 × 20 / 120 = 1.6675: half up to 1.668.
    expect([split.amountWithoutTax, split.amountTax].map(String)).toEqual(['8.337', '1.668'])
  })
})
