import { beforeAll, describe, expect, it } from 'vitest'
import { rateDueRecurringCharges } from '../../src/modules/ordering/index.ts'
import { useTestApp } from '../support/test-app.ts'
import { charge, created } from './catalog-fixtures.ts'
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

const prorataOrder = (subscriptionCode: string, subscriptionDate: string, plans: string[] = []) =>
  orderOf(
    [
      {
        subscriptionCode,
        offerTemplateCode: 'OF_SIMPLE',
        subscriptionDate,
        orderProducts: [{ productCode: 'PR_PRORATA' }],
      },
    ],
    { discountPlanCodes: plans },
  )

describe('RecurringRatingJob', () => {
  it('is registered with a daily default timer', async () => {
    const job = await t.request('GET', '/api/v1/jobs/RecurringRatingJob')
    expect(job.status).toBe(200)
    expect(job.body).toMatchObject({
      code: 'RecurringRatingJob',
      jobType: 'RecurringRatingJob',
      timer: { second: '0', minute: '5', hour: '0' },
    })
  })

  it('bills nothing before the end of the first period', async () => {
    const future = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10)
    await place(t, prorataOrder('SUB_FUTURE', future))
    await runRecurringJob(t)
    expect(await walletOperationsOf(t, 'SUB_FUTURE')).toEqual([])
  })

  it('rates every ended period in arrears: the first prorated, then whole months, with FIXED carried over', async () => {
    await place(t, prorataOrder('SUB_CATCH_UP', '2026-01-31', ['DP_PROD_5']))
    const execution = await runRecurringJob(t)
    expect(execution).toMatchObject({ status: 'SUCCESS', failedCount: 0 })
    const periods = endedMonthlyPeriods('2026-01-31')
    const operations = await walletOperationsOf(t, 'SUB_CATCH_UP')
    const charges = operations.filter((wo) => wo.discountPlan === null)
    expect(charges.map((wo): unknown => [wo.startDate, wo.endDate])).toEqual(periods)
    // 31 × 1/31 = 1.00 for 31 January, then 31.00 a month.
    expect(charges.map((wo): unknown => wo.amountWithoutTax)).toEqual(periods.map((_p, i) => (i === 0 ? 1 : 31)))
    expect(
      charges.every(
        (wo) => wo.status === 'OPEN' && wo.chargeType === 'RECURRING' && wo.amountTax === wo.amountWithoutTax / 5,
      ),
    ).toBe(true)
    // The 5 EUR fixed discount: 1.00 on the first period, the 4.00 left on the second, nothing after.
    const discounts = operations.filter((wo) => wo.discountPlan !== null)
    expect(discounts.map((wo): unknown => [wo.startDate, wo.amountWithoutTax, wo.amountWithTax])).toEqual([
      ['2026-01-31', -1, -1.2],
      ['2026-02-01', -4, -4.8],
    ])
    expect(discounts.map((wo): unknown => wo.discountedWalletOperation.id)).toEqual([charges[0].id, charges[1].id])
    const instance = await t.request(
      'GET',
      `/api/v1/query/chargeInstance?filters=${encodeURIComponent(JSON.stringify({ subscription: 'SUB_CATCH_UP', chargeType: 'RECURRING' }))}`,
    )
    const last = periods[periods.length - 1]!
    expect(instance.body.data[0]).toMatchObject({ chargedToDate: last[1], status: 'ACTIVE' })
  })

  it('rates each period once, however often it runs', async () => {
    const before = (await walletOperationsOf(t, 'SUB_CATCH_UP')).length
    const execution = await runRecurringJob(t)
    expect(execution).toMatchObject({ status: 'SUCCESS', processedCount: 0 })
    const again = await rateDueRecurringCharges({ db: t.db.current.db, now: new Date() })
    expect(again).toEqual({ processed: 0, failed: 0, walletOperations: 0 })
    expect(await walletOperationsOf(t, 'SUB_CATCH_UP')).toHaveLength(before)
  })

  it('leaves an order it cannot rate due, counted as failed, and rates the others', async () => {
    await created(t, 'POST', '/api/v1/charges', charge('CH_FX', 'RECURRING'))
    await created(t, 'PUT', '/api/v1/charges/CH_FX/pricing/draft', {
      pricingModel: 'FLAT',
      currency: 'EUR',
      validFrom: '2020-01-01',
      price: 10,
    })
    await created(t, 'POST', '/api/v1/charges/CH_FX/pricing/publish', {}, 200)
    await created(t, 'POST', '/api/v1/products', { code: 'PR_FX' })
    await created(t, 'POST', '/api/v1/products/PR_FX/versions', { validFrom: '2020-01-01' })
    await created(t, 'POST', '/api/v1/products/PR_FX/versions/1/charges/CH_FX', {}, 200)
    await created(t, 'PUT', '/api/v1/products/PR_FX/versions/1/status?status=PUBLISHED', undefined, 200)
    await created(t, 'POST', '/api/v1/offerTemplates', {
      code: 'OF_FX',
      lifeCycleStatus: 'ACTIVE',
      offerComponents: [{ productCode: 'PR_FX' }],
    })
    await place(
      t,
      orderOf([
        {
          subscriptionCode: 'SUB_FX',
          offerTemplateCode: 'OF_FX',
          subscriptionDate: '2026-01-15',
          orderProducts: [{ productCode: 'PR_FX' }],
        },
      ]),
    )
    await place(t, prorataOrder('SUB_FINE', '2026-01-15'))
    // From March the charge is priced in dollars: the order's periods cannot be billed in euros.
    await created(t, 'PUT', '/api/v1/charges/CH_FX/pricing/draft', {
      pricingModel: 'FLAT',
      currency: 'USD',
      validFrom: '2026-03-01',
      price: 12,
    })
    await created(t, 'POST', '/api/v1/charges/CH_FX/pricing/publish', {}, 200)
    const execution = await runRecurringJob(t)
    expect(execution).toMatchObject({ status: 'SUCCESS', failedCount: 1 })
    expect(execution.processedCount).toBe(endedMonthlyPeriods('2026-01-15').length)
    expect(await walletOperationsOf(t, 'SUB_FX')).toEqual([])
    const fine = await walletOperationsOf(t, 'SUB_FINE')
    expect(fine.map((wo): unknown => wo.amountWithoutTax)).toEqual(
      endedMonthlyPeriods('2026-01-15').map((_p, i) => (i === 0 ? 17 : 31)),
    )
  })
})

