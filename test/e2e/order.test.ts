import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'
import { attrs, epoch, orderOf, seedOrderCatalog } from './order-fixtures.ts'

const t = useTestApp()

beforeAll(async () => {
  await seedOrderCatalog(t)
})

const preview = async (body: unknown): Promise<any> => {
  const response = await t.request('POST', '/api/v1/orders/preview', body)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body
}

const netOffer = (subscriptionCode: string, subscriptionDate: string, tier = 'GOLD', region = 'EU', extra = {}) => ({
  subscriptionCode,
  orderLineType: 'CREATE',
  offerTemplateCode: 'OF_NET',
  subscriptionDate,
  orderProducts: [
    {
      productCode: 'PR_NET',
      productActionType: 'CREATE',
      quantity: 1,
      orderAttributes: attrs({ TIER: tier, REGION: region }),
    },
  ],
  ...extra,
})

/** The summary of `netOffer` GOLD/EU on 2026-01-15 (see the test 'sums every preview'). */
const summary = {
  oneTime: { amountWithoutTax: 49.99, amountTax: 10, amountWithTax: 59.99 },
  recurring: [
    {
      periodStart: '2026-01-15',
      periodEnd: '2026-02-01',
      every: { unit: 'MONTH', length: 1 },
      prorated: false,
      amountWithoutTax: 69.89,
      amountTax: 13.98,
      amountWithTax: 83.87,
    },
  ],
  usage: [
    {
      productCode: 'PR_NET',
      chargeCode: 'CH_DATA',
      label: 'CH_DATA charge',
      unit: null,
      unitPriceWithoutTax: 0.01,
      unitPriceWithTax: 0.012,
      pricingModel: 'FORMULA',
    },
  ],
  known: { amountWithoutTax: 119.88, amountTax: 23.98, amountWithTax: 143.86 },
}

