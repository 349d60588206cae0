import { beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/kernel/clock.ts'
import { seedAccountsDemo } from '../../src/modules/accounts/demo-data.ts'
import { seedCatalogDemo } from '../../src/modules/catalog/demo-data.ts'
import { seedOrderingDemo } from '../../src/modules/ordering/index.ts'
import { useTestApp } from '../support/test-app.ts'
import { walletOperationsOf } from './order-fixtures.ts'

const t = useTestApp()
const clock = new FakeClock('2026-05-20T10:00:00Z')

beforeAll(async () => {
  await seedAccountsDemo(t.db.current.db)
  await seedCatalogDemo(t.db.current.db)
  expect(await seedOrderingDemo(t.db.current.db, clock)).toEqual({ created: true })
})

describe('the demo orders', () => {
  it('are seeded once', async () => {
    expect(await seedOrderingDemo(t.db.current.db, clock)).toEqual({ created: false })
    const orders = await t.request('GET', '/api/v1/query/order?fields=code,status&limit=100')
    expect(orders.body.data).toHaveLength(12)
    expect(orders.body.data.every((o: any) => o.status === 'VALIDATED')).toBe(true)
  })

  it('bill the setup fee at validation and the ended monthly periods', async () => {
    // Customer 001: SILVER / US (44.99 a month), subscribed on 2026-04-23; May is not over on 2026-05-20.
    const plain = await walletOperationsOf(t, 'SUB_DEMO_001')
    expect(plain.map((wo): unknown => [wo.code, wo.startDate, wo.amountWithoutTax, wo.amountWithTax])).toEqual([
      ['CH_SETUP_FEE', null, 49.99, 59.99],
      ['CH_INTERNET_MONTHLY', '2026-04-23', 44.99, 53.99],
    ])
    // Customer 006: the welcome 10 % (sequence 1) then the loyalty 5 EUR (sequence 2, taken by the setup fee).
    const discounted = await walletOperationsOf(t, 'SUB_DEMO_006')
    expect(discounted.map((wo): unknown => [wo.code, wo.startDate, wo.amountWithoutTax, wo.amountWithTax])).toEqual([
      ['CH_SETUP_FEE', null, 49.99, 59.99],
      ['DPI_WELCOME_10', null, -5, -6],
      ['DPI_LOYALTY_5', null, -5, -6],
      // The recurring job writes a run's periods, then their discounts.
      ['CH_INTERNET_MONTHLY', '2026-03-24', 44.99, 53.99],
      ['CH_INTERNET_MONTHLY', '2026-04-01', 44.99, 53.99],
      ['DPI_WELCOME_10', '2026-03-24', -4.5, -5.4],
      ['DPI_WELCOME_10', '2026-04-01', -4.5, -5.4],
    ])
  })

  it('give the open wallet operations system query a row per billing account', async () => {
    const response = await t.request(
      'POST',
      '/api/v1/reportQueries/SYS_OPEN_WALLET_OPERATIONS_BY_BILLING_ACCOUNT/executions',
      {},
    )
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    // The twelve demo orders' billing accounts, each once, in code order; no other account has open operations.
    const accounts = response.body.rows.map((r: Record<string, unknown>) => r['billingAccount.code'])
    expect(accounts).toEqual(Array.from({ length: 12 }, (_, i) => `BA_${String(i + 1).padStart(3, '0')}`))
    for (const row of response.body.rows) expect(row['COUNT(id)'], JSON.stringify(row)).toBeGreaterThan(0)
  })
})
