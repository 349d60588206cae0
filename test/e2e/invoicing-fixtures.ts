import { expect } from 'vitest'
import type { TestApp } from '../support/test-app.ts'
import { charge, created } from './catalog-fixtures.ts'
import { orderOf, place, seedOrderCatalog } from './order-fixtures.ts'

/**
 * On top of `seedOrderCatalog`: CH_FEE (ONESHOT, FLAT 100.00, NORMAL 20 %) in PR_FEE and CH_ITEM (ONESHOT, FLAT 0.05,
 * REDUCED 5.5 %) in PR_ITEM, sold by OF_INV (ACTIVE).
 */
export async function seedInvoicingCatalog(t: TestApp): Promise<void> {
  await seedOrderCatalog(t)
  const post = (path: string, body: unknown, status = 201) => created(t, 'POST', `/api/v1/${path}`, body, status)
  for (const [code, price, taxClass, label] of [
    ['CH_FEE', 100, 'NORMAL', 'Monthly fee'],
    ['CH_ITEM', 0.05, 'REDUCED', 'Small item'],
  ] as const) {
    await post('charges', charge(code, 'ONESHOT', { description: label, taxClass }))
    await created(t, 'PUT', `/api/v1/charges/${code}/pricing/draft`, {
      pricingModel: 'FLAT',
      currency: 'EUR',
      validFrom: '2020-01-01',
      price,
    })
    await post(`charges/${code}/pricing/publish`, {}, 200)
    const product = code.replace('CH_', 'PR_')
    await post('products', { code: product, name: product })
    await post(`products/${product}/versions`, { shortDescription: 'v1', validFrom: '2020-01-01' })
    await post(`products/${product}/versions/1/charges/${code}`, {}, 200)
    await created(t, 'PUT', `/api/v1/products/${product}/versions/1/status?status=PUBLISHED`, undefined, 200)
  }
  await post('offerTemplates', {
    code: 'OF_INV',
    name: 'OF_INV',
    lifeCycleStatus: 'ACTIVE',
    offerComponents: [{ productCode: 'PR_FEE' }, { productCode: 'PR_ITEM' }],
  })
}

/** Places an order of OF_INV for a billing account: the fee when `fee`, and `items` items of 0.05. */
export async function orderInvoiceable(
  t: TestApp,
  options: { fee: boolean; items: number; account?: string; user?: string; date?: string },
): Promise<any> {
  const products = [
    ...(options.fee ? [{ productCode: 'PR_FEE', quantity: 1 }] : []),
    ...Array.from({ length: options.items }, () => ({ productCode: 'PR_ITEM', quantity: 1 })),
  ]
  return place(
    t,
    orderOf(
      [{ offerTemplateCode: 'OF_INV', subscriptionDate: options.date ?? '2026-03-01', orderProducts: products }],
      { billingAccountCode: options.account ?? 'BA_1', userAccountCode: options.user ?? 'UA_1' },
    ),
  )
}

/** Waits until a bill run's step ends (no step running), polling; returns the run. */
export async function settledRun(t: TestApp, id: number, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const response = await t.request('GET', `/api/v1/billingRuns/${id}`)
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    if (response.body.progress.step === null) return response.body
    if (Date.now() > deadline) throw new Error(`bill run ${id} did not settle: ${JSON.stringify(response.body)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Creates a one-off bill run of CYC_M and waits for it to settle. */
export async function billRun(t: TestApp, options: Record<string, unknown> = {}): Promise<any> {
  const response = await t.request('POST', '/api/v1/billingRuns', {
    billingCycle: 'CYC_M',
    lastTransactionDate: '2027-01-01',
    invoiceDate: '2026-12-01',
    ...options,
  })
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  return settledRun(t, response.body.id)
}

export async function invoicesOf(t: TestApp, runId: number): Promise<any[]> {
  const response = await t.request('GET', `/api/v1/invoices?billRun=${runId}&limit=1000`)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body.data as any[]
}
