import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'
import { charge, created, seedReferenceData } from './catalog-fixtures.ts'

const t = useTestApp()

beforeAll(async () => {
  await seedReferenceData(t)
  await created(t, 'POST', '/api/v1/charges', charge('CH_FEE', 'ONESHOT'))
  await created(t, 'POST', '/api/v1/charges', charge('CH_SUPPORT', 'RECURRING'))
  await created(t, 'POST', '/api/v1/products', { code: 'PR_A' })
  await created(t, 'POST', '/api/v1/products', { code: 'PR_B' })
  await created(t, 'POST', '/api/v1/discountPlans', { code: 'DP_1', discountPlanType: 'OFFER' })
  await created(t, 'POST', '/api/v1/discountPlans', { code: 'DP_2', discountPlanType: 'OFFER' })
  await created(t, 'POST', '/api/v1/offerTemplateCategories', { code: 'CAT_NET', name: 'Internet' })
  await created(t, 'POST', '/api/v1/sellers', { code: 'SELLER_1' })
})

describe('service templates', () => {
  it('creates a service with its charges, updates and lists it', async () => {
    const service = await created(t, 'POST', '/api/v1/serviceTemplates', {
      code: 'SE_SUPPORT',
      description: 'Support',
      charges: ['CH_SUPPORT'],
    })
    expect(service).toMatchObject({ code: 'SE_SUPPORT', description: 'Support', charges: ['CH_SUPPORT'] })
    const updated = await t.request('PUT', '/api/v1/serviceTemplates/SE_SUPPORT', { charges: ['CH_SUPPORT', 'CH_FEE'] })
    expect(updated.body.charges).toEqual(['CH_SUPPORT', 'CH_FEE'])
    const list = await t.request('GET', '/api/v1/serviceTemplates')
    expect(list.body).toMatchObject({ total: 1, data: [{ code: 'SE_SUPPORT', charges: ['CH_SUPPORT', 'CH_FEE'] }] })
    const unknown = await t.request('POST', '/api/v1/serviceTemplates', { code: 'SE_X', charges: ['CH_NONE'] })
    expect(unknown.status).toBe(400)
    expect(unknown.body.details).toEqual([{ field: 'charges[0]', message: "no charge with code 'CH_NONE'" }])
    expect((await t.request('GET', '/api/v1/serviceTemplates/SE_X')).status).toBe(404)
    expect((await t.request('POST', '/api/v1/serviceTemplates', { code: 'SE_SUPPORT' })).status).toBe(409)
  })

  it('needs catalog.services.* roles', async () => {
    const offersOnly = await t.tokenWithRoles(['catalog.offers.manage', 'catalog.offers.view'])
    expect((await t.requestAs(offersOnly, 'GET', '/api/v1/serviceTemplates')).status).toBe(403)
    const viewer = await t.tokenWithRoles(['catalog.services.view'])
    expect((await t.requestAs(viewer, 'GET', '/api/v1/serviceTemplates/SE_SUPPORT')).status).toBe(200)
    expect((await t.requestAs(viewer, 'PUT', '/api/v1/serviceTemplates/SE_SUPPORT', {})).status).toBe(403)
  })
})

