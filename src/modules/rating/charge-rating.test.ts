import { describe, expect, it } from 'vitest'
import { AppError } from '../../kernel/errors.ts'
import { money } from '../../kernel/money.ts'
import { parsePriceFormula, type PricingDefinition } from '../pricing/index.ts'
import { rateCharge } from './charge-rating.ts'
import type { ChargeRatingInput, ServicePeriod, TaxRate } from './rating.model.ts'

const TAX_20: TaxRate = { id: 1, code: 'TAX_20', percent: money(20) }
const TAX_5_5: TaxRate = { id: 2, code: 'TAX_05_5', percent: money('5.5') }
const TAX_0: TaxRate = { id: 3, code: 'TAX_00', percent: money(0) }

const flat = (price: string): PricingDefinition => ({ model: 'FLAT', price: money(price) })
const formula = (source: string): PricingDefinition => ({ model: 'FORMULA', formula: parsePriceFormula(source) })

/** Tier × region, with wildcard rows ('' matches any value); `priorities` reorders the tries. */
function tierRegion(rows: [string, string, string][], priorities?: number[]): PricingDefinition {
  return {
    model: 'MATRIX',
    columns: [
      { code: 'tier', type: 'String', position: 0, attributeCode: 'TIER' },
      { code: 'region', type: 'String', position: 1, attributeCode: 'REGION' },
    ],
    rows: rows.map(([tier, region, price], i) => ({
      priority: priorities?.[i] ?? i,
      price: money(price),
      values: [
        { dimensionCode: 'tier', stringValue: tier },
        { dimensionCode: 'region', stringValue: region },
      ],
    })),
  }
}

const INTERNET = tierRegion([
  ['GOLD', 'EU', '59.99'],
  ['GOLD', 'US', '64.99'],
  ['GOLD', '', '69.99'],
  ['SILVER', 'EU', '39.99'],
  ['', 'APAC', '29.99'],
])

/** Users in ranges [0, 10), [10, 100), [100, ∞): a per-user price decreasing with volume. */
const SEATS: PricingDefinition = {
  model: 'MATRIX',
  columns: [{ code: 'users', type: 'Range_Numeric', position: 0, attributeCode: 'USERS' }],
  rows: [
    { priority: 0, price: money('5'), values: [{ dimensionCode: 'users', toValue: '10' }] },
    { priority: 1, price: money('4.5'), values: [{ dimensionCode: 'users', fromValue: '10', toValue: '100' }] },
    { priority: 2, price: money('4'), values: [{ dimensionCode: 'users', fromValue: '100' }] },
  ],
}

function input(
  definition: PricingDefinition,
  quantity: string,
  attributes: Record<string, string> = {},
  extra: Partial<ChargeRatingInput> = {},
): ChargeRatingInput {
  return {
    charge: { code: 'CH', type: 'ONESHOT' },
    pricing: { versionId: 7, version: 1, currency: 'EUR', definition },
    quantity: money(quantity),
    attributes,
    tax: TAX_20,
    minorUnits: 2,
    pricesIncludeTax: false,
    ...extra,
  }
}

/** The same input with prices including tax (tenant setting `pricesIncludeTax`). */
const gross = (
  definition: PricingDefinition,
  quantity: string,
  tax: TaxRate = TAX_20,
  extra: Partial<ChargeRatingInput> = {},
): ChargeRatingInput => input(definition, quantity, {}, { tax, pricesIncludeTax: true, ...extra })

