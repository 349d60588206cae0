import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'
import { attribute, charge, created, seedReferenceData } from './catalog-fixtures.ts'

const t = useTestApp()

beforeAll(async () => {
  await seedReferenceData(t)
  await created(t, 'POST', '/api/v1/charges', charge('CH_FEE', 'ONESHOT'))
  await created(t, 'POST', '/api/v1/charges', charge('CH_MONTH', 'RECURRING'))
})

describe('attributes', () => {
  it('creates a LIST_TEXT attribute with the response fields of §2.1', async () => {
    const body = await created(t, 'POST', '/api/v1/attributes', attribute('TIER', ['GOLD', 'SILVER']))
    expect(body).toMatchObject({
      id: expect.any(Number),
      code: 'TIER',
      description: 'TIER attribute',
      attributeType: 'LIST_TEXT',
      attributeCategory: 'REGULAR',
      disabled: false,
      allowedValues: ['GOLD', 'SILVER'],
      unitNbDecimal: 0,
    })
    expect(body.auditable).toMatchObject({ created: expect.stringMatching(/Z$/), updated: null })
    expect((await t.request('GET', '/api/v1/attributes/TIER')).body).toEqual(body)
  })

  it.each(['TEXT', 'NUMERIC', 'INTEGER', 'BOOLEAN', 'DATE'])(
    'creates a %s attribute without allowed values',
    async (type) => {
      const body = await created(t, 'POST', '/api/v1/attributes', {
        code: `A_${type}`,
        attributeType: type,
        unitNbDecimal: 2,
      })
      expect(body).toMatchObject({ attributeType: type, allowedValues: [], unitNbDecimal: 2 })
    },
  )

  it.each([
    [{ code: 'L1', attributeType: 'LIST_TEXT' }, 'allowedValues', 'a LIST_TEXT attribute needs allowed values'],
    [{ code: 'L2', attributeType: 'TEXT', allowedValues: ['A'] }, 'allowedValues', 'only LIST_TEXT'],
    [
      { code: 'L3', attributeType: 'LIST_NUMERIC', allowedValues: ['1', 'two'] },
      'allowedValues[1]',
      'expected a number',
    ],
    [
      { code: 'L4', attributeType: 'LIST_TEXT', allowedValues: ['A', 'A'] },
      'allowedValues',
      'expected entries without duplicates',
    ],
    [{ code: 'L5', attributeType: 'COLOUR' }, 'attributeType', 'expected one of'],
    [{ code: 'L6', attributeType: 'TEXT', unitNbDecimal: 13 }, 'unitNbDecimal', 'expected a number of 12 or less'],
    [{ code: 'L7', attributeType: 'TEXT', shade: 'blue' }, 'shade', 'is not a known field'],
  ])('refuses %j naming the field', async (body, field, message) => {
    const response = await t.request('POST', '/api/v1/attributes', body)
    expect(response.status).toBe(400)
    expect(response.body.details).toContainEqual({ field, message: expect.stringContaining(message) })
  })

  it('lists, updates and refuses duplicates', async () => {
    const list = await t.request('GET', '/api/v1/attributes?limit=50')
    expect(list.body.data.map((a: { code: string }) => a.code)).toContain('TIER')
    const updated = await t.request('PUT', '/api/v1/attributes/TIER', { allowedValues: ['GOLD', 'SILVER', 'BRONZE'] })
    expect(updated.status).toBe(200)
    expect(updated.body.allowedValues).toEqual(['GOLD', 'SILVER', 'BRONZE'])
    expect((await t.request('PUT', '/api/v1/attributes/TIER', { allowedValues: [] })).status).toBe(400)
    expect((await t.request('POST', '/api/v1/attributes', attribute('TIER', ['X']))).status).toBe(409)
  })
})

