import { createOutbox } from '../../src/kernel/events/index.ts'
import { systemClock } from '../../src/kernel/clock.ts'
import { beforeAll, describe, expect, it } from 'vitest'
import { money } from '../../src/kernel/money.ts'
import { seedAccountsDemo } from '../../src/modules/accounts/demo-data.ts'
import { createCatalogModule } from '../../src/modules/catalog/index.ts'
import { seedCatalogDemo } from '../../src/modules/catalog/demo-data.ts'
import { priceUnit } from '../../src/modules/pricing/index.ts'
import { useTestApp } from '../support/test-app.ts'

const t = useTestApp()

beforeAll(async () => {
  await seedAccountsDemo(t.db.current.db)
  expect(await seedCatalogDemo(t.db.current.db)).toEqual({ created: true })
})

describe('the demo catalog', () => {
  it('is seeded once', async () => {
    expect(await seedCatalogDemo(t.db.current.db)).toEqual({ created: false })
  })

  it('has ACTIVE charges of every pricing model', async () => {
    const charges = (await t.request('GET', '/api/v1/charges?limit=100')).body.data
    expect(charges.map((c: Record<string, unknown>) => [c.code, c.type, c.status])).toEqual([
      ['CH_DATA_USAGE', 'USAGE', 'ACTIVE'],
      ['CH_INTERNET_MONTHLY', 'RECURRING', 'ACTIVE'],
      ['CH_SETUP_FEE', 'ONESHOT', 'ACTIVE'],
      ['CH_SUPPORT', 'RECURRING', 'ACTIVE'],
    ])
    const models = await Promise.all(
      ['CH_SETUP_FEE', 'CH_INTERNET_MONTHLY', 'CH_DATA_USAGE'].map(
        async (code): Promise<any> =>
          (await t.request('GET', `/api/v1/charges/${code}/pricing`)).body.pricingVersions[0],
      ),
    )
    expect(models.map((v): unknown[] => [v.pricingModel, v.status])).toEqual([
      ['FLAT', 'PUBLISHED'],
      ['MATRIX', 'PUBLISHED'],
      ['FORMULA', 'PUBLISHED'],
    ])
    expect(models[1].columns.map((c: { attributeCode: string }) => c.attributeCode)).toEqual(['TIER', 'REGION'])
  })

  it.each([
    ['CH_SETUP_FEE', {}, '1', '49.99'],
    ['CH_INTERNET_MONTHLY', { TIER: 'GOLD', REGION: 'EU' }, '1', '59.99'],
    ['CH_INTERNET_MONTHLY', { TIER: 'GOLD', REGION: 'APAC' }, '1', '69.99'],
    ['CH_INTERNET_MONTHLY', { TIER: 'BRONZE', REGION: 'US' }, '1', '24.99'],
    ['CH_DATA_USAGE', {}, '500', '0.01'],
    ['CH_DATA_USAGE', {}, '20480', '0.005'],
  ])('prices %s with %j at quantity %s: %s per unit', async (code, attributes, quantity, unitPrice) => {
    const catalog = createCatalogModule({
      db: t.db.current.db,
      actorOf: () => ({ username: 'test' }),
      outbox: createOutbox({ clock: systemClock }),
    })
    const pricing = await catalog.pricing.pricingOn(t.db.current.db, code, '2026-03-01')
    expect(pricing).toMatchObject({ version: 1, currency: 'EUR' })
    const priced = priceUnit(pricing!.definition, { quantity: money(quantity), attributes, charge: { code } })
    expect(priced.unitPrice.toString()).toBe(unitPrice)
  })

  it('has no price before the first version starts', async () => {
    const catalog = createCatalogModule({
      db: t.db.current.db,
      actorOf: () => ({ username: 'test' }),
      outbox: createOutbox({ clock: systemClock }),
    })
    expect(await catalog.pricing.pricingOn(t.db.current.db, 'CH_SETUP_FEE', '2019-12-31')).toBeUndefined()
  })

  it('has a published product, offers, a legacy service and two ACTIVE discount plans', async () => {
    const version = await t.request('GET', '/api/v1/products/PR_INTERNET/versions/1')
    expect(version.body).toMatchObject({
      status: 'PUBLISHED',
      attributes: ['TIER', 'REGION'],
      charges: ['CH_SETUP_FEE', 'CH_INTERNET_MONTHLY', 'CH_DATA_USAGE'],
    })
    const offer = await t.request('GET', '/api/v1/offerTemplates/OF_INTERNET')
    expect(offer.body).toMatchObject({
      lifeCycleStatus: 'ACTIVE',
      offerComponents: [{ productCode: 'PR_INTERNET', mandatory: true }],
      offerServiceTemplates: [{ serviceTemplateCode: 'SE_PREMIUM_SUPPORT', mandatory: false }],
      discountPlans: ['DP_WELCOME_10'],
      sellers: ['MAIN'],
    })
    expect((await t.request('GET', '/api/v1/offerTemplates/OF_INTERNET_NEXT')).body.lifeCycleStatus).toBe('IN_DESIGN')
    expect((await t.request('GET', '/api/v1/serviceTemplates/SE_PREMIUM_SUPPORT')).body.charges).toEqual(['CH_SUPPORT'])
    const plans = (await t.request('GET', '/api/v1/discountPlans')).body.data
    expect(plans.map((p: Record<string, unknown>) => [p.code, p.discountPlanType, p.status])).toEqual([
      ['DP_LOYALTY_5', 'PRODUCT', 'ACTIVE'],
      ['DP_WELCOME_10', 'OFFER', 'ACTIVE'],
    ])
    const items = await Promise.all(
      ['DP_LOYALTY_5', 'DP_WELCOME_10'].map(
        async (code): Promise<any> => (await t.request('GET', `/api/v1/discountPlans/${code}/items`)).body.items[0],
      ),
    )
    expect(items.map((i): unknown[] => [i.discountPlanItemType, i.discountValue, i.accountingArticle])).toEqual([
      ['FIXED', 5, 'ART_DISCOUNT'],
      ['PERCENTAGE', 10, 'ART_DISCOUNT'],
    ])
    expect((await t.request('GET', '/api/v1/products/PR_INTERNET/discountPlans')).body.discountPlans).toEqual([
      'DP_LOYALTY_5',
    ])
  })

  it('is readable through the Query API, subclasses and collections included', async () => {
    const recurring = await t.request('GET', '/api/v1/query/RecurringChargeTemplate?fields=code,billingCalendar.code')
    expect(recurring.status, JSON.stringify(recurring.body)).toBe(200)
    expect(recurring.body.data.map((c: { code: string }) => c.code).sort()).toEqual([
      'CH_INTERNET_MONTHLY',
      'CH_SUPPORT',
    ])
    const offers = await t.request(
      'GET',
      '/api/v1/query/offerTemplate?nested=offerComponents&filters=' +
        encodeURIComponent(JSON.stringify({ code: 'OF_INTERNET' })),
    )
    expect(offers.status, JSON.stringify(offers.body)).toBe(200)
    expect(offers.body.data[0]).toMatchObject({ lifeCycleStatus: 'ACTIVE', offerComponents: [{ mandatory: true }] })
    for (const entity of [
      'attribute',
      'pricingMatrixColumn',
      'pricingMatrixRow',
      'serviceChargeTemplate',
      'offerDiscountPlan',
      'productDiscountPlan',
    ]) {
      const response = await t.request('GET', `/api/v1/query/${entity}?limit=1`)
      expect(response.status, `${entity}: ${JSON.stringify(response.body)}`).toBe(200)
      expect(response.body.total, entity).toBeGreaterThan(0)
    }
  })
})
