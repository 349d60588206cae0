import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'
import { attribute, charge, created, seedReferenceData } from './catalog-fixtures.ts'

const t = useTestApp()

beforeAll(async () => {
  await seedReferenceData(t)
  await created(t, 'POST', '/api/v1/attributes', attribute('TIER', ['GOLD', 'SILVER', 'BRONZE']))
  await created(t, 'POST', '/api/v1/attributes', attribute('REGION', ['EU', 'US', 'APAC']))
  await created(t, 'POST', '/api/v1/attributes', { code: 'USERS', description: 'Users', attributeType: 'INTEGER' })
})

const draft = (code: string, body: Record<string, unknown>) =>
  t.request('PUT', `/api/v1/charges/${code}/pricing/draft`, body)
const publish = (code: string) => t.request('POST', `/api/v1/charges/${code}/pricing/publish`, {})
const versionsOf = async (code: string): Promise<any> =>
  (await t.request('GET', `/api/v1/charges/${code}/pricing`)).body.pricingVersions

describe('charges', () => {
  it('creates a charge in DRAFT with its own accounting article', async () => {
    const body = await created(
      t,
      'POST',
      '/api/v1/charges',
      charge('CH_SETUP', 'ONESHOT', { description: 'Setup fee' }),
    )
    expect(body).toMatchObject({
      code: 'CH_SETUP',
      description: 'Setup fee',
      type: 'ONESHOT',
      oneShotType: 'SUBSCRIPTION',
      status: 'DRAFT',
      invoiceSubCategory: 'SUB_ONE',
      taxClass: 'NORMAL',
      billingCalendar: null,
      subscriptionProrata: false,
      accountingArticle: 'CH_SETUP',
    })
    expect(body.auditable).toMatchObject({ creator: 'service-account-test-admin', updated: null })
    const articles = await t.request('GET', '/api/v1/charges/CH_SETUP/articles')
    expect(articles.status).toBe(200)
    expect(articles.body).toEqual([
      expect.objectContaining({ code: 'CH_SETUP', invoiceSubCategory: 'SUB_ONE', taxClass: 'NORMAL' }),
    ])
    expect((await t.request('GET', '/api/v1/charges/CH_SETUP')).body).toEqual(body)
  })

  it('refuses a RECURRING charge without a billing calendar, naming the calendar', async () => {
    const { billingCalendar: _omitted, ...body } = charge('CH_NOCAL', 'RECURRING')
    const response = await t.request('POST', '/api/v1/charges', body)
    expect(response.status).toBe(400)
    expect(response.body.errorCode).toBe('VALIDATION_FAILED')
    expect(response.body.message).toContain('calendar')
    expect(response.body.details).toEqual([
      { field: 'billingCalendar', message: 'the calendar is required for a RECURRING charge' },
    ])
  })

  it('names the calendar even when other required fields are missing too', async () => {
    const response = await t.request('POST', '/api/v1/charges', { code: 'CH_BARE', type: 'RECURRING' })
    expect(response.status).toBe(400)
    expect(response.body.message).toContain('calendar')
    expect(response.body.details.map((d: { field: string }) => d.field)).toEqual([
      'billingCalendar',
      'invoiceSubCategory',
      'taxClass',
    ])
    expect((await t.request('GET', '/api/v1/charges/CH_BARE')).status).toBe(404)
  })

  it('names every unknown reference', async () => {
    const response = await t.request(
      'POST',
      '/api/v1/charges',
      charge('CH_REFS', 'USAGE', {
        invoiceSubCategory: 'NO_SUB',
        taxClass: 'NO_TAX',
        inputUnitOfMeasure: 'PARSEC',
        ratingUnitOfMeasure: 'MB',
      }),
    )
    expect(response.status).toBe(400)
    expect(response.body.details).toEqual([
      { field: 'invoiceSubCategory', message: "no invoice sub-category with code 'NO_SUB'" },
      { field: 'taxClass', message: "no tax class with code 'NO_TAX'" },
      { field: 'inputUnitOfMeasure', message: "no unit of measure with code 'PARSEC'" },
    ])
    const calendar = await t.request(
      'POST',
      '/api/v1/charges',
      charge('CH_REFS', 'RECURRING', { billingCalendar: 'LUNAR' }),
    )
    expect(calendar.body.details).toEqual([{ field: 'billingCalendar', message: "no calendar with code 'LUNAR'" }])
    expect(calendar.body.message).toContain('calendar')
    expect((await t.request('GET', '/api/v1/charges/CH_REFS')).status).toBe(404)
  })

  it.each([
    [{ colour: 'red' }, 'colour', 'is not a known field'],
    [{ type: 'SOMETIMES' }, 'type', 'expected one of RECURRING, USAGE, ONESHOT'],
    [{ inputUnitOfMeasure: 'MB' }, 'inputUnitOfMeasure', 'only USAGE charges take an input unit of measure'],
    [{ subscriptionProrata: true }, 'subscriptionProrata', 'only RECURRING charges take subscriptionProrata'],
    [{ billingCalendar: 'MONTHLY' }, 'billingCalendar', 'only RECURRING charges take a billing calendar'],
    [{ code: 'bad code' }, 'code', 'expected a code: letters, digits, _, . and -, starting with a letter or a digit'],
  ])('refuses %j with a 400 naming the field', async (extra, field, message) => {
    const response = await t.request('POST', '/api/v1/charges', charge('CH_BAD', 'ONESHOT', extra))
    expect(response.status).toBe(400)
    expect(response.body.details).toContainEqual({ field, message: expect.stringContaining(message) })
  })

  it('refuses a duplicate code with 409, and a charge whose code is taken by an accounting article', async () => {
    const duplicate = await t.request('POST', '/api/v1/charges', charge('CH_SETUP', 'ONESHOT'))
    expect(duplicate.status).toBe(409)
    expect(duplicate.body).toMatchObject({
      errorCode: 'ENTITY_ALREADY_EXISTS',
      message: 'Charge CH_SETUP already exists',
    })
    const article = await t.request('POST', '/api/v1/charges', charge('ART_DISCOUNT', 'ONESHOT'))
    expect(article.status).toBe(409)
    expect(article.body.message).toContain('Accounting article ART_DISCOUNT already exists')
  })

  it('updates partially: the type cannot change and the article follows the tax class', async () => {
    await created(
      t,
      'POST',
      '/api/v1/charges',
      charge('CH_UPD', 'USAGE', { inputUnitOfMeasure: 'MB', filterParam1: 'DATA' }),
    )
    const updated = await t.request('PUT', '/api/v1/charges/CH_UPD', {
      taxClass: 'REDUCED',
      ratingUnitOfMeasure: 'GB',
      inputUnitOfMeasure: null,
    })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({
      taxClass: 'REDUCED',
      ratingUnitOfMeasure: 'GB',
      inputUnitOfMeasure: null,
      filterParam1: 'DATA',
    })
    expect(updated.body.auditable.updater).toBe('service-account-test-admin')
    expect((await t.request('GET', '/api/v1/charges/CH_UPD/articles')).body[0].taxClass).toBe('REDUCED')
    const retype = await t.request('PUT', '/api/v1/charges/CH_UPD', { type: 'RECURRING' })
    expect(retype.status).toBe(400)
    expect(retype.body.details[0].field).toBe('type')
    expect((await t.request('PUT', '/api/v1/charges/CH_UPD', { type: 'USAGE' })).status).toBe(200)
    expect((await t.request('PUT', '/api/v1/charges/CH_UPD', { taxClass: null })).status).toBe(400)
    expect((await t.request('PUT', '/api/v1/charges/CH_NONE', { description: 'x' })).status).toBe(404)
  })

  it('lists charges and deletes an unused one with its article', async () => {
    const list = await t.request('GET', '/api/v1/charges?limit=100')
    expect(list.status).toBe(200)
    expect(list.body.data.map((c: { code: string }) => c.code)).toEqual(expect.arrayContaining(['CH_SETUP', 'CH_UPD']))
    await created(t, 'POST', '/api/v1/charges', charge('CH_GONE', 'ONESHOT', { oneShotType: 'TERMINATION' }))
    expect((await t.request('DELETE', '/api/v1/charges/CH_GONE')).status).toBe(204)
    expect((await t.request('GET', '/api/v1/charges/CH_GONE')).status).toBe(404)
    expect((await t.request('GET', '/api/v1/accountingArticles/CH_GONE')).status).toBe(404)
    expect((await t.request('DELETE', '/api/v1/charges/CH_GONE')).status).toBe(404)
  })
  it('keeps the article of a deleted charge when something else still uses it', async () => {
    await created(t, 'POST', '/api/v1/charges', charge('CH_KEEP', 'ONESHOT'))
    await created(t, 'POST', '/api/v1/discountPlans', { code: 'DP_KEEP' })
    await created(t, 'POST', '/api/v1/discountPlans/DP_KEEP/items', {
      code: 'I1',
      discountPlanItemType: 'FIXED',
      discountValue: 1,
      accountingArticle: 'CH_KEEP',
    })
    expect((await t.request('DELETE', '/api/v1/charges/CH_KEEP')).status).toBe(204)
    expect((await t.request('GET', '/api/v1/charges/CH_KEEP')).status).toBe(404)
    expect((await t.request('GET', '/api/v1/accountingArticles/CH_KEEP')).status).toBe(200)
  })
})

