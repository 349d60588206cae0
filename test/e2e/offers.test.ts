import { beforeAll, describe, expect, it } from 'vitest'
import { onPostgres } from '../support/test-database.ts'
import { TEST_BASE_URL, useTestApp, type Response } from '../support/test-app.ts'
import { created } from './catalog-fixtures.ts'
import { orderOf, place, seedOrderCatalog } from './order-fixtures.ts'

const t = useTestApp()
const BASE = '/v1/catalog/offers'

beforeAll(async () => {
  await seedOrderCatalog(t)
  for (const code of ['CAT_NET', 'CAT_TV', 'CAT_EVEN', 'CAT_ODD', 'CAT_SEARCH', 'CAT_EMPTY'])
    await created(t, 'POST', '/api/v1/offerTemplateCategories', { code, name: code })
  await created(t, 'POST', '/api/v1/sellers', { code: 'SELLER_B' })
  // A product whose only version is a draft: it has no version in effect.
  await created(t, 'POST', '/api/v1/products', { code: 'PR_NEW', name: 'New product', productLine: 'LINE_X' })
  await created(t, 'POST', '/api/v1/products/PR_NEW/versions', { shortDescription: 'v1' })
})

const api = (method: string, url: string, body?: unknown) => t.request(method, url, body)

/** The offer as the v1 interface shows it. */
const v1 = async (code: string): Promise<Record<string, unknown>> =>
  (await api('GET', `/api/v1/offerTemplates/${code}`)).body as Record<string, unknown>

function expectError(response: Response, status: number, errorCode: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(status)
  expect(response.body).toMatchObject({ status: 'FAIL', errorCode })
  expect(typeof response.body.message).toBe('string')
}

/** The `Link` header as rel → URL. */
function links(response: Response): Record<string, string> {
  const header = response.headers.link as string | undefined
  const result: Record<string, string> = {}
  for (const part of header?.split(', ') ?? []) {
    const match = /^<([^>]+)>; rel="(\w+)"$/.exec(part)
    expect(match, part).not.toBeNull()
    result[match![2]!] = match![1]!
  }
  return result
}

/** The path and query of an absolute URL of the test app. */
const local = (url: string) => {
  expect(url.startsWith(TEST_BASE_URL)).toBe(true)
  return url.slice(TEST_BASE_URL.length)
}

const offerBody = (code: string, extra: Record<string, unknown> = {}) => ({
  code,
  name: `${code} name`,
  description: `${code} description`,
  ...extra,
})

