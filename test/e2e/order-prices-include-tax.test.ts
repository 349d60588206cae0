import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'
import { created } from './catalog-fixtures.ts'
import {
  endedMonthlyPeriods,
  orderOf,
  place,
  runRecurringJob,
  seedHundredOffer,
  seedOrderCatalog,
  walletOperationsOf,
} from './order-fixtures.ts'

const t = useTestApp()

beforeAll(async () => {
  await seedOrderCatalog(t)
  await seedHundredOffer(t)
})

const setPricesIncludeTax = async (on: boolean) => {
  const response = await t.request('PUT', '/api/v1/tenantSettings', { pricesIncludeTax: on })
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  expect(response.body.pricesIncludeTax).toBe(on)
}

/** An order of PR_B2C on OF_B2C (CH_HUNDRED 100 once, CH_MONTH30 30 a month), optionally with its two plans. */
const b2cOrder = (subscriptionCode: string, subscriptionDate: string, discounts = false) =>
  orderOf([
    {
      subscriptionCode,
      offerTemplateCode: 'OF_B2C',
      subscriptionDate,
      ...(discounts ? { discountPlanCodes: ['DP_OFFER_10'] } : {}),
      orderProducts: [
        { productCode: 'PR_B2C', quantity: 1, ...(discounts ? { discountPlanCodes: ['DP_PROD_5'] } : {}) },
      ],
    },
  ])

interface PreviewLine {
  chargeCode: string
  discountPlanCode: string | null
  amountWithoutTax: number
  amountWithTax: number
}

/** Preview lines as [charge, discount plan, without tax, with tax]. */
const previewLines = (preview: any): unknown[] =>
  (preview.offers[0].lines as PreviewLine[]).map((l) => [
    l.chargeCode,
    l.discountPlanCode,
    l.amountWithoutTax,
    l.amountWithTax,
  ])

const totals = (o: any): unknown[] => [o.totalOneTime, o.totalRecurring, o.totalTax, o.totalWithTax]

/** Wallet operations of a subscription as [charge, discount plan, without tax, tax, with tax, start date]. */
async function billed(subscription: string) {
  return (await walletOperationsOf(t, subscription)).map((wo): unknown[] => [
    wo.code,
    wo.discountPlan ? 'discount' : null,
    wo.amountWithoutTax,
    wo.amountTax,
    wo.amountWithTax,
    wo.startDate,
  ])
}

describe('pricesIncludeTax off (default): prices are amounts without tax', () => {
  it('previews 100.00 at 20 % as 100.00 without tax, 20.00 tax, 120.00 with tax', async () => {
    const preview = await t.request('POST', '/api/v1/orders/preview', b2cOrder('NET_PREVIEW', '2026-03-01'))
    expect(preview.status, JSON.stringify(preview.body)).toBe(200)
    expect(previewLines(preview.body)).toEqual([
      ['CH_HUNDRED', null, 100, 120],
      ['CH_MONTH30', null, 30, 36],
    ])
    // One-time 100, recurring 30, tax 20 + 6, with tax 156.
    expect(totals(preview.body)).toEqual([100, 30, 26, 156])
  })
})

