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
  options: { fee: boolean; items: number; account?: string; user?: string; date?: string; seller?: string },
): Promise<any> {
  const products = [
    ...(options.fee ? [{ productCode: 'PR_FEE', quantity: 1 }] : []),
    ...Array.from({ length: options.items }, () => ({ productCode: 'PR_ITEM', quantity: 1 })),
  ]
  return place(
    t,
    orderOf(
      [{ offerTemplateCode: 'OF_INV', subscriptionDate: options.date ?? '2026-03-01', orderProducts: products }],
      {
        billingAccountCode: options.account ?? 'BA_1',
        userAccountCode: options.user ?? 'UA_1',
        sellerCode: options.seller ?? 'MAIN',
      },
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

/**
 * A billing cycle of its own with one customer, customer account, billing account and user account (`BA_<name>`,
 * `UA_<name>`, cycle `CYC_<name>`), under seller `seller` (MAIN by default): a scenario's runs bill only its accounts.
 */
export async function freshAccounts(
  t: TestApp,
  name: string,
  options: { seller?: string; accounts?: number; cycle?: Record<string, unknown> } = {},
): Promise<{ cycle: string; accounts: string[]; users: string[] }> {
  const post = (path: string, body: unknown) => created(t, 'POST', `/api/v1/${path}`, body)
  const cycle = `CYC_${name}`
  await post('billingCycles', { code: cycle, calendar: 'MONTHLY', ...options.cycle })
  await post('customers', { code: `C_${name}`, seller: options.seller ?? 'MAIN', name: `Customer ${name}` })
  await post('customerAccounts', { code: `CA_${name}`, customer: `C_${name}` })
  const accounts: string[] = []
  const users: string[] = []
  for (let i = 1; i <= (options.accounts ?? 1); i++) {
    const suffix = (options.accounts ?? 1) === 1 ? name : `${name}_${i}`
    await post('billingAccounts', {
      code: `BA_${suffix}`,
      name: `Account ${suffix}`,
      customerAccount: `CA_${name}`,
      billingCycle: cycle,
      language: 'ENG',
      country: 'FR',
      tradingCurrency: 'EUR',
    })
    await post('userAccounts', { code: `UA_${suffix}`, billingAccount: `BA_${suffix}` })
    accounts.push(`BA_${suffix}`)
    users.push(`UA_${suffix}`)
  }
  return { cycle, accounts, users }
}

/** Places, for a billing account of `freshAccounts`, the fee and `items` separate orders of one item each. */
export async function orderFor(
  t: TestApp,
  account: string,
  options: { fee?: boolean; items?: number; date?: string; seller?: string },
) {
  const user = account.replace(/^BA_/, 'UA_')
  const common = { account, user, date: options.date, seller: options.seller }
  if (options.fee ?? true) await orderInvoiceable(t, { fee: true, items: 0, ...common })
  for (let i = 0; i < (options.items ?? 0); i++) await orderInvoiceable(t, { fee: false, items: 1, ...common })
}

/** Creates a one-off bill run and returns it as created (not waiting). */
export async function startRun(t: TestApp, cycle: string, options: Record<string, unknown> = {}): Promise<any> {
  const response = await t.request('POST', '/api/v1/billingRuns', {
    billingCycle: cycle,
    lastTransactionDate: '2027-01-01',
    invoiceDate: '2026-12-01',
    ...options,
  })
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  return response.body
}

/** Creates a one-off bill run of a cycle and waits for it to settle. */
export async function runCycle(t: TestApp, cycle: string, options: Record<string, unknown> = {}): Promise<any> {
  return settledRun(t, (await startRun(t, cycle, options)).id as number)
}

/** An invoice's, a line's or a tax's three amounts, net, tax and gross, as the API writes them. */
export const amounts = (i: { amountWithoutTax: unknown; amountTax: unknown; amountWithTax: unknown }) => [
  i.amountWithoutTax,
  i.amountTax,
  i.amountWithTax,
]

export async function invoice(t: TestApp, id: number): Promise<any> {
  const response = await t.request('GET', `/api/v1/invoices/${id}`)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body
}

/** The wallet operations of a billing account through the Query API (status, invoice line), by id. */
export async function operationsOf(t: TestApp, account: string): Promise<any[]> {
  const filters = encodeURIComponent(JSON.stringify({ billingAccount: account }))
  const response = await t.request(
    'GET',
    `/api/v1/query/walletOperation?filters=${filters}&limit=1000&sortBy=id&fields=id,status,amountWithoutTax,invoiceLine.id,billingRun.id`,
  )
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body.data as any[]
}
