import { beforeAll, describe, expect, it } from 'vitest'
import { onPostgres } from '../support/test-database.ts'
import { useTestApp } from '../support/test-app.ts'
import { created } from './catalog-fixtures.ts'
import {
  endedMonthlyPeriods,
  orderOf,
  place,
  runRecurringJob,
  seedOrderCatalog,
  walletOperationsOf,
} from './order-fixtures.ts'

const t = useTestApp()

beforeAll(async () => {
  await seedOrderCatalog(t)
})

let n = 0
/** An order of one license on OF_SIMPLE (10.00), with discount plans at order level. */
const licenseOrder = (plans: string[], offer = 'OF_SIMPLE', offerPlans: string[] = []) =>
  orderOf(
    [
      {
        subscriptionCode: `SUB_DISC_${++n}`,
        offerTemplateCode: offer,
        subscriptionDate: '2026-03-10',
        ...(offerPlans.length > 0 ? { discountPlanCodes: offerPlans } : {}),
        orderProducts: [{ productCode: 'PR_LICENSE' }],
      },
    ],
    { discountPlanCodes: plans },
  )

const plan = async (code: string): Promise<any> => (await t.request('GET', `/api/v1/discountPlans/${code}`)).body

describe('discount plan statuses (DECISIONS: ACTIVE → IN_USE → EXPIRED)', () => {
  it('moves a plan to IN_USE at its first validated order and counts one use per order', async () => {
    const before = await plan('DP_ORDER_20')
    expect(before).toMatchObject({ status: 'ACTIVE', usedQuantity: 0 })
    const draft = await t.request('POST', '/api/v1/orders', licenseOrder(['DP_ORDER_20']))
    expect(draft.status).toBe(201)
    expect(await plan('DP_ORDER_20')).toMatchObject({ status: 'ACTIVE', usedQuantity: 0 })
    // Listed at order and offer level: one order, one use.
    await place(t, licenseOrder(['DP_ORDER_20'], 'OF_SIMPLE', ['DP_ORDER_20']))
    const after = await plan('DP_ORDER_20')
    expect(after).toMatchObject({ status: 'IN_USE', usedQuantity: 1 })
    expect(after.statusDate >= before.statusDate).toBe(true)
    await place(t, licenseOrder(['DP_ORDER_20']))
    expect(await plan('DP_ORDER_20')).toMatchObject({ status: 'IN_USE', usedQuantity: 2 })
    const validated = await t.request('POST', `/api/v1/orders/${draft.body.code}/validation`)
    expect(validated.status).toBe(200)
    expect(await plan('DP_ORDER_20')).toMatchObject({ status: 'IN_USE', usedQuantity: 3 })
  })

  it('expires a plan when its initialQuantity of uses is reached; an order listing it then fails', async () => {
    const netOrder = () => ({
      ...licenseOrder([], 'OF_NET', ['DP_LIMITED']),
      orderOffers: [
        {
          subscriptionCode: `SUB_DISC_${++n}`,
          offerTemplateCode: 'OF_NET',
          subscriptionDate: '2026-03-10',
          discountPlanCodes: ['DP_LIMITED'],
          orderProducts: [
            {
              productCode: 'PR_NET',
              orderAttributes: [
                { attributeCode: 'TIER', stringValue: 'GOLD' },
                { attributeCode: 'REGION', stringValue: 'EU' },
              ],
            },
          ],
        },
      ],
    })
    const waiting = await t.request('POST', '/api/v1/orders', netOrder())
    expect(waiting.status).toBe(201)
    await place(t, netOrder())
    expect(await plan('DP_LIMITED')).toMatchObject({ status: 'IN_USE', usedQuantity: 1, initialQuantity: 2 })
    await place(t, netOrder())
    expect(await plan('DP_LIMITED')).toMatchObject({ status: 'EXPIRED', usedQuantity: 2 })
    const refused = await t.request('POST', '/api/v1/orders?autoValidate=true', netOrder())
    expect(refused.status).toBe(400)
    expect(refused.body.details).toContainEqual({
      field: 'orderOffers[0].discountPlanCodes[0]',
      message: 'discount plan DP_LIMITED is EXPIRED: an order needs an ACTIVE or IN_USE plan',
    })
    // The draft kept its selection: validating it now fails the same way, and it stays a draft.
    const late = await t.request('POST', `/api/v1/orders/${waiting.body.code}/validation`)
    expect(late.status).toBe(400)
    expect(late.body.message).toContain('discount plan DP_LIMITED is EXPIRED')
    expect((await t.request('GET', `/api/v1/orders/${waiting.body.code}`)).body.status).toBe('DRAFT')
    expect(await plan('DP_LIMITED')).toMatchObject({ status: 'EXPIRED', usedQuantity: 2 })
  })

  it('stops applying an expired automatic plan without failing the order', async () => {
    await created(t, 'POST', '/api/v1/discountPlans', {
      code: 'DP_AUTO_ONCE',
      discountPlanType: 'OFFER',
      automaticApplication: true,
      initialQuantity: 1,
    })
    await created(t, 'POST', '/api/v1/discountPlans/DP_AUTO_ONCE/items', {
      code: 'ONCE30',
      discountPlanItemType: 'PERCENTAGE',
      discountValue: 30,
      accountingArticle: 'ART_DISCOUNT',
    })
    await created(t, 'PUT', '/api/v1/discountPlans/DP_AUTO_ONCE/activate', undefined, 200)
    await created(t, 'POST', '/api/v1/offerTemplates', {
      code: 'OF_AUTO_ONCE',
      lifeCycleStatus: 'ACTIVE',
      offerComponents: [{ productCode: 'PR_LICENSE' }],
      discountPlans: ['DP_AUTO_ONCE'],
    })
    const first = await place(t, licenseOrder([], 'OF_AUTO_ONCE'))
    const second = await place(t, licenseOrder([], 'OF_AUTO_ONCE'))
    const amounts = async (order: any) =>
      (await walletOperationsOf(t, order.orderOffers[0].subscriptionCode)).map((wo): unknown => wo.amountWithoutTax)
    expect(await amounts(first)).toEqual([10, -3])
    expect(await amounts(second)).toEqual([10])
    expect(await plan('DP_AUTO_ONCE')).toMatchObject({ status: 'EXPIRED', usedQuantity: 1 })
  })

  it('writes each discount as its own operation: the plan, the item article and its tax', async () => {
    const order = await place(t, licenseOrder(['DP_REDUCED_TAX']))
    const operations = await walletOperationsOf(t, order.orderOffers[0].subscriptionCode)
    const articles = await t.request('GET', '/api/v1/query/accountingArticle?fields=code&limit=100')
    const taxes = await t.request('GET', '/api/v1/query/tax?fields=code&limit=100')
    const idOf = (list: any, code: string): unknown => list.body.data.find((r: any) => r.code === code).id
    expect(operations).toEqual([
      expect.objectContaining({
        code: 'CH_LICENSE',
        amountWithoutTax: 10,
        amountTax: 2,
        amountWithTax: 12,
        taxPercent: 20,
        discountPlan: null,
        accountingArticle: { id: idOf(articles, 'CH_LICENSE') },
        tax: { id: idOf(taxes, 'TAX_20') },
      }),
      expect.objectContaining({
        code: 'RED10',
        amountWithoutTax: -1,
        amountTax: -0.06,
        amountWithTax: -1.06,
        taxPercent: 5.5,
        discountPlan: { id: (await plan('DP_REDUCED_TAX')).id },
        accountingArticle: { id: idOf(articles, 'ART_DISCOUNT_RED') },
        tax: { id: idOf(taxes, 'TAX_05_5') },
        discountedWalletOperation: { id: operations[0].id },
      }),
    ])
  })
})