describe('pricesIncludeTax on: prices are amounts with tax (DECISIONS "General")', () => {
  it('previews 100.00 at 20 % as 100.00 with tax, 16.67 tax, 83.33 without; 30.00 as 5.00 tax, 25.00 without', async () => {
    await setPricesIncludeTax(true)
    const preview = await t.request('POST', '/api/v1/orders/preview', b2cOrder('GROSS_PREVIEW', '2026-03-01'))
    expect(preview.status, JSON.stringify(preview.body)).toBe(200)
    expect(previewLines(preview.body)).toEqual([
      ['CH_HUNDRED', null, 83.33, 100],
      ['CH_MONTH30', null, 25, 30],
    ])
    // One-time 83.33, recurring 25, tax 16.67 + 5 = 21.67, with tax 130.
    expect(totals(preview.body)).toEqual([83.33, 25, 21.67, 130])
    expect(totals(preview.body.offers[0])).toEqual([83.33, 25, 21.67, 130])
  })

  it('discounts the amounts with tax in cascade, and placement bills exactly the preview', async () => {
    await setPricesIncludeTax(true)
    const body = b2cOrder('GROSS_DISCOUNTS', '2026-09-01', true)
    const preview = await t.request('POST', '/api/v1/orders/preview', body)
    expect(preview.status, JSON.stringify(preview.body)).toBe(200)
    // 100 with tax: 10 % (sequence 1) = 10.00, tax 10 × 20/120 = 1.67, without 8.33; then 5.00 fixed (sequence 2)
    // on 90.00: tax 0.83, without 4.17. 30 with tax: 10 % = 3.00, tax 0.50, without 2.50; the 5.00 are used up.
    expect(previewLines(preview.body)).toEqual([
      ['CH_HUNDRED', null, 83.33, 100],
      ['CH_HUNDRED', 'DP_OFFER_10', -8.33, -10],
      ['CH_HUNDRED', 'DP_PROD_5', -4.17, -5],
      ['CH_MONTH30', null, 25, 30],
      ['CH_MONTH30', 'DP_OFFER_10', -2.5, -3],
    ])
    // One-time 83.33 − 8.33 − 4.17 = 70.83; recurring 25 − 2.5 = 22.5; tax 16.67 − 1.67 − 0.83 + 5 − 0.5 = 18.67;
    // with tax 100 − 10 − 5 + 30 − 3 = 112.
    expect(totals(preview.body)).toEqual([70.83, 22.5, 18.67, 112])

    await place(t, body)
    expect(await billed('GROSS_DISCOUNTS')).toEqual([
      ['CH_HUNDRED', null, 83.33, 16.67, 100, null],
      ['OFF10', 'discount', -8.33, -1.67, -10, null],
      ['FIX5', 'discount', -4.17, -0.83, -5, null],
    ])
    const [charge] = await walletOperationsOf(t, 'GROSS_DISCOUNTS')
    // The unit price rated is the price with tax; without tax it is 100 × 100/120 to 12 decimals.
    expect(charge).toMatchObject({ unitAmountWithTax: 100, unitAmountWithoutTax: 83.333333333333, taxPercent: 20 })
    expect(charge.explanation).toContain('1 × 100 = 100.00 with tax; tax TAX_20 20 % included = 16.67')

    // The recurring job bills the first period exactly as previewed, and every later period the same way.
    const execution = await runRecurringJob(t)
    expect(execution).toMatchObject({ status: 'SUCCESS', failedCount: 0 })
    const periods = endedMonthlyPeriods('2026-09-01')
    expect(periods.length).toBeGreaterThan(0)
    const recurring = (await billed('GROSS_DISCOUNTS')).slice(3)
    // A run writes its periods' charges, then their discounts.
    expect(recurring).toEqual([
      ...periods.map(([start]) => ['CH_MONTH30', null, 25, 5, 30, start]),
      ...periods.map(([start]) => ['OFF10', 'discount', -2.5, -0.5, -3, start]),
    ])
  })

  it('rates recurring periods with the setting in force when the job runs, not when the order was placed', async () => {
    await setPricesIncludeTax(true)
    await place(t, b2cOrder('SWITCHED', '2026-09-01', true))
    expect((await billed('SWITCHED')).slice(0, 1)).toEqual([['CH_HUNDRED', null, 83.33, 16.67, 100, null]])
    await setPricesIncludeTax(false)
    try {
      expect((await runRecurringJob(t)).status).toBe('SUCCESS')
      // 30 without tax now: tax 6, with tax 36; 10 % of 30 = 3 without tax, tax 0.60.
      const periods = endedMonthlyPeriods('2026-09-01')
      expect((await billed('SWITCHED')).slice(3)).toEqual([
        ...periods.map(([start]) => ['CH_MONTH30', null, 30, 6, 36, start]),
        ...periods.map(([start]) => ['OFF10', 'discount', -3, -0.6, -3.6, start]),
      ])
    } finally {
      await setPricesIncludeTax(true)
    }
  })

  it('takes a price override as an amount with tax too, and rates at the charge’s reduced 5.5 %', async () => {
    await setPricesIncludeTax(true)
    const body = orderOf([
      {
        subscriptionCode: 'GROSS_OVERRIDE',
        offerTemplateCode: 'OF_SIMPLE',
        subscriptionDate: '2026-03-03',
        orderProducts: [
          { productCode: 'PR_LICENSE', quantity: 3, chargeOverrides: [{ chargeCode: 'CH_LICENSE', unitPrice: 33.33 }] },
          { productCode: 'PR_BOOK' },
        ],
      },
    ])
    const preview = await t.request('POST', '/api/v1/orders/preview', body)
    expect(preview.status, JSON.stringify(preview.body)).toBe(200)
    // 3 × 33.33 = 99.99 with tax: tax 99.99/6 = 16.665 → 16.67, without 83.32. 100 at 5.5 %: tax 550/105.5 = 5.21.
    expect(previewLines(preview.body)).toEqual([
      ['CH_LICENSE', null, 83.32, 99.99],
      ['CH_REDUCED', null, 94.79, 100],
    ])
    await place(t, body)
    expect(await billed('GROSS_OVERRIDE')).toEqual([
      ['CH_LICENSE', null, 83.32, 16.67, 99.99, null],
      ['CH_REDUCED', null, 94.79, 5.21, 100, null],
    ])
  })

  it('is read when a draft is validated: the draft’s preview and its validation agree with the setting of the day', async () => {
    await setPricesIncludeTax(false)
    const draft = await created(t, 'POST', '/api/v1/orders', b2cOrder('DRAFT_SWITCH', '2026-03-01'))
    await setPricesIncludeTax(true)
    const validated = await t.request('POST', `/api/v1/orders/${draft.code}/validation`)
    expect(validated.status, JSON.stringify(validated.body)).toBe(200)
    expect((await billed('DRAFT_SWITCH')).slice(0, 1)).toEqual([['CH_HUNDRED', null, 83.33, 16.67, 100, null]])
  })
})
