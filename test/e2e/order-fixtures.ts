import { expect } from 'vitest'
import type { TestApp } from '../support/test-app.ts'
import { attribute, charge, created, seedReferenceData } from './catalog-fixtures.ts'

/**
 * A catalog and an account hierarchy for order tests, built through the API. Taxes: NORMAL → 20 %, REDUCED → 5.5 %.
 *
 * - CH_SETUP (ONESHOT, FLAT 49.99); CH_MONTHLY (RECURRING monthly, MATRIX tier × region: GOLD/EU 59.99,
 *   GOLD/any 69.99, SILVER/EU 39.99, any/US 15); CH_DATA (USAGE, FORMULA 0.01 per MB, 0.005 beyond 10240);
 *   CH_LICENSE (ONESHOT, FORMULA 10 per seat, 8.5 from 10 seats); CH_SUPPORT (RECURRING, FLAT 9.90, in service
 *   SE_SUPPORT); CH_PRORATA (RECURRING, FLAT 31, prorated); CH_SETUP_V2 (ONESHOT, FLAT 19.99); CH_TERMINATION
 *   (ONESHOT TERMINATION, FLAT 25); CH_REDUCED (ONESHOT, FLAT 100, tax class REDUCED); CH_DRAFT (never priced).
 * - PR_NET v1 (from 2020-01-01: TIER, REGION; CH_SETUP, CH_MONTHLY, CH_DATA) and v2 (from 2026-06-01: TIER, REGION;
 *   CH_SETUP_V2, CH_MONTHLY); PR_LICENSE v1 (CH_LICENSE); PR_PRORATA v1 (CH_PRORATA, CH_TERMINATION);
 *   PR_BOOK v1 (CH_REDUCED); PR_BROKEN v1 (CH_DRAFT).
 * - Offers (ACTIVE unless said): OF_NET (PR_NET mandatory, PR_LICENSE; SE_SUPPORT mandatory; plans DP_OFFER_10,
 *   DP_LIMITED, DP_APP_LIMIT), OF_SIMPLE (PR_LICENSE, PR_PRORATA, PR_BOOK, PR_BROKEN, PR_NET; plans DP_OFFER_10),
 *   OF_AUTO (PR_LICENSE; plans DP_AUTO automatic, DP_OFFER_10), OF_DESIGN (IN_DESIGN, PR_LICENSE).
 * - Plans (ACTIVE): DP_OFFER_10 (OFFER, 10 %, sequence 1), DP_PROD_5 (PRODUCT, 5 EUR fixed, sequence 2; linked to
 *   PR_NET and PR_LICENSE), DP_ORDER_20 (20 %, sequence 3), DP_REDUCED_TAX (10 % with a REDUCED article),
 *   DP_TWO_ITEMS (10 % then 2 EUR), DP_NO_ARTICLE (item NOART without article), DP_AUTO (OFFER, automatic, 50 %),
 *   DP_LIMITED (OFFER, initialQuantity 2, 1 %), DP_APP_LIMIT (OFFER, applicationLimit 1, 50 %); DP_DRAFT (DRAFT).
 * - Accounts: seller MAIN (FR), customer C1, CA1, BA_1 (FR, EUR) with UA_1 and UA_1B, BA_2 with UA_2, BA_USD (USD)
 *   with UA_USD.
 */