describe('usedQuantity under concurrency', () => {
  it(`lets exactly initialQuantity orders use a plan placed at the same time${onPostgres ? '' : ' (serialized on PGlite)'}`, async () => {
    await created(t, 'POST', '/api/v1/discountPlans', { code: 'DP_RACE', initialQuantity: 2 })
    await created(t, 'POST', '/api/v1/discountPlans/DP_RACE/items', {
      code: 'RACE1',
      discountPlanItemType: 'PERCENTAGE',
      discountValue: 1,
      accountingArticle: 'ART_DISCOUNT',
    })
    await created(t, 'PUT', '/api/v1/discountPlans/DP_RACE/activate', undefined, 200)
    const results = await Promise.all(
      Array.from({ length: 6 }, () => t.request('POST', '/api/v1/orders?autoValidate=true', licenseOrder(['DP_RACE']))),
    )
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 400, 400, 400, 400])
    expect(await plan('DP_RACE')).toMatchObject({ status: 'EXPIRED', usedQuantity: 2 })
    const filters = encodeURIComponent(JSON.stringify({ 'discountPlan.code': 'DP_RACE' }))
    const operations = await t.request('GET', `/api/v1/query/walletOperation?filters=${filters}`)
    expect(operations.body.data).toHaveLength(2)
  })

  it('gives an automatic plan of one use to exactly one of orders placed at the same time; the others still pass', async () => {
    await created(t, 'POST', '/api/v1/discountPlans', {
      code: 'DP_AUTO_RACE',
      discountPlanType: 'OFFER',
      automaticApplication: true,
      initialQuantity: 1,
    })
    await created(t, 'POST', '/api/v1/discountPlans/DP_AUTO_RACE/items', {
      code: 'AUTO_RACE20',
      discountPlanItemType: 'PERCENTAGE',
      discountValue: 20,
      accountingArticle: 'ART_DISCOUNT',
    })
    await created(t, 'PUT', '/api/v1/discountPlans/DP_AUTO_RACE/activate', undefined, 200)
    await created(t, 'POST', '/api/v1/offerTemplates', {
      code: 'OF_AUTO_RACE',
      lifeCycleStatus: 'ACTIVE',
      offerComponents: [{ productCode: 'PR_LICENSE' }],
      discountPlans: ['DP_AUTO_RACE'],
    })
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.request('POST', '/api/v1/orders?autoValidate=true', licenseOrder([], 'OF_AUTO_RACE')),
      ),
    )
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201])
    const discounted = await Promise.all(
      results.map(async (r) => (await walletOperationsOf(t, r.body.orderOffers[0].subscription.code)).length),
    )
    expect(discounted.sort()).toEqual([1, 1, 1, 2])
    expect(await plan('DP_AUTO_RACE')).toMatchObject({ status: 'EXPIRED', usedQuantity: 1 })
  })
})