describe('order preview (§2.7, rule 7)', () => {
  it('rates FLAT and MATRIX lines, leaves USAGE lines null and then omits the totals', async () => {
    const body = await preview(orderOf([netOffer('SUB_A', '2026-01-15')]))
    expect(body).toEqual({
      currency: 'EUR',
      offers: [
        {
          subscriptionCode: 'SUB_A',
          offerCode: 'OF_NET',
          lines: [
            {
              productCode: 'PR_NET',
              chargeCode: 'CH_SETUP',
              chargeType: 'ONE_SHOT_SUBSCRIPTION',
              label: 'Installation',
              amountWithoutTax: 49.99,
              amountWithTax: 59.99,
              overridden: false,
              discountPlanCode: null,
            },
            {
              productCode: 'PR_NET',
              chargeCode: 'CH_MONTHLY',
              chargeType: 'RECURRING',
              label: 'Internet monthly',
              amountWithoutTax: 59.99,
              amountWithTax: 71.99,
              overridden: false,
              discountPlanCode: null,
              servicePeriodStart: epoch('2026-01-15'),
              servicePeriodEnd: epoch('2026-02-01'),
            },
            {
              productCode: 'PR_NET',
              chargeCode: 'CH_DATA',
              chargeType: 'USAGE',
              label: 'CH_DATA charge',
              amountWithoutTax: null,
              amountWithTax: null,
              overridden: false,
              discountPlanCode: null,
            },
            {
              productCode: null,
              chargeCode: 'CH_SUPPORT',
              chargeType: 'RECURRING',
              label: 'Support',
              amountWithoutTax: 9.9,
              amountWithTax: 11.88,
              overridden: false,
              discountPlanCode: null,
              servicePeriodStart: epoch('2026-01-15'),
              servicePeriodEnd: epoch('2026-02-01'),
            },
          ],
          summary,
        },
      ],
      chargeItems: [
        {
          subscriptionCode: 'SUB_A',
          productCode: 'PR_NET',
          chargeCode: 'CH_SETUP',
          chargeType: 'ONE_SHOT_SUBSCRIPTION',
          quantity: 1,
          unitPrice: 49.99,
          pricingVersion: 1,
        },
        {
          subscriptionCode: 'SUB_A',
          productCode: 'PR_NET',
          chargeCode: 'CH_MONTHLY',
          chargeType: 'RECURRING',
          quantity: 1,
          unitPrice: 59.99,
          pricingVersion: 1,
        },
        {
          subscriptionCode: 'SUB_A',
          productCode: 'PR_NET',
          chargeCode: 'CH_DATA',
          chargeType: 'USAGE',
          quantity: 1,
          unitPrice: null,
          pricingVersion: 1,
        },
        {
          subscriptionCode: 'SUB_A',
          productCode: null,
          chargeCode: 'CH_SUPPORT',
          chargeType: 'RECURRING',
          quantity: 1,
          unitPrice: 9.9,
          pricingVersion: 1,
        },
      ],
      summary,
    })
  })

  it('sums every preview, with a usage line too: one-time, recurring per first period, usage per unit, tax', async () => {
    const body = await preview(orderOf([netOffer('SUB_S', '2026-01-15')]))
    // Summed to the cent by hand: one-time 49.99 + 20 % = 59.99 (tax 9.998 → 10.00); the first period
    // 15 Jan → 1 Feb of the monthly MATRIX 59.99 (71.99 with tax) and support 9.90 (11.88): 69.89, tax 13.98, 83.87;
    // known at order time 119.88 + 23.98 = 143.86; the data formula's first MB 0.01, 0.012 with tax.
    expect([body.summary, body.offers[0].summary]).toEqual([summary, summary])
    expect([body.totalWithTax, body.offers[0].totalWithTax]).toEqual([undefined, undefined])
  })

  it('applies order, offer and product discounts in cascade as tagged negative lines; totals are net', async () => {
    const body = await preview(
      orderOf(
        [
          {
            subscriptionCode: 'SUB_B',
            offerTemplateCode: 'OF_SIMPLE',
            subscriptionDate: '2026-01-15',
            discountPlanCodes: ['DP_OFFER_10'],
            orderProducts: [
              { productCode: 'PR_LICENSE', quantity: 12, discountPlanCodes: ['DP_PROD_5'] },
              { productCode: 'PR_PRORATA', quantity: 1 },
            ],
          },
        ],
        { discountPlanCodes: ['DP_ORDER_20'] },
      ),
    )
    const period = { servicePeriodStart: epoch('2026-01-15'), servicePeriodEnd: epoch('2026-02-01') }
    const license = {
      productCode: 'PR_LICENSE',
      chargeCode: 'CH_LICENSE',
      chargeType: 'ONE_SHOT_SUBSCRIPTION',
      overridden: false,
    }
    const prorata = {
      productCode: 'PR_PRORATA',
      chargeCode: 'CH_PRORATA',
      chargeType: 'RECURRING',
      overridden: false,
      ...period,
    }
    expect(body.offers[0].lines).toEqual([
      { ...license, label: 'CH_LICENSE charge', amountWithoutTax: 102, amountWithTax: 122.4, discountPlanCode: null },
      {
        ...license,
        label: '10 % off',
        amountWithoutTax: -10.2,
        amountWithTax: -12.24,
        discountPlanCode: 'DP_OFFER_10',
      },
      { ...license, label: '5 EUR off', amountWithoutTax: -5, amountWithTax: -6, discountPlanCode: 'DP_PROD_5' },
      {
        ...license,
        label: '20 % off',
        amountWithoutTax: -17.36,
        amountWithTax: -20.83,
        discountPlanCode: 'DP_ORDER_20',
      },
      { ...prorata, label: 'CH_PRORATA charge', amountWithoutTax: 17, amountWithTax: 20.4, discountPlanCode: null },
      { ...prorata, label: '10 % off', amountWithoutTax: -1.7, amountWithTax: -2.04, discountPlanCode: 'DP_OFFER_10' },
      { ...prorata, label: '20 % off', amountWithoutTax: -3.06, amountWithTax: -3.67, discountPlanCode: 'DP_ORDER_20' },
    ])
    const totals = { totalOneTime: 69.44, totalRecurring: 12.24, totalTax: 16.34, totalWithTax: 98.02 }
    expect(body.offers[0]).toMatchObject(totals)
    expect(body).toMatchObject(totals)
    // The summary says the same, the prorated first period (15 Jan → 1 Feb) of CH_PRORATA apart, taxes split:
    // one-time 122.40 − 12.24 − 6 − 20.83 = 83.33 with tax; recurring 20.40 − 2.04 − 3.67 = 14.69 with tax.
    expect(body.summary).toEqual({
      oneTime: { amountWithoutTax: 69.44, amountTax: 13.89, amountWithTax: 83.33 },
      recurring: [
        {
          periodStart: '2026-01-15',
          periodEnd: '2026-02-01',
          every: { unit: 'MONTH', length: 1 },
          prorated: true,
          amountWithoutTax: 12.24,
          amountTax: 2.45,
          amountWithTax: 14.69,
        },
      ],
      usage: [],
      known: { amountWithoutTax: 81.68, amountTax: 16.34, amountWithTax: 98.02 },
    })
    expect(
      (body.chargeItems as Record<string, unknown>[]).map((c) => [
        c.chargeCode,
        c.chargeType,
        c.quantity,
        c.unitPrice,
        c.pricingVersion,
      ]),
    ).toEqual([
      ['CH_LICENSE', 'ONE_SHOT_SUBSCRIPTION', 12, 8.5, 1],
      ['CH_PRORATA', 'RECURRING', 1, 31, 1],
      ['CH_TERMINATION', 'ONE_SHOT_TERMINATION', 1, 25, 1],
    ])
  })
})