describe('wallet operations through the Query API (§2.8)', () => {
  it('are a huge-volume entity readable with billing.wallets.view, with the issue’s fields', async () => {
    const huge = await t.request('GET', '/api/v1/query/entities?onlyHugeEntities=true')
    expect(huge.body.entities).toContain('WalletOperation')
    // Filtering by subscription code reads subscriptions too: the reader needs their view role as well.
    const reader = await t.tokenWithRoles(['billing.wallets.view', 'accounts.subscriptions.view'])
    const stranger = await t.tokenWithRoles(['ordering.orders.view'])
    const filters = encodeURIComponent(JSON.stringify({ subscription: 'SUB_CATCH_UP' }))
    expect((await t.requestAs(stranger, 'GET', `/api/v1/query/walletOperation?filters=${filters}`)).status).toBe(403)
    const response = await t.requestAs(
      reader,
      'GET',
      `/api/v1/query/walletOperation?filters=${filters}&limit=1&sortBy=id`,
    )
    expect(response.status).toBe(200)
    expect(response.body.data[0]).toEqual(
      expect.objectContaining({
        id: expect.any(Number),
        code: 'CH_PRORATA',
        status: 'OPEN',
        quantity: 1,
        unitAmountWithoutTax: 31,
        amountWithoutTax: 1,
        amountTax: 0.2,
        amountWithTax: 1.2,
        operationDate: '2026-01-31',
        startDate: '2026-01-31',
        endDate: '2026-02-01',
        discountPlan: null,
        chargeInstance: { id: expect.any(Number) },
        subscription: { id: expect.any(Number) },
        billingAccount: { id: expect.any(Number) },
        accountingArticle: { id: expect.any(Number) },
        currency: { id: expect.any(Number) },
      }),
    )
  })

  it('sums open operations per billing account in the system query', async () => {
    const response = await t.request(
      'POST',
      '/api/v1/reportQueries/SYS_OPEN_WALLET_OPERATIONS_BY_BILLING_ACCOUNT/executions',
      {},
    )
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    const filters = encodeURIComponent(JSON.stringify({ 'billingAccount.code': 'BA_1', status: 'OPEN' }))
    const all = await t.request(
      'GET',
      `/api/v1/query/walletOperation?filters=${filters}&fields=amountWithTax&limit=1000`,
    )
    const cents = all.body.data.reduce((sum: number, wo: any) => sum + Math.round(wo.amountWithTax * 100), 0)
    expect(all.body.data.length).toBeGreaterThan(0)
    const row = response.body.rows.find((r: Record<string, unknown>) => r['billingAccount.code'] === 'BA_1')
    expect(row).toEqual({
      'billingAccount.code': 'BA_1',
      'SUM(amountWithTax)': cents / 100,
      'COUNT(id)': all.body.data.length,
    })
  })
})