describe('create and read', () => {
  it('creates an offer (201, Location) in snake_case with portal status draft, visible through v1', async () => {
    const before = Date.now()
    const response = await api('POST', BASE, {
      code: 'OF_FIBRE',
      name: 'Fibre',
      description: 'Fibre at home',
      valid_to: '2030-01-01T00:00:00.000Z',
      product_codes: ['PR_NET', 'PR_LICENSE'],
      category_codes: ['CAT_TV', 'CAT_NET'],
      seller_codes: ['MAIN'],
      discount_plan_codes: ['DP_OFFER_10'],
      auto_end_of_engagement: true,
      attributes: { speed: 1000, label: 'fast' },
      offer_service_templates: [{ code: 'SE_SUPPORT', mandatory: true }],
    })
    expect(response.status, JSON.stringify(response.body)).toBe(201)
    expect(response.headers.location).toBe(`${TEST_BASE_URL}${BASE}/OF_FIBRE`)
    expect(response.body).toEqual({
      code: 'OF_FIBRE',
      name: 'Fibre',
      description: 'Fibre at home',
      status: 'draft',
      valid_from: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      valid_to: '2030-01-01T00:00:00.000Z',
      product_codes: ['PR_NET', 'PR_LICENSE'],
      category_codes: ['CAT_NET', 'CAT_TV'],
      seller_codes: ['MAIN'],
      discount_plan_codes: ['DP_OFFER_10'],
      auto_end_of_engagement: true,
      attributes: { speed: 1000, label: 'fast' },
      offer_components: [
        { code: 'PR_NET', mandatory: false, default_quantity: 1, min_quantity: null, max_quantity: null },
        { code: 'PR_LICENSE', mandatory: false, default_quantity: 1, min_quantity: null, max_quantity: null },
      ],
      offer_service_templates: [{ code: 'SE_SUPPORT', mandatory: true }],
    })
    // valid_from defaults to the moment of creation, to the second.
    const validFrom = Date.parse(response.body.valid_from)
    expect(validFrom).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000)
    expect(validFrom).toBeLessThanOrEqual(Date.now())
    expect((await api('GET', `${BASE}/OF_FIBRE`)).body).toEqual(response.body)
    expect(await v1('OF_FIBRE')).toMatchObject({
      code: 'OF_FIBRE',
      name: 'Fibre',
      description: 'Fibre at home',
      lifeCycleStatus: 'IN_DESIGN',
      validFrom: response.body.valid_from,
      validTo: '2030-01-01T00:00:00.000Z',
      autoEndOfEngagement: true,
      offerComponents: [{ productCode: 'PR_NET' }, { productCode: 'PR_LICENSE' }],
      offerServiceTemplates: [{ serviceTemplateCode: 'SE_SUPPORT', mandatory: true }],
      discountPlans: ['DP_OFFER_10'],
      sellers: ['MAIN'],
      offerTemplateCategories: ['CAT_NET', 'CAT_TV'],
    })
  })

  it('shows an offer written through v1 in snake_case, components and legacy services included', async () => {
    await created(t, 'POST', '/api/v1/offerTemplates', {
      code: 'OF_V1',
      name: 'From v1',
      lifeCycleStatus: 'launched',
      validFrom: '2026-01-01',
      offerComponents: [{ productCode: 'PR_LICENSE', mandatory: true, minQuantity: 1, maxQuantity: '10.5' }],
      offerServiceTemplates: [{ serviceTemplateCode: 'SE_SUPPORT' }],
    })
    const offer = (await api('GET', `${BASE}/OF_V1`)).body
    expect(offer).toMatchObject({
      code: 'OF_V1',
      name: 'From v1',
      description: null,
      status: 'live',
      valid_from: '2026-01-01T00:00:00.000Z',
      valid_to: null,
      product_codes: ['PR_LICENSE'],
      offer_components: [
        { code: 'PR_LICENSE', mandatory: true, default_quantity: 1, min_quantity: 1, max_quantity: 10.5 },
      ],
      offer_service_templates: [{ code: 'SE_SUPPORT', mandatory: false }],
      category_codes: [],
    })
  })

  it('expands products with their version in effect today and its charges', async () => {
    await created(t, 'POST', BASE, offerBody('OF_EXPAND', { product_codes: ['PR_LICENSE', 'PR_NET', 'PR_NEW'] }))
    const today = new Date().toISOString().slice(0, 10)
    const expanded = (await api('GET', `${BASE}/OF_EXPAND?expand=products`)).body
    expect(expanded.products).toEqual([
      {
        code: 'PR_LICENSE',
        name: 'PR_LICENSE',
        product_line: null,
        current_version: { version: 1, status: 'PUBLISHED', charge_codes: ['CH_LICENSE'] },
      },
      {
        code: 'PR_NET',
        name: 'PR_NET',
        product_line: null,
        current_version:
          today >= '2026-06-01'
            ? { version: 2, status: 'PUBLISHED', charge_codes: ['CH_MONTHLY', 'CH_SETUP_V2'] }
            : { version: 1, status: 'PUBLISHED', charge_codes: ['CH_DATA', 'CH_MONTHLY', 'CH_SETUP'] },
      },
      { code: 'PR_NEW', name: 'New product', product_line: 'LINE_X', current_version: null },
    ])
    expect((await api('GET', `${BASE}/OF_EXPAND`)).body.products).toBeUndefined()
    expectError(await api('GET', `${BASE}/OF_EXPAND?expand=sellers`), 400, 'OFFER_VALIDATION_FAILED')
  })

  it('projects the fields asked for, code always included', async () => {
    const projected = await api('GET', `${BASE}/OF_FIBRE?fields=name,status`)
    expect(projected.body).toEqual({ code: 'OF_FIBRE', name: 'Fibre', status: 'draft' })
    const withProducts = await api('GET', `${BASE}/OF_FIBRE?fields=status&expand=products`)
    expect(Object.keys(withProducts.body).sort()).toEqual(['code', 'products', 'status'])
    const unknown = await api('GET', `${BASE}/OF_FIBRE?fields=name,colour`)
    expectError(unknown, 400, 'OFFER_VALIDATION_FAILED')
    expect(unknown.body.details).toEqual([{ field: 'fields', message: expect.stringContaining("'colour'") }])
  })

  it('answers 404 OFFER_NOT_FOUND for an unknown code on every route of an offer', async () => {
    for (const [method, url, body] of [
      ['GET', `${BASE}/OF_NONE`, undefined],
      ['PUT', `${BASE}/OF_NONE`, { name: 'x' }],
      ['DELETE', `${BASE}/OF_NONE`, undefined],
      ['POST', `${BASE}/OF_NONE/products`, { product_code: 'PR_NET' }],
      ['DELETE', `${BASE}/OF_NONE/products/PR_NET`, undefined],
    ] as const) {
      const response = await api(method, url, body)
      expectError(response, 404, 'OFFER_NOT_FOUND')
      expect(response.body.message).toBe('Offer OF_NONE not found')
    }
  })

  it('refuses a duplicate code with 409 OFFER_ALREADY_EXISTS', async () => {
    const response = await api('POST', BASE, offerBody('OF_FIBRE'))
    expectError(response, 409, 'OFFER_ALREADY_EXISTS')
    expect((await api('GET', `${BASE}/OF_FIBRE`)).body.name).toBe('Fibre')
  })

  it.each([
    [{ colour: 'red' }, 'colour', 'is not a known field'],
    [{ name: 42 }, 'name', 'expected a string or null'],
    [{ auto_end_of_engagement: 'yes' }, 'auto_end_of_engagement', 'expected true or false'],
    [{ product_codes: ['PR_NET', 'PR_NONE'] }, 'product_codes[1]', "no product with code 'PR_NONE'"],
    [{ category_codes: ['CAT_NONE'] }, 'category_codes[0]', "no offer template category with code 'CAT_NONE'"],
    [{ seller_codes: ['NOBODY'] }, 'seller_codes[0]', "no seller with code 'NOBODY'"],
    [{ discount_plan_codes: ['DP_NONE'] }, 'discount_plan_codes[0]', "no discount plan with code 'DP_NONE'"],
    [
      { offer_service_templates: [{ code: 'SE_NONE' }] },
      'offer_service_templates[0]',
      "no service template with code 'SE_NONE'",
    ],
    [
      { offer_components: [{ code: 'PR_NET', min_quantity: 3, max_quantity: 2 }] },
      'offer_components[0].max_quantity',
      'at least min_quantity',
    ],
    [
      { offer_components: [{ code: 'PR_NET', default_quantity: -1 }] },
      'offer_components[0].default_quantity',
      'at least 0',
    ],
    [{ product_codes: ['PR_NET'], offer_components: [{ code: 'PR_NET' }] }, 'product_codes', 'not both'],
    [{ attributes: { nested: { a: 1 } } }, 'attributes.nested', 'expected a string or a number'],
    [{ attributes: { flag: true } }, 'attributes.flag', 'expected a string or a number'],
    [{ attributes: { list: [1] } }, 'attributes.list', 'expected a string or a number'],
    [{ valid_from: 'yesterday' }, 'valid_from', 'ISO-8601'],
    [{ valid_from: '2026-02-30' }, 'valid_from', 'ISO-8601'],
    [{ valid_to: '2026-01-01T10:00:00' }, 'valid_to', 'ISO-8601'],
    [{ valid_from: '2026-02-01T00:00:00.000Z', valid_to: '2026-01-01' }, 'valid_to', 'after valid_from'],
    [{ valid_from: null }, 'valid_from', 'expected a string'],
    [{ status: 'paused' }, 'status', 'draft, ready, live, retired'],
    [{ status: 'retired' }, 'status', 'a new offer starts in draft (IN_STUDY)'],
    [{ status: 'OBSOLETE' }, 'status', 'not retired (OBSOLETE)'],
    [{ code: 'bad code' }, 'code', 'expected a code: letters, digits'],
  ])(
    'refuses %j with 400 OFFER_VALIDATION_FAILED naming the field, creating nothing',
    async (extra, field, message) => {
      const body = { ...offerBody('OF_INVALID'), ...extra }
      const response = await api('POST', BASE, body)
      expectError(response, 400, 'OFFER_VALIDATION_FAILED')
      expect(response.body.details).toContainEqual({ field, message: expect.stringContaining(message) })
      expect((await api('GET', `${BASE}/${encodeURIComponent(body.code)}`)).status).toBe(404)
    },
  )

  it('refuses a body that is not JSON, or a missing code, with OFFER_VALIDATION_FAILED', async () => {
    const malformed = await t.app.server.inject({
      method: 'POST',
      url: BASE,
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
      payload: '{"code": "OF_X",',
    })
    expect(malformed.statusCode).toBe(400)
    expect(malformed.json()).toMatchObject({ status: 'FAIL', errorCode: 'OFFER_VALIDATION_FAILED' })
    const missing = await api('POST', BASE, { name: 'no code' })
    expectError(missing, 400, 'OFFER_VALIDATION_FAILED')
    expect(missing.body.details).toEqual([{ field: 'code', message: 'is required' }])
  })

  it('starts a new offer in the status it is given, in either vocabulary', async () => {
    for (const [code, status, backend, portal] of [
      ['OF_START_1', 'draft', 'IN_STUDY', 'draft'],
      ['OF_START_2', 'In_Test', 'IN_TEST', 'draft'],
      ['OF_START_3', 'ready', 'ACTIVE', 'ready'],
      ['OF_START_4', 'active', 'ACTIVE', 'ready'],
      ['OF_START_5', 'LIVE', 'LAUNCHED', 'live'],
      ['OF_START_6', 'launched', 'LAUNCHED', 'live'],
    ]) {
      const offer = await created(t, 'POST', BASE, offerBody(code!, { status }))
      expect(offer.status, status).toBe(portal)
      expect((await v1(code!)).lifeCycleStatus, status).toBe(backend)
    }
  })
})