describe('order creation (§2.6, DECISIONS "Orders")', () => {
  const body = orderOf(
    [
      netOffer('SUB_DRAFT', '2026-02-03', 'SILVER', 'EU', {
        discountPlanCodes: ['DP_OFFER_10'],
        orderProducts: [
          {
            productCode: 'PR_NET',
            productActionType: 'CREATE',
            quantity: 1,
            orderAttributes: attrs({ TIER: 'SILVER', REGION: 'EU' }),
            discountPlanCodes: ['DP_PROD_5'],
          },
        ],
      }),
    ],
    { code: 'ORD_DRAFT', externalReference: 'EXT-1', discountPlanCodes: ['DP_ORDER_20'] },
  )

  it('creates a draft by default: the request echoed with id, status and the CREATED subscription', async () => {
    const response = await t.request('POST', '/api/v1/orders', body)
    expect(response.status, JSON.stringify(response.body)).toBe(201)
    const { orderOffers, ...rest } = body
    expect(response.body).toEqual({
      id: expect.any(Number),
      ...rest,
      code: 'ORD_DRAFT',
      status: 'DRAFT',
      orderOffers: [{ ...orderOffers[0], subscription: { code: 'SUB_DRAFT', status: 'CREATED' } }],
    })
    expect((await t.request('GET', '/api/v1/orders/ORD_DRAFT')).body).toEqual(response.body)
    const operations = await t.request(
      'GET',
      `/api/v1/query/walletOperation?filters=${encodeURIComponent(JSON.stringify({ subscription: 'SUB_DRAFT' }))}`,
    )
    expect(operations.body.data).toEqual([])
  })

  it('validates the draft: bills the whole stored discount selection, once', async () => {
    const response = await t.request('POST', '/api/v1/orders/ORD_DRAFT/validation')
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    expect(response.body).toMatchObject({ code: 'ORD_DRAFT', status: 'VALIDATED' })
    expect(response.body.orderOffers[0].subscription).toEqual({ code: 'SUB_DRAFT', status: 'ACTIVE' })
    const filters = encodeURIComponent(JSON.stringify({ subscription: 'SUB_DRAFT' }))
    const operations = await t.request(
      'GET',
      `/api/v1/query/walletOperation?filters=${filters}&nested=discountPlan&sortBy=id&limit=100`,
    )
    // 49.99: 10 % → 5.00, then 5 EUR fixed, then 20 % of 39.99 → 8.00 (recurring lines wait for the job).
    expect(
      (operations.body.data as Record<string, any>[]).map((wo) => [
        wo.code as unknown,
        wo.amountWithoutTax as unknown,
        wo.amountTax as unknown,
        wo.amountWithTax as unknown,
        (wo.discountPlan?.code ?? null) as unknown,
      ]),
    ).toEqual([
      ['CH_SETUP', 49.99, 10, 59.99, null],
      ['OFF10', -5, -1, -6, 'DP_OFFER_10'],
      ['FIX5', -5, -1, -6, 'DP_PROD_5'],
      ['ORD20', -8, -1.6, -9.6, 'DP_ORDER_20'],
    ])
    expect(operations.body.data[1].discountPlan.id).toEqual(expect.any(Number))
    const again = await t.request('POST', '/api/v1/orders/ORD_DRAFT/validation')
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({
      status: 'FAIL',
      errorCode: 'INVALID_STATE',
      message: 'Order ORD_DRAFT is VALIDATED, not DRAFT',
    })
    expect((await t.request('POST', '/api/v1/orders/NO_SUCH_ORDER/validation')).status).toBe(404)
  })

  it('validates at once with autoValidate: one-shot instances closed, recurring and usage ones active', async () => {
    const response = await t.request(
      'POST',
      '/api/v1/orders?autoValidate=true',
      orderOf([netOffer('SUB_AUTO', '2026-02-03')], { code: 'ORD_AUTO' }),
    )
    expect(response.status, JSON.stringify(response.body)).toBe(201)
    expect(response.body).toMatchObject({ code: 'ORD_AUTO', status: 'VALIDATED' })
    expect(response.body.orderOffers[0].subscription).toEqual({ code: 'SUB_AUTO', status: 'ACTIVE' })
    const filters = encodeURIComponent(JSON.stringify({ subscription: 'SUB_AUTO' }))
    const instances = await t.request('GET', `/api/v1/query/chargeInstance?filters=${filters}&sortBy=id`)
    expect(
      (instances.body.data as Record<string, unknown>[]).map((c) => [
        c.code,
        c.chargeType,
        c.status,
        c.chargedToDate,
        c.nextRatingDate,
      ]),
    ).toEqual([
      ['CH_SETUP', 'ONESHOT', 'CLOSED', null, null],
      ['CH_MONTHLY', 'RECURRING', 'ACTIVE', '2026-02-03', '2026-03-01'],
      ['CH_DATA', 'USAGE', 'ACTIVE', null, null],
      ['CH_SUPPORT', 'RECURRING', 'ACTIVE', '2026-02-03', '2026-03-01'],
    ])
    const wallets = await t.request(
      'GET',
      `/api/v1/query/walletInstance?filters=${encodeURIComponent(JSON.stringify({ userAccount: 'UA_1' }))}`,
    )
    expect(wallets.body.data).toEqual([
      expect.objectContaining({ code: 'PRINCIPAL', walletType: 'POSTPAID', principal: true }),
    ])
  })

  it('makes up missing codes and keeps the subscription date it computed: today in the tenant time zone by default', async () => {
    const response = await t.request(
      'POST',
      '/api/v1/orders',
      orderOf([{ offerTemplateCode: 'OF_SIMPLE', orderProducts: [{ productCode: 'PR_LICENSE' }] }]),
    )
    expect(response.status, JSON.stringify(response.body)).toBe(201)
    expect(response.body.code).toMatch(/^ORD-[0-9A-F]{8}$/)
    expect(response.body.orderOffers[0].subscription).toEqual({ code: `${response.body.code}-1`, status: 'CREATED' })
    expect(response.body.orderOffers[0].subscriptionDate).toBe(new Date().toISOString().slice(0, 10))
  })

  it('refuses a taken order code or subscription code (409) and creates nothing', async () => {
    const takenOrder = await t.request(
      'POST',
      '/api/v1/orders',
      orderOf([netOffer('SUB_OTHER', '2026-02-03')], { code: 'ORD_DRAFT' }),
    )
    expect(takenOrder.status, JSON.stringify(takenOrder.body)).toBe(409)
    expect(takenOrder.body).toMatchObject({
      errorCode: 'ENTITY_ALREADY_EXISTS',
      message: 'Order ORD_DRAFT already exists',
    })
    const takenSubscription = await t.request(
      'POST',
      '/api/v1/orders',
      orderOf([netOffer('SUB_DRAFT', '2026-02-03')], { code: 'ORD_NEW' }),
    )
    expect(takenSubscription.status).toBe(409)
    expect(takenSubscription.body).toMatchObject({
      errorCode: 'ENTITY_ALREADY_EXISTS',
      message: 'Subscription SUB_DRAFT already exists',
    })
    expect((await t.request('GET', '/api/v1/orders/ORD_NEW')).status).toBe(404)
    const twice = await t.request(
      'POST',
      '/api/v1/orders',
      orderOf([netOffer('SUB_TWICE', '2026-02-03'), netOffer('SUB_TWICE', '2026-02-03')]),
    )
    expect(twice.status).toBe(400)
    expect(twice.body.details).toContainEqual({
      field: 'orderOffers[1].subscriptionCode',
      message: 'subscription SUB_TWICE is ordered twice',
    })
  })
})

