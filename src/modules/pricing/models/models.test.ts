import { describe, expect, it } from 'vitest'
import { AppError } from '../../../kernel/errors.ts'
import { money } from '../../../kernel/money.ts'
import { parsePriceFormula } from '../el/index.ts'
import { matchMatrixRow, priceUnit, type MatrixCell, type MatrixPricing, type RatingInput } from './index.ts'

const input = (attributes: RatingInput['attributes'], quantity = '1'): RatingInput => ({
  quantity: money(quantity),
  attributes,
  charge: { code: 'CH' },
})

/** A tier × region matrix: rows given as [tier, region, price]; '' is a wildcard. */
function matrix(rows: [string, string, number][]): MatrixPricing {
  return {
    model: 'MATRIX',
    columns: [
      { code: 'tier', type: 'String', position: 0, attributeCode: 'TIER' },
      { code: 'region', type: 'String', position: 1, attributeCode: 'REGION' },
    ],
    rows: rows.map(([tier, region, price], priority) => ({
      priority,
      price: money(price),
      values: [
        { dimensionCode: 'tier', stringValue: tier },
        { dimensionCode: 'region', stringValue: region },
      ],
    })),
  }
}

const tiers = matrix([
  ['GOLD', 'EU', 30],
  ['GOLD', '', 35],
  ['SILVER', 'EU', 20],
  ['', 'US', 15],
])

describe(matchMatrixRow.name, () => {
  it.each([
    [{ TIER: 'GOLD', REGION: 'EU' }, 0],
    [{ TIER: 'GOLD', REGION: 'US' }, 1],
    [{ TIER: 'GOLD' }, 1],
    [{ TIER: 'SILVER', REGION: 'EU' }, 2],
    [{ TIER: 'BRONZE', REGION: 'US' }, 3],
    [{ REGION: 'US' }, 3],
  ])('matches %j with row %i (priority order, empty cell = any value)', (attributes, priority) => {
    expect(matchMatrixRow(tiers, attributes)?.priority).toBe(priority)
  })

  it.each([
    [{ TIER: 'BRONZE', REGION: 'EU' }],
    [{ TIER: 'gold', REGION: 'EU' }], // exact, case-sensitive
    [{ TIER: 'SILVER' }],
    [{}],
  ])('finds no row for %j', (attributes) => {
    expect(matchMatrixRow(tiers, attributes)).toBeUndefined()
  })

  it('tries rows by priority, not by position in the list', () => {
    const reordered: MatrixPricing = { ...tiers, rows: [...tiers.rows].reverse() }
    expect(matchMatrixRow(reordered, { TIER: 'GOLD', REGION: 'US' })?.priority).toBe(1)
  })

  const ranges = (cells: [MatrixCell, MatrixCell][]): MatrixPricing => ({
    model: 'MATRIX',
    columns: [
      { code: 'users', type: 'Range_Numeric', position: 0, attributeCode: 'USERS' },
      { code: 'start', type: 'Range_Date', position: 1, attributeCode: 'START' },
    ],
    rows: cells.map((values, priority) => ({ priority, price: money(priority), values })),
  })
  const volume = ranges([
    [
      { dimensionCode: 'users', toValue: '10' },
      { dimensionCode: 'start', toValue: '2026-01-01' },
    ],
    [
      { dimensionCode: 'users', fromValue: '10', toValue: '100.5' },
      { dimensionCode: 'start', toValue: '2026-01-01' },
    ],
    [{ dimensionCode: 'users', fromValue: '100.5' }, { dimensionCode: 'start' }],
    [
      { dimensionCode: 'users', toValue: '100.5' },
      { dimensionCode: 'start', fromValue: '2026-01-01' },
    ],
  ])

  it.each([
    [{ USERS: '0', START: '2025-06-01' }, 0],
    [{ USERS: '-3', START: '2025-12-31' }, 0],
    [{ USERS: '9.999', START: '2025-12-31' }, 0],
    [{ USERS: '10', START: '2025-12-31' }, 1],
    [{ USERS: '100.49', START: '2025-01-01T10:00:00Z' }, 1],
    [{ USERS: '100.5', START: '2020-01-01' }, 2],
    [{ USERS: '1e6', START: '2030-01-01' }, 2],
    [{ USERS: '10', START: '2026-01-01' }, 3],
    [{ USERS: '99', START: '2027-05-05' }, 3],
  ])('matches ranges from <= v < to: %j → row %i', (attributes, priority) => {
    expect(matchMatrixRow(volume, attributes)?.priority).toBe(priority)
  })

  it.each([[{ USERS: 'many', START: '2025-01-01' }], [{ START: '2025-01-01' }], [{ USERS: '5', START: 'soon' }]])(
    'finds no range row for %j',
    (attributes) => {
      expect(matchMatrixRow(volume, attributes)).toBeUndefined()
    },
  )
})

describe(priceUnit.name, () => {
  it.each([
    ['49.99', '49.99'],
    ['0.1234567890125', '0.123456789013'],
    ['-5', '-5'],
    ['0', '0'],
  ])('prices FLAT %s as %s per unit', (price, expected) => {
    expect(priceUnit({ model: 'FLAT', price: money(price) }, input({})).unitPrice.toString()).toBe(expected)
  })

  it('prices MATRIX by the matching row and explains it', () => {
    const priced = priceUnit(tiers, input({ TIER: 'SILVER', REGION: 'EU' }))
    expect(priced.unitPrice.toString()).toBe('20')
    expect(priced.matchedRow).toBe(2)
    expect(priced.explanation).toBe('matrix row 2 (TIER=SILVER, REGION=EU): 20')
  })

  it('fails MATRIX without a matching row with PRICE_NOT_FOUND naming the charge and the values', () => {
    const attempt = () => priceUnit(tiers, input({ TIER: 'BRONZE', REGION: 'EU' }))
    expect(attempt).toThrow(AppError)
    expect(attempt).toThrow('No price of charge CH matches the attribute values TIER=BRONZE, REGION=EU')
    try {
      attempt()
    } catch (error) {
      expect((error as AppError).code).toBe('PRICE_NOT_FOUND')
    }
  })

  const volumeBreak = { model: 'FORMULA' as const, formula: parsePriceFormula('#{quantity > 1000 ? 0.008 : 0.01}') }
  it.each([
    ['1', '0.01'],
    ['1000', '0.01'],
    ['1001', '0.008'],
    ['0.5', '0.01'],
  ])('prices FORMULA per unit with a volume break: quantity %s → %s', (quantity, expected) => {
    expect(priceUnit(volumeBreak, input({}, quantity)).unitPrice.toString()).toBe(expected)
  })

  it('rounds a formula unit price to 12 decimals HALF_UP', () => {
    const third = { model: 'FORMULA' as const, formula: parsePriceFormula('#{1 / 3}') }
    expect(priceUnit(third, input({})).unitPrice.toString()).toBe('0.333333333333')
  })

  it('turns a formula evaluation error into INVALID_FORMULA with its position', () => {
    const broken = { model: 'FORMULA' as const, formula: parsePriceFormula('#{attributes.size * 2}') }
    try {
      priceUnit(broken, input({}))
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(AppError)
      expect((error as AppError).code).toBe('INVALID_FORMULA')
      expect((error as AppError).message).toBe(
        'price_fx of charge CH: a null value cannot be used as a number at position 2',
      )
    }
  })
})
