import { beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { useTestApp } from '../support/test-app.ts'
import { attribute, charge, created, seedReferenceData } from './catalog-fixtures.ts'

const t = useTestApp()

beforeAll(async () => {
  await seedReferenceData(t)
  await created(t, 'POST', '/api/v1/attributes', attribute('TIER', ['GOLD', 'SILVER']))
  await created(t, 'POST', '/api/v1/attributes', { code: 'USERS', attributeType: 'INTEGER' })
  await created(t, 'POST', '/api/v1/attributes', { code: 'START', attributeType: 'DATE' })
  await created(t, 'POST', '/api/v1/charges', charge('CH_FUZZ', 'USAGE'))
  await created(t, 'POST', '/api/v1/products', { code: 'PR_FUZZ' })
  await created(t, 'POST', '/api/v1/discountPlans', { code: 'DP_FUZZ' })
})

/** Values a client might send: edge numbers, odd strings, nulls, nested junk. */
const scalar = fc.oneof(
  fc.constantFrom(0, -0, -1, 0.1, 1e-13, 1e18, 1e308, 5e-324, Number.MAX_SAFE_INTEGER, '', ' ', '1e5', '2026-02-30'),
  fc.constantFrom('GOLD', 'gold', 'TIER', 'USERS', 'START', 'EUR', 'String', 'Range_Numeric', 'Range_Date', 'FLAT'),
  fc.constantFrom('MATRIX', 'FORMULA', '#{quantity}', '#{', '}', '__proto__', 'constructor', null, true),
  fc.double(),
  fc.string({ maxLength: 12 }),
)
const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(
      fc.constantFrom('code', 'type', 'dimensionCode', 'stringValue', 'fromValue', 'toValue', 'price', 'x'),
      tie('v'),
      {
        maxKeys: 4,
      },
    ),
  ),
})).v

const bound = fc.constantFrom<unknown>(
  null,
  0,
  5,
  10,
  -1,
  '7.5',
  1e18,
  0.1234567890123,
  '2026-01-01',
  '2026-06-01',
  '2026-02-30',
  'x',
)
const cellArb = fc.oneof(
  fc.record({
    dimensionCode: fc.constant('tier'),
    stringValue: fc.constantFrom<unknown>('GOLD', 'SILVER', '', 'gold', null, 5),
  }),
  fc.record(
    { dimensionCode: fc.constantFrom('users', 'start'), fromValue: bound, toValue: bound },
    { requiredKeys: ['dimensionCode'] },
  ),
  fc.record({ dimensionCode: fc.constantFrom('nope', 'users'), stringValue: scalar }),
)
const price = fc.oneof(fc.constantFrom<unknown>(0, 1, '49.99', -3, 0.1, '0.000000000001'), scalar)
const COLUMNS = [
  { code: 'tier', type: 'String', attributeCode: 'TIER' },
  { code: 'users', type: 'Range_Numeric', attributeCode: 'USERS' },
  { code: 'start', type: 'Range_Date', attributeCode: 'START' },
  { code: 'bad', type: 'Range_Date', attributeCode: 'TIER' },
]
/** Mostly well-formed drafts of each model, so the deep paths (matrix checks, formula parsing, storage) run. */
const draftArb = fc.oneof(
  fc.record({ pricingModel: fc.constant('FLAT'), currency: fc.constantFrom('EUR', 'XXX'), price }),
  fc.record({
    pricingModel: fc.constant('FORMULA'),
    currency: fc.constant('EUR'),
    price_fx: fc.oneof(
      fc.constantFrom(
        '#{quantity * 2}',
        '#{1/0}',
        '#{attributes.TIER}',
        '#{attributes.USERS * quantity}',
        '#{max(quantity, 1e999)}',
      ),
      fc.string({ maxLength: 30 }).map((x) => `#{${x}}`),
    ),
  }),
  fc.record({
    pricingModel: fc.constant('MATRIX'),
    currency: fc.constant('EUR'),
    validFrom: fc.constantFrom<unknown>('2026-01-01', null, '0000-01-01', '9999-12-31'),
    columns: fc.subarray(COLUMNS, { minLength: 1 }),
    rows: fc.array(
      fc.record(
        {
          price,
          priority: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
          values: fc.array(cellArb, { maxLength: 3 }),
        },
        { requiredKeys: ['price', 'values'] },
      ),
      { minLength: 1, maxLength: 4 },
    ),
  }),
  fc.record(
    { pricingModel: fc.constantFrom('FLAT', 'MATRIX', 'OTHER'), currency: fc.constant('EUR'), extra: value },
    { requiredKeys: [] },
  ),
)
const evaluationArb = fc.oneof(
  fc.record({
    quantity: fc.constantFrom<unknown>(0, -5, '1000.5', 1e17, '999999999999999999', 0.1),
    attributes: fc.record({
      TIER: fc.constantFrom('GOLD', 'SILVER', 'x'),
      USERS: fc.constantFrom('3', '10', 'many', '1e9999'),
      START: fc.constantFrom('2026-01-01', '2026-07-01', 'soon'),
    }),
    version: fc.constant(1),
  }),
  value,
)

async function neverFails(method: string, url: string, body: unknown) {
  const response = await t.request(method, url, body)
  expect(response.status, `${method} ${url} ${JSON.stringify(body)} → ${JSON.stringify(response.body)}`).toBeLessThan(
    500,
  )
  if (response.status >= 400) expect(response.body.status).toBe('FAIL')
  return response
}

describe('catalog endpoints on arbitrary input', () => {
  it('never answer 500 to a pricing draft, a publication or an evaluation', async () => {
    await fc.assert(
      fc.asyncProperty(draftArb, evaluationArb, async (draft, evaluation) => {
        await neverFails('PUT', '/api/v1/charges/CH_FUZZ/pricing/draft', draft)
        await neverFails('POST', '/api/v1/charges/CH_FUZZ/pricing/evaluate', {
          version: 1,
          attributes: { TIER: 'GOLD', USERS: '3', START: '2026-01-01' },
        })
        await neverFails('POST', '/api/v1/charges/CH_FUZZ/pricing/evaluate', evaluation)
      }),
      { numRuns: 150 },
    )
    await neverFails('POST', '/api/v1/charges/CH_FUZZ/pricing/publish', {})
  })

  it('never answer 500 to charges, offers, product versions and discount items built from junk', async () => {
    await fc.assert(
      fc.asyncProperty(value, value, value, async (a, b, c) => {
        const body = (v: unknown) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? v : { description: v })
        await neverFails('POST', '/api/v1/charges', { ...charge('CH_J', 'RECURRING'), ...body(a) })
        await neverFails('PUT', '/api/v1/offerTemplates/OF_J', body(b))
        await neverFails('POST', '/api/v1/offerTemplates', {
          code: 'OF_J',
          offerComponents: [{ productCode: 'PR_FUZZ', defaultQuantity: a, minQuantity: b, maxQuantity: c }],
        })
        await neverFails('POST', '/api/v1/products/PR_FUZZ/versions', { validFrom: a, validTo: b })
        await neverFails('POST', '/api/v1/discountPlans/DP_FUZZ/items', {
          code: 'I',
          discountPlanItemType: 'FIXED',
          discountValue: a,
          accountingArticle: b,
        })
        await neverFails('POST', '/api/v1/discountPlans/DP_J', body(c))
      }),
      { numRuns: 100 },
    )
  })
})