describe('pricing versions', () => {
  it('publishes a FLAT draft: version PUBLISHED, charge ACTIVE', async () => {
    const saved = await draft('CH_SETUP', {
      pricingModel: 'FLAT',
      currency: 'EUR',
      validFrom: '2026-01-01',
      price: 49.99,
    })
    expect(saved.status).toBe(201)
    expect(saved.body.pricingVersions).toEqual([
      expect.objectContaining({
        version: 1,
        status: 'DRAFT',
        pricingModel: 'FLAT',
        currency: 'EUR',
        validFrom: '2026-01-01',
        validTo: null,
        price: 49.99,
      }),
    ])
    expect(saved.body.pricingVersions[0]).not.toHaveProperty('price_fx')
    expect((await t.request('GET', '/api/v1/charges/CH_SETUP')).body.status).toBe('DRAFT')
    const published = await publish('CH_SETUP')
    expect(published.status).toBe(200)
    expect(published.body).toMatchObject({
      version: 1,
      status: 'PUBLISHED',
      chargeCode: 'CH_SETUP',
      chargeStatus: 'ACTIVE',
    })
    expect(published.body.publishedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect((await t.request('GET', '/api/v1/charges/CH_SETUP')).body.status).toBe('ACTIVE')
  })

  it('keeps one mutable draft: saving again replaces it under the same version number', async () => {
    await draft('CH_SETUP', { pricingModel: 'FLAT', currency: 'EUR', validFrom: '2026-04-01', price: '55' })
    const again = await draft('CH_SETUP', {
      pricingModel: 'FLAT',
      currency: 'USD',
      validFrom: '2026-05-01',
      price: '0.1',
    })
    expect(again.status).toBe(201)
    expect(again.body.pricingVersions.map((v: { version: number; status: string }) => [v.version, v.status])).toEqual([
      [1, 'PUBLISHED'],
      [2, 'DRAFT'],
    ])
    expect(again.body.pricingVersions[1]).toMatchObject({ currency: 'USD', validFrom: '2026-05-01', price: 0.1 })
    expect((await t.request('DELETE', '/api/v1/charges/CH_SETUP/pricing/draft')).status).toBe(204)
    expect((await versionsOf('CH_SETUP')).length).toBe(1)
    expect((await t.request('DELETE', '/api/v1/charges/CH_SETUP/pricing/draft')).status).toBe(404)
  })

  it('refuses to publish without a draft (409)', async () => {
    const response = await publish('CH_SETUP')
    expect(response.status).toBe(409)
    expect(response.body).toMatchObject({
      errorCode: 'INVALID_STATE',
      message: 'Charge CH_SETUP has no draft pricing version to publish',
    })
    expect((await publish('CH_NONE')).status).toBe(404)
  })

  it('builds a timeline of three versions, each publication closing its predecessor', async () => {
    await created(t, 'POST', '/api/v1/charges', charge('CH_TIMELINE', 'ONESHOT'))
    const steps = [
      ['2026-01-01', 10],
      ['2026-03-01', 12],
      ['2026-06-15', 15],
    ] as const
    for (const [validFrom, price] of steps) {
      await created(t, 'PUT', '/api/v1/charges/CH_TIMELINE/pricing/draft', {
        pricingModel: 'FLAT',
        currency: 'EUR',
        validFrom,
        price,
      })
      expect((await publish('CH_TIMELINE')).status).toBe(200)
    }
    const timeline = (await versionsOf('CH_TIMELINE')).map((v: Record<string, unknown>) => [
      v.version,
      v.status,
      v.validFrom,
      v.validTo,
      v.price,
    ])
    expect(timeline).toEqual([
      [1, 'PUBLISHED', '2026-01-01', '2026-03-01', 10],
      [2, 'PUBLISHED', '2026-03-01', '2026-06-15', 12],
      [3, 'PUBLISHED', '2026-06-15', null, 15],
    ])

    // The same timeline through the Query API.
    const filters = encodeURIComponent(JSON.stringify({ 'charge.code': 'CH_TIMELINE' }))
    const query = await t.request(
      'GET',
      `/api/v1/query/pricingVersion?filters=${filters}&sortBy=version&fields=version,status,validFrom,validTo`,
    )
    expect(query.status, JSON.stringify(query.body)).toBe(200)
    expect(query.body.data.map((v: Record<string, unknown>) => [v.version, v.validFrom, v.validTo])).toEqual([
      [1, '2026-01-01', '2026-03-01'],
      [2, '2026-03-01', '2026-06-15'],
      [3, '2026-06-15', null],
    ])
  })

  it.each([
    ['on the start of the latest version', '2026-06-15'],
    ['before the start of the latest version', '2026-02-01'],
    ['without a start date after published versions', null],
  ])('refuses to publish a version starting %s (409) and changes nothing', async (_case, validFrom) => {
    const before = await versionsOf('CH_TIMELINE')
    await created(t, 'PUT', '/api/v1/charges/CH_TIMELINE/pricing/draft', {
      pricingModel: 'FLAT',
      currency: 'EUR',
      validFrom,
      price: 1,
    })
    const response = await publish('CH_TIMELINE')
    expect(response.status).toBe(409)
    expect(response.body.errorCode).toBe('INVALID_STATE')
    expect(response.body.message).toContain('Cannot publish pricing version 4 of charge CH_TIMELINE')
    const after = await versionsOf('CH_TIMELINE')
    expect(after.slice(0, 3)).toEqual(before.slice(0, 3))
    expect(after[3]).toMatchObject({ version: 4, status: 'DRAFT' })
  })

  it('lets a first version without a start date open the timeline', async () => {
    await created(t, 'POST', '/api/v1/charges', charge('CH_OPEN', 'ONESHOT'))
    await created(t, 'PUT', '/api/v1/charges/CH_OPEN/pricing/draft', {
      pricingModel: 'FLAT',
      currency: 'EUR',
      price: 1,
    })
    expect((await publish('CH_OPEN')).status).toBe(200)
    await created(t, 'PUT', '/api/v1/charges/CH_OPEN/pricing/draft', {
      pricingModel: 'FLAT',
      currency: 'EUR',
      price: 2,
      validFrom: '2026-02-01',
    })
    expect((await publish('CH_OPEN')).status).toBe(200)
    expect((await versionsOf('CH_OPEN')).map((v: Record<string, unknown>) => [v.validFrom, v.validTo])).toEqual([
      [null, '2026-02-01'],
      ['2026-02-01', null],
    ])
  })

  it('refuses a price below zero, FLAT or a MATRIX row, naming the field (a reduction is a discount plan)', async () => {
    await created(t, 'POST', '/api/v1/charges', charge('CH_NEGATIVE', 'ONESHOT'))
    const flat = await draft('CH_NEGATIVE', {
      pricingModel: 'FLAT',
      currency: 'EUR',
      validFrom: '2026-01-01',
      price: -5,
    })
    expect(flat.status).toBe(400)
    expect(flat.body.errorCode).toBe('VALIDATION_FAILED')
    expect(flat.body.details).toEqual([
      { field: 'price', message: 'a price cannot be below zero (a reduction is a discount plan)' },
    ])
    const row = await draft('CH_NEGATIVE', {
      pricingModel: 'MATRIX',
      currency: 'EUR',
      validFrom: '2026-01-01',
      columns: [{ code: 'tier', type: 'String', attributeCode: 'TIER' }],
      rows: [
        { price: '10', values: [{ dimensionCode: 'tier', stringValue: 'GOLD' }] },
        { price: '-0.01', values: [{ dimensionCode: 'tier', stringValue: 'SILVER' }] },
      ],
    })
    expect(row.status).toBe(400)
    expect(row.body.details).toEqual([
      { field: 'rows[1].price', message: 'a price cannot be below zero (a reduction is a discount plan)' },
    ])
    // Nothing was saved; zero is a price (a free line), and saves.
    expect(await versionsOf('CH_NEGATIVE')).toEqual([])
    const free = await draft('CH_NEGATIVE', {
      pricingModel: 'FLAT',
      currency: 'EUR',
      validFrom: '2026-01-01',
      price: '0',
    })
    expect(free.status).toBe(201)
    expect(free.body.pricingVersions[0]).toMatchObject({ status: 'DRAFT', price: 0 })
  })

  it('stores a MATRIX with labels, range flags and allowed values from its attributes, and row priorities', async () => {
    await created(t, 'POST', '/api/v1/charges', charge('CH_PLAN', 'RECURRING'))
    const saved = await draft('CH_PLAN', {
      pricingModel: 'MATRIX',
      currency: 'EUR',
      validFrom: '2026-01-01',
      columns: [
        { code: 'tier', type: 'String', position: 0, attributeCode: 'TIER' },
        { code: 'region', type: 'String', position: 1, attributeCode: 'REGION' },
        { code: 'users', type: 'Range_Numeric', position: 2, attributeCode: 'USERS' },
      ],
      rows: [
        {
          price: 30,
          values: [
            { dimensionCode: 'tier', stringValue: 'GOLD' },
            { dimensionCode: 'region', stringValue: 'EU' },
          ],
        },
        {
          price: '25.5',
          values: [
            { dimensionCode: 'tier', stringValue: 'GOLD' },
            { dimensionCode: 'region', stringValue: '' },
            { dimensionCode: 'users', fromValue: 0, toValue: 10 },
          ],
        },
        {
          price: 20,
          values: [
            { dimensionCode: 'tier', stringValue: 'GOLD' },
            { dimensionCode: 'users', fromValue: 10 },
          ],
        },
        { price: 10, values: [] },
      ],
    })
    expect(saved.status, JSON.stringify(saved.body)).toBe(201)
    const [version] = saved.body.pricingVersions
    expect(version).toMatchObject({ version: 1, status: 'DRAFT', pricingModel: 'MATRIX', price: 0 })
    expect(version.columns).toEqual([
      {
        code: 'tier',
        type: 'String',
        position: 0,
        attributeCode: 'TIER',
        label: 'TIER attribute',
        isRange: false,
        allowedValues: ['GOLD', 'SILVER', 'BRONZE'],
      },
      {
        code: 'region',
        type: 'String',
        position: 1,
        attributeCode: 'REGION',
        label: 'REGION attribute',
        isRange: false,
        allowedValues: ['EU', 'US', 'APAC'],
      },
      {
        code: 'users',
        type: 'Range_Numeric',
        position: 2,
        attributeCode: 'USERS',
        label: 'Users',
        isRange: true,
        allowedValues: [],
      },
    ])
    expect(version.rows.map((r: { priority: number; price: number }) => [r.priority, r.price])).toEqual([
      [0, 30],
      [1, 25.5],
      [2, 20],
      [3, 10],
    ])
    expect(version.rows[1].values).toEqual([
      { dimensionCode: 'tier', stringValue: 'GOLD' },
      { dimensionCode: 'region', stringValue: '' },
      { dimensionCode: 'users', fromValue: 0, toValue: 10 },
    ])
    expect(version.rows[2].values[1]).toEqual({ dimensionCode: 'users', fromValue: 10, toValue: null })
    expect((await publish('CH_PLAN')).status).toBe(200)
  })

  it('keeps the allowed values a price matrix uses', async () => {
    const response = await t.request('PUT', '/api/v1/attributes/REGION', { allowedValues: ['US', 'APAC'] })
    expect(response.status).toBe(400)
    expect(response.body.details).toEqual([
      {
        field: 'allowedValues',
        message: "'EU' is not allowed any more: it is used by the price matrix of charge CH_PLAN (version 1)",
      },
    ])
    expect(
      (await t.request('PUT', '/api/v1/attributes/REGION', { allowedValues: ['EU', 'US', 'APAC', 'LATAM'] })).status,
    ).toBe(200)
  })

  const matrixDraft = (rows: unknown[], columns?: unknown[]) => ({
    pricingModel: 'MATRIX',
    currency: 'EUR',
    columns: columns ?? [
      { code: 'tier', type: 'String', attributeCode: 'TIER' },
      { code: 'users', type: 'Range_Numeric', attributeCode: 'USERS' },
    ],
    rows,
  })
  const cell = (tier: string, from?: number, to?: number) => [
    { dimensionCode: 'tier', stringValue: tier },
    { dimensionCode: 'users', fromValue: from ?? null, toValue: to ?? null },
  ]

  it.each([
    [
      'an unknown attribute',
      matrixDraft([{ price: 1 }], [{ code: 'x', type: 'String', attributeCode: 'NOPE' }]),
      'columns[0].attributeCode',
      "no attribute with code 'NOPE'",
    ],
    [
      'a value the attribute does not allow',
      matrixDraft([{ price: 1, values: cell('PLATINUM') }]),
      'rows[0].values[0].stringValue',
      "'PLATINUM' is not an allowed value of attribute TIER (GOLD, SILVER, BRONZE)",
    ],
    [
      'overlapping ranges',
      matrixDraft([
        { price: 1, values: cell('GOLD', 0, 10) },
        { price: 2, values: cell('GOLD', 5) },
      ]),
      'rows[1]',
      'overlaps rows[0]',
    ],
    [
      'duplicate rows',
      matrixDraft([
        { price: 1, values: cell('GOLD') },
        { price: 2, values: cell('GOLD') },
      ]),
      'rows[1]',
      'overlaps rows[0]',
    ],
    [
      'an unknown dimension',
      matrixDraft([{ price: 1, values: [{ dimensionCode: 'size', stringValue: 'L' }] }]),
      'rows[0].values[0].dimensionCode',
      "no column with code 'size'",
    ],
    [
      'an inverted range',
      matrixDraft([{ price: 1, values: cell('GOLD', 10, 5) }]),
      'rows[0].values[1].toValue',
      'expected toValue greater than fromValue',
    ],
    [
      'a formula',
      { ...matrixDraft([{ price: 1 }]), price_fx: '#{1}' },
      'price_fx',
      'does not apply to a MATRIX pricing',
    ],
    [
      'no rows',
      { pricingModel: 'MATRIX', currency: 'EUR', columns: [{ code: 'tier', type: 'String', attributeCode: 'TIER' }] },
      'rows',
      'a MATRIX pricing needs rows',
    ],
    ['a FLAT without price', { pricingModel: 'FLAT', currency: 'EUR' }, 'price', 'a FLAT pricing needs a price'],
    [
      'a FLAT with columns',
      { pricingModel: 'FLAT', currency: 'EUR', price: 1, columns: [] },
      'columns',
      'does not apply to a FLAT pricing',
    ],
    [
      'an unknown currency',
      { pricingModel: 'FLAT', currency: 'XXX', price: 1 },
      'currency',
      "no trading currency with code 'XXX'",
    ],
    [
      'a price with 13 decimals',
      { pricingModel: 'FLAT', currency: 'EUR', price: '0.1234567890123' },
      'price',
      'expected a decimal number: a JSON number, or a string of at most 18 integer digits and 12 decimals',
    ],
    [
      'an unknown field',
      { pricingModel: 'FLAT', currency: 'EUR', price: 1, discount: 5 },
      'discount',
      'is not a known field',
    ],
    ['an unknown row field', matrixDraft([{ price: 1, colour: 'red' }]), 'rows.0.colour', 'is not a known field'],
    [
      'a bad date',
      { pricingModel: 'FLAT', currency: 'EUR', price: 1, validFrom: '2026-13-01' },
      'validFrom',
      'expected a valid date',
    ],
  ])('refuses a draft with %s (400 naming it)', async (_case, body, field, message) => {
    await created(t, 'POST', '/api/v1/charges', charge('CH_INVALID', 'ONESHOT')).catch(() => undefined)
    const response = await draft('CH_INVALID', body)
    expect(response.status).toBe(400)
    expect(response.body.details).toContainEqual({ field, message: expect.stringContaining(message) })
    expect(await versionsOf('CH_INVALID')).toEqual([])
  })

  it('stores a FORMULA with price 0 and its price_fx; a syntax error is a 400 with the position', async () => {
    await created(
      t,
      'POST',
      '/api/v1/charges',
      charge('CH_DATA', 'USAGE', { inputUnitOfMeasure: 'MB', ratingUnitOfMeasure: 'MB' }),
    )
    const formula = '#{quantity > 1000 ? 0.008 : 0.01}'
    const saved = await draft('CH_DATA', {
      pricingModel: 'FORMULA',
      currency: 'EUR',
      validFrom: '2026-01-01',
      price_fx: formula,
    })
    expect(saved.status).toBe(201)
    expect(saved.body.pricingVersions[0]).toMatchObject({ pricingModel: 'FORMULA', price: 0, price_fx: formula })
    const broken = await draft('CH_DATA', {
      pricingModel: 'FORMULA',
      currency: 'EUR',
      price_fx: '#{quantity > 1000 ? 0.008 0.01}',
    })
    expect(broken.status).toBe(400)
    expect(broken.body).toMatchObject({
      errorCode: 'INVALID_FORMULA',
      message: "price_fx: expected ':' of the conditional, found number 0.01 at position 26",
      details: [{ field: 'price_fx', message: "expected ':' of the conditional, found number 0.01 at position 26" }],
    })
    for (const source of [
      '#{quantity.getClass()}',
      '#{java.lang.System.exit(0)}',
      '#{T(java.lang.Runtime)}',
      'quantity * 2',
    ]) {
      const refused = await draft('CH_DATA', { pricingModel: 'FORMULA', currency: 'EUR', price_fx: source })
      expect(refused.status, source).toBe(400)
      expect(refused.body.message, source).toMatch(/at position \d+$/)
    }
    const withPrice = await draft('CH_DATA', { pricingModel: 'FORMULA', currency: 'EUR', price_fx: formula, price: 3 })
    expect(withPrice.body.details).toEqual([
      { field: 'price', message: 'a FORMULA pricing takes no price (its stored price is 0)' },
    ])
    expect((await versionsOf('CH_DATA'))[0].price_fx).toBe(formula)
    expect((await publish('CH_DATA')).status).toBe(200)
  })

  it('needs catalog.charges.manage to change pricing and catalog.charges.view to read it', async () => {
    const viewer = await t.tokenWithRoles(['catalog.charges.view'])
    const productManager = await t.tokenWithRoles(['catalog.products.manage'])
    const body = { pricingModel: 'FLAT', currency: 'EUR', price: 1 }
    expect((await t.requestAs(viewer, 'PUT', '/api/v1/charges/CH_SETUP/pricing/draft', body)).status).toBe(403)
    expect((await t.requestAs(productManager, 'POST', '/api/v1/charges/CH_SETUP/pricing/publish', {})).status).toBe(403)
    expect((await t.requestAs(viewer, 'GET', '/api/v1/charges/CH_SETUP/pricing')).status).toBe(200)
    expect((await t.requestAs(viewer, 'GET', '/api/v1/charges/CH_SETUP')).status).toBe(200)
    expect((await t.requestAs(productManager, 'GET', '/api/v1/charges/CH_SETUP')).status).toBe(403)
  })

  const evaluate = (code: string, body: Record<string, unknown>) =>
    t.request('POST', `/api/v1/charges/${code}/pricing/evaluate`, body)

  it.each([
    ['2026-01-01', 10],
    ['2026-02-28', 10],
    ['2026-03-01', 12],
    ['2026-06-14', 12],
    ['2026-06-15', 15],
    ['2030-01-01', 15],
  ])('prices by the version valid on %s (end-exclusive timeline): %d', async (date, unitPrice) => {
    const response = await evaluate('CH_TIMELINE', { date })
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    expect(response.body).toMatchObject({ chargeCode: 'CH_TIMELINE', pricingModel: 'FLAT', currency: 'EUR', unitPrice })
  })

  it('has no price before the first version starts (PRICE_NOT_FOUND)', async () => {
    const response = await evaluate('CH_TIMELINE', { date: '2025-12-31' })
    expect(response.status).toBe(400)
    expect(response.body).toMatchObject({
      errorCode: 'PRICE_NOT_FOUND',
      message: 'Charge CH_TIMELINE has no published price on 2025-12-31',
    })
  })

  it.each([
    [{ TIER: 'GOLD', REGION: 'EU' }, 30, 0],
    [{ TIER: 'GOLD', REGION: 'US', USERS: '5' }, 25.5, 1],
    [{ TIER: 'GOLD', REGION: 'US', USERS: '10' }, 20, 2],
    [{ TIER: 'GOLD', REGION: 'APAC' }, 10, 3],
    [{ TIER: 'SILVER', REGION: 'EU' }, 10, 3],
  ])('prices the MATRIX by the first matching row: %j → %d (row %d)', async (attributes, unitPrice, row) => {
    const response = await evaluate('CH_PLAN', { attributes, date: '2026-03-01' })
    expect(response.body).toMatchObject({ pricingModel: 'MATRIX', unitPrice })
    expect(response.body.explanation).toMatch(new RegExp(`^matrix row ${row} `))
  })

  it('answers PRICE_NOT_FOUND naming the charge and the values when no row matches', async () => {
    await created(t, 'POST', '/api/v1/charges', charge('CH_STRICT', 'ONESHOT'))
    await created(t, 'PUT', '/api/v1/charges/CH_STRICT/pricing/draft', {
      pricingModel: 'MATRIX',
      currency: 'EUR',
      columns: [{ code: 'tier', type: 'String', position: 0, attributeCode: 'TIER' }],
      rows: [{ price: 5, values: [{ dimensionCode: 'tier', stringValue: 'GOLD' }] }],
    })
    const response = await evaluate('CH_STRICT', { version: 1, attributes: { TIER: 'SILVER' } })
    expect(response.status).toBe(400)
    expect(response.body).toMatchObject({
      errorCode: 'PRICE_NOT_FOUND',
      message: 'No price of charge CH_STRICT matches the attribute values TIER=SILVER',
    })
    expect((await evaluate('CH_STRICT', { version: 1, attributes: { TIER: 'GOLD' } })).body.status).toBe('DRAFT')
  })

  it.each([
    ['0', 0.01],
    ['-5', 0.01],
    ['1000', 0.01],
    ['1000.5', 0.008],
    ['999999999999999999', 0.008],
  ])('evaluates the FORMULA at quantity %s: %d per unit', async (quantity, unitPrice) => {
    const response = await evaluate('CH_DATA', { quantity, date: '2026-03-01' })
    expect(response.body).toMatchObject({ pricingModel: 'FORMULA', unitPrice })
  })

  it('evaluates formulas in decimal arithmetic and reports evaluation errors with their position', async () => {
    await created(t, 'PUT', '/api/v1/charges/CH_DATA/pricing/draft', {
      pricingModel: 'FORMULA',
      currency: 'EUR',
      validFrom: '2026-09-01',
      price_fx: '#{0.1 + 0.2}',
    })
    const exact = await evaluate('CH_DATA', { version: 2 })
    expect(exact.body.unitPrice).toBe(0.3)
    await created(t, 'PUT', '/api/v1/charges/CH_DATA/pricing/draft', {
      pricingModel: 'FORMULA',
      currency: 'EUR',
      validFrom: '2026-09-01',
      price_fx: '#{attributes.size * 2 / (quantity - 1)}',
    })
    expect((await evaluate('CH_DATA', { version: 2, attributes: { size: '3' }, quantity: 4 })).body.unitPrice).toBe(2)
    const missing = await evaluate('CH_DATA', { version: 2, quantity: 4 })
    expect(missing.status).toBe(400)
    expect(missing.body).toMatchObject({
      errorCode: 'INVALID_FORMULA',
      message: 'price_fx of charge CH_DATA: a null value cannot be used as a number at position 2',
    })
    const zero = await evaluate('CH_DATA', { version: 2, quantity: 1, attributes: { size: '3' } })
    expect(zero.body.message).toBe('price_fx of charge CH_DATA: division by zero at position 22')
    expect((await evaluate('CH_DATA', { version: 9 })).status).toBe(404)
    expect((await evaluate('CH_DATA', { quantity: 'lots' })).status).toBe(400)
  })
})
