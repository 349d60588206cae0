import { describe, expect, it } from 'vitest'
import { money } from '../../kernel/money.ts'
import { selectTax, type TaxMapping } from './tax.ts'

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