describe('offer templates (v1)', () => {
  it('creates an offer in IN_DESIGN by default with components, services, plans, sellers and categories', async () => {
    const offer = await created(t, 'POST', '/api/v1/offerTemplates', {
      code: 'OF_NET',
      name: 'Internet offer',
      description: 'Fibre',
      validFrom: '2026-01-01',
      validTo: '2027-01-01T00:00:00.000Z',
      attributes: { speed: 1000, label: 'fast' },
      offerComponents: [
        { productCode: 'PR_A', mandatory: true, defaultQuantity: 1, minQuantity: 1, maxQuantity: 5 },
        { productCode: 'PR_B', defaultQuantity: '2.5' },
      ],
      offerServiceTemplates: [{ serviceTemplateCode: 'SE_SUPPORT', mandatory: true }],
      discountPlans: ['DP_1'],
      sellers: ['SELLER_1'],
      offerTemplateCategories: ['CAT_NET'],
    })
    expect(offer).toMatchObject({
      code: 'OF_NET',
      name: 'Internet offer',
      lifeCycleStatus: 'IN_DESIGN',
      validFrom: '2026-01-01T00:00:00.000Z',
      validTo: '2027-01-01T00:00:00.000Z',
      autoEndOfEngagement: false,
      attributes: { speed: 1000, label: 'fast' },
      offerComponents: [
        { productCode: 'PR_A', mandatory: true, defaultQuantity: 1, minQuantity: 1, maxQuantity: 5, sequence: 0 },
        {
          productCode: 'PR_B',
          mandatory: false,
          defaultQuantity: 2.5,
          minQuantity: null,
          maxQuantity: null,
          sequence: 1,
        },
      ],
      offerServiceTemplates: [{ serviceTemplateCode: 'SE_SUPPORT', mandatory: true, sequence: 0 }],
      discountPlans: ['DP_1'],
      sellers: ['SELLER_1'],
      offerTemplateCategories: ['CAT_NET'],
    })
    expect((await t.request('GET', '/api/v1/offerTemplates/OF_NET')).body).toEqual(offer)
    const list = await t.request('GET', '/api/v1/offerTemplates')
    expect(list.body).toMatchObject({ total: 1, data: [{ code: 'OF_NET', discountPlans: ['DP_1'] }] })
  })

  it.each(['IN_STUDY', 'IN_TEST', 'ACTIVE', 'LAUNCHED', 'active'])('lets a new offer start in %s', async (status) => {
    const offer = await created(t, 'POST', '/api/v1/offerTemplates', {
      code: `OF_START_${status}`,
      lifeCycleStatus: status,
    })
    expect(offer.lifeCycleStatus).toBe(status.toUpperCase())
  })

  it.each(['RETIRED', 'OBSOLETE', 'REJECTED', 'SLEEPING'])('refuses a new offer in %s', async (status) => {
    const response = await t.request('POST', '/api/v1/offerTemplates', {
      code: 'OF_BAD_START',
      lifeCycleStatus: status,
    })
    expect(response.status).toBe(400)
    expect(response.body.details[0].field).toBe('lifeCycleStatus')
  })

  it.each([
    [
      { offerComponents: [{ productCode: 'PR_NONE' }] },
      'offerComponents[0].productCode',
      "no product with code 'PR_NONE'",
    ],
    [
      { offerComponents: [{ productCode: 'PR_A', minQuantity: 3, maxQuantity: 2 }] },
      'offerComponents[0].maxQuantity',
      'at least minQuantity',
    ],
    [
      { offerComponents: [{ productCode: 'PR_A', defaultQuantity: 9, maxQuantity: 2 }] },
      'offerComponents[0].defaultQuantity',
      'between',
    ],
    [
      { offerComponents: [{ productCode: 'PR_A', defaultQuantity: -1 }] },
      'offerComponents[0].defaultQuantity',
      'at least 0',
    ],
    [
      { offerComponents: [{ productCode: 'PR_A' }, { productCode: 'PR_A' }] },
      'offerComponents[1].productCode',
      'listed twice',
    ],
    [{ discountPlans: ['DP_NONE'] }, 'discountPlans[0]', "no discount plan with code 'DP_NONE'"],
    [{ sellers: ['NOBODY'] }, 'sellers[0]', "no seller with code 'NOBODY'"],
    [
      { offerServiceTemplates: [{ serviceTemplateCode: 'SE_NONE' }] },
      'offerServiceTemplates[0]',
      "no service template with code 'SE_NONE'",
    ],
    [{ validFrom: '2026-02-01', validTo: '2026-01-01' }, 'validTo', 'after validFrom'],
    [
      { attributes: { nested: { a: 1 } } },
      'attributes.nested',
      'expected a string or a number or true or false or null',
    ],
    [{ colour: 'red' }, 'colour', 'is not a known field'],
  ])('refuses %j naming the field', async (extra, field, message) => {
    const response = await t.request('POST', '/api/v1/offerTemplates', { code: 'OF_INVALID', ...extra })
    expect(response.status).toBe(400)
    expect(response.body.details).toContainEqual({ field, message: expect.stringContaining(message) })
    expect((await t.request('GET', '/api/v1/offerTemplates/OF_INVALID')).status).toBe(404)
  })

  it('refuses a duplicate code (409) and answers 404 for an unknown one', async () => {
    expect((await t.request('POST', '/api/v1/offerTemplates', { code: 'OF_NET' })).status).toBe(409)
    expect((await t.request('GET', '/api/v1/offerTemplates/OF_NONE')).status).toBe(404)
    expect((await t.request('PUT', '/api/v1/offerTemplates/OF_NONE', { name: 'x' })).status).toBe(404)
  })

  it('updates partially: discountPlans replaces the set, other lists stay', async () => {
    const updated = await t.request('PUT', '/api/v1/offerTemplates/OF_NET', {
      discountPlans: ['DP_2', 'DP_1'],
      name: 'Renamed',
    })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({
      name: 'Renamed',
      description: 'Fibre',
      discountPlans: ['DP_1', 'DP_2'],
      sellers: ['SELLER_1'],
    })
    expect(updated.body.offerComponents).toHaveLength(2)
    const cleared = await t.request('PUT', '/api/v1/offerTemplates/OF_NET', { discountPlans: [], validTo: null })
    expect(cleared.body).toMatchObject({ discountPlans: [], validTo: null })
    const rejected = await t.request('PUT', '/api/v1/offerTemplates/OF_NET', { discountPlans: ['DP_NONE'] })
    expect(rejected.status).toBe(400)
  })

  it('moves through the life cycle and refuses invalid transitions with 422', async () => {
    const path = [
      ['IN_STUDY', 200],
      ['IN_TEST', 200],
      ['IN_DESIGN', 200],
      ['ACTIVE', 422],
      ['IN_TEST', 200],
      ['ACTIVE', 200],
      ['IN_DESIGN', 422],
      ['LAUNCHED', 200],
      ['ACTIVE', 422],
      ['REJECTED', 422],
      ['RETIRED', 200],
      ['LAUNCHED', 422],
      ['OBSOLETE', 200],
      ['RETIRED', 422],
    ] as const
    for (const [status, expected] of path) {
      const response = await t.request('PUT', '/api/v1/offerTemplates/OF_NET', { lifeCycleStatus: status })
      expect(response.status, `→ ${status}`).toBe(expected)
      if (expected === 422) {
        expect(response.body).toMatchObject({ status: 'FAIL', errorCode: 'OFFER_STATUS_TRANSITION_INVALID' })
        expect(response.body.message).toContain(`to ${status}`)
      }
    }
    expect((await t.request('GET', '/api/v1/offerTemplates/OF_NET')).body.lifeCycleStatus).toBe('OBSOLETE')
    const draft = await created(t, 'POST', '/api/v1/offerTemplates', { code: 'OF_REJECT', lifeCycleStatus: 'IN_STUDY' })
    expect(draft.lifeCycleStatus).toBe('IN_STUDY')
    expect(
      (await t.request('PUT', '/api/v1/offerTemplates/OF_REJECT', { lifeCycleStatus: 'rejected' })).body
        .lifeCycleStatus,
    ).toBe('REJECTED')
    const unknown = await t.request('PUT', '/api/v1/offerTemplates/OF_REJECT', { lifeCycleStatus: 'PAUSED' })
    expect(unknown.status).toBe(400)
  })

  it('deletes only offers that are not ACTIVE or LAUNCHED', async () => {
    const active = await t.request('DELETE', '/api/v1/offerTemplates/OF_START_ACTIVE')
    expect(active.status).toBe(409)
    expect(active.body.message).toBe('Offer OF_START_ACTIVE is ACTIVE: retire it before deleting it')
    expect((await t.request('DELETE', '/api/v1/offerTemplates/OF_REJECT')).status).toBe(204)
    expect((await t.request('DELETE', '/api/v1/offerTemplates/OF_REJECT')).status).toBe(404)
    expect((await t.request('DELETE', '/api/v1/serviceTemplates/SE_SUPPORT')).status).toBe(409)
    expect((await t.request('DELETE', '/api/v1/products/PR_A')).status).toBe(409)
  })

  it('needs catalog.offers.* roles', async () => {
    const viewer = await t.tokenWithRoles(['catalog.offers.view'])
    expect((await t.requestAs(viewer, 'GET', '/api/v1/offerTemplates/OF_NET')).status).toBe(200)
    expect((await t.requestAs(viewer, 'PUT', '/api/v1/offerTemplates/OF_NET', { name: 'x' })).status).toBe(403)
    const products = await t.tokenWithRoles(['catalog.products.view'])
    expect((await t.requestAs(products, 'GET', '/api/v1/offerTemplates')).status).toBe(403)
  })
})
