import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { requestText } from '../support/exact-json.ts'
import { useTestApp } from '../support/test-app.ts'
import { charge, created } from './catalog-fixtures.ts'
import { orderOf, seedHundredOffer, seedOrderCatalog } from './order-fixtures.ts'

const t = useTestApp()

beforeAll(async () => {
  await seedOrderCatalog(t)
  await seedHundredOffer(t)
})

let n = 0
/** An order of PR_B2C (CH_HUNDRED 100 once, CH_MONTH30 30 a month) as JSON text, the quantity written as given. */
const hundredOrder = (quantity: string, extraProduct = '') =>
  `{"sellerCode":"MAIN","billingAccountCode":"BA_1","userAccountCode":"UA_1","orderOffers":[{
    "subscriptionCode":"WIRE_${++n}","offerTemplateCode":"OF_B2C","subscriptionDate":"2026-03-01",
    "orderProducts":[{"productCode":"PR_B2C","quantity":${quantity}${extraProduct}}]}]}`

/** The wallet operations of a subscription through the Query API, numbers as written by PostgreSQL. */
async function operationsText(subscription: string): Promise<any[]> {
  const filters = encodeURIComponent(JSON.stringify({ subscription }))
  const response = await requestText(t, 'GET', `/api/v1/query/walletOperation?filters=${filters}&sortBy=id`)
  expect(response.status, response.text).toBe(200)
  return response.body.data as any[]
}