export async function seedOrderCatalog(t: TestApp): Promise<void> {
  await seedReferenceData(t)
  const post = (path: string, body: unknown) => created(t, 'POST', `/api/v1/${path}`, body)
  for (const [code, currency] of [
    ['FR', 'EUR'],
    ['DE', 'EUR'],
    ['US', 'USD'],
  ])
    await post('countries', { code, currency })
  await post('languages', { code: 'ENG' })
  await post('taxes', { code: 'TAX_20', percent: 20 })
  await post('taxes', { code: 'TAX_05_5', percent: 5.5 })
  await post('taxMappings', { code: 'TM_NORMAL', taxClass: 'NORMAL', tax: 'TAX_20' })
  await post('taxMappings', { code: 'TM_REDUCED', taxClass: 'REDUCED', tax: 'TAX_05_5' })
  await post('accountingArticles', { code: 'ART_DISCOUNT_RED', invoiceSubCategory: 'SUB_ONE', taxClass: 'REDUCED' })
  await post('billingCycles', { code: 'CYC_M', calendar: 'MONTHLY' })
  await post('sellers', { code: 'MAIN', tradingCurrency: 'EUR', country: 'FR', language: 'ENG' })
  await post('customers', { code: 'C1', seller: 'MAIN', name: 'Ada' })
  await post('customerAccounts', { code: 'CA1', customer: 'C1' })
  const account = { customerAccount: 'CA1', billingCycle: 'CYC_M', language: 'ENG' }
  await post('billingAccounts', { code: 'BA_1', ...account, country: 'FR', tradingCurrency: 'EUR' })
  await post('billingAccounts', { code: 'BA_2', ...account, country: 'DE', tradingCurrency: 'EUR' })
  await post('billingAccounts', { code: 'BA_USD', ...account, country: 'US', tradingCurrency: 'USD' })
  for (const [code, billingAccount] of [
    ['UA_1', 'BA_1'],
    ['UA_1B', 'BA_1'],
    ['UA_2', 'BA_2'],
    ['UA_USD', 'BA_USD'],
  ])
    await post('userAccounts', { code, billingAccount })

  await post('attributes', attribute('TIER', ['GOLD', 'SILVER', 'BRONZE']))
  await post('attributes', attribute('REGION', ['EU', 'US', 'APAC']))
  await post('attributes', attribute('COLOR', ['RED'], 'LIST_TEXT'))

  const priced = async (code: string, type: string, draft: Record<string, unknown>, extra = {}) => {
    await post('charges', charge(code, type, extra))
    await created(t, 'PUT', `/api/v1/charges/${code}/pricing/draft`, {
      currency: 'EUR',
      validFrom: '2020-01-01',
      ...draft,
    })
    await created(t, 'POST', `/api/v1/charges/${code}/pricing/publish`, {}, 200)
  }
  await priced('CH_SETUP', 'ONESHOT', { pricingModel: 'FLAT', price: 49.99 }, { description: 'Installation' })
  await priced(
    'CH_MONTHLY',
    'RECURRING',
    {
      pricingModel: 'MATRIX',
      columns: [
        { code: 'tier', type: 'String', position: 0, attributeCode: 'TIER' },
        { code: 'region', type: 'String', position: 1, attributeCode: 'REGION' },
      ],
      rows: (
        [
          ['GOLD', 'EU', 59.99],
          ['GOLD', '', 69.99],
          ['SILVER', 'EU', 39.99],
          ['', 'US', 15],
        ] as const
      ).map(([tier, region, price]) => ({
        price,
        values: [
          { dimensionCode: 'tier', stringValue: tier },
          { dimensionCode: 'region', stringValue: region },
        ],
      })),
    },
    { description: 'Internet monthly' },
  )
  await priced('CH_DATA', 'USAGE', { pricingModel: 'FORMULA', price_fx: '#{quantity > 10240 ? 0.005 : 0.01}' })
  await priced('CH_LICENSE', 'ONESHOT', { pricingModel: 'FORMULA', price_fx: '#{quantity >= 10 ? 8.5 : 10}' })
  await priced('CH_SUPPORT', 'RECURRING', { pricingModel: 'FLAT', price: 9.9 }, { description: 'Support' })
  await priced('CH_PRORATA', 'RECURRING', { pricingModel: 'FLAT', price: 31 }, { subscriptionProrata: true })
  await priced('CH_SETUP_V2', 'ONESHOT', { pricingModel: 'FLAT', price: 19.99 })
  await priced('CH_TERMINATION', 'ONESHOT', { pricingModel: 'FLAT', price: 25 }, { oneShotType: 'TERMINATION' })
  await priced('CH_REDUCED', 'ONESHOT', { pricingModel: 'FLAT', price: 100 }, { taxClass: 'REDUCED' })
  await post('charges', charge('CH_DRAFT', 'ONESHOT'))

  const product = async (
    code: string,
    versions: { validFrom: string; attributes?: string[]; charges: string[] }[],
  ): Promise<void> => {
    await post('products', { code, name: code })
    for (const [i, v] of versions.entries()) {
      await post(`products/${code}/versions`, { shortDescription: `v${i + 1}`, validFrom: v.validFrom })
      for (const a of v.attributes ?? [])
        await created(t, 'POST', `/api/v1/products/${code}/versions/${i + 1}/attributes/${a}`, {}, 200)
      for (const c of v.charges)
        await created(t, 'POST', `/api/v1/products/${code}/versions/${i + 1}/charges/${c}`, {}, 200)
      await created(t, 'PUT', `/api/v1/products/${code}/versions/${i + 1}/status?status=PUBLISHED`, undefined, 200)
    }
  }
  await product('PR_NET', [
    { validFrom: '2020-01-01', attributes: ['TIER', 'REGION'], charges: ['CH_SETUP', 'CH_MONTHLY', 'CH_DATA'] },
    { validFrom: '2026-06-01', attributes: ['TIER', 'REGION'], charges: ['CH_SETUP_V2', 'CH_MONTHLY'] },
  ])
  await product('PR_LICENSE', [{ validFrom: '2020-01-01', charges: ['CH_LICENSE'] }])
  await product('PR_PRORATA', [{ validFrom: '2020-01-01', charges: ['CH_PRORATA', 'CH_TERMINATION'] }])
  await product('PR_BOOK', [{ validFrom: '2020-01-01', charges: ['CH_REDUCED'] }])
  await product('PR_BROKEN', [{ validFrom: '2020-01-01', charges: ['CH_DRAFT'] }])
  await post('serviceTemplates', { code: 'SE_SUPPORT', description: 'Support service', charges: ['CH_SUPPORT'] })

  const plan = async (
    code: string,
    fields: Record<string, unknown>,
    items: Record<string, unknown>[],
    activate = true,
  ): Promise<void> => {
    await post('discountPlans', { code, description: `${code} plan`, ...fields })
    for (const item of items) await post(`discountPlans/${code}/items`, item)
    if (activate) await created(t, 'PUT', `/api/v1/discountPlans/${code}/activate`, undefined, 200)
  }
  const percent = (code: string, value: number, article = 'ART_DISCOUNT') => ({
    code,
    description: `${value} % off`,
    discountPlanItemType: 'PERCENTAGE',
    discountValue: value,
    accountingArticle: article,
  })
  const fixed = (code: string, value: number) => ({
    code,
    description: `${value} EUR off`,
    discountPlanItemType: 'FIXED',
    discountValue: value,
    accountingArticle: 'ART_DISCOUNT',
  })
  await plan('DP_OFFER_10', { discountPlanType: 'OFFER', sequence: 1 }, [percent('OFF10', 10)])
  await plan('DP_PROD_5', { discountPlanType: 'PRODUCT', sequence: 2 }, [fixed('FIX5', 5)])
  await plan('DP_ORDER_20', { sequence: 3 }, [percent('ORD20', 20)])
  await plan('DP_REDUCED_TAX', { sequence: 4 }, [percent('RED10', 10, 'ART_DISCOUNT_RED')])
  await plan('DP_TWO_ITEMS', { sequence: 5 }, [percent('TWO10', 10), fixed('TWO2', 2)])
  await plan('DP_NO_ARTICLE', {}, [{ code: 'NOART', discountPlanItemType: 'PERCENTAGE', discountValue: 1 }])
  await plan('DP_AUTO', { discountPlanType: 'OFFER', automaticApplication: true }, [percent('AUTO50', 50)])
  await plan('DP_LIMITED', { discountPlanType: 'OFFER', initialQuantity: 2 }, [percent('LIM1', 1)])
  await plan('DP_APP_LIMIT', { discountPlanType: 'OFFER', applicationLimit: 1 }, [percent('APP50', 50)])
  await plan('DP_DRAFT', {}, [percent('DRAFT1', 1)], false)
  for (const p of ['PR_NET', 'PR_LICENSE']) {
    await created(t, 'POST', `/api/v1/products/${p}/discountPlans/DP_PROD_5`, undefined, 200)
  }

  const offer = async (code: string, fields: Record<string, unknown>): Promise<unknown> =>
    post('offerTemplates', { code, name: code, lifeCycleStatus: 'ACTIVE', ...fields })
  await offer('OF_NET', {
    offerComponents: [{ productCode: 'PR_NET', mandatory: true }, { productCode: 'PR_LICENSE' }],
    offerServiceTemplates: [{ serviceTemplateCode: 'SE_SUPPORT', mandatory: true }],
    discountPlans: ['DP_OFFER_10', 'DP_LIMITED', 'DP_APP_LIMIT'],
  })
  await offer('OF_SIMPLE', {
    offerComponents: ['PR_LICENSE', 'PR_PRORATA', 'PR_BOOK', 'PR_BROKEN', 'PR_NET'].map((productCode) => ({
      productCode,
    })),
    discountPlans: ['DP_OFFER_10'],
  })
  await offer('OF_AUTO', {
    offerComponents: [{ productCode: 'PR_LICENSE' }],
    discountPlans: ['DP_AUTO', 'DP_OFFER_10'],
  })
  await offer('OF_DESIGN', { lifeCycleStatus: 'IN_DESIGN', offerComponents: [{ productCode: 'PR_LICENSE' }] })
  const check = await t.request('GET', '/api/v1/offerTemplates/OF_NET')
  expect(check.status).toBe(200)
}