describe('list by range', () => {
  const codes = Array.from({ length: 53 }, (_, i) => `LST_${String(i).padStart(2, '0')}`)

  beforeAll(async () => {
    for (const [i, code] of codes.entries()) {
      const status = ['draft', 'ready', 'IN_TEST'][i % 3]
      await created(t, 'POST', BASE, {
        code,
        name: `Name ${String(52 - i).padStart(2, '0')}`,
        status,
        valid_from: `2026-01-${String((i % 28) + 1).padStart(2, '0')}T00:00:00Z`,
        category_codes: i % 2 === 0 ? ['CAT_EVEN'] : ['CAT_ODD'],
        seller_codes: i % 5 === 0 ? ['SELLER_B'] : [],
      })
    }
  })

  it('walks every page with range and the Link header to the end', async () => {
    const total = (await api('GET', `${BASE}/count`)).body.count as number
    expect(total).toBeGreaterThan(60)
    let url: string | undefined = `${BASE}?range=0-9`
    const seen: string[] = []
    let pages = 0
    while (url) {
      const response = await api('GET', url)
      expect(response.status, url).toBe(206)
      expect(response.headers['accept-range']).toBe('offers 100')
      const first = seen.length
      const last = Math.min(first + 9, total - 1)
      expect(response.headers['content-range']).toBe(`offers ${first}-${last}/${total}`)
      expect(response.body).toHaveLength(last - first + 1)
      seen.push(...response.body.map((o: { code: string }) => o.code))
      const rel = links(response)
      expect(rel.first).toBe(`${TEST_BASE_URL}${BASE}?range=0-9`)
      if (first > 0) expect(rel.prev).toBe(`${TEST_BASE_URL}${BASE}?range=${first - 10}-${first - 1}`)
      else expect(rel.prev).toBeUndefined()
      url = rel.next === undefined ? undefined : local(rel.next)
      pages++
    }
    expect(pages).toBe(Math.ceil(total / 10))
    expect(seen).toHaveLength(total)
    expect(seen).toEqual([...seen].sort())
    expect(seen).toEqual(expect.arrayContaining(codes))
  })

  it('keeps the other parameters in the Link URLs', async () => {
    const response = await api('GET', `${BASE}?category=CAT_EVEN&sort=-code&range=0-4&fields=name`)
    expect(response.status).toBe(206)
    expect(links(response).next).toBe(`${TEST_BASE_URL}${BASE}?category=CAT_EVEN&sort=-code&range=5-9&fields=name`)
    expect(response.body[0]).toEqual({ code: 'LST_52', name: 'Name 00' })
  })

  it('answers 200 when the page holds every offer, 206 otherwise, 416 past the end', async () => {
    const all = await api('GET', `${BASE}?category=CAT_EVEN&range=0-99`)
    expect(all.status).toBe(200)
    expect(all.headers['content-range']).toBe('offers 0-26/27')
    expect(links(all).next).toBeUndefined()
    expect(links(all).last).toBe(`${TEST_BASE_URL}${BASE}?category=CAT_EVEN&range=0-99`)
    const tail = await api('GET', `${BASE}?category=CAT_EVEN&range=20-29`)
    expect(tail.status).toBe(206)
    expect(tail.headers['content-range']).toBe('offers 20-26/27')
    expect(links(tail)).toMatchObject({
      prev: `${TEST_BASE_URL}${BASE}?category=CAT_EVEN&range=10-19`,
      last: `${TEST_BASE_URL}${BASE}?category=CAT_EVEN&range=17-26`,
    })
    expect(links(tail).next).toBeUndefined()
    const past = await api('GET', `${BASE}?category=CAT_EVEN&range=27-30`)
    expectError(past, 416, 'RANGE_NOT_SATISFIABLE')
    expect(past.headers['content-range']).toBe('offers */27')
    const empty = await api('GET', `${BASE}?category=CAT_EMPTY`)
    expect(empty.status).toBe(200)
    expect(empty.body).toEqual([])
    expect(empty.headers['content-range']).toBe('offers */0')
    expect(empty.headers.link).toBeUndefined()
    expectError(await api('GET', `${BASE}?category=CAT_EMPTY&range=1-2`), 416, 'RANGE_NOT_SATISFIABLE')
  })

  it('reads 25 offers by default', async () => {
    const response = await api('GET', BASE)
    expect(response.status).toBe(206)
    expect(response.body).toHaveLength(25)
    expect(response.headers['content-range']).toMatch(/^offers 0-24\/\d+$/)
  })

  it.each(['abc', '5-2', '0-100', '-1-5', '3', '1-2-3'])('refuses range=%s with 400 naming range', async (range) => {
    const response = await api('GET', `${BASE}?range=${range}`)
    expectError(response, 400, 'OFFER_VALIDATION_FAILED')
    expect(response.body.details[0].field).toBe('range')
  })

  it('sorts by name both ways, by status in life-cycle order, by valid_from, with the code last', async () => {
    const read = async (sort: string) =>
      (await api('GET', `${BASE}?category=CAT_EVEN&range=0-99&sort=${sort}`)).body as Record<string, string>[]
    const ascending = await read('name')
    expect(ascending.map((o) => o.name)).toEqual(ascending.map((o) => o.name).sort())
    expect(ascending[0]!.code).toBe('LST_52')
    const descending = await read('-name')
    expect(descending.map((o) => o.code)).toEqual(ascending.map((o) => o.code).reverse())
    // Life-cycle order (the LST offers of CAT_EVEN: i % 3 = 0 IN_STUDY, 2 IN_TEST, 1 ACTIVE), then the code.
    const byStatus = (await read('status')).map((o) => o.code)
    const even = codes.filter((_, i) => i % 2 === 0)
    const withStatus = (r: number) => even.filter((c) => Number(c.slice(4)) % 3 === r)
    expect(byStatus).toEqual([...withStatus(0), ...withStatus(2), ...withStatus(1)])
    expect((await read('-status')).map((o) => o.code)).toEqual([...withStatus(1), ...withStatus(2), ...withStatus(0)])
    const byDate = await read('-valid_from,-code')
    for (let i = 1; i < byDate.length; i++) {
      const [a, b] = [byDate[i - 1]!, byDate[i]!]
      expect(a.valid_from! > b.valid_from! || (a.valid_from === b.valid_from && a.code! > b.code!)).toBe(true)
    }
    const unknown = await api('GET', `${BASE}?sort=price`)
    expectError(unknown, 400, 'OFFER_VALIDATION_FAILED')
    expect(unknown.body.details[0]).toMatchObject({ field: 'sort', message: expect.stringContaining("'price'") })
  })

  it('filters by status (either vocabulary, comma lists), category and seller', async () => {
    const codesOf = async (query: string) =>
      ((await api('GET', `${BASE}?range=0-99&${query}`)).body as { code: string }[])
        .map((o) => o.code)
        .filter((c) => c.startsWith('LST_'))
    const expected = (keep: (i: number) => boolean) => codes.filter((_, i) => keep(i))
    expect(await codesOf('status=draft')).toEqual(expected((i) => i % 3 !== 1))
    expect(await codesOf('status=in_test')).toEqual(expected((i) => i % 3 === 2))
    expect(await codesOf('status=ready')).toEqual(expected((i) => i % 3 === 1))
    expect(await codesOf('status=IN_STUDY,active')).toEqual(expected((i) => i % 3 !== 2))
    expect(await codesOf('category=CAT_ODD')).toEqual(expected((i) => i % 2 === 1))
    expect(await codesOf('category=CAT_ODD,CAT_EVEN')).toEqual(codes)
    expect(await codesOf('seller=SELLER_B&status=ready')).toEqual(expected((i) => i % 5 === 0 && i % 3 === 1))
    expectError(await api('GET', `${BASE}?status=paused`), 400, 'OFFER_VALIDATION_FAILED')
    expectError(await api('GET', `${BASE}?colour=red`), 400, 'OFFER_VALIDATION_FAILED')
  })

  it('counts offers, optionally by status', async () => {
    const all = (await api('GET', `${BASE}/count`)).body.count
    const byStatus = await Promise.all(
      ['draft', 'ready', 'live', 'retired'].map(
        async (s) => (await api('GET', `${BASE}/count?status=${s}`)).body.count as number,
      ),
    )
    expect(byStatus.reduce((a: number, b: number) => a + b, 0)).toBe(all)
    expect((await api('GET', `${BASE}/count?status=ready&category=CAT_EVEN`)).body).toEqual({ count: 9 })
    expectError(await api('GET', `${BASE}/count?status=nope`), 400, 'OFFER_VALIDATION_FAILED')
  })
})