describe('decimals on the wire are written from their decimal text (never through a double)', () => {
  it.each([
    ['a JSON number', '12345678901234.5678'],
    ['a decimal string', '"12345678901234.5678"'],
  ])(
    'previews and places quantity 12345678901234.5678 at 100.00, sent as %s: 1234567890123456.78 everywhere',
    async (_how, quantity) => {
      const preview = await requestText(t, 'POST', '/api/v1/orders/preview', hundredOrder(quantity))
      expect(preview.status, preview.text).toBe(200)
      // 12345678901234.5678 × 100 = 1234567890123456.78; tax 20 % = 246913578024691.356 → .36.
      expect(preview.text).toContain('"amountWithoutTax":1234567890123456.78,"amountWithTax":1481481468148148.14')
      // × 30 = 370370367037037.034 → .03, with tax 444444440444444.44 (tax 74074073407407.406 → .41).
      expect(preview.text).toContain('"amountWithoutTax":370370367037037.03,"amountWithTax":444444440444444.44')
      expect(preview.body.chargeItems[0]).toMatchObject({ quantity: '12345678901234.5678', unitPrice: '100' })
      expect(preview.body).toMatchObject({
        totalOneTime: '1234567890123456.78',
        totalRecurring: '370370367037037.03',
        totalTax: '320987651432098.77',
        totalWithTax: '1925925908592592.58',
      })

      const placed = await requestText(t, 'POST', '/api/v1/orders?autoValidate=true', hundredOrder(quantity))
      expect(placed.status, placed.text).toBe(201)
      expect(placed.text).toContain('"quantity":12345678901234.5678')
      const read = await requestText(t, 'GET', `/api/v1/orders/${placed.body.code as string}`)
      expect(read.text).toContain('"quantity":12345678901234.5678')
      const [operation] = await operationsText(placed.body.orderOffers[0].subscription.code as string)
      expect(operation).toMatchObject({
        quantity: '12345678901234.5678',
        unitAmountWithoutTax: '100',
        amountWithoutTax: '1234567890123456.78',
        amountTax: '246913578024691.36',
        amountWithTax: '1481481468148148.14',
      })
      // Preview = placement, on the wire.
      expect(preview.body.offers[0].lines[0]).toMatchObject({
        amountWithoutTax: operation.amountWithoutTax,
        amountWithTax: operation.amountWithTax,
      })
    },
  )

  it('keeps amounts exact in saved report query executions', async () => {
    const placed = await requestText(t, 'POST', '/api/v1/orders?autoValidate=true', hundredOrder('12345678901234.5678'))
    const subscription = placed.body.orderOffers[0].subscription.code as string
    await created(t, 'POST', '/api/v1/reportQueries', {
      code: 'WIRE_AMOUNTS',
      targetEntity: 'WalletOperation',
      visibility: 'PRIVATE',
      advancedQuery: { filters: { subscription }, genericFields: ['amountWithoutTax', 'amountWithTax'] },
    })
    const executed = await requestText(t, 'POST', '/api/v1/reportQueries/WIRE_AMOUNTS/executions', '{}')
    expect(executed.status, executed.text).toBe(200)
    expect(executed.body.rows[0]).toMatchObject({
      amountWithoutTax: '1234567890123456.78',
      amountWithTax: '1481481468148148.14',
    })
  })

  it('evaluates a charge echoing the quantity exactly', async () => {
    const evaluated = await requestText(
      t,
      'POST',
      '/api/v1/charges/CH_HUNDRED/pricing/evaluate',
      '{"quantity":12345678901234.5678,"date":"2026-03-01"}',
    )
    expect(evaluated.status, evaluated.text).toBe(200)
    expect(evaluated.text).toContain('"quantity":12345678901234.5678,"unitPrice":100')
  })

  it('writes unit prices of 18 integer digits and 12 decimals exactly in pricing versions and evaluate', async () => {
    await created(t, 'POST', '/api/v1/charges', charge('CH_BIG', 'ONESHOT'))
    const price = '123456789012345678.123456789012'
    const draft = await requestText(
      t,
      'PUT',
      '/api/v1/charges/CH_BIG/pricing/draft',
      `{"pricingModel":"FLAT","currency":"EUR","validFrom":"2020-01-01","price":${price}}`,
    )
    expect(draft.status, draft.text).toBe(201)
    expect(draft.text).toContain(`"price":${price}`)
    const published = await requestText(t, 'POST', '/api/v1/charges/CH_BIG/pricing/publish', '{}')
    expect(published.text).toContain(`"price":${price}`)
    const evaluated = await requestText(t, 'POST', '/api/v1/charges/CH_BIG/pricing/evaluate', '{"quantity":0.5}')
    expect(evaluated.text).toContain(`"quantity":0.5,"unitPrice":${price}`)
  })

  it('writes matrix prices and numeric range bounds exactly', async () => {
    await created(t, 'POST', '/api/v1/attributes', { code: 'SEATS', attributeType: 'NUMERIC' })
    await created(t, 'POST', '/api/v1/charges', charge('CH_SEATS', 'ONESHOT'))
    const draft = await requestText(
      t,
      'PUT',
      '/api/v1/charges/CH_SEATS/pricing/draft',
      `{"pricingModel":"MATRIX","currency":"EUR","validFrom":"2020-01-01",
        "columns":[{"code":"seats","type":"Range_Numeric","attributeCode":"SEATS"}],
        "rows":[{"price":98765432109876.543210987654,"values":[{"dimensionCode":"seats","fromValue":"0.000000000001","toValue":"123456789012345678.5"}]}]}`,
    )
    expect(draft.status, draft.text).toBe(201)
    expect(draft.body.pricingVersions[0].rows[0]).toMatchObject({
      price: '98765432109876.543210987654',
      values: [{ fromValue: '0.000000000001', toValue: '123456789012345678.5' }],
    })
  })

  it('writes discount values, offer quantities and resource decimals exactly', async () => {
    await created(t, 'POST', '/api/v1/discountPlans', { code: 'DP_WIRE' })
    const item = await requestText(
      t,
      'POST',
      '/api/v1/discountPlans/DP_WIRE/items',
      '{"code":"BIG","discountPlanItemType":"FIXED","discountValue":123456789012345678.123456789012,"accountingArticle":"ART_DISCOUNT"}',
    )
    expect(item.status, item.text).toBe(201)
    expect(item.text).toContain('"discountValue":123456789012345678.123456789012')
    const offer = await requestText(
      t,
      'POST',
      '/api/v1/offerTemplates',
      '{"code":"OF_WIRE","offerComponents":[{"productCode":"PR_B2C","minQuantity":0.000000000001,"maxQuantity":123456789012345678.999999999999}]}',
    )
    expect(offer.status, offer.text).toBe(201)
    expect(offer.text).toContain('"minQuantity":0.000000000001,"maxQuantity":123456789012345678.999999999999')
    const unit = await requestText(
      t,
      'POST',
      '/api/v1/unitsOfMeasure',
      '{"code":"BIG_UNIT","description":"big","multiplicator":12345678901.123456789012}',
    )
    expect(unit.status, unit.text).toBe(201)
    expect(unit.text).toContain('"multiplicator":12345678901.123456789012')
    const read = await requestText(t, 'GET', '/api/v1/unitsOfMeasure/BIG_UNIT')
    expect(read.text).toContain('"multiplicator":12345678901.123456789012')
  })

  it('refuses a number it cannot keep exactly instead of rounding it (400 naming the field)', async () => {
    const tooPrecise = await requestText(t, 'POST', '/api/v1/orders/preview', hundredOrder('0.10000000000000000001'))
    expect(tooPrecise.status).toBe(400)
    expect(tooPrecise.body.details.map((d: { field: string }) => d.field)).toContain(
      'orderOffers.0.orderProducts.0.quantity',
    )
    const integer = await requestText(
      t,
      'POST',
      '/api/v1/orders/preview',
      hundredOrder('1', ',"productVersion":9007199254740993'),
    )
    expect(integer.status).toBe(400)
    expect(integer.body.details).toContainEqual({
      field: 'orderOffers.0.orderProducts.0.productVersion',
      message: 'expected an integer',
    })
  })

  it('documents decimals as JSON numbers in the OpenAPI document', async () => {
    const document = (await t.request('GET', '/api/openapi.json')).body
    const preview = document.paths['/api/v1/orders/preview'].post.responses['200'].content['application/json'].schema
    const line = preview.properties.offers.items.properties.lines.items.properties
    expect(line.amountWithoutTax).toMatchObject({ type: ['number', 'null'], format: 'decimal' })
    expect(preview.properties.totalWithTax).toMatchObject({ type: 'number', format: 'decimal' })
  })
})