describe(rateCharge.name, () => {
  it.each<[string, ChargeRatingInput, string, string, string, string]>([
    // name, input, unit price, amount without tax, tax, amount with tax
    ['FLAT × 1', input(flat('49.99'), '1'), '49.99', '49.99', '10', '59.99'],
    ['FLAT × 3', input(flat('49.99'), '3'), '49.99', '149.97', '29.99', '179.96'],
    ['FLAT rounds the amount HALF_UP', input(flat('10.005'), '1'), '10.005', '10.01', '2', '12.01'],
    ['FLAT 12-decimal unit × 3', input(flat('0.333333333333'), '3'), '0.333333333333', '1', '0.2', '1.2'],
    ['FLAT half a cent up', input(flat('0.125'), '1', {}, { tax: TAX_5_5 }), '0.125', '0.13', '0.01', '0.14'],
    ['FLAT at 5.5 %', input(flat('100'), '1', {}, { tax: TAX_5_5 }), '100', '100', '5.5', '105.5'],
    ['FLAT exempt', input(flat('9.9'), '2', {}, { tax: TAX_0 }), '9.9', '19.8', '0', '19.8'],
    ['FLAT fractional quantity', input(flat('9.9'), '0.5'), '9.9', '4.95', '0.99', '5.94'],
    ['MATRIX exact row', input(INTERNET, '1', { TIER: 'GOLD', REGION: 'EU' }), '59.99', '59.99', '12', '71.99'],
    ['MATRIX second exact row', input(INTERNET, '1', { TIER: 'GOLD', REGION: 'US' }), '64.99', '64.99', '13', '77.99'],
    [
      'MATRIX wildcard region × 2',
      input(INTERNET, '2', { TIER: 'GOLD', REGION: 'APAC' }),
      '69.99',
      '139.98',
      '28',
      '167.98',
    ],
    ['MATRIX wildcard tier', input(INTERNET, '1', { TIER: 'SILVER', REGION: 'APAC' }), '29.99', '29.99', '6', '35.99'],
    ['MATRIX range [0, 10)', input(SEATS, '9', { USERS: '9' }), '5', '45', '9', '54'],
    ['MATRIX range [10, 100) at its start', input(SEATS, '10', { USERS: '10' }), '4.5', '45', '9', '54'],
    ['MATRIX range [10, 100)', input(SEATS, '25', { USERS: '25' }), '4.5', '112.5', '22.5', '135'],
    ['MATRIX range [100, ∞)', input(SEATS, '100', { USERS: '100' }), '4', '400', '80', '480'],
    [
      'FORMULA below the break',
      input(formula('#{quantity > 10240 ? 0.005 : 0.01}'), '10240'),
      '0.01',
      '102.4',
      '20.48',
      '122.88',
    ],
    [
      'FORMULA above the break',
      input(formula('#{quantity > 10240 ? 0.005 : 0.01}'), '20000'),
      '0.005',
      '100',
      '20',
      '120',
    ],
    [
      'FORMULA rounds the tax',
      input(formula('#{quantity > 10240 ? 0.005 : 0.01}'), '333'),
      '0.01',
      '3.33',
      '0.67',
      '4',
    ],
    [
      'FORMULA on attributes',
      input(formula("#{attributes.SPEED == '1000' ? 30 : 20}"), '1', { SPEED: '1000' }),
      '30',
      '30',
      '6',
      '36',
    ],
    ['FORMULA unit price to 12 decimals', input(formula('#{10 / 3}'), '3'), '3.333333333333', '10', '2', '12'],
    [
      'override instead of the version',
      input(flat('49.99'), '2', {}, { unitPriceOverride: money('12.345') }),
      '12.345',
      '24.69',
      '4.94',
      '29.63',
    ],
  ])('%s', (_name, rating, unitPrice, amountWithoutTax, amountTax, amountWithTax) => {
    const rated = rateCharge(rating)
    expect(rated.unitPrice.toString()).toBe(unitPrice)
    expect(rated.amountWithoutTax.toString()).toBe(amountWithoutTax)
    expect(rated.amountTax.toString()).toBe(amountTax)
    expect(rated.amountWithTax.toString()).toBe(amountWithTax)
    expect(rated.amountWithTax.eq(rated.amountWithoutTax.plus(rated.amountTax))).toBe(true)
  })

  it('tries matrix rows by priority, not by their place in the list', () => {
    // GOLD/'' (priority 0) comes before GOLD/EU (priority 1) although listed after it.
    const reordered = tierRegion(
      [
        ['GOLD', 'EU', '59.99'],
        ['GOLD', '', '69.99'],
      ],
      [1, 0],
    )
    const rated = rateCharge(input(reordered, '1', { TIER: 'GOLD', REGION: 'EU' }))
    expect(rated.amountWithoutTax.toString()).toBe('69.99')
    expect(rated.explanation).toContain('matrix row 0 (TIER=GOLD, REGION=EU): 69.99')
  })

  it('prorates a period by days: 30 × 17/31', () => {
    const period: ServicePeriod = { start: '2026-01-15', end: '2026-02-01', prorata: { days: 17, periodDays: 31 } }
    const rated = rateCharge({ ...input(flat('30'), '1'), charge: { code: 'CH', type: 'RECURRING' }, period })
    expect(rated.amountWithoutTax.toString()).toBe('16.45')
    expect(rated.amountTax.toString()).toBe('3.29')
    expect(rated.amountWithTax.toString()).toBe('19.74')
    expect(rated.explanation).toContain('× 17/31 days for 2026-01-15..2026-02-01')
  })

  it('marks an override and explains the price source, version and tax', () => {
    const overridden = rateCharge(input(flat('49.99'), '1', {}, { unitPriceOverride: money('40') }))
    expect(overridden.overridden).toBe(true)
    expect(overridden.explanation).toBe('unit price 40 given by the order; 1 × 40 = 40.00; tax TAX_20 20 % = 8.00')
    const fromVersion = rateCharge(input(INTERNET, '1', { TIER: 'SILVER', REGION: 'EU' }))
    expect(fromVersion.overridden).toBe(false)
    expect(fromVersion.explanation).toBe(
      'pricing version 1: matrix row 3 (TIER=SILVER, REGION=EU): 39.99; 1 × 39.99 = 39.99; tax TAX_20 20 % = 8.00',
    )
  })

  it('fails PRICE_NOT_FOUND naming the charge and the attribute values when no matrix row matches', () => {
    const attempt = () => rateCharge(input(INTERNET, '1', { TIER: 'BRONZE', REGION: 'EU' }))
    expect(attempt).toThrow(AppError)
    expect(attempt).toThrow('No price of charge CH matches the attribute values TIER=BRONZE, REGION=EU')
  })
})

