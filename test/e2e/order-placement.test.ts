import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'
import { attrs, orderOf, place, runRecurringJob, seedOrderCatalog } from './order-fixtures.ts'

const t = useTestApp()

beforeAll(async () => {
  await seedOrderCatalog(t)
})

const net = (tier: string, region: string, extra = {}) => ({
  productCode: 'PR_NET',
  productActionType: 'CREATE',
  quantity: 1,
  orderAttributes: attrs({ TIER: tier, REGION: region }),
  ...extra,
})

/** Every preview example: placing the same body must bill exactly the previewed lines. */
const EXAMPLES: [string, Record<string, unknown>][] = [
  [
    'FLAT, MATRIX, USAGE and a legacy service',
    orderOf([
      {
        subscriptionCode: 'P_A',
        offerTemplateCode: 'OF_NET',
        subscriptionDate: '2026-01-15',
        orderProducts: [net('GOLD', 'EU')],
      },
    ]),
  ],
  [
    'order, offer and product discounts in cascade, FORMULA and prorata',
    orderOf(
      [
        {
          subscriptionCode: 'P_B',
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
  ],
  [
    'version 2 chosen by date, wildcard matrix row, FIXED taken from the one-shot line',
    orderOf([
      {
        subscriptionCode: 'P_C',
        offerTemplateCode: 'OF_NET',
        subscriptionDate: '2026-07-01',
        discountPlanCodes: ['DP_OFFER_10'],
        orderProducts: [net('BRONZE', 'US', { discountPlanCodes: ['DP_PROD_5'] })],
      },
    ]),
  ],
  [
    'a discount taxed at its article’s reduced rate',
    orderOf(
      [
        {
          subscriptionCode: 'P_D',
          offerTemplateCode: 'OF_SIMPLE',
          subscriptionDate: '2026-02-10',
          orderProducts: [{ productCode: 'PR_BOOK' }],
        },
      ],
      { discountPlanCodes: ['DP_REDUCED_TAX'] },
    ),
  ],
  [
    'a price override and a plan with two items',
    orderOf(
      [
        {
          subscriptionCode: 'P_E',
          offerTemplateCode: 'OF_SIMPLE',
          subscriptionDate: '2026-03-03',
          orderProducts: [
            { productCode: 'PR_LICENSE', quantity: 3, chargeOverrides: [{ chargeCode: 'CH_LICENSE', unitPrice: 7.5 }] },
          ],
        },
      ],
      { discountPlanCodes: ['DP_TWO_ITEMS'] },
    ),
  ],
  [
    'an automatic plan of the offer besides a listed one',
    orderOf([
      {
        subscriptionCode: 'P_F',
        offerTemplateCode: 'OF_AUTO',
        subscriptionDate: '2026-04-20',
        discountPlanCodes: ['DP_OFFER_10'],
        orderProducts: [{ productCode: 'PR_LICENSE', quantity: 2 }],
      },
    ]),
  ],
  [
    'an order-level FIXED across two subscriptions, one-shot lines first',
    orderOf(
      [
        {
          subscriptionCode: 'P_G1',
          offerTemplateCode: 'OF_SIMPLE',
          subscriptionDate: '2026-05-05',
          orderProducts: [{ productCode: 'PR_PRORATA' }],
        },
        {
          subscriptionCode: 'P_G2',
          offerTemplateCode: 'OF_SIMPLE',
          subscriptionDate: '2026-05-05',
          orderProducts: [{ productCode: 'PR_LICENSE' }],
        },
      ],
      { discountPlanCodes: ['DP_PROD_5'] },
    ),
  ],
  [
    'applicationLimit: one line discounted per subscription',
    orderOf([
      {
        subscriptionCode: 'P_H',
        offerTemplateCode: 'OF_NET',
        subscriptionDate: '2026-08-31',
        discountPlanCodes: ['DP_APP_LIMIT'],
        orderProducts: [net('SILVER', 'EU')],
      },
    ]),
  ],
]

type Line = [string, string, number, number, string | null]

/** Preview lines with amounts as [subscription, charge, without tax, with tax, discount plan], sorted. */
function previewLines(preview: any): Line[] {
  const offers = preview.offers as { subscriptionCode: string; lines: Record<string, unknown>[] }[]
  return offers
    .flatMap((offer) =>
      offer.lines
        .filter((line) => line.amountWithoutTax !== null)
        .map((line): Line => [
          offer.subscriptionCode,
          line.chargeCode as string,
          line.amountWithoutTax as number,
          line.amountWithTax as number,
          line.discountPlanCode as string | null,
        ]),
    )
    .sort()
}

/** The wallet operations of the one-shot lines and first recurring periods, in the same form. */
async function billedLines(subscriptions: { code: string; date: string }[]): Promise<Line[]> {
  const lines: Line[] = []
  for (const subscription of subscriptions) {
    const filters = encodeURIComponent(JSON.stringify({ subscription: subscription.code }))
    const response = await t.request(
      'GET',
      `/api/v1/query/walletOperation?filters=${filters}&nested=chargeInstance,discountPlan&limit=1000`,
    )
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    for (const wo of response.body.data) {
      if (wo.chargeType === 'RECURRING' && wo.startDate !== subscription.date) continue
      expect(wo.status).toBe('OPEN')
      lines.push([
        subscription.code,
        wo.chargeInstance.code,
        wo.amountWithoutTax,
        wo.amountWithTax,
        wo.discountPlan?.code ?? null,
      ])
    }
  }
  return lines.sort()
}

describe('placing every preview example bills what the preview showed', () => {
  const previews = new Map<string, any>()

  it.each(EXAMPLES)('previews and places: %s', async (_name, body) => {
    const preview = await t.request('POST', '/api/v1/orders/preview', body)
    expect(preview.status, JSON.stringify(preview.body)).toBe(200)
    previews.set(_name, preview.body)
    const order = await place(t, body)
    for (const offer of order.orderOffers) expect(offer.subscription.status).toBe('ACTIVE')
  })

  it('runs the recurring rating job, then compares the wallet operations line by line', async () => {
    const execution = await runRecurringJob(t)
    expect(execution.status).toBe('SUCCESS')
    expect(execution.failedCount).toBe(0)
    for (const [name, body] of EXAMPLES) {
      const offers = (body as any).orderOffers as { subscriptionCode: string; subscriptionDate: string }[]
      const billed = await billedLines(offers.map((o) => ({ code: o.subscriptionCode, date: o.subscriptionDate })))
      expect(billed, name).toEqual(previewLines(previews.get(name)))
      expect(billed.length, name).toBeGreaterThan(0)
    }
  })

  it('billed the hand-computed amounts of the cascade example', async () => {
    expect(previewLines(previews.get(EXAMPLES[1]![0]))).toEqual(
      [
        ['P_B', 'CH_LICENSE', 102, 122.4, null],
        ['P_B', 'CH_LICENSE', -10.2, -12.24, 'DP_OFFER_10'],
        ['P_B', 'CH_LICENSE', -5, -6, 'DP_PROD_5'],
        ['P_B', 'CH_LICENSE', -17.36, -20.83, 'DP_ORDER_20'],
        ['P_B', 'CH_PRORATA', 17, 20.4, null],
        ['P_B', 'CH_PRORATA', -1.7, -2.04, 'DP_OFFER_10'],
        ['P_B', 'CH_PRORATA', -3.06, -3.67, 'DP_ORDER_20'],
      ].sort(),
    )
  })

  it.each<[number, Line[]]>([
    [
      2,
      [
        ['P_C', 'CH_SETUP_V2', 19.99, 23.99, null],
        ['P_C', 'CH_SETUP_V2', -2, -2.4, 'DP_OFFER_10'],
        ['P_C', 'CH_SETUP_V2', -5, -6, 'DP_PROD_5'],
        ['P_C', 'CH_MONTHLY', 15, 18, null],
        ['P_C', 'CH_MONTHLY', -1.5, -1.8, 'DP_OFFER_10'],
        ['P_C', 'CH_SUPPORT', 9.9, 11.88, null],
        ['P_C', 'CH_SUPPORT', -0.99, -1.19, 'DP_OFFER_10'],
      ],
    ],
    [
      3,
      [
        ['P_D', 'CH_REDUCED', 100, 105.5, null],
        ['P_D', 'CH_REDUCED', -10, -10.55, 'DP_REDUCED_TAX'],
      ],
    ],
    [
      4,
      [
        ['P_E', 'CH_LICENSE', 22.5, 27, null],
        ['P_E', 'CH_LICENSE', -2.25, -2.7, 'DP_TWO_ITEMS'],
        ['P_E', 'CH_LICENSE', -2, -2.4, 'DP_TWO_ITEMS'],
      ],
    ],
    [
      5,
      [
        ['P_F', 'CH_LICENSE', 20, 24, null],
        ['P_F', 'CH_LICENSE', -10, -12, 'DP_AUTO'],
        ['P_F', 'CH_LICENSE', -1, -1.2, 'DP_OFFER_10'],
      ],
    ],
    [
      6,
      [
        ['P_G1', 'CH_PRORATA', 27, 32.4, null],
        ['P_G2', 'CH_LICENSE', 10, 12, null],
        ['P_G2', 'CH_LICENSE', -5, -6, 'DP_PROD_5'],
      ],
    ],
    [
      7,
      [
        ['P_H', 'CH_SETUP_V2', 19.99, 23.99, null],
        ['P_H', 'CH_SETUP_V2', -10, -12, 'DP_APP_LIMIT'],
        ['P_H', 'CH_MONTHLY', 39.99, 47.99, null],
        ['P_H', 'CH_SUPPORT', 9.9, 11.88, null],
      ],
    ],
  ])('example %i has the hand-computed lines', (index, expected) => {
    expect(previewLines(previews.get(EXAMPLES[index]![0]))).toEqual(expected.sort())
  })

  it('marks the overridden line and its chargeItem', () => {
    const preview = previews.get(EXAMPLES[4]![0])
    expect(preview.offers[0].lines[0]).toMatchObject({ chargeCode: 'CH_LICENSE', overridden: true })
    expect(preview.offers[0].lines.slice(1).every((l: any) => l.overridden === false)).toBe(true)
    expect(preview.chargeItems[0]).toMatchObject({ chargeCode: 'CH_LICENSE', unitPrice: 7.5, quantity: 3 })
  })
})