describe('search', () => {
  beforeAll(async () => {
    const offer = async (code: string, fields: Record<string, unknown>): Promise<void> => {
      await created(t, 'POST', BASE, { code, category_codes: ['CAT_SEARCH'], ...fields })
    }
    await offer('SR_A', {
      name: 'Alpha Fibre',
      description: 'first',
      valid_from: '2026-01-01T00:00:00.000Z',
      valid_to: '2026-07-01T00:00:00.000Z',
      seller_codes: ['MAIN'],
      product_codes: ['PR_NET', 'PR_LICENSE'],
    })
    await offer('SR_B', {
      name: 'Beta fibre',
      status: 'ready',
      valid_from: '2026-03-01T00:00:00.000Z',
      product_codes: ['PR_NET'],
    })
    await offer('SR_C', {
      name: 'Gamma',
      description: 'third',
      status: 'live',
      valid_from: '2026-05-01T12:00:00+02:00',
      valid_to: '2027-01-01T00:00:00.000Z',
      seller_codes: ['MAIN', 'SELLER_B'],
      product_codes: ['PR_LICENSE'],
    })
  })

  const search = (body: Record<string, unknown>, query = '') => api('POST', `${BASE}/search${query}`, body)
  /** The SR_ codes a filter finds (the search offers all carry category CAT_SEARCH). */
  const found = async (filters: Record<string, unknown>) => {
    const response = await search({ filters: { category_codes: 'CAT_SEARCH', ...filters }, range: '0-99' })
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    return (response.body as { code: string }[]).map((o) => o.code)
  }

  it.each([
    [{ code: { eq: 'SR_B' } }, ['SR_B']],
    [{ code: 'SR_B' }, ['SR_B']],
    [{ code: ['SR_A', 'SR_C'] }, ['SR_A', 'SR_C']],
    [{ code: { in: ['SR_A', 'SR_C', 'SR_X'] } }, ['SR_A', 'SR_C']],
    [{ code: { ne: 'SR_B' } }, ['SR_A', 'SR_C']],
    [{ code: { gt: 'SR_A' } }, ['SR_B', 'SR_C']],
    [{ code: { gte: 'SR_B' } }, ['SR_B', 'SR_C']],
    [{ code: { lt: 'SR_B' } }, ['SR_A']],
    [{ code: { lte: 'SR_B' } }, ['SR_A', 'SR_B']],
    [{ code: { gt: 'SR_A', lt: 'SR_C' } }, ['SR_B']],
    [{ name: { contains: 'FIBRE' } }, ['SR_A', 'SR_B']],
    [{ name: { eq: 'Gamma' } }, ['SR_C']],
    [{ description: { eq: null } }, ['SR_B']],
    [{ description: { ne: null } }, ['SR_A', 'SR_C']],
    [{ description: { ne: 'first' } }, ['SR_B', 'SR_C']],
    [{ status: 'draft' }, ['SR_A']],
    [{ status: { eq: 'IN_DESIGN' } }, ['SR_A']],
    [{ status: { eq: 'in_study' } }, []],
    [{ status: { ne: 'draft' } }, ['SR_B', 'SR_C']],
    [{ status: { in: ['ready', 'LAUNCHED'] } }, ['SR_B', 'SR_C']],
    [{ status: ['live'] }, ['SR_C']],
    [{ valid_from: { gt: '2026-03-01T00:00:00.000Z' } }, ['SR_C']],
    [{ valid_from: { gte: '2026-03-01' } }, ['SR_B', 'SR_C']],
    [{ valid_from: { lt: '2026-03-01T00:00:00.000Z' } }, ['SR_A']],
    [{ valid_from: { lte: '2026-03-01T00:00:00.000Z' } }, ['SR_A', 'SR_B']],
    [{ valid_from: { eq: '2026-05-01T10:00:00.000Z' } }, ['SR_C']],
    [{ valid_from: { ne: '2026-05-01T10:00:00.000Z' } }, ['SR_A', 'SR_B']],
    [{ valid_from: { in: ['2026-01-01', '2026-03-01T00:00:00.000Z'] } }, ['SR_A', 'SR_B']],
    [{ valid_to: { eq: null } }, ['SR_B']],
    [{ valid_to: { gt: '2026-12-31T00:00:00.000Z' } }, ['SR_B', 'SR_C']],
    [{ valid_to: { lte: '2026-07-01' } }, ['SR_A']],
    [{ seller_codes: 'MAIN' }, ['SR_A', 'SR_C']],
    [{ seller_codes: { eq: 'SELLER_B' } }, ['SR_C']],
    [{ seller_codes: { ne: 'MAIN' } }, ['SR_B']],
    [{ seller_codes: { contains: ['MAIN', 'SELLER_B'] } }, ['SR_C']],
    [{ seller_codes: { in: ['SELLER_B', 'NOBODY'] } }, ['SR_C']],
    [{ product_codes: { contains: 'PR_NET' } }, ['SR_A', 'SR_B']],
    [{ product_codes: ['PR_LICENSE'] }, ['SR_A', 'SR_C']],
  ])('finds %j', async (filters, expected) => {
    expect(await found(filters)).toEqual(expected)
  })

  it.each([
    [{ filters: { price: 1 } }, 'filters.price', 'is not a known field'],
    [{ filters: { status: { gt: 'draft' } } }, 'filters.status.gt', 'eq, ne, in'],
    [{ filters: { valid_from: { contains: '2026' } } }, 'filters.valid_from.contains', 'eq, ne, gt, gte, lt, lte, in'],
    [{ filters: { code: { like: 'SR%' } } }, 'filters.code.like', 'eq, ne, gt, gte, lt, lte, contains, in'],
    [{ filters: { code: { eq: 5 } } }, 'filters.code.eq', 'expected a string'],
    [{ filters: { code: { eq: null } } }, 'filters.code.eq', 'expected a string'],
    [{ filters: { code: {} } }, 'filters.code', 'at least one operator'],
    [{ filters: { code: { in: [] } } }, 'filters.code.in', 'non-empty array'],
    [{ filters: { valid_to: { gt: 'soon' } } }, 'filters.valid_to.gt', 'ISO-8601'],
    [{ filters: { status: 'paused' } }, 'filters.status', "unknown status 'paused'"],
    [{ sort: ['-price'] }, 'sort', "'price'"],
    [{ range: '0-500' }, 'range', 'at most 100'],
    [{ expand: ['sellers'] }, 'expand', "'sellers'"],
    [{ colour: 'red' }, 'colour', 'is not a known field'],
  ])('refuses %j with 400 naming the field', async (body, field, message) => {
    const response = await search(body)
    expectError(response, 400, 'OFFER_VALIDATION_FAILED')
    expect(response.body.details).toContainEqual({ field, message: expect.stringContaining(message) })
  })

  it('sorts, ranges (query range wins over the body) and expands like the list, with Link URLs to POST to', async () => {
    const body = { filters: { category_codes: ['CAT_SEARCH'] }, sort: ['-name'], range: '0-0', expand: ['products'] }
    const first = await search(body)
    expect(first.status).toBe(206)
    expect(first.headers['content-range']).toBe('offers 0-0/3')
    expect(first.headers['accept-range']).toBe('offers 100')
    expect(first.body.map((o: { code: string }) => o.code)).toEqual(['SR_C'])
    expect(first.body[0].products.map((p: { code: string }) => p.code)).toEqual(['PR_LICENSE'])
    const next = links(first).next!
    expect(next).toBe(`${TEST_BASE_URL}${BASE}/search?range=1-1`)
    const second = await search(body, local(next).slice(`${BASE}/search`.length))
    expect(second.headers['content-range']).toBe('offers 1-1/3')
    expect(second.body.map((o: { code: string }) => o.code)).toEqual(['SR_B'])
    const ascending = await search({ ...body, sort: ['name'], range: '0-99', fields: ['status'] })
    expect(ascending.status).toBe(200)
    expect(ascending.body.map((o: { code: string }) => o.code)).toEqual(['SR_A', 'SR_B', 'SR_C'])
    expect(ascending.body[0]).toEqual({ code: 'SR_A', status: 'draft', products: expect.any(Array) })
    expectError(await search(body, '?range=3-5'), 416, 'RANGE_NOT_SATISFIABLE')
  })
})