/** A canonical decimal text of up to `integers` integer digits and `decimals` decimals (no useless zeros). */
const decimalText = (integers: number, decimals: number) =>
  fc
    .tuple(
      fc.bigInt({ min: 0n, max: 10n ** BigInt(integers) - 1n }),
      fc.integer({ min: 0, max: decimals }),
      fc.bigInt({ min: 0n, max: 10n ** BigInt(decimals) - 1n }),
    )
    .map(([whole, scale, fraction]) => {
      const digits = (fraction % 10n ** BigInt(scale)).toString().padStart(scale, '0').replace(/0+$/, '')
      return digits === '' ? whole.toString() : `${whole.toString()}.${digits}`
    })
    .filter((text) => /[1-9]/.test(text))

/** Exact decimal arithmetic for the expected amounts: value × 10^scale as a bigint. */
const scaled = (text: string): [bigint, number] => {
  const [whole, fraction = ''] = text.split('.')
  return [BigInt(`${whole}${fraction}`), fraction.length]
}
const halfUp = (value: bigint, fromScale: number, toScale: number): bigint => {
  if (fromScale <= toScale) return value * 10n ** BigInt(toScale - fromScale)
  const divisor = 10n ** BigInt(fromScale - toScale)
  return (value + divisor / 2n) / divisor
}
const text = (cents: bigint): string => {
  const whole = cents / 100n
  const fraction = (cents % 100n).toString().padStart(2, '0').replace(/0+$/, '')
  return fraction === '' ? whole.toString() : `${whole.toString()}.${fraction}`
}

describe('preview = placement on the wire, for any decimal the API accepts', () => {
  it('bills the previewed one-shot amounts to the digit, quantity and unit price echoed as sent', async () => {
    let runs = 0
    await fc.assert(
      fc.asyncProperty(decimalText(18, 12), decimalText(18, 12), async (quantity, unitPrice) => {
        const override = `,"chargeOverrides":[{"chargeCode":"CH_HUNDRED","unitPrice":${unitPrice}}]`
        const preview = await requestText(t, 'POST', '/api/v1/orders/preview', hundredOrder(quantity, override))
        expect(preview.status, preview.text).toBe(200)
        const placed = await requestText(
          t,
          'POST',
          '/api/v1/orders?autoValidate=true',
          hundredOrder(quantity, override),
        )
        expect(placed.status, placed.text).toBe(201)
        const product = placed.body.orderOffers[0].orderProducts[0]
        expect([product.quantity, product.chargeOverrides[0].unitPrice]).toEqual([quantity, unitPrice])
        const [operation] = await operationsText(placed.body.orderOffers[0].subscription.code as string)
        const line = preview.body.offers[0].lines[0]
        // Independently: round(q × p) HALF_UP to cents, tax round(20 % of it), with tax the sum.
        const [q, qs] = scaled(quantity)
        const [p, ps] = scaled(unitPrice)
        const amount = halfUp(q * p, qs + ps, 2)
        const tax = halfUp(amount * 20n, 4, 2) // 20 % = 20 at scale 2, times cents at scale 2
        expect([line.amountWithoutTax, line.amountWithTax]).toEqual([text(amount), text(amount + tax)])
        expect([operation.amountWithoutTax, operation.amountTax, operation.amountWithTax]).toEqual([
          line.amountWithoutTax,
          text(tax),
          line.amountWithTax,
        ])
        expect(preview.body.chargeItems[0]).toMatchObject({ quantity, unitPrice })
        runs++
      }),
      { numRuns: 25 },
    )
    expect(runs).toBe(25)
  })
})

describe('decimals in messages are written as a person writes them', () => {
  it('prints quantity bounds as 1 and 2.5, not 1.000000000000', async () => {
    await created(t, 'POST', '/api/v1/offerTemplates', {
      code: 'OF_BOUNDS',
      lifeCycleStatus: 'ACTIVE',
      offerComponents: [{ productCode: 'PR_B2C', minQuantity: 1, maxQuantity: 2.5 }],
    })
    const body = orderOf([{ offerTemplateCode: 'OF_BOUNDS', orderProducts: [{ productCode: 'PR_B2C', quantity: 3 }] }])
    const refused = await t.request('POST', '/api/v1/orders/preview', body)
    expect(refused.status).toBe(400)
    expect(refused.body.details).toContainEqual({
      field: 'orderOffers[0].orderProducts[0].quantity',
      message: 'offer OF_BOUNDS takes product PR_B2C in quantities from 1 to 2.5',
    })
  })
})