/** An order body for BA_1 / UA_1 with the given offers. */
export const orderOf = (orderOffers: any[], extra: Record<string, unknown> = {}) => ({
  sellerCode: 'MAIN',
  billingAccountCode: 'BA_1',
  userAccountCode: 'UA_1',
  orderType: 'NEW',
  orderOffers,
  ...extra,
})

export const attrs = (values: Record<string, string>) =>
  Object.entries(values).map(([attributeCode, stringValue]) => ({ attributeCode, stringValue }))

/** The epoch milliseconds of a UTC day (the test tenant's zone). */
export const epoch = (day: string) => Date.parse(`${day}T00:00:00Z`)

/** Wallet operations of a subscription through the Query API, by id. */
export async function walletOperationsOf(t: TestApp, subscriptionCode: string): Promise<any[]> {
  const filters = encodeURIComponent(JSON.stringify({ subscription: subscriptionCode }))
  const response = await t.request('GET', `/api/v1/query/walletOperation?filters=${filters}&limit=1000&sortBy=id`)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body.data as any[]
}

/** Runs RecurringRatingJob through the jobs API and waits for its execution to finish (polling, 20 s at most). */
export async function runRecurringJob(t: TestApp): Promise<any> {
  const started = await t.request('POST', '/api/v1/jobs/RecurringRatingJob/run')
  expect(started.status, JSON.stringify(started.body)).toBe(202)
  const deadline = Date.now() + 20_000
  for (;;) {
    const executions = await t.request('GET', '/api/v1/jobs/RecurringRatingJob/executions?limit=1000')
    const execution = executions.body.data.find((e: any) => e.id === started.body.id)
    if (execution && (execution.status === 'SUCCESS' || execution.status === 'FAILED')) return execution
    if (Date.now() > deadline) throw new Error(`RecurringRatingJob did not finish: ${JSON.stringify(execution)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Places an order validated at once and checks the answer's status. */
export async function place(t: TestApp, body: unknown): Promise<any> {
  const response = await t.request('POST', '/api/v1/orders?autoValidate=true', body)
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  expect(response.body.status).toBe('VALIDATED')
  return response.body
}

/** The monthly periods from a subscription date whose end has passed by today (UTC): [start, end). */
export function endedMonthlyPeriods(
  subscriptionDate: string,
  today = new Date().toISOString().slice(0, 10),
): [string, string][] {
  const periods: [string, string][] = []
  let start = subscriptionDate
  for (;;) {
    const d = new Date(`${start}T00:00:00Z`)
    const end = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString().slice(0, 10)
    if (end > today) return periods
    periods.push([start, end])
    start = end
  }
}

/**
 * On top of `seedOrderCatalog`: CH_HUNDRED (ONESHOT, FLAT 100, NORMAL 20 %) and CH_MONTH30 (RECURRING monthly, FLAT
 * 30, not prorated) in PR_B2C v1 (from 2020-01-01, linked to DP_PROD_5), sold by OF_B2C (ACTIVE, plan DP_OFFER_10).
 */
export async function seedHundredOffer(t: TestApp): Promise<void> {
  const post = (path: string, body: unknown, status = 201) => created(t, 'POST', `/api/v1/${path}`, body, status)
  for (const [code, type, price] of [
    ['CH_HUNDRED', 'ONESHOT', 100],
    ['CH_MONTH30', 'RECURRING', 30],
  ] as const) {
    await post('charges', charge(code, type, { description: code }))
    await created(t, 'PUT', `/api/v1/charges/${code}/pricing/draft`, {
      pricingModel: 'FLAT',
      currency: 'EUR',
      validFrom: '2020-01-01',
      price,
    })
    await post(`charges/${code}/pricing/publish`, {}, 200)
  }
  await post('products', { code: 'PR_B2C', name: 'PR_B2C' })
  await post('products/PR_B2C/versions', { shortDescription: 'v1', validFrom: '2020-01-01' })
  for (const c of ['CH_HUNDRED', 'CH_MONTH30']) await post(`products/PR_B2C/versions/1/charges/${c}`, {}, 200)
  await created(t, 'PUT', '/api/v1/products/PR_B2C/versions/1/status?status=PUBLISHED', undefined, 200)
  await post('products/PR_B2C/discountPlans/DP_PROD_5', undefined, 200)
  await post('offerTemplates', {
    code: 'OF_B2C',
    name: 'OF_B2C',
    lifeCycleStatus: 'ACTIVE',
    offerComponents: [{ productCode: 'PR_B2C' }],
    discountPlans: ['DP_OFFER_10'],
  })
}