describe('rule 1: the product version', () => {
  const chargesOf = async (offer: unknown): Promise<string[]> =>
    ((await preview(orderOf([offer]))).chargeItems as { chargeCode: string }[]).map((c) => c.chargeCode)

  it('uses the latest PUBLISHED version valid at the subscription date, or the version given', async () => {
    expect(await chargesOf(netOffer('V', '2026-05-31'))).toEqual(['CH_SETUP', 'CH_MONTHLY', 'CH_DATA', 'CH_SUPPORT'])
    expect(await chargesOf(netOffer('V', '2026-06-01'))).toEqual(['CH_SETUP_V2', 'CH_MONTHLY', 'CH_SUPPORT'])
    const pinned = netOffer('V', '2026-06-01')
    ;(pinned.orderProducts[0] as any).productVersion = 1
    expect(await chargesOf(pinned)).toEqual(['CH_SETUP', 'CH_MONTHLY', 'CH_DATA', 'CH_SUPPORT'])
  })
})

describe('order errors (400 naming what is wrong)', () => {
  const base = () => orderOf([netOffer('SUB_ERR', '2026-02-03')])
  const withProduct = (product: Record<string, unknown>, offer = 'OF_SIMPLE', extra = {}) =>
    orderOf([
      {
        subscriptionCode: 'SUB_ERR',
        offerTemplateCode: offer,
        subscriptionDate: '2026-02-03',
        orderProducts: [product],
        ...extra,
      },
    ])

  it.each<[string, Record<string, unknown>, string, string]>([
    ['an unknown seller', { ...base(), sellerCode: 'NOPE' }, 'sellerCode', "no seller with code 'NOPE'"],
    [
      'an unknown billing account',
      { ...base(), billingAccountCode: 'NOPE' },
      'billingAccountCode',
      "no billing account with code 'NOPE'",
    ],
    [
      'an unknown user account',
      { ...base(), userAccountCode: 'NOPE' },
      'userAccountCode',
      "no user account with code 'NOPE'",
    ],
    [
      'a user account of another billing account',
      { ...base(), userAccountCode: 'UA_2' },
      'userAccountCode',
      'user account UA_2 belongs to billing account BA_2, not BA_1',
    ],
    [
      'an unknown offer',
      orderOf([{ subscriptionCode: 'S', offerTemplateCode: 'NOPE', orderProducts: [] }]),
      'orderOffers[0].offerTemplateCode',
      "no offer template with code 'NOPE'",
    ],
    [
      'an offer neither ACTIVE nor LAUNCHED',
      withProduct({ productCode: 'PR_LICENSE' }, 'OF_DESIGN'),
      'orderOffers[0].offerTemplateCode',
      'offer OF_DESIGN is IN_DESIGN: orders need an ACTIVE or LAUNCHED offer',
    ],
    [
      'an unknown product',
      withProduct({ productCode: 'NOPE' }),
      'orderOffers[0].orderProducts[0].productCode',
      "no product with code 'NOPE'",
    ],
    [
      'a product not in the offer',
      withProduct({ productCode: 'PR_BOOK' }, 'OF_AUTO'),
      'orderOffers[0].orderProducts[0].productCode',
      'product PR_BOOK is not part of offer OF_AUTO',
    ],
    [
      'a missing mandatory product',
      withProduct({ productCode: 'PR_LICENSE' }, 'OF_NET'),
      'orderOffers[0].orderProducts',
      'product PR_NET is mandatory in offer OF_NET',
    ],
    [
      'an unknown product version',
      withProduct({ productCode: 'PR_LICENSE', productVersion: 9 }),
      'orderOffers[0].orderProducts[0].productVersion',
      'product PR_LICENSE has no version 9',
    ],
    [
      'no version valid at the subscription date',
      withProduct({ productCode: 'PR_LICENSE' }, 'OF_SIMPLE', { subscriptionDate: '2019-06-30' }),
      'orderOffers[0].orderProducts[0].productVersion',
      'product PR_LICENSE has no PUBLISHED version valid on 2019-06-30',
    ],
    [
      'an attribute the version does not link',
      withProduct({ productCode: 'PR_NET', orderAttributes: attrs({ COLOR: 'RED' }) }),
      'orderOffers[0].orderProducts[0].orderAttributes[0].attributeCode',
      'attribute COLOR is not an attribute of version 1 of product PR_NET',
    ],
    [
      'an attribute value not allowed',
      withProduct({ productCode: 'PR_NET', orderAttributes: attrs({ TIER: 'PLATINUM' }) }),
      'orderOffers[0].orderProducts[0].orderAttributes[0]',
      "attribute TIER: expected one of GOLD, SILVER, BRONZE, not 'PLATINUM'",
    ],
    [
      'a charge that is not ACTIVE',
      withProduct({ productCode: 'PR_BROKEN' }),
      'orderOffers[0].orderProducts[0].productCode',
      'charge CH_DRAFT of product PR_BROKEN is DRAFT: only ACTIVE charges can be ordered',
    ],
    [
      'a quantity of zero',
      withProduct({ productCode: 'PR_LICENSE', quantity: 0 }),
      'orderOffers[0].orderProducts[0].quantity',
      'expected a value greater than 0',
    ],
    [
      'an unknown discount plan',
      { ...base(), discountPlanCodes: ['NOPE'] },
      'discountPlanCodes[0]',
      "no discount plan with code 'NOPE'",
    ],
    [
      'a DRAFT discount plan',
      { ...base(), discountPlanCodes: ['DP_ORDER_20', 'DP_DRAFT'] },
      'discountPlanCodes[1]',
      'discount plan DP_DRAFT is DRAFT: an order needs an ACTIVE or IN_USE plan',
    ],
    [
      'an OFFER plan not linked to the offer',
      withProduct({ productCode: 'PR_LICENSE' }, 'OF_SIMPLE', { discountPlanCodes: ['DP_AUTO'] }),
      'orderOffers[0].discountPlanCodes[0]',
      'discount plan DP_AUTO is an OFFER plan not linked to offer OF_SIMPLE',
    ],
    [
      'a product plan not linked to the product',
      withProduct({ productCode: 'PR_PRORATA', discountPlanCodes: ['DP_PROD_5'] }),
      'orderOffers[0].orderProducts[0].discountPlanCodes[0]',
      'discount plan DP_PROD_5 is not linked to product PR_PRORATA',
    ],
    [
      'a price in another currency than the billing account’s',
      { ...base(), billingAccountCode: 'BA_USD', userAccountCode: 'UA_USD' },
      'billingAccountCode',
      'charge CH_SETUP is priced in EUR, billing account BA_USD is billed in USD',
    ],
    ['an unknown field', { ...base(), color: 'red' }, 'color', 'is not a known field'],
  ])('refuses %s, in preview and creation alike', async (_name, body, field, message) => {
    for (const url of ['/api/v1/orders/preview', '/api/v1/orders?autoValidate=true']) {
      const response = await t.request('POST', url, body)
      expect(response.status, `${url} ${JSON.stringify(response.body)}`).toBe(400)
      expect(response.body).toMatchObject({ status: 'FAIL', errorCode: 'VALIDATION_FAILED' })
      expect(response.body.details).toContainEqual({ field, message })
      expect(response.body.message).toContain(message)
    }
    expect(
      (await t.request('GET', '/api/v1/query/subscription?filters=' + encodeURIComponent('{"code":"SUB_ERR"}'))).body
        .data,
    ).toEqual([])
  })

  it('fails PRICE_NOT_FOUND naming the charge and the attribute values when no matrix row matches', async () => {
    const response = await t.request(
      'POST',
      '/api/v1/orders/preview',
      orderOf([netOffer('S', '2026-02-03', 'BRONZE', 'EU')]),
    )
    expect(response.status).toBe(400)
    expect(response.body).toEqual({
      status: 'FAIL',
      errorCode: 'PRICE_NOT_FOUND',
      message: 'No price of charge CH_MONTHLY matches the attribute values TIER=BRONZE, REGION=EU',
    })
  })

  it('fails with the exact VALIDATE_FAILED body when a plan item has no accounting article', async () => {
    for (const url of ['/api/v1/orders/preview', '/api/v1/orders', '/api/v1/orders?autoValidate=true']) {
      const response = await t.request('POST', url, { ...base(), discountPlanCodes: ['DP_NO_ARTICLE'] })
      expect(response.status).toBe(400)
      expect(response.body).toEqual({
        status: 'BAD_REQUEST',
        errorCode: 'VALIDATE_FAILED',
        message: 'discount plan item NOART has no accounting article',
      })
    }
  })
})