describe(`${rateCharge.name} with prices including tax`, () => {
  // Hand-computed: with tax = round(q × unit); tax = round(with tax × p / (100 + p)); without tax = the difference.
  it.each<[string, ChargeRatingInput, string, string, string]>([
    // name, input, amount with tax, tax, amount without tax
    ['100 at 20 %: 2000/120 = 16.666…', gross(flat('100'), '1'), '100', '16.67', '83.33'],
    ['120 at 20 %: exactly 20', gross(flat('120'), '1'), '120', '20', '100'],
    ['100 at 5.5 %: 550/105.5 = 5.2132…', gross(flat('100'), '1', TAX_5_5), '100', '5.21', '94.79'],
    ['100 at 0 %', gross(flat('100'), '1', TAX_0), '100', '0', '100'],
    ['0.01 at 20 %: 0.0016… rounds to 0', gross(flat('0.01'), '1'), '0.01', '0', '0.01'],
    ['0.01 at 5.5 %', gross(flat('0.01'), '1', TAX_5_5), '0.01', '0', '0.01'],
    ['0.05 at 20 %: 0.0083… rounds to 0.01', gross(flat('0.05'), '1'), '0.05', '0.01', '0.04'],
    ['0.05 at 5.5 %: 0.0026… rounds to 0', gross(flat('0.05'), '1', TAX_5_5), '0.05', '0', '0.05'],
    ['0.06 at 20 %: exactly 0.01', gross(flat('0.06'), '1'), '0.06', '0.01', '0.05'],
    ['99.99 at 20 %: 99.99/6 = 16.665, half up', gross(flat('99.99'), '1'), '99.99', '16.67', '83.32'],
    ['99.99 at 5.5 %: 5.2127…', gross(flat('99.99'), '1', TAX_5_5), '99.99', '5.21', '94.78'],
    ['99.99 at 0 %', gross(flat('99.99'), '1', TAX_0), '99.99', '0', '99.99'],
    ['2.5 × 9.99 = 24.975 rounds to 24.98 first', gross(flat('9.99'), '2.5'), '24.98', '4.16', '20.82'],
    ['0.333 × 10 = 3.33: 0.555 half up', gross(flat('10'), '0.333'), '3.33', '0.56', '2.77'],
    ['12-decimal unit × 3', gross(flat('0.333333333333'), '3'), '1', '0.17', '0.83'],
    [
      'an override is a price with tax too: 2 × 12.345 = 24.69, tax 4.115 half up',
      gross(flat('49.99'), '2', TAX_20, { unitPriceOverride: money('12.345') }),
      '24.69',
      '4.12',
      '20.57',
    ],
    [
      'MATRIX row price with tax',
      input(INTERNET, '1', { TIER: 'GOLD', REGION: 'EU' }, { pricesIncludeTax: true }),
      '59.99',
      '10',
      '49.99',
    ],
    [
      '18 integer digits: 12345678901234.5678 × 100, tax exactly a sixth',
      gross(flat('100'), '12345678901234.5678'),
      '1234567890123456.78',
      '205761315020576.13',
      '1028806575102880.65',
    ],
  ])('%s', (_name, rating, amountWithTax, amountTax, amountWithoutTax) => {
    const rated = rateCharge(rating)
    expect(rated.amount.toString()).toBe(amountWithTax)
    expect(rated.amountWithTax.toString()).toBe(amountWithTax)
    expect(rated.amountTax.toString()).toBe(amountTax)
    expect(rated.amountWithoutTax.toString()).toBe(amountWithoutTax)
    expect(rated.amountWithoutTax.plus(rated.amountTax).eq(rated.amountWithTax)).toBe(true)
  })

  it('keeps net prices as they were: the same inputs without the setting add the tax', () => {
    const rated = rateCharge(input(flat('100'), '12345678901234.5678'))
    expect([rated.amountWithoutTax, rated.amountTax, rated.amountWithTax].map(String)).toEqual([
      '1234567890123456.78',
      '246913578024691.36',
      '1481481468148148.14',
    ])
    expect(rated.amount.toString()).toBe('1234567890123456.78')
  })

  it('prorates the amount with tax: 30 × 17/31 = 16.45, tax 2.7416… → 2.74', () => {
    const period: ServicePeriod = { start: '2026-01-15', end: '2026-02-01', prorata: { days: 17, periodDays: 31 } }
    const rated = rateCharge({ ...gross(flat('30'), '1'), charge: { code: 'CH', type: 'RECURRING' }, period })
    expect([rated.amountWithTax, rated.amountTax, rated.amountWithoutTax].map(String)).toEqual([
      '16.45',
      '2.74',
      '13.71',
    ])
  })

  it.each<[string, ChargeRatingInput, string, string]>([
    ['a net price: with tax derived', input(flat('49.99'), '1'), '49.99', '59.988'],
    ['a gross price: without tax derived, 12 decimals', gross(flat('100'), '1'), '83.333333333333', '100'],
    ['a gross price at 5.5 %', gross(flat('10.55'), '1', TAX_5_5), '10', '10.55'],
    ['a gross price at 0 %', gross(flat('7'), '1', TAX_0), '7', '7'],
  ])('gives unit amounts without and with tax: %s', (_name, rating, withoutTax, withTax) => {
    const rated = rateCharge(rating)
    expect(rated.unitAmountWithoutTax.toString()).toBe(withoutTax)
    expect(rated.unitAmountWithTax.toString()).toBe(withTax)
  })

  it('says in the explanation that the price includes the tax', () => {
    expect(rateCharge(gross(flat('100'), '1')).explanation).toBe(
      'pricing version 1: flat price 100; 1 × 100 = 100.00 with tax; tax TAX_20 20 % included = 16.67; without tax 83.33',
    )
  })
})