describe('status transitions in both vocabularies', () => {
  // The transition table: IN_STUDY → IN_DESIGN → IN_TEST → ACTIVE → LAUNCHED → RETIRED → OBSOLETE, IN_TEST → IN_DESIGN,
  // ACTIVE → RETIRED, any draft status → REJECTED, draft statuses among themselves; staying put is allowed.
  const ALLOWED: Record<string, string[]> = {
    IN_STUDY: ['IN_STUDY', 'IN_DESIGN', 'IN_TEST', 'REJECTED'],
    IN_DESIGN: ['IN_STUDY', 'IN_DESIGN', 'IN_TEST', 'REJECTED'],
    IN_TEST: ['IN_STUDY', 'IN_DESIGN', 'IN_TEST', 'ACTIVE', 'REJECTED'],
    ACTIVE: ['ACTIVE', 'LAUNCHED', 'RETIRED'],
    LAUNCHED: ['LAUNCHED', 'RETIRED'],
    RETIRED: ['RETIRED', 'OBSOLETE'],
    OBSOLETE: ['OBSOLETE'],
    REJECTED: ['REJECTED'],
  }
  /** How an offer created draft (IN_DESIGN) reaches each status, through the v1 interface. */
  const PATH: Record<string, string[]> = {
    IN_STUDY: ['IN_STUDY'],
    IN_DESIGN: [],
    IN_TEST: ['IN_TEST'],
    ACTIVE: ['IN_TEST', 'ACTIVE'],
    LAUNCHED: ['IN_TEST', 'ACTIVE', 'LAUNCHED'],
    RETIRED: ['IN_TEST', 'ACTIVE', 'RETIRED'],
    OBSOLETE: ['IN_TEST', 'ACTIVE', 'RETIRED', 'OBSOLETE'],
    REJECTED: ['REJECTED'],
  }
  const PORTAL: Record<string, string> = {
    IN_STUDY: 'draft',
    IN_DESIGN: 'draft',
    IN_TEST: 'draft',
    ACTIVE: 'ready',
    LAUNCHED: 'live',
    RETIRED: 'retired',
    OBSOLETE: 'retired',
    REJECTED: 'retired',
  }
  /** What a portal word asks of an offer in a status: the same status when already in its group, else the first. */
  const PORTAL_TARGET = (word: string, from: string) =>
    PORTAL[from] === word ? from : { draft: 'IN_STUDY', ready: 'ACTIVE', live: 'LAUNCHED', retired: 'RETIRED' }[word]!
  let counter = 0

  async function offerIn(status: string): Promise<string> {
    const code = `TR_${++counter}`
    await created(t, 'POST', BASE, { code })
    for (const step of PATH[status]!)
      await created(t, 'PUT', `/api/v1/offerTemplates/${code}`, { lifeCycleStatus: step }, 200)
    expect((await v1(code)).lifeCycleStatus).toBe(status)
    return code
  }

  async function tryMove(code: string, from: string, word: string, target: string) {
    const response = await api('PUT', `${BASE}/${code}`, { status: word })
    const allowed = ALLOWED[from]!.includes(target)
    if (allowed) {
      expect(response.status, `${from} → ${word}`).toBe(200)
      expect(response.body.status).toBe(PORTAL[target])
      expect((await v1(code)).lifeCycleStatus, `${from} → ${word}`).toBe(target)
    } else {
      expectError(response, 422, 'OFFER_STATUS_TRANSITION_INVALID')
      expect(response.body.message).toContain(`to ${PORTAL[target]} (${target})`)
      expect((await v1(code)).lifeCycleStatus, `${from} → ${word} changed nothing`).toBe(from)
    }
  }

  const statuses = Object.keys(ALLOWED)
  it.each(statuses)(
    'moves an offer in %s to every backend status as the table says (words in any case)',
    async (from) => {
      for (const [i, to] of statuses.entries()) {
        const code = await offerIn(from)
        const word = i % 2 === 0 ? to.toLowerCase() : to
        await tryMove(code, from, word, to)
      }
    },
  )

  it.each(statuses)('moves an offer in %s with each portal word', async (from) => {
    for (const word of ['draft', 'ready', 'live', 'retired']) {
      const code = await offerIn(from)
      await tryMove(code, from, word === 'live' ? 'LIVE' : word, PORTAL_TARGET(word, from))
    }
  })

  it('refuses an unknown status word with 400 naming status', async () => {
    const code = await offerIn('IN_DESIGN')
    const response = await api('PUT', `${BASE}/${code}`, { status: 'sleeping' })
    expectError(response, 400, 'OFFER_VALIDATION_FAILED')
    expect(response.body.details[0].field).toBe('status')
  })
})