describe('products and versions', () => {
  it('creates a product and DRAFT versions numbered in turn', async () => {
    const product = await created(t, 'POST', '/api/v1/products', {
      code: 'PR_NET',
      description: 'Internet',
      name: 'Net',
    })
    expect(product).toMatchObject({ code: 'PR_NET', name: 'Net', productLine: null })
    const v1 = await created(t, 'POST', '/api/v1/products/PR_NET/versions', {
      shortDescription: 'First',
      validFrom: '2026-01-01',
    })
    expect(v1).toMatchObject({
      code: 'PR_NET',
      productCode: 'PR_NET',
      version: 1,
      status: 'DRAFT',
      shortDescription: 'First',
      validFrom: '2026-01-01',
      validTo: null,
      attributes: [],
      charges: [],
    })
    const v2 = await created(t, 'POST', '/api/v1/products/PR_NET/versions', { shortDescription: 'Second' })
    expect(v2).toMatchObject({ version: 2, status: 'DRAFT', validFrom: null })
    const dated = await t.request('PUT', '/api/v1/products/PR_NET/versions/2', { validFrom: '2026-03-01T10:00:00Z' })
    expect(dated.body.validFrom).toBe('2026-03-01')
    expect(
      (await t.request('PUT', '/api/v1/products/PR_NET/versions/2', { validFrom: null })).body.validFrom,
    ).toBeNull()
    const list = await t.request('GET', '/api/v1/products/PR_NET/versions')
    expect(list.body.versions.map((v: { version: number }) => v.version)).toEqual([1, 2])
    expect((await t.request('POST', '/api/v1/products/PR_NONE/versions', {})).status).toBe(404)
    const inverted = await t.request('POST', '/api/v1/products/PR_NET/versions', {
      validFrom: '2026-02-01',
      validTo: '2026-01-01',
    })
    expect(inverted.status).toBe(400)
    expect(inverted.body.details[0].field).toBe('validTo')
  })

  it('links attributes and charges to a DRAFT version', async () => {
    const linked = await t.request('POST', '/api/v1/products/PR_NET/versions/1/attributes/TIER', {})
    expect(linked.status).toBe(200)
    expect(linked.body.attributes).toEqual(['TIER'])
    await t.request('POST', '/api/v1/products/PR_NET/versions/1/attributes/A_TEXT')
    expect((await t.request('POST', '/api/v1/products/PR_NET/versions/1/attributes/TIER', {})).body.attributes).toEqual(
      ['TIER', 'A_TEXT'],
    )
    const unlinked = await t.request('DELETE', '/api/v1/products/PR_NET/versions/1/attributes/A_TEXT')
    expect(unlinked.body.attributes).toEqual(['TIER'])
    const charges = await t.request('POST', '/api/v1/products/PR_NET/versions/1/charges/CH_FEE', {})
    expect(charges.status).toBe(200)
    await t.request('POST', '/api/v1/products/PR_NET/versions/1/charges/CH_MONTH', {})
    const version = await t.request('GET', '/api/v1/products/PR_NET/versions/1')
    expect(version.body).toMatchObject({ attributes: ['TIER'], charges: ['CH_FEE', 'CH_MONTH'] })
    expect((await t.request('POST', '/api/v1/products/PR_NET/versions/1/attributes/NOPE', {})).status).toBe(404)
    expect((await t.request('POST', '/api/v1/products/PR_NET/versions/1/charges/NOPE', {})).status).toBe(404)
    expect((await t.request('POST', '/api/v1/products/PR_NET/versions/9/charges/CH_FEE', {})).status).toBe(404)
    expect((await t.request('POST', '/api/v1/products/PR_NET/versions/1/charges/CH_FEE', { extra: 1 })).status).toBe(
      400,
    )
  })

  it('publishes version 1, after which its links cannot change (400 with the document’s message)', async () => {
    const published = await t.request('PUT', '/api/v1/products/PR_NET/versions/1/status?status=PUBLISHED')
    expect(published.status).toBe(200)
    expect(published.body).toMatchObject({ version: 1, status: 'PUBLISHED', validFrom: '2026-01-01', validTo: null })
    const attribute = await t.request('POST', '/api/v1/products/PR_NET/versions/1/attributes/A_TEXT', {})
    expect(attribute.status).toBe(400)
    expect(attribute.body.message).toBe('Cannot modify attributes on non-DRAFT version. Current status: PUBLISHED')
    const detach = await t.request('DELETE', '/api/v1/products/PR_NET/versions/1/attributes/TIER')
    expect(detach.body.message).toBe('Cannot modify attributes on non-DRAFT version. Current status: PUBLISHED')
    const charge = await t.request('POST', '/api/v1/products/PR_NET/versions/1/charges/CH_FEE', {})
    expect(charge.status).toBe(400)
    expect(charge.body.message).toBe('Cannot modify charges on non-DRAFT version. Current status: PUBLISHED')
    const edit = await t.request('PUT', '/api/v1/products/PR_NET/versions/1', { shortDescription: 'changed' })
    expect(edit.status).toBe(400)
    const again = await t.request('PUT', '/api/v1/products/PR_NET/versions/1/status?status=PUBLISHED')
    expect(again.status).toBe(409)
    expect((await t.request('DELETE', '/api/v1/products/PR_NET/versions/1')).status).toBe(409)
  })

  it('refuses to publish a version without a start date or starting at or before the predecessor (409)', async () => {
    const noStart = await t.request('PUT', '/api/v1/products/PR_NET/versions/2/status?status=PUBLISHED')
    expect(noStart.status).toBe(409)
    expect(noStart.body.message).toBe(
      'Cannot publish version 2 of product PR_NET: version 2 has no start date (validFrom), so it cannot follow published version 1',
    )
    for (const validFrom of ['2026-01-01', '2025-12-01']) {
      expect((await t.request('PUT', '/api/v1/products/PR_NET/versions/2', { validFrom })).status).toBe(200)
      const early = await t.request('PUT', '/api/v1/products/PR_NET/versions/2/status?status=PUBLISHED')
      expect(early.status).toBe(409)
      expect(early.body.message).toContain('at or before the start of published version 1 (2026-01-01)')
    }
    expect((await t.request('PUT', '/api/v1/products/PR_NET/versions/2/status?status=DRAFT')).status).toBe(400)
    expect((await t.request('PUT', '/api/v1/products/PR_NET/versions/2/status')).status).toBe(400)
  })

  it('starts a first version published without a start date on the publish day, in the tenant time zone', async () => {
    // Kiritimati is UTC+14: its day differs from the UTC day for 14 hours of every day.
    const zone = 'Pacific/Kiritimati'
    expect((await t.request('PUT', '/api/v1/tenantSettings', { timeZone: zone })).status).toBe(200)
    try {
      await created(t, 'POST', '/api/v1/products', { code: 'PR_UNDATED', name: 'Undated' })
      await created(t, 'POST', '/api/v1/products/PR_UNDATED/versions', { shortDescription: 'first, undated' })
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: zone, dateStyle: 'short' }).format(new Date())
      const published = await t.request('PUT', '/api/v1/products/PR_UNDATED/versions/1/status?status=PUBLISHED')
      expect(published.status, JSON.stringify(published.body)).toBe(200)
      expect(published.body).toMatchObject({ version: 1, status: 'PUBLISHED', validFrom: today, validTo: null })
      // A later version still needs its own start date.
      await created(t, 'POST', '/api/v1/products/PR_UNDATED/versions', { shortDescription: 'second, undated' })
      const second = await t.request('PUT', '/api/v1/products/PR_UNDATED/versions/2/status?status=PUBLISHED')
      expect(second.status).toBe(409)
      expect(second.body.message).toContain('has no start date (validFrom), so it cannot follow published version 1')
      // A first version without start that has already ended cannot start today.
      await created(t, 'POST', '/api/v1/products', { code: 'PR_ENDED', name: 'Ended' })
      await created(t, 'POST', '/api/v1/products/PR_ENDED/versions', { validTo: '2020-01-01' })
      const ended = await t.request('PUT', '/api/v1/products/PR_ENDED/versions/1/status?status=PUBLISHED')
      expect(ended.status).toBe(409)
      expect(ended.body.message).toContain('ends on 2020-01-01')
      expect((await t.request('GET', '/api/v1/products/PR_ENDED/versions/1')).body).toMatchObject({
        status: 'DRAFT',
        validFrom: null,
      })
    } finally {
      expect((await t.request('PUT', '/api/v1/tenantSettings', { timeZone: 'UTC' })).status).toBe(200)
    }
  })

  it('publishes successive versions on an end-exclusive timeline without overlap', async () => {
    await t.request('PUT', '/api/v1/products/PR_NET/versions/2', { validFrom: '2026-04-01' })
    expect((await t.request('PUT', '/api/v1/products/PR_NET/versions/2/status?status=PUBLISHED')).status).toBe(200)
    await created(t, 'POST', '/api/v1/products/PR_NET/versions', { validFrom: '2026-09-01', shortDescription: 'Third' })
    expect((await t.request('PUT', '/api/v1/products/PR_NET/versions/3/status?status=PUBLISHED')).status).toBe(200)
    const versions = (await t.request('GET', '/api/v1/products/PR_NET/versions')).body.versions
    expect(versions.map((v: Record<string, unknown>) => [v.version, v.status, v.validFrom, v.validTo])).toEqual([
      [1, 'PUBLISHED', '2026-01-01', '2026-04-01'],
      [2, 'PUBLISHED', '2026-04-01', '2026-09-01'],
      [3, 'PUBLISHED', '2026-09-01', null],
    ])
  })

  it('deletes a DRAFT version, and refuses to delete a product that has versions', async () => {
    await created(t, 'POST', '/api/v1/products/PR_NET/versions', {})
    expect((await t.request('DELETE', '/api/v1/products/PR_NET/versions/4')).status).toBe(204)
    expect((await t.request('GET', '/api/v1/products/PR_NET/versions/4')).status).toBe(404)
    const inUse = await t.request('DELETE', '/api/v1/products/PR_NET')
    expect(inUse.status).toBe(409)
    expect(inUse.body.message).toBe('product PR_NET is still referenced by a product version')
  })

  it('protects charges and attributes that product versions use', async () => {
    const charge = await t.request('DELETE', '/api/v1/charges/CH_FEE')
    expect(charge.status).toBe(409)
    expect(charge.body.errorCode).toBe('ENTITY_IN_USE')
    expect((await t.request('DELETE', '/api/v1/attributes/TIER')).status).toBe(409)
  })

  it('links discount plans to products', async () => {
    await created(t, 'POST', '/api/v1/discountPlans', { code: 'DP_PROD', discountPlanType: 'PRODUCT' })
    const linked = await t.request('POST', '/api/v1/products/PR_NET/discountPlans/DP_PROD')
    expect(linked.status).toBe(200)
    expect(linked.body).toEqual({ productCode: 'PR_NET', discountPlans: ['DP_PROD'] })
    expect((await t.request('POST', '/api/v1/products/PR_NET/discountPlans/DP_PROD', {})).body.discountPlans).toEqual([
      'DP_PROD',
    ])
    expect((await t.request('GET', '/api/v1/products/PR_NET/discountPlans')).body.discountPlans).toEqual(['DP_PROD'])
    expect((await t.request('POST', '/api/v1/products/PR_NET/discountPlans/DP_NONE')).status).toBe(404)
    expect((await t.request('POST', '/api/v1/products/PR_NONE/discountPlans/DP_PROD')).status).toBe(404)
    expect((await t.request('DELETE', '/api/v1/discountPlans/DP_PROD')).status).toBe(409)
    const unlinked = await t.request('DELETE', '/api/v1/products/PR_NET/discountPlans/DP_PROD')
    expect(unlinked.body.discountPlans).toEqual([])
  })

  it('reads product versions through the Query API', async () => {
    const filters = encodeURIComponent(JSON.stringify({ 'product.code': 'PR_NET', status: 'PUBLISHED' }))
    const query = await t.request('GET', `/api/v1/query/productVersion?filters=${filters}&sortBy=version`)
    expect(query.status, JSON.stringify(query.body)).toBe(200)
    expect(query.body.data.map((v: { version: number }) => v.version)).toEqual([1, 2, 3])
  })

  it('guards products with catalog.products.* roles', async () => {
    const viewer = await t.tokenWithRoles(['catalog.products.view'])
    expect((await t.requestAs(viewer, 'GET', '/api/v1/products/PR_NET/versions')).status).toBe(200)
    expect((await t.requestAs(viewer, 'POST', '/api/v1/products/PR_NET/versions', {})).status).toBe(403)
    expect((await t.requestAs(viewer, 'POST', '/api/v1/attributes', attribute('X', ['A']))).status).toBe(403)
    const charges = await t.tokenWithRoles(['catalog.charges.manage'])
    expect(
      (await t.requestAs(charges, 'PUT', '/api/v1/products/PR_NET/versions/2/status?status=PUBLISHED')).status,
    ).toBe(403)
  })
})