describe('roles', () => {
  it('previews with ordering.orders.view; creating needs ordering.orders.manage', async () => {
    const viewer = await t.tokenWithRoles(['ordering.orders.view'])
    const body = orderOf([netOffer('SUB_ROLE', '2026-02-03')])
    expect((await t.requestAs(viewer, 'POST', '/api/v1/orders/preview', body)).status).toBe(200)
    const create = await t.requestAs(viewer, 'POST', '/api/v1/orders', body)
    expect(create.status).toBe(403)
    expect(create.body.message).toContain('ordering.orders.manage')
  })

  it('needs catalog.pricePlans.manage in addition for chargeOverrides', async () => {
    const manager = await t.tokenWithRoles(['ordering.orders.manage', 'ordering.orders.view'])
    const both = await t.tokenWithRoles(['ordering.orders.manage', 'ordering.orders.view', 'catalog.pricePlans.manage'])
    const body = orderOf([
      {
        subscriptionCode: 'SUB_OVERRIDE',
        offerTemplateCode: 'OF_SIMPLE',
        subscriptionDate: '2026-02-03',
        orderProducts: [
          { productCode: 'PR_LICENSE', chargeOverrides: [{ chargeCode: 'CH_LICENSE', unitPrice: '4.2' }] },
        ],
      },
    ])
    for (const url of ['/api/v1/orders/preview', '/api/v1/orders']) {
      const refused = await t.requestAs(manager, 'POST', url, body)
      expect(refused.status).toBe(403)
      expect(refused.body.message).toBe('chargeOverrides need the role catalog.pricePlans.manage')
    }
    const previewed = await t.requestAs(both, 'POST', '/api/v1/orders/preview', body)
    expect(previewed.status).toBe(200)
    expect(previewed.body.offers[0].lines[0]).toMatchObject({
      amountWithoutTax: 4.2,
      amountWithTax: 5.04,
      overridden: true,
    })
    const bad = await t.requestAs(both, 'POST', '/api/v1/orders/preview', {
      ...body,
      orderOffers: [
        {
          ...body.orderOffers[0],
          orderProducts: [{ productCode: 'PR_LICENSE', chargeOverrides: [{ chargeCode: 'CH_SETUP', unitPrice: 1 }] }],
        },
      ],
    })
    expect(bad.status).toBe(400)
    expect(bad.body.details[0]).toEqual({
      field: 'orderOffers[0].orderProducts[0].chargeOverrides[0].chargeCode',
      message: 'charge CH_SETUP is not a charge of version 1 of product PR_LICENSE',
    })
  })
})