describe('upsert, rename and partial update', () => {
  it('creates (201, Location) then updates (200) only the fields sent', async () => {
    const create = await api('POST', `${BASE}/OF_UP`, { name: 'Up', product_codes: ['PR_NET'], status: 'IN_TEST' })
    expect(create.status, JSON.stringify(create.body)).toBe(201)
    expect(create.headers.location).toBe(`${TEST_BASE_URL}${BASE}/OF_UP`)
    expect(create.body).toMatchObject({ code: 'OF_UP', name: 'Up', status: 'draft', product_codes: ['PR_NET'] })
    const update = await api('POST', `${BASE}/OF_UP`, { code: 'OF_UP', description: 'now described', status: 'ready' })
    expect(update.status).toBe(200)
    expect(update.headers.location).toBeUndefined()
    expect(update.body).toMatchObject({
      code: 'OF_UP',
      name: 'Up',
      description: 'now described',
      status: 'ready',
      product_codes: ['PR_NET'],
    })
    expectError(await api('POST', `${BASE}/OF_UP`, { status: 'draft' }), 422, 'OFFER_STATUS_TRANSITION_INVALID')
    const mismatch = await api('POST', `${BASE}/OF_UP`, { code: 'OF_OTHER' })
    expectError(mismatch, 400, 'OFFER_VALIDATION_FAILED')
    expect(mismatch.body.details[0].field).toBe('code')
  })

  it('renames with newCode, visible through v1; a taken newCode is 409 and changes nothing', async () => {
    await created(t, 'POST', BASE, offerBody('OF_OLD', { product_codes: ['PR_LICENSE'] }))
    const renamed = await api('POST', `${BASE}/OF_OLD`, { newCode: 'OF_RENAMED', name: 'Renamed' })
    expect(renamed.status).toBe(200)
    expect(renamed.body).toMatchObject({ code: 'OF_RENAMED', name: 'Renamed', product_codes: ['PR_LICENSE'] })
    expectError(await api('GET', `${BASE}/OF_OLD`), 404, 'OFFER_NOT_FOUND')
    expect(await v1('OF_RENAMED')).toMatchObject({ name: 'Renamed', offerComponents: [{ productCode: 'PR_LICENSE' }] })
    const taken = await api('POST', `${BASE}/OF_RENAMED`, { newCode: 'OF_FIBRE', name: 'Clash' })
    expectError(taken, 409, 'OFFER_ALREADY_EXISTS')
    expect((await api('GET', `${BASE}/OF_RENAMED`)).body.name).toBe('Renamed')
    expect((await api('GET', `${BASE}/OF_FIBRE`)).body.name).toBe('Fibre')
    expect((await api('POST', `${BASE}/OF_RENAMED`, { newCode: 'OF_RENAMED' })).status).toBe(200)
    expectError(await api('POST', `${BASE}/OF_RENAMED`, { newCode: 'bad code' }), 400, 'OFFER_VALIDATION_FAILED')
  })

  it('creates under newCode when the offer does not exist yet', async () => {
    const response = await api('POST', `${BASE}/OF_GHOST`, { newCode: 'OF_REAL', name: 'Real' })
    expect(response.status).toBe(201)
    expect(response.headers.location).toBe(`${TEST_BASE_URL}${BASE}/OF_REAL`)
    expectError(await api('GET', `${BASE}/OF_GHOST`), 404, 'OFFER_NOT_FOUND')
  })

  it('creates through an upsert only under a well-formed code', async () => {
    const response = await api('POST', `${BASE}/${encodeURIComponent('bad code')}`, { name: 'x' })
    expectError(response, 400, 'OFFER_VALIDATION_FAILED')
    expect(response.body.details).toEqual([{ field: 'code', message: expect.stringContaining('expected a code') }])
    expectError(await api('GET', `${BASE}/${encodeURIComponent('bad code')}`), 404, 'OFFER_NOT_FOUND')
  })

  it('changes only the fields a PUT sends; lists replace their set, products keep their settings', async () => {
    await created(t, 'POST', BASE, {
      code: 'OF_PART',
      name: 'Part',
      description: 'kept',
      valid_to: '2031-01-01',
      seller_codes: ['MAIN'],
      offer_components: [{ code: 'PR_NET', mandatory: true, default_quantity: 2, max_quantity: 5 }],
    })
    const response = await api('PUT', `${BASE}/OF_PART`, {
      name: 'Part 2',
      valid_to: null,
      product_codes: ['PR_LICENSE', 'PR_NET'],
      category_codes: ['CAT_NET'],
    })
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    expect(response.body).toMatchObject({
      name: 'Part 2',
      description: 'kept',
      valid_to: null,
      seller_codes: ['MAIN'],
      category_codes: ['CAT_NET'],
      product_codes: ['PR_LICENSE', 'PR_NET'],
      offer_components: [
        { code: 'PR_LICENSE', mandatory: false, default_quantity: 1, min_quantity: null, max_quantity: null },
        { code: 'PR_NET', mandatory: true, default_quantity: 2, min_quantity: null, max_quantity: 5 },
      ],
    })
    const cleared = await api('PUT', `${BASE}/OF_PART`, { seller_codes: [], attributes: { tier: 'gold' } })
    expect(cleared.body).toMatchObject({ seller_codes: [], attributes: { tier: 'gold' }, name: 'Part 2' })
    const bad = await api('PUT', `${BASE}/OF_PART`, { name: 'never', product_codes: ['PR_NONE'] })
    expectError(bad, 400, 'OFFER_VALIDATION_FAILED')
    expect(bad.body.details).toEqual([{ field: 'product_codes[0]', message: "no product with code 'PR_NONE'" }])
    expect((await api('GET', `${BASE}/OF_PART`)).body.name).toBe('Part 2')
    const rename = await api('PUT', `${BASE}/OF_PART`, { newCode: 'OF_PUT' })
    expectError(rename, 400, 'OFFER_VALIDATION_FAILED')
    expect(rename.body.details).toEqual([{ field: 'newCode', message: 'is not a known field' }])
  })

  it('shows a write through v1 in the second interface at once', async () => {
    await created(t, 'PUT', '/api/v1/offerTemplates/OF_PART', { name: 'Via v1', lifeCycleStatus: 'REJECTED' }, 200)
    expect((await api('GET', `${BASE}/OF_PART`)).body).toMatchObject({ name: 'Via v1', status: 'retired' })
  })
})

describe('products of an offer', () => {
  it('adds a product (a product already there stays as it is) and removes it', async () => {
    await created(t, 'POST', BASE, { code: 'OF_PROD', offer_components: [{ code: 'PR_NET', mandatory: true }] })
    const added = await api('POST', `${BASE}/OF_PROD/products`, { product_code: 'PR_LICENSE' })
    expect(added.status, JSON.stringify(added.body)).toBe(200)
    expect(added.body.product_codes).toEqual(['PR_NET', 'PR_LICENSE'])
    const again = await api('POST', `${BASE}/OF_PROD/products`, { product_code: 'PR_NET' })
    expect(again.body.offer_components).toEqual([
      { code: 'PR_NET', mandatory: true, default_quantity: 1, min_quantity: null, max_quantity: null },
      { code: 'PR_LICENSE', mandatory: false, default_quantity: 1, min_quantity: null, max_quantity: null },
    ])
    const unknown = await api('POST', `${BASE}/OF_PROD/products`, { product_code: 'PR_NONE' })
    expectError(unknown, 400, 'OFFER_VALIDATION_FAILED')
    expect(unknown.body.details).toEqual([{ field: 'product_code', message: "no product with code 'PR_NONE'" }])
    expectError(await api('POST', `${BASE}/OF_PROD/products`, {}), 400, 'OFFER_VALIDATION_FAILED')
    const removed = await api('DELETE', `${BASE}/OF_PROD/products/PR_NET`)
    expect(removed.status).toBe(204)
    expect((await api('GET', `${BASE}/OF_PROD`)).body.product_codes).toEqual(['PR_LICENSE'])
    expect((await v1('OF_PROD')).offerComponents).toMatchObject([{ productCode: 'PR_LICENSE' }])
    expectError(await api('DELETE', `${BASE}/OF_PROD/products/PR_NET`), 404, 'NOT_FOUND')
  })
})

