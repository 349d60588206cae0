import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../../src/app.ts'
import { openPostgres, type Database } from '../../src/kernel/db/database.ts'
import { apiInstance, useTestApp } from '../support/test-app.ts'
import { onPostgres } from '../support/test-database.ts'
import { seedOrderCatalog } from './order-fixtures.ts'

const t = useTestApp()

/**
 * Each instance keeps the published catalog in memory (issue 18); a change committed through one instance must be
 * seen by the very next preview on another one sharing the database: on PostgreSQL a second pool and app, on PGlite
 * a second app on the same embedded database (each app has its own cache).
 */
describe('a catalog change seen by the next preview on every instance', () => {
  let second: { app: App; database: Database | undefined } | undefined

  beforeAll(async () => {
    await seedOrderCatalog(t)
    const database = onPostgres ? openPostgres(t.db.url!, { max: 5 }) : undefined
    second = { app: await apiInstance(database ?? t.db.current), database }
  })

  afterAll(async () => {
    await second?.app.server.close()
    await second?.database?.close()
  })

  const order = (subscriptionCode: string) => ({
    sellerCode: 'MAIN',
    billingAccountCode: 'BA_1',
    userAccountCode: 'UA_1',
    orderOffers: [
      {
        subscriptionCode,
        offerTemplateCode: 'OF_SIMPLE',
        subscriptionDate: '2026-03-10',
        orderProducts: [{ productCode: 'PR_BOOK', quantity: 1 }],
      },
    ],
  })

  /** The preview's amount without tax of the CH_REDUCED line, through the second instance. */
  async function reducedLineOnSecond(): Promise<unknown> {
    const response = await second!.app.server.inject({
      method: 'POST',
      url: '/api/v1/orders/preview',
      headers: { authorization: `Bearer ${t.adminToken}` },
      payload: order('SUB_CACHE'),
    })
    expect(response.statusCode, response.body).toBe(200)
    const lines = response.json<{ offers: { lines: { chargeCode: string; amountWithoutTax: unknown }[] }[] }>()
      .offers[0]!.lines
    return lines.find((l) => l.chargeCode === 'CH_REDUCED')!.amountWithoutTax
  }

  it('previews a price published through the first instance at once on the second', async () => {
    expect(await reducedLineOnSecond()).toBe(100)
    expect(await reducedLineOnSecond()).toBe(100)
    const draft = await t.request('PUT', '/api/v1/charges/CH_REDUCED/pricing/draft', {
      pricingModel: 'FLAT',
      currency: 'EUR',
      validFrom: '2026-03-01',
      price: 120.5,
    })
    expect(draft.status, JSON.stringify(draft.body)).toBe(201)
    // A draft is not a price: the preview still bills the published one.
    expect(await reducedLineOnSecond()).toBe(100)
    expect((await t.request('POST', '/api/v1/charges/CH_REDUCED/pricing/publish', {})).status).toBe(200)
    expect(await reducedLineOnSecond()).toBe(120.5)
  })

  it('refuses an order of a product at once on the second instance when the first takes it out of the offer', async () => {
    expect(await reducedLineOnSecond()).toBe(120.5)
    const offer = await t.request('GET', '/api/v1/offerTemplates/OF_SIMPLE')
    expect(offer.status, JSON.stringify(offer.body)).toBe(200)
    const components = (offer.body.offerComponents as { productCode: string }[]).filter(
      (c) => c.productCode !== 'PR_BOOK',
    )
    const updated = await t.request('PUT', '/api/v1/offerTemplates/OF_SIMPLE', { offerComponents: components })
    expect(updated.status, JSON.stringify(updated.body)).toBe(200)
    const response = await second!.app.server.inject({
      method: 'POST',
      url: '/api/v1/orders/preview',
      headers: { authorization: `Bearer ${t.adminToken}` },
      payload: order('SUB_CACHE'),
    })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({
      details: [
        {
          field: 'orderOffers[0].orderProducts[0].productCode',
          message: 'product PR_BOOK is not part of offer OF_SIMPLE',
        },
      ],
    })
  })
})
