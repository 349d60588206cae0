import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'
import { created, seedReferenceData } from './catalog-fixtures.ts'

const t = useTestApp()

beforeAll(async () => {
  await seedReferenceData(t)
})

describe('discount plans', () => {
  it('creates a DRAFT plan with the response fields of §2.5', async () => {
    const plan = await created(t, 'POST', '/api/v1/discountPlans', {
      code: 'DP_WELCOME',
      description: 'Welcome',
      discountPlanType: 'OFFER',
    })
    expect(plan).toEqual({
      id: expect.any(Number),
      code: 'DP_WELCOME',
      description: 'Welcome',
      discountPlanType: 'OFFER',
      status: 'DRAFT',
      statusDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      initialQuantity: 0,
      usedQuantity: 0,
      applicationLimit: 0,
      automaticApplication: false,
      sequence: 0,
      auditable: expect.objectContaining({ creator: 'service-account-test-admin' }),
    })
  })

  it.each([
    [{ code: 'DP_X', status: 'ACTIVE' }, 'status', 'is not a known field'],
    [{ code: 'DP_X', usedQuantity: 3 }, 'usedQuantity', 'is not a known field'],
    [{ code: 'DP_X', discountPlanType: 'FOREVER' }, 'discountPlanType', 'expected one of'],
    [{ code: 'DP_X', applicationLimit: -1 }, 'applicationLimit', 'expected a number of 0 or more'],
  ])('refuses %j naming the field', async (body, field, message) => {
    const response = await t.request('POST', '/api/v1/discountPlans', body)
    expect(response.status).toBe(400)
    expect(response.body.details).toContainEqual({ field, message: expect.stringContaining(message) })
  })

  it('upserts: the create branch answers 201, the update branch 200', async () => {
    const createdPlan = await t.request('POST', '/api/v1/discountPlans/DP_UPSERT', {
      description: 'First',
      discountPlanType: 'PRODUCT',
      sequence: 2,
    })
    expect(createdPlan.status).toBe(201)
    expect(createdPlan.body).toMatchObject({ code: 'DP_UPSERT', status: 'DRAFT', sequence: 2 })
    const updated = await t.request('POST', '/api/v1/discountPlans/DP_UPSERT', {
      code: 'DP_UPSERT',
      description: 'Second',
      applicationLimit: 3,
    })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({
      description: 'Second',
      applicationLimit: 3,
      sequence: 2,
      discountPlanType: 'PRODUCT',
    })
    const mismatch = await t.request('POST', '/api/v1/discountPlans/DP_UPSERT', { code: 'OTHER' })
    expect(mismatch.status).toBe(400)
    expect(mismatch.body.details[0].field).toBe('code')
  })

  it('refuses to activate a plan without items (409), then activates it once it has one', async () => {
    const empty = await t.request('PUT', '/api/v1/discountPlans/DP_WELCOME/activate')
    expect(empty.status).toBe(409)
    expect(empty.body).toMatchObject({
      errorCode: 'INVALID_STATE',
      message: 'Discount plan DP_WELCOME has no item: add one before activating it',
    })
    const item = await created(t, 'POST', '/api/v1/discountPlans/DP_WELCOME/items', {
      code: 'ITEM_10',
      description: '10 % off',
      discountPlanItemType: 'PERCENTAGE',
      discountValue: 10,
      accountingArticle: 'ART_DISCOUNT',
    })
    expect(item).toMatchObject({
      code: 'ITEM_10',
      discountPlanCode: 'DP_WELCOME',
      discountPlanItemType: 'PERCENTAGE',
      discountValue: 10,
      accountingArticle: 'ART_DISCOUNT',
      sequence: 0,
    })
    const before = (await t.request('GET', '/api/v1/discountPlans/DP_WELCOME')).body.statusDate
    const active = await t.request('PUT', '/api/v1/discountPlans/DP_WELCOME/activate')
    expect(active.status).toBe(200)
    expect(active.body.status).toBe('ACTIVE')
    expect(active.body.statusDate >= before).toBe(true)
    expect((await t.request('PUT', '/api/v1/discountPlans/DP_WELCOME/activate', {})).body.status).toBe('ACTIVE')
    expect((await t.request('PUT', '/api/v1/discountPlans/DP_NONE/activate')).status).toBe(404)
  })

  it('creates and updates FIXED and PERCENTAGE items with their rules', async () => {
    const fixed = await created(t, 'POST', '/api/v1/discountPlans/DP_WELCOME/items', {
      code: 'ITEM_5',
      discountPlanItemType: 'FIXED',
      discountValue: '5.50',
    })
    expect(fixed).toMatchObject({ discountValue: 5.5, accountingArticle: null, sequence: 1 })
    const updated = await t.request('PUT', '/api/v1/discountPlans/DP_WELCOME/items/ITEM_5', {
      discountValue: 250,
      accountingArticle: 'ART_DISCOUNT',
    })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({
      discountPlanItemType: 'FIXED',
      discountValue: 250,
      accountingArticle: 'ART_DISCOUNT',
    })
    const percentage = await t.request('PUT', '/api/v1/discountPlans/DP_WELCOME/items/ITEM_5', {
      discountPlanItemType: 'PERCENTAGE',
    })
    expect(percentage.status).toBe(400)
    expect(percentage.body.details).toEqual([{ field: 'discountValue', message: 'expected a value of at most 100' }])
    const items = await t.request('GET', '/api/v1/discountPlans/DP_WELCOME/items')
    expect(items.body.items.map((i: { code: string }) => i.code)).toEqual(['ITEM_10', 'ITEM_5'])
    expect((await t.request('GET', '/api/v1/discountPlans/DP_WELCOME/items/ITEM_5')).body.discountValue).toBe(250)
  })

  it.each([
    [{ code: 'I1', discountPlanItemType: 'PERCENTAGE', discountValue: 0 }, 'discountValue', 'greater than 0'],
    [{ code: 'I1', discountPlanItemType: 'PERCENTAGE', discountValue: 100.01 }, 'discountValue', 'at most 100'],
    [{ code: 'I1', discountPlanItemType: 'FIXED', discountValue: -5 }, 'discountValue', 'greater than 0'],
    [{ code: 'I1', discountPlanItemType: 'BOGOF', discountValue: 5 }, 'discountPlanItemType', 'expected one of'],
    [
      { code: 'I1', discountPlanItemType: 'FIXED', discountValue: 5, accountingArticle: 'NOPE' },
      'accountingArticle',
      "no accounting article with code 'NOPE'",
    ],
    [{ code: 'I1', discountPlanItemType: 'FIXED' }, 'discountValue', 'is required'],
    [{ code: 'I1', discountPlanItemType: 'FIXED', discountValue: 5, colour: 'red' }, 'colour', 'is not a known field'],
  ])('refuses the item %j naming the field', async (body, field, message) => {
    const response = await t.request('POST', '/api/v1/discountPlans/DP_WELCOME/items', body)
    expect(response.status).toBe(400)
    expect(response.body.details).toContainEqual({ field, message: expect.stringContaining(message) })
  })

  it('refuses a duplicate item (409), unknown items and plans (404)', async () => {
    const duplicate = await t.request('POST', '/api/v1/discountPlans/DP_WELCOME/items', {
      code: 'ITEM_10',
      discountPlanItemType: 'FIXED',
      discountValue: 1,
    })
    expect(duplicate.status).toBe(409)
    expect((await t.request('PUT', '/api/v1/discountPlans/DP_WELCOME/items/NOPE', { discountValue: 1 })).status).toBe(
      404,
    )
    expect(
      (
        await t.request('POST', '/api/v1/discountPlans/DP_NONE/items', {
          code: 'A',
          discountPlanItemType: 'FIXED',
          discountValue: 1,
        })
      ).status,
    ).toBe(404)
  })

  it('keeps at least one item on an ACTIVE plan', async () => {
    expect((await t.request('DELETE', '/api/v1/discountPlans/DP_WELCOME/items/ITEM_5')).status).toBe(204)
    const last = await t.request('DELETE', '/api/v1/discountPlans/DP_WELCOME/items/ITEM_10')
    expect(last.status).toBe(409)
    expect(last.body.message).toBe('Discount plan DP_WELCOME is ACTIVE and ITEM_10 is its last item')
  })

  it('lists only the plans an order may apply now when asked (usable=true), the others with usable=false', async () => {
    const usable = await t.request('GET', '/api/v1/discountPlans?usable=true&sortBy=code')
    expect(usable.status, JSON.stringify(usable.body)).toBe(200)
    expect(usable.body.data.map((p: { code: string; status: string }) => [p.code, p.status])).toEqual([
      ['DP_WELCOME', 'ACTIVE'],
    ])
    expect(usable.body.total).toBe(1)
    const others = await t.request('GET', '/api/v1/discountPlans?usable=false&sortBy=code')
    expect(others.body.data.map((p: { code: string; status: string }) => [p.code, p.status])).toEqual([
      ['DP_UPSERT', 'DRAFT'],
    ])
    expect(others.body.total).toBe(1)
    const bad = await t.request('GET', '/api/v1/discountPlans?usable=soon')
    expect(bad.status).toBe(400)
    expect(bad.body.details).toEqual([{ field: 'usable', message: 'query parameter expected true or false' }])
    // The filter is a read of the plans: their view role, nothing less.
    const offers = await t.tokenWithRoles(['catalog.offers.manage'])
    expect((await t.requestAs(offers, 'GET', '/api/v1/discountPlans?usable=true')).status).toBe(403)
    const viewer = await t.tokenWithRoles(['catalog.discounts.view'])
    expect((await t.requestAs(viewer, 'GET', '/api/v1/discountPlans?usable=true')).body.total).toBe(1)
  })

  it('lists, partially updates and deletes plans', async () => {
    const list = await t.request('GET', '/api/v1/discountPlans?sortBy=code')
    expect(list.body.data.map((p: { code: string }) => p.code)).toEqual(['DP_UPSERT', 'DP_WELCOME'])
    const updated = await t.request('PUT', '/api/v1/discountPlans/DP_WELCOME', {
      automaticApplication: true,
      initialQuantity: 100,
    })
    expect(updated.body).toMatchObject({ automaticApplication: true, initialQuantity: 100, status: 'ACTIVE' })
    expect((await t.request('DELETE', '/api/v1/discountPlans/DP_UPSERT')).status).toBe(204)
    expect((await t.request('GET', '/api/v1/discountPlans/DP_UPSERT')).status).toBe(404)
  })

  it('reads plans and items through the Query API', async () => {
    const filters = encodeURIComponent(JSON.stringify({ 'discountPlan.code': 'DP_WELCOME' }))
    const items = await t.request('GET', `/api/v1/query/discountPlanItem?filters=${filters}`)
    expect(items.status, JSON.stringify(items.body)).toBe(200)
    expect(items.body.data.map((i: { code: string }) => i.code)).toEqual(['ITEM_10'])
  })

  it('needs catalog.discounts.* roles', async () => {
    const viewer = await t.tokenWithRoles(['catalog.discounts.view'])
    expect((await t.requestAs(viewer, 'GET', '/api/v1/discountPlans/DP_WELCOME/items')).status).toBe(200)
    expect((await t.requestAs(viewer, 'PUT', '/api/v1/discountPlans/DP_WELCOME/activate')).status).toBe(403)
    const offers = await t.tokenWithRoles(['catalog.offers.manage'])
    expect((await t.requestAs(offers, 'POST', '/api/v1/discountPlans', { code: 'DP_Z' })).status).toBe(403)
  })
})