describe('delete', () => {
  it.each([
    ['IN_STUDY', [], 204],
    ['IN_DESIGN', [], 204],
    ['IN_TEST', ['IN_TEST'], 204],
    ['ACTIVE', ['IN_TEST', 'ACTIVE'], 422],
    ['LAUNCHED', ['IN_TEST', 'ACTIVE', 'LAUNCHED'], 422],
    ['RETIRED', ['IN_TEST', 'ACTIVE', 'RETIRED'], 204],
    ['OBSOLETE', ['IN_TEST', 'ACTIVE', 'RETIRED', 'OBSOLETE'], 204],
    ['REJECTED', ['REJECTED'], 204],
  ])('deletes an offer in %s only when it is a draft or retired', async (status, path, expected) => {
    const code = `DEL_${status}`
    await created(t, 'POST', BASE, { code, status: status === 'IN_STUDY' ? 'draft' : undefined })
    for (const step of path) await created(t, 'PUT', `${BASE}/${code}`, { status: step }, 200)
    const response = await api('DELETE', `${BASE}/${code}`)
    if (expected === 204) {
      expect(response.status, JSON.stringify(response.body)).toBe(204)
      expectError(await api('GET', `${BASE}/${code}`), 404, 'OFFER_NOT_FOUND')
      expect((await api('GET', `/api/v1/offerTemplates/${code}`)).status).toBe(404)
    } else {
      expectError(response, 422, 'OFFER_STATUS_TRANSITION_INVALID')
      expect(response.body.message).toContain('retire it before deleting it')
      expect((await api('GET', `${BASE}/${code}`)).status).toBe(200)
    }
  })

  it('refuses to delete an offer with ACTIVE subscriptions (422), even retired, in both interfaces', async () => {
    await created(t, 'POST', BASE, {
      code: 'OF_SOLD',
      status: 'ready',
      valid_from: '2020-01-01',
      product_codes: ['PR_LICENSE'],
    })
    await place(
      t,
      orderOf([
        {
          subscriptionCode: 'SUB_SOLD',
          offerTemplateCode: 'OF_SOLD',
          subscriptionDate: '2026-01-15',
          orderProducts: [{ productCode: 'PR_LICENSE', quantity: 1 }],
        },
      ]),
    )
    const active = await api('DELETE', `${BASE}/OF_SOLD`)
    expectError(active, 422, 'OFFER_HAS_ACTIVE_SUBSCRIPTIONS')
    expect(active.body.message).toContain('1 ACTIVE subscription')
    await created(t, 'PUT', `${BASE}/OF_SOLD`, { status: 'retired' }, 200)
    expectError(await api('DELETE', `${BASE}/OF_SOLD`), 422, 'OFFER_HAS_ACTIVE_SUBSCRIPTIONS')
    const throughV1 = await api('DELETE', '/api/v1/offerTemplates/OF_SOLD')
    expect(throughV1.status).toBe(422)
    expect(throughV1.body.errorCode).toBe('OFFER_HAS_ACTIVE_SUBSCRIPTIONS')
    expect((await api('GET', `${BASE}/OF_SOLD`)).body.status).toBe('retired')
  })

  it('keeps a retired offer that pending subscriptions use (409)', async () => {
    await created(t, 'POST', BASE, {
      code: 'OF_PENDING',
      status: 'ready',
      valid_from: '2020-01-01',
      product_codes: ['PR_LICENSE'],
    })
    const order = await api(
      'POST',
      '/api/v1/orders',
      orderOf([
        {
          subscriptionCode: 'SUB_PENDING',
          offerTemplateCode: 'OF_PENDING',
          subscriptionDate: '2026-01-15',
          orderProducts: [{ productCode: 'PR_LICENSE', quantity: 1 }],
        },
      ]),
    )
    expect(order.status, JSON.stringify(order.body)).toBe(201)
    await created(t, 'PUT', `${BASE}/OF_PENDING`, { status: 'retired' }, 200)
    const response = await api('DELETE', `${BASE}/OF_PENDING`)
    expectError(response, 409, 'ENTITY_IN_USE')
    expect(response.body.message).toContain('1 subscription')
  })
})