describe('applicationLimit counts per plan and subscription, whatever the levels listing the plan', () => {
  beforeAll(async () => {
    await created(t, 'POST', '/api/v1/discountPlans', { code: 'DP_TWO_LEVELS', applicationLimit: 1 })
    await created(t, 'POST', '/api/v1/discountPlans/DP_TWO_LEVELS/items', {
      code: 'HALF',
      discountPlanItemType: 'PERCENTAGE',
      discountValue: 50,
      accountingArticle: 'ART_DISCOUNT',
    })
    await created(t, 'PUT', '/api/v1/discountPlans/DP_TWO_LEVELS/activate', undefined, 200)
    await created(t, 'POST', '/api/v1/products/PR_LICENSE/discountPlans/DP_TWO_LEVELS', undefined, 200)
  })

  const discountLines = (preview: any): unknown[] =>
    (preview.offers[0].lines as any[])
      .filter((l) => l.discountPlanCode !== null)
      .map((l): unknown => [l.chargeCode, l.discountPlanCode, l.amountWithoutTax, l.amountWithTax])

  it.each<[string, Record<string, unknown>]>([
    [
      'listed for the offer and for a product',
      orderOf([
        {
          subscriptionCode: 'LIMIT_OFFER_PRODUCT',
          offerTemplateCode: 'OF_SIMPLE',
          subscriptionDate: '2026-09-15',
          discountPlanCodes: ['DP_TWO_LEVELS'],
          orderProducts: [
            { productCode: 'PR_PRORATA' },
            { productCode: 'PR_LICENSE', discountPlanCodes: ['DP_TWO_LEVELS'] },
          ],
        },
      ]),
    ],
    [
      'listed for the order and for the offer',
      orderOf(
        [
          {
            subscriptionCode: 'LIMIT_ORDER_OFFER',
            offerTemplateCode: 'OF_SIMPLE',
            subscriptionDate: '2026-09-15',
            discountPlanCodes: ['DP_TWO_LEVELS'],
            orderProducts: [{ productCode: 'PR_LICENSE' }, { productCode: 'PR_PRORATA' }],
          },
        ],
        { discountPlanCodes: ['DP_TWO_LEVELS'] },
      ),
    ],
  ])('a plan limited to one line, %s, discounts one line of the subscription', async (_case, body) => {
    const preview = await t.request('POST', '/api/v1/orders/preview', body)
    expect(preview.status, JSON.stringify(preview.body)).toBe(200)
    // The first level in cascade (product, then offer, then order) takes the license's 10.00: 50 % = 5.00 (6.00
    // with tax). The other level and the prorated recurring line (16.53, then 31.00 a month) get nothing.
    expect(discountLines(preview.body)).toEqual([['CH_LICENSE', 'DP_TWO_LEVELS', -5, -6]])
    const order = await place(t, body)
    expect((await runRecurringJob(t)).status).toBe('SUCCESS')
    const operations = await walletOperationsOf(t, order.orderOffers[0].subscriptionCode)
    const discounts = operations.filter((wo) => wo.discountPlan !== null)
    expect(discounts.map((wo): unknown => [wo.code, wo.amountWithoutTax, wo.amountWithTax])).toEqual([['HALF', -5, -6]])
    const charges = operations.filter((wo) => wo.discountPlan === null && wo.code === 'CH_PRORATA')
    expect(charges.map((wo): unknown => wo.amountWithoutTax)).toEqual(
      endedMonthlyPeriods('2026-09-15').map((_p, i) => (i === 0 ? 16.53 : 31)),
    )
  })
})