describe('bulk', () => {
  it('runs each operation on its own, in order, good and bad mixed', async () => {
    await created(t, 'POST', BASE, { code: 'BK_READY', status: 'ready' })
    await created(t, 'POST', BASE, { code: 'BK_DRAFT' })
    const response = await api('POST', `${BASE}/bulk`, {
      operations: [
        { action: 'create', body: { code: 'BK_NEW', name: 'New', product_codes: ['PR_NET'] } },
        { action: 'create', body: { code: 'BK_READY' } },
        { action: 'create', body: { code: 'BK_BAD', colour: 'red' } },
        { action: 'upsert', code: 'BK_UPSERTED', body: { name: 'Upserted' } },
        { action: 'upsert', code: 'BK_READY', body: { name: 'Ready again', status: 'draft' } },
        { action: 'upsert', code: 'BK_NEW', body: { description: 'second write' } },
        { action: 'delete', code: 'BK_DRAFT' },
        { action: 'delete', code: 'BK_READY' },
        { action: 'delete', code: 'BK_NONE' },
        { action: 'explode', code: 'BK_NEW' },
        { action: 'delete' },
        { action: 'create', body: { code: 'BK_UNKNOWN_PLAN', discount_plan_codes: ['DP_NONE'] } },
        'not an object',
      ],
    })
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    const results: any[] = response.body.results
    expect(results.map((r): unknown[] => [r.index, r.action, r.code, r.status])).toEqual([
      [0, 'create', 'BK_NEW', 201],
      [1, 'create', 'BK_READY', 409],
      [2, 'create', 'BK_BAD', 400],
      [3, 'upsert', 'BK_UPSERTED', 201],
      [4, 'upsert', 'BK_READY', 422],
      [5, 'upsert', 'BK_NEW', 200],
      [6, 'delete', 'BK_DRAFT', 204],
      [7, 'delete', 'BK_READY', 422],
      [8, 'delete', 'BK_NONE', 404],
      [9, 'explode', 'BK_NEW', 400],
      [10, 'delete', null, 400],
      [11, 'create', 'BK_UNKNOWN_PLAN', 400],
      [12, null, null, 400],
    ])
    expect(results[0].body).toMatchObject({ code: 'BK_NEW', name: 'New', status: 'draft', product_codes: ['PR_NET'] })
    expect(results[1].error).toMatchObject({ status: 'FAIL', errorCode: 'OFFER_ALREADY_EXISTS' })
    expect(results[2].error).toMatchObject({
      errorCode: 'OFFER_VALIDATION_FAILED',
      details: [{ field: 'colour', message: 'is not a known field' }],
    })
    expect(results[4].error.errorCode).toBe('OFFER_STATUS_TRANSITION_INVALID')
    expect(results[5].body).toMatchObject({ name: 'New', description: 'second write' })
    expect(results[6].body).toBeUndefined()
    expect(results[7].error.errorCode).toBe('OFFER_STATUS_TRANSITION_INVALID')
    expect(results[8].error.errorCode).toBe('OFFER_NOT_FOUND')
    expect(results[9].error.details[0].field).toBe('action')
    expect(results[10].error.details).toEqual([{ field: 'code', message: 'is required to delete' }])
    expect(results[11].error.details).toEqual([
      { field: 'discount_plan_codes[0]', message: "no discount plan with code 'DP_NONE'" },
    ])
    // The failures changed nothing; the successes stayed.
    expect((await api('GET', `${BASE}/BK_READY`)).body).toMatchObject({ status: 'ready', name: null })
    expect((await api('GET', `${BASE}/BK_UPSERTED`)).body.name).toBe('Upserted')
    expectError(await api('GET', `${BASE}/BK_DRAFT`), 404, 'OFFER_NOT_FOUND')
    for (const code of ['BK_BAD', 'BK_UNKNOWN_PLAN']) expect((await api('GET', `${BASE}/${code}`)).status).toBe(404)
  })

  it('keeps the order of the operations naming one offer, while others run beside them', async () => {
    const perOffer = (code: string) => [
      { action: 'create', body: { code, name: 'first' } },
      { action: 'upsert', code, body: { newCode: `${code}_R`, name: 'renamed' } },
      { action: 'create', body: { code, name: 'second' } },
      { action: 'delete', code: `${code}_R` },
      { action: 'upsert', code, body: { description: 'last' } },
    ]
    const operations = Array.from({ length: 12 }, (_, i) => perOffer(`BK_SEQ_${i}`)).flat()
    const response = await api('POST', `${BASE}/bulk`, { operations })
    expect(response.status).toBe(200)
    const results: { index: number; status: number }[] = response.body.results
    expect(results.map((r) => r.index)).toEqual(operations.map((_, i) => i))
    expect(results.map((r) => r.status)).toEqual(operations.map((_, i) => [201, 200, 201, 204, 200][i % 5]))
    for (let i = 0; i < 12; i++) {
      expect((await api('GET', `${BASE}/BK_SEQ_${i}`)).body).toMatchObject({ name: 'second', description: 'last' })
      expect((await api('GET', `${BASE}/BK_SEQ_${i}_R`)).status).toBe(404)
    }
  })

  it('refuses a bulk without operations, or with more than 1000', async () => {
    expectError(await api('POST', `${BASE}/bulk`, { operations: [] }), 400, 'OFFER_VALIDATION_FAILED')
    expectError(await api('POST', `${BASE}/bulk`, {}), 400, 'OFFER_VALIDATION_FAILED')
    const many = Array.from({ length: 1001 }, () => ({ action: 'delete', code: 'X' }))
    expectError(await api('POST', `${BASE}/bulk`, { operations: many }), 400, 'OFFER_VALIDATION_FAILED')
  })
})

describe('access', () => {
  it('needs catalog.offers.view to read and catalog.offers.manage to write', async () => {
    const viewer = await t.tokenWithRoles(['catalog.offers.view'])
    expect((await t.requestAs(viewer, 'GET', BASE)).status).toBe(206)
    expect((await t.requestAs(viewer, 'GET', `${BASE}/OF_FIBRE`)).status).toBe(200)
    expect((await t.requestAs(viewer, 'GET', `${BASE}/count`)).status).toBe(200)
    expect((await t.requestAs(viewer, 'POST', `${BASE}/search`, {})).status).toBe(206)
    const writes = [
      ['POST', BASE, { code: 'OF_DENIED' }],
      ['POST', `${BASE}/OF_FIBRE`, { name: 'x' }],
      ['PUT', `${BASE}/OF_FIBRE`, { name: 'x' }],
      ['DELETE', `${BASE}/OF_FIBRE`, undefined],
      ['POST', `${BASE}/OF_FIBRE/products`, { product_code: 'PR_NET' }],
      ['DELETE', `${BASE}/OF_FIBRE/products/PR_NET`, undefined],
      ['POST', `${BASE}/bulk`, { operations: [{ action: 'delete', code: 'OF_FIBRE' }] }],
    ] as const
    for (const [method, url, body] of writes) {
      const response = await t.requestAs(viewer, method, url, body)
      expectError(response, 403, 'FORBIDDEN')
      expect(response.body.message).toContain('catalog.offers.manage')
    }
    const other = await t.tokenWithRoles(['catalog.products.view'])
    const denied = await t.requestAs(other, 'GET', BASE)
    expectError(denied, 403, 'FORBIDDEN')
    expect(denied.body.message).toContain('catalog.offers.view')
    expectError(await t.requestAs(undefined, 'GET', BASE), 401, 'UNAUTHORIZED')
    expect((await api('GET', `${BASE}/OF_FIBRE`)).body.name).toBe('Fibre')
  })

  it('describes every operation in the OpenAPI document with its role', async () => {
    const document = (await api('GET', '/api/openapi.json')).body
    const operations = [
      ['get', '/v1/catalog/offers'],
      ['post', '/v1/catalog/offers'],
      ['post', '/v1/catalog/offers/search'],
      ['get', '/v1/catalog/offers/count'],
      ['post', '/v1/catalog/offers/bulk'],
      ['get', '/v1/catalog/offers/{code}'],
      ['post', '/v1/catalog/offers/{code}'],
      ['put', '/v1/catalog/offers/{code}'],
      ['delete', '/v1/catalog/offers/{code}'],
      ['post', '/v1/catalog/offers/{code}/products'],
      ['delete', '/v1/catalog/offers/{code}/products/{product_code}'],
    ]
    for (const [method, path] of operations) {
      const operation = document.paths[path!]?.[method!]
      expect(operation, `${method} ${path}`).toBeDefined()
      expect(operation.summary).toBeTruthy()
      expect(operation.tags).toEqual(['Offers (second interface)'])
      expect(operation.description).toMatch(/Required role: `catalog\.offers\.(view|manage)`/)
    }
  })
})

describe.skipIf(!onPostgres)('concurrent writes (needs PostgreSQL: set TEST_DATABASE_URL)', () => {
  it('lets one of two simultaneous creates of a code win: one 201, one 409', async () => {
    for (let round = 0; round < 5; round++) {
      const code = `RACE_${round}`
      const results = await Promise.all([1, 2].map((n) => api('POST', BASE, { code, name: `writer ${n}` })))
      expect(results.map((r) => r.status).sort()).toEqual([201, 409])
      expect(results.find((r) => r.status === 409)!.body.errorCode).toBe('OFFER_ALREADY_EXISTS')
      expect((await api('GET', `${BASE}/${code}`)).body.name).toBe(results.find((r) => r.status === 201)!.body.name)
    }
  })

  it('turns the loser of two simultaneous upserts creating a code into an update: one 201, one 200', async () => {
    for (let round = 0; round < 5; round++) {
      const code = `RACE_UP_${round}`
      const results = await Promise.all(['one', 'two'].map((d) => api('POST', `${BASE}/${code}`, { description: d })))
      expect(results.map((r) => r.status).sort()).toEqual([200, 201])
    }
  })
})
